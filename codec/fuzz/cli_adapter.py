"""The command-line fuzzer's hostile adapter (``python -m codec.fuzz.cli adapter``): a line-protocol adapter that
answers each request of the conformance runner with a mutated reply."""

from __future__ import annotations

import hashlib
import json
import os
import random
import sys
import time
from typing import Any

from .cli_inputs import json_text, mutate_value

__all__ = ["adapter_reply", "adapter_main"]

# --- the hostile adapter ----------------------------------------------------------------------------------

# replies the line protocol does not define (vectors/README.md): each must fail whatever vector it answers
_FAILURE_REPLIES = (
    b"",
    b" ",
    b"not json",
    b"\xff\xfe",
    b"[]",
    b"5",
    b"null",
    b'"x"',
    b"true",
    b"{}",
    b'{"error": "x"}',
    b'{"error": {}}',
    b'{"error": {"message": 5}}',
    b'{"error": null}',
    b'{"wire": "zz"}',
    b'{"wire": 5}',
    b'{"wire": null}',
    b'{"wire": "abc"}',
    b'{"assignments": []}',
    b'{"assignments": {"m": 5}}',
    b'{"assignments": "x"}',
    b'{"assignments": {"m": "zz"}}',
    b'{"valu": 1}',
    b"NaN",
    b"[" * 100000,
    b"{" * 5000,
)


def adapter_reply(req_line: bytes, rng: random.Random, mode: str, p: float, max_reply: int) -> tuple[str, bytes]:
    """(what to do, the bytes to write) for one request."""
    from ..conformance.impl import handle_request
    from ..text import dumps

    r = rng.random()
    if mode == "fail":
        if r < 0.015:
            return "exit", b""
        if r < 0.02:
            return "silent", b""
        if r < 0.05:
            return "flood", b""
        reply = rng.choice(_FAILURE_REPLIES)
        return "reply", reply + b"\n"
    try:
        req = json.loads(req_line)
        honest = handle_request(req) if isinstance(req, dict) else {"error": {"message": "not an object"}}
    except (ValueError, RecursionError):
        req, honest = None, {"error": {"message": "request is not JSON"}}
    # the line protocol's version 2: a reply names the request it answers (the replies below that do not fail)
    honest = {"id": req.get("id") if isinstance(req, dict) else None, **honest}
    if r >= p:
        return "reply", dumps(honest).encode("utf-8") + b"\n"
    r = rng.random()
    if r < 0.01:
        return "exit", b""
    if r < 0.015:
        return "silent", b""
    if r < 0.04:
        return "flood", b""
    if r < 0.08:  # two lines for one request: the runner is out of step from here on
        return "reply", dumps(honest).encode("utf-8") + b"\n" + rng.choice(_FAILURE_REPLIES[:12]) + b"\n"
    if r < 0.4:
        return "reply", rng.choice(_FAILURE_REPLIES) + b"\n"
    if r < 0.5:  # an error whose message is hostile text
        msg = rng.choice(
            (
                "\ud800",
                "\x1b[2J\x1b]0;pwned\x07",
                "line\nFORGED",
                "\u2028x",
                "\x00",
                "]]>",
                "<&>",
                "\udfff" * 10,
                "x" * 100000,
            )
        )
        error = {"message": msg, "offset": rng.choice((None, 5, -1, "x", 2**70))}
        return "reply", dumps({"id": honest["id"], "error": error}).encode("utf-8", "surrogatepass") + b"\n"
    if r < 0.6:  # huge numbers and long values
        return "reply", b'{"value": ' + rng.choice((b"9" * 5000, b"1e99999", b"NaN", b"-" + b"9" * 4301)) + b"}\n"
    if r < 0.7:  # a value line just under the cap
        pad = max(0, max_reply - 60)
        return "reply", b'{"id": ' + dumps(honest["id"]).encode() + b', "value": {"pad": "' + b"x" * pad + b'"}}\n'
    # valid but wrong: the honest answer, changed
    wrong: Any = honest
    if "wire" in honest and isinstance(honest["wire"], str) and honest["wire"]:
        w = bytearray.fromhex(honest["wire"])
        w[rng.randrange(len(w))] ^= 1 << rng.randrange(8)
        wrong = {"wire": bytes(w).hex()} if rng.random() < 0.7 else {"value": honest["wire"]}
    elif "value" in honest:
        wrong = {"value": mutate_value(honest["value"], rng)} if rng.random() < 0.8 else {"wire": "00"}
    elif "assignments" in honest and isinstance(honest["assignments"], dict):
        wrong = {"assignments": {k: "00" for k in honest["assignments"]}} if rng.random() < 0.5 else {"assignments": {}}
    elif "error" in honest:
        wrong = {"value": {}} if rng.random() < 0.5 else {"wire": ""}
    return "reply", json_text({"id": honest["id"], **wrong}, rng) + b"\n"


def adapter_main(argv: list[str] | None = None) -> int:
    """``python -m codec.fuzz.cli adapter --seed S --mode mixed|fail [--p P] [--max-reply N]``: a line-protocol
    adapter that answers with the built-in codec but mutates a share ``p`` of its replies (``mixed``), or
    answers every request with a failure of the protocol (``fail``). Deterministic for a seed: each reply
    depends on the seed, the request and how many requests came before it in this process."""
    import argparse

    ap = argparse.ArgumentParser(prog="python -m codec.fuzz.cli adapter")
    ap.add_argument("--seed", default="0")
    ap.add_argument("--mode", choices=("mixed", "fail"), default="mixed")
    ap.add_argument("--p", type=float, default=0.3)
    ap.add_argument("--max-reply", type=int, default=200000, dest="max_reply")
    args = ap.parse_args(argv)
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    for n, line in enumerate(stdin):
        digest = hashlib.sha256(line).hexdigest()[:16]
        rng = random.Random(f"{args.seed}:{n}:{digest}")
        what, data = adapter_reply(line.rstrip(b"\n"), rng, args.mode, args.p, args.max_reply)
        if rng.random() < 0.05:
            sys.stderr.buffer.write(b"adapter noise \x1b[31m\xff\xed\xa0\x80 \r\n")
            sys.stderr.flush()
        if what == "exit":
            sys.stderr.buffer.write(b"adapter exits \x1b]0;x\x07\n")
            sys.stderr.flush()
            os._exit(rng.choice((0, 1, 3, 139)))
        if what == "silent":
            time.sleep(3600)
        if what == "flood":  # past the cap, no newline
            chunk = b"y" * 65536
            for _ in range(args.max_reply // len(chunk) + 2):
                stdout.write(chunk)
            stdout.flush()
            time.sleep(3600)
        if rng.random() < 0.1 and len(data) > 2:  # in two writes
            cut = rng.randrange(1, len(data))
            stdout.write(data[:cut])
            stdout.flush()
            time.sleep(0.01)
            data = data[cut:]
        stdout.write(data)
        stdout.flush()
    return 0
