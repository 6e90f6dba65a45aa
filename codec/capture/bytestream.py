"""What the capture readers need of a binary input they are handed open: an open file, ``sys.stdin.buffer``, a
``gzip.GzipFile`` (which :mod:`typing`'s ``BinaryIO`` does not cover), ``io.BytesIO``, the CLI's progress reader."""

from __future__ import annotations

from typing import Protocol

__all__ = ["ByteStream"]


class ByteStream(Protocol):
    """``read`` (the readers read in bounded chunks), and ``tell``/``seek`` to look for the end of a stream that
    cannot ``peek``."""

    def read(self, size: int = -1, /) -> bytes: ...

    def tell(self) -> int: ...

    def seek(self, offset: int, whence: int = 0, /) -> int: ...
