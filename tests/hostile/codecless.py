"""Adapters that try the gate's doors of issue #38: each either has no codec of its own (it answers from the vector
files the install ships) or has one with a single fault the comparison used to miss. Every one must end in a
non-zero exit.

    python tests/hostile/codecless.py MODE

Modes:
  rounds-lookup      declares assign only and answers each rebalance round from the installed rounds.jsonl (the round
                     whose members are the request's); declines a round the file does not hold
  rounds-one-real    the same, but answers the first round the file does not hold with the built-in leader
  probe-cells        declares only cells the generator drew no value of (SubscriptionInfo v0 and v12-, AssignmentInfo
                     v0 and v12-, ShareGroupHeartbeatRequest v0) and answers from the vector files: a valid vector's
                     value or bytes, an error for an invalid vector's; declines the rest
  probe-cells-rounds the same, and assign too, from rounds.jsonl
  one-real           answers the vector files' requests from the files; the first request of each op and message (and
                     API) the files do not hold with the built-in codec, every later one with an error
  one-real-decline   the same, but declines every later one
  lookup-all-rounds  one-real, and rounds from rounds.jsonl (the first other round from the built-in leader)
  extra-tags         the built-in codec, but every struct of a decoded value gains an unknown tagged field
  extra-tags-empty   the built-in codec, but a decoded struct's existing _unknownTaggedFields gains one more tag
  extra-client-tags  the built-in codec, but every clientTags map of a decoded value gains a tag
  floats             the built-in codec, but every integer of a decoded value is answered as a float
  round-junk         the built-in leader, but each assignment has a byte of junk after its ConsumerProtocol struct
  round-junk-inner   the built-in leader, but each assignment's AssignmentInfo has a byte of junk after it
  encode-junk        the built-in codec, but every encoded message has a byte of junk after it
  lag                the built-in codec one request behind: each request gets the previous request's answer (and id);
                     the first of each process, which has none, a decline
  lag-echo           lag, but each reply carries the id of the request it is sent for (the answer is still the
                     previous request's)

Every mode echoes the request's ``id`` (protocol 2), except ``lag``, which sends the id of the request it answers.
``lag-echo`` echoes the id and answers the previous request: no id can tell it, only the answers.
"""

from __future__ import annotations

import json
import sys

from codec.conformance.impl import handle_request

NO = {"error": {"message": "no"}}
PROBE_CELLS = [
    {"op": ["decode", "encode"], "message": ["AssignmentInfo", "SubscriptionInfo"], "versions": [0, "12-"]},
    {"op": ["decode", "encode"], "message": "ShareGroupHeartbeatRequest", "versions": 0},
]


def _key(op: str, message, version, what) -> str:
    return json.dumps([op, message, version, what], sort_keys=True)


class Files:
    """What the installed vector files answer: every valid vector's two answers, an error for every invalid vector's
    request, and every rebalance round's assignments keyed by its members."""

    def __init__(self) -> None:
        from codec.conformance.vectors import load_rounds, load_vectors

        self.table: dict[str, dict] = {}
        for v in load_vectors():
            version = v.get("version")
            if v["result"] == "valid":
                self._put(_key("decode", v["message"], version, v["wire"]), {"value": v["expected"]})
                self._put(_key("encode", v["message"], version, v["expected"]), {"wire": v["wire"]})
            elif "wire" in v:
                self._put(_key("decode", v["message"], version, v["wire"]), NO)
            else:
                self._put(_key("encode", v["message"], version, v["expected"]), NO)
        self.rounds = {
            json.dumps(r["members"], sort_keys=True): {
                "assignments": {a["memberId"]: a["assignment"] for a in r["assignments"]}
            }
            for r in load_rounds()
        }

    def _put(self, key: str, answer: dict) -> None:
        """One answer a request: a request two vectors answer differently (a value two encodings read back to) is
        declined, so that the table never answers wrong."""
        self.table[key] = answer if self.table.get(key, answer) == answer else {"unsupported": "ambiguous"}

    def answer(self, req: dict) -> dict | None:
        if req.get("op") == "assign":
            return self.rounds.get(json.dumps(req["round"]["members"], sort_keys=True))
        what = req.get("wire") if req.get("op") == "decode" else req.get("value")
        return self.table.get(_key(req.get("op"), req.get("message"), req.get("version"), what))


def _everywhere(value, change):
    """``value`` with ``change`` applied to every object in it (innermost first)."""
    if isinstance(value, dict):
        return change({k: _everywhere(x, change) for k, x in value.items()})
    if isinstance(value, list):
        return [_everywhere(x, change) for x in value]
    return value


def _floats(value):
    if isinstance(value, bool) or not isinstance(value, (int, dict, list)):
        return value
    if isinstance(value, int):
        return float(value) if abs(value) <= 2**53 else value
    if isinstance(value, dict):
        return {k: _floats(x) for k, x in value.items()}
    return [_floats(x) for x in value]


def _with_junk_inner(hex_assignment: str) -> str:
    """The ConsumerProtocol assignment with a byte of junk after the AssignmentInfo in its user data."""
    from dataclasses import replace

    from codec.group import decode_consumer, encode_consumer

    cpa = decode_consumer("ConsumerProtocolAssignment", bytes.fromhex(hex_assignment))
    return encode_consumer(replace(cpa, data=replace(cpa.data, user_data=bytes(cpa.data.user_data) + b"\x00"))).hex()


class Cheat:
    def __init__(self, mode: str) -> None:
        self.mode = mode
        self.files = Files() if mode.startswith(("rounds", "probe", "one-real", "lookup")) else None
        self.real_done: set = set()
        self.previous: dict | None = None

    def answer(self, req: dict) -> dict:
        mode, op = self.mode, req.get("op")
        if op == "capabilities":
            if mode.startswith("rounds"):
                return {"capabilities": [{"op": "assign"}]}
            if mode.startswith("probe-cells"):
                return {"capabilities": PROBE_CELLS + ([{"op": "assign"}] if mode.endswith("rounds") else [])}
            return handle_request(req)
        if self.files is not None:
            known = self.files.answer(req)
            if known is not None:
                return known
            if mode in ("rounds-lookup", "probe-cells", "probe-cells-rounds"):
                return {"unsupported": "not in the files"}
            what = (op, req.get("message"), req.get("apiKey"))
            if what not in self.real_done:
                self.real_done.add(what)
                return handle_request(req)
            return {"unsupported": "not in the files"} if mode in ("one-real-decline", "rounds-one-real") else NO
        out = handle_request(req)
        if mode.startswith("extra-tags") and "value" in out:
            if mode == "extra-tags":
                out = {
                    "value": _everywhere(
                        out["value"],
                        lambda d: {**d, "_unknownTaggedFields": {**d.get("_unknownTaggedFields", {}), "9999": "00"}},
                    )
                }
            else:
                out = {
                    "value": _everywhere(
                        out["value"],
                        lambda d: (
                            {**d, "_unknownTaggedFields": {**d["_unknownTaggedFields"], "9999": "00"}}
                            if d.get("_unknownTaggedFields")
                            else d
                        ),
                    )
                }
        elif mode == "extra-client-tags" and "value" in out:
            out = {
                "value": _everywhere(
                    out["value"],
                    lambda d: (
                        {**d, "clientTags": {**d["clientTags"], "extra-tag": "x"}}
                        if isinstance(d.get("clientTags"), dict)
                        else d
                    ),
                )
            }
        elif mode == "floats" and "value" in out:
            out = {"value": _floats(out["value"])}
        elif mode == "round-junk" and "assignments" in out:
            out = {"assignments": {m: a + "00" for m, a in out["assignments"].items()}}
        elif mode == "round-junk-inner" and "assignments" in out:
            out = {"assignments": {m: _with_junk_inner(a) for m, a in out["assignments"].items()}}
        elif mode == "encode-junk" and "wire" in out:
            out = {"wire": out["wire"] + "00"}
        return out

    def reply(self, req: dict) -> dict:
        out = dict(self.answer(req))
        if not self.mode.startswith("lag"):
            return {"id": req.get("id"), **out}
        answered = self.previous or {"id": req.get("id"), "unsupported": "starting"}
        self.previous = {"id": req.get("id"), **out}
        return {**answered, "id": req.get("id")} if self.mode == "lag-echo" else answered


def main(mode: str) -> int:
    cheat = Cheat(mode)
    for line in sys.stdin:
        sys.stdout.write(json.dumps(cheat.reply(json.loads(line))) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
