"""Adapters that attack the runner itself (issue #27, "a bounded runner"): the built-in codec behind the line
protocol, with one hostile behaviour.

    python tests/conformance/hostile_adapter.py MODE

Modes:
  long-texts        rejects every decode with a 200,000-character error message and declines every encode and the
                    capabilities request with a 200,000-character reason
  many-ranges       declares 100,000 version ranges (every other version of 0-199,999, for decode and encode of
                    every message); honest otherwise
  answer-once       declines the first request after each start, then hangs on the next
  slow              honest, but takes 0.05 s over each answer
  flood-stderr      honest, while a thread writes to stderr without end
  many-objects      answers its first request after capabilities with 6 MB of empty JSON objects (2 million, which
                    read would take hundreds of MB), then is honest
  nasty-texts       every text it writes (error messages, reasons, member ids of an assignment, the message names it
                    declares) holds noncharacters, bidi overrides, invisible and control characters; values are
                    honest
"""

from __future__ import annotations

import json
import sys
import threading
import time

LONG = 200_000
NASTY = "x\ufffe\uffff\U0001fffe\ufdd0\u202e\u2066\u200b\ufeff\x1b[2J\x00\ud800\x85\u2028!"


def handle_request(req: dict) -> dict:
    """The built-in codec's answer (loaded when first needed: answer-once never loads it)."""
    from codec.conformance.impl import handle_request as builtin

    return builtin(req)


def answer(mode: str, req: dict, state: dict) -> dict | None:
    op = req.get("op")
    if mode == "long-texts":
        if op == "decode":
            return {"error": {"message": "e" * LONG}}
        return {"unsupported": "u" * LONG}
    if mode == "many-ranges" and op == "capabilities":
        ranges = [str(v) for v in range(0, 200_000, 2)]
        return {"capabilities": [{"op": ["decode", "encode"], "versions": ranges}]}
    if mode == "many-objects" and op != "capabilities" and not state.get("sent"):
        state["sent"] = True
        return None  # main() writes the line itself: json.dumps of it would take longer than the runner waits
    if mode == "answer-once":  # (answers without loading the codec: a start costs only the interpreter's)
        state["n"] = state.get("n", 0) + 1
        if state["n"] > 1:
            time.sleep(3600)
        return {"unsupported": "answers once"}
    if mode == "slow":
        time.sleep(0.05)
    if mode == "nasty-texts":
        if op == "capabilities":
            return {
                "capabilities": [{"op": ["decode", "encode"]}, {"op": "assign", "message": ["RebalanceRound", NASTY]}]
            }
        if op == "assign":
            return {"assignments": {NASTY * 3: "00"}}
        resp = handle_request(req)
        if "error" in resp:
            return {"error": {"message": NASTY * 40}}
        if req.get("message") == "SyncGroupRequest":
            return {"unsupported": NASTY * 40}
        if req.get("message") == "JoinGroupRequest" and op == "decode":
            return {"value": {"groupId": NASTY}}
        return resp
    return handle_request(req)


def _flood() -> None:
    chunk = ("stderr flood " * 5000 + "\n").encode()
    while True:
        sys.stderr.buffer.write(chunk)
        sys.stderr.buffer.flush()


def main(mode: str) -> int:
    if mode == "flood-stderr":
        threading.Thread(target=_flood, daemon=True).start()
    state: dict = {}
    for line in sys.stdin:
        req = json.loads(line)
        reply = answer(mode, req, state)
        rid = json.dumps(req.get("id"))
        sys.stdout.write(
            json.dumps({"id": req.get("id"), **reply}) + "\n"
            if reply is not None
            else '{"id": ' + rid + ', "value": [' + "{}," * 1_999_999 + "{}]}\n"
        )
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
