"""Hostile adapters for the conformance gate's tests: a script written to a file and asked one request."""

from __future__ import annotations

import sys
from pathlib import Path

from codec.conformance.impl import CommandImplementation, Outcome


def decode_once(folder: Path, body: str) -> tuple[Outcome, CommandImplementation]:
    """The outcome of one SubscriptionInfo v1 decode request to an adapter that runs ``body`` for each request line
    (``line``), and the closed implementation that asked it."""
    adapter = folder / "adapter.py"
    adapter.write_text("import sys\nfor line in sys.stdin:\n" + body, encoding="utf-8")
    impl = CommandImplementation(f"{sys.executable} {adapter}")
    try:
        return impl.decode("SubscriptionInfo", 1, b"\x00\x00\x00\x01"), impl
    finally:
        impl.close()
