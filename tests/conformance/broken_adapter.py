"""A deliberately broken implementation for the conformance tests: it speaks the line protocol through the
built-in codec, then breaks one thing.

    python tests/conformance/broken_adapter.py le-counts      # writes array counts little-endian
    python tests/conformance/broken_adapter.py drop-versions  # decodes every message as version 0
    python tests/conformance/broken_adapter.py swap-int32     # JoinGroupRequest's two int32 timeouts swapped
"""

from __future__ import annotations

import json
import sys

from codec.conformance.impl import handle_request
from codec.wire.builder import field_offsets
from codec.wire.schema import load_message


def _array_fields(message: str) -> set[str]:
    spec = load_message(message)
    return {f.py_name for s in spec.structs.values() for f in s.fields if f.is_array}


def little_endian_counts(message: str, version: int, wire: bytes) -> bytes:
    arrays = _array_fields(message)
    out = bytearray(wire)
    for path, offset in field_offsets(message, version, wire).items():
        if path.rsplit(".", 1)[-1] in arrays:
            out[offset : offset + 4] = out[offset : offset + 4][::-1]
    return bytes(out)


def _swapped(value: dict) -> dict:
    """JoinGroupRequest with sessionTimeoutMs and rebalanceTimeoutMs (two adjacent int32 fields, v1+) swapped,
    as a codec whose field table lists them the wrong way round reads and writes them."""
    if "rebalanceTimeoutMs" not in value:
        return value
    return {**value, "sessionTimeoutMs": value["rebalanceTimeoutMs"], "rebalanceTimeoutMs": value["sessionTimeoutMs"]}


def main(mode: str) -> int:
    for line in sys.stdin:
        req = json.loads(line)
        swap = mode == "swap-int32" and req.get("message") == "JoinGroupRequest"
        if swap and req["op"] == "encode" and isinstance(req.get("value"), dict):
            req = {**req, "value": _swapped(req["value"])}
        resp = handle_request(req)
        if swap and req["op"] == "decode" and "value" in resp:
            resp["value"] = _swapped(resp["value"])
        if mode == "le-counts" and req["op"] == "encode" and "wire" in resp:
            wire = bytes.fromhex(resp["wire"])
            version = int.from_bytes(wire[:4], "big", signed=True)
            resp["wire"] = little_endian_counts(req["message"], version, wire).hex()
        elif mode == "drop-versions" and req["op"] == "decode" and "value" in resp:
            resp["value"]["version"] = 0
        print(json.dumps({"id": req.get("id"), **resp}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
