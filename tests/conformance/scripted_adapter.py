"""A line-protocol adapter for the runner's tests: the built-in codec, with one behaviour changed.

    python tests/conformance/scripted_adapter.py MODE [LOG]

Modes:
  decline-streams   answers {"unsupported": ...} for SubscriptionInfo and AssignmentInfo (any op), and for
                    capabilities (so it is asked everything)
  declare           declares decode of JoinGroupResponse v0-5 and encode of JoinGroupRequest v3-; any other
                    request is answered {"value": "UNDECLARED"} (which fails)
  reject-all        answers {"error": {"message": "not implemented"}} to everything
  drop-instance-id  encodes a JoinGroupRequest below v5 without its groupInstanceId (as kafka-python does)
  crash-on-capabilities  exits on the capabilities request; honest otherwise
  bad-declaration   answers capabilities with a declaration that is not one; honest otherwise
  honest            the built-in codec's answers, unchanged
LOG, when given, gets one line per request: the request's op, message and version.
"""

from __future__ import annotations

import json
import sys

from codec.conformance.impl import handle_request


def answer(mode: str, req: dict) -> dict:
    op, message, version = req.get("op"), req.get("message"), req.get("version")
    if mode == "decline-streams":
        if op == "capabilities" or message in ("SubscriptionInfo", "AssignmentInfo"):
            return {"unsupported": "no Kafka Streams metadata here"}
    elif mode == "declare":
        if op == "capabilities":
            return {
                "capabilities": [
                    {"op": "decode", "message": "JoinGroupResponse", "versions": "0-5"},
                    {"op": ["encode"], "message": ["JoinGroupRequest"], "versions": ["3-"]},
                ]
            }
        if not (
            (op == "decode" and message == "JoinGroupResponse" and 0 <= version <= 5)
            or (op == "encode" and message == "JoinGroupRequest" and version >= 3)
        ):
            return {"value": "UNDECLARED"}
    elif mode == "reject-all":
        return {"error": {"message": "not implemented"}}
    elif mode == "drop-instance-id":
        if op == "encode" and message == "JoinGroupRequest" and version < 5:
            req = {**req, "value": {k: v for k, v in req["value"].items() if k != "groupInstanceId"}}
    elif mode == "crash-on-capabilities" and op == "capabilities":
        sys.exit(4)
    elif mode == "bad-declaration" and op == "capabilities":
        return {"capabilities": [{"op": "transmogrify"}]}
    return handle_request(req)


def main(mode: str, log: str | None) -> int:
    out = open(log, "a", encoding="utf-8") if log else None  # noqa: SIM115 - open for the whole run
    for line in sys.stdin:
        req = json.loads(line)
        if out:
            out.write(json.dumps([req.get("op"), req.get("message"), req.get("version")]) + "\n")
            out.flush()
        sys.stdout.write(json.dumps({"id": req.get("id"), **answer(mode, req)}) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else None))
