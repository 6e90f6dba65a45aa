"""Adapters without a codec that try to pass the gate anyway (issue #27): each must end with 0 passed.

    python tests/conformance/cheat_adapter.py MODE

Modes:
  echo              declines every decode but remembers its wire, and answers an encode of the same message and
                    version with the last one remembered (declines it when it has none)
  echo-any-version  the same, remembering the last wire of each message whatever its version
  echo-any-message  the same, answering any encode with the last wire of any decode
  echo-values       the other way round: declines every encode but remembers its value (in the file ECHO_FILE, so a
                    fresh process has them too), and answers a decode of the same message and version with a value
                    remembered whose every string is in the bytes (declines it when none is)
  lookup            knows the suite by heart: answers a decode of a vector's wire with its expected value and an
                    encode of a vector's expected value with its wire, from the vector files; declines the rest
  no-valid-cells    declares only the cells where no valid vector exists (AssignmentInfo and SubscriptionInfo v0 and
                    v12-) and answers an error to everything
  from-version      answers a decode from the request's version and readerVersion alone (the cross-version matrix
                    as Kafka implies it), reading no byte; declines everything else
  refuse-all        answers an error to everything
  decode-only-error declines every encode and the capabilities request, and answers an error to every decode
  encode-only-error declines every decode and the capabilities request, and answers an error to every encode
"""

from __future__ import annotations

import json
import os
import sys

_NO_VALID = [{"op": ["decode", "encode"], "message": ["AssignmentInfo", "SubscriptionInfo"], "versions": [0, "12-"]}]


def answer(mode: str, req: dict, memory: dict) -> dict:
    op, message, version = req.get("op"), req.get("message"), req.get("version")
    no = {"error": {"message": "no"}}
    if mode in ("refuse-all",):
        return no
    if mode == "no-valid-cells":
        return {"capabilities": _NO_VALID} if op == "capabilities" else no
    if mode in ("decode-only-error", "encode-only-error"):
        return no if op == mode.split("-")[0] else {"unsupported": f"no {op}"}
    if mode == "from-version":
        if op != "decode":
            return {"unsupported": "reads no bytes"}
        reader = req.get("readerVersion") or version
        if message == "AssignmentInfo" and version > reader:
            return no
        probe = message == "SubscriptionInfo" and version > reader
        return {
            "value": {
                "version": version,
                "latestSupportedVersion": version,
                **({"futureVersion": True} if probe else {}),
            }
        }
    if mode == "lookup":
        table = _suite(memory)
        known = table.get(json.dumps([op, message, version, req.get("wire", req.get("value"))], sort_keys=True))
        return known or {"unsupported": "not a vector of the suite"}
    if mode == "echo-values":
        remembered = _load(memory)
        if op == "encode":
            _save(message, version, req["value"])
            return {"unsupported": "remembers values"}
        wire = bytes.fromhex(req.get("wire", ""))
        for value in remembered.get(f"{message} {version}", ()):
            if all(s.encode("utf-8", "surrogatepass") in wire for s in _strings(value)):
                return {"value": value}
        return {"unsupported": "nothing remembered"}
    key = {"echo": f"{message} {version}", "echo-any-version": message, "echo-any-message": "any"}[mode]
    if op == "decode":
        memory[key] = req["wire"]
        return {"unsupported": "remembers wires"}
    if op == "encode" and key in memory:
        return {"wire": memory[key]}
    return {"unsupported": "nothing remembered"}


def _suite(memory: dict) -> dict:
    """Every valid vector's two answers, keyed by the request that asks for them."""
    if not memory:
        from codec.conformance.vectors import load_vectors

        for v in load_vectors():
            if v["result"] == "valid":
                memory[json.dumps(["decode", v["message"], v.get("version"), v["wire"]], sort_keys=True)] = {
                    "value": v["expected"]
                }
                memory[json.dumps(["encode", v["message"], v.get("version"), v["expected"]], sort_keys=True)] = {
                    "wire": v["wire"]
                }
    return memory


def _strings(v) -> list[str]:
    if isinstance(v, str):
        return [v]
    if isinstance(v, dict):
        return [s for x in v.values() for s in _strings(x)]
    if isinstance(v, list):
        return [s for x in v for s in _strings(x)]
    return []


def _save(message: str, version, value) -> None:
    with open(os.environ["ECHO_FILE"], "a", encoding="utf-8") as f:
        f.write(json.dumps([message, version, value]) + "\n")


def _load(memory: dict) -> dict:
    """What the processes before this one remembered (read once a process)."""
    if not memory:
        memory["loaded"] = True
        if os.path.exists(os.environ["ECHO_FILE"]):
            with open(os.environ["ECHO_FILE"], encoding="utf-8") as f:
                for line in f:
                    message, version, value = json.loads(line)
                    memory.setdefault(f"{message} {version}", []).append(value)
    return memory


def main(mode: str) -> int:
    memory: dict = {}
    for line in sys.stdin:
        req = json.loads(line)
        sys.stdout.write(json.dumps({"id": req.get("id"), **answer(mode, req, memory)}) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
