"""Inputs as people hand them over: a path, ``-`` for standard input, a pipe or ``/dev/stdin``, a growing file,
gzipped or not (told from the bytes, never from the name).

One layer for every command that reads a file of bytes (``capture``, ``capture --follow``, ``decode @path``):

* :func:`open_source` opens what the command line names (``-``: standard input) and says what it is — a regular
  file (its size, for a progress line), a pipe, a terminal. A directory, or a name that does not exist, is one
  :class:`~codec.errors.InputError` line, never Python's ``[Errno 21]``.
* :func:`sniff` reads the first bytes of the stream, decompressing a gzip stream (its magic, whatever the name),
  and hands back a stream that starts again at byte 0 (:class:`Rewound`): a pipe cannot seek, so nothing here
  does. A gzip stream that cannot even be started is said (``gzip_error``), and its first read raises the error,
  for the reader to report as its damage.

Nothing is read that the command does not use: the head is replayed, so a pipe is read once, from start to end.
"""

from __future__ import annotations

import gzip
import io
import os
import stat
import sys
import zlib
from typing import Callable

from .errors import InputError

__all__ = ["Source", "Rewound", "Sniffed", "open_source", "sniff", "read_head", "GZIP_MAGIC", "READ_ERRORS"]

GZIP_MAGIC = b"\x1f\x8b"
#: What reading a damaged gzip stream raises.
READ_ERRORS = (OSError, EOFError, zlib.error)


class Source:
    """An input named on the command line, open for reading: ``fd``; ``name`` as messages give it (the path as
    given, ``stdin`` for ``-``); ``regular`` (a regular file: it has a ``size``, and may still grow); ``close()``
    closes what was opened here (never standard input)."""

    def __init__(self, arg: str, fd: int, owned: bool) -> None:
        self.arg, self.fd, self._owned = arg, fd, owned
        self.name = "stdin" if arg == "-" else arg
        st = os.fstat(fd)
        self.regular = stat.S_ISREG(st.st_mode)
        self.size: int | None = st.st_size if self.regular else None

    @property
    def label(self) -> str:
        """The input's name for a summary: the file's name, or ``stdin``."""
        return self.name if self.arg == "-" else os.path.basename(self.arg) or self.arg

    def raw(self) -> io.FileIO:
        """The bytes, unbuffered (the descriptor stays open: :meth:`close` closes it)."""
        return io.FileIO(self.fd, "rb", closefd=False)

    def close(self) -> None:
        if self._owned:
            self._owned = False
            os.close(self.fd)

    def __enter__(self) -> "Source":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def open_source(arg: str, *, reads: str = "a file") -> Source:
    """Open ``arg`` (``-``: standard input). ``reads`` completes the refusal of a directory ("capture reads a
    file: ..."). Raises :class:`InputError` for a directory or closed standard input, ``OSError`` (which the
    command line says as ``PATH: reason``) for the rest."""
    if arg == "-":
        if sys.stdin is None:
            raise InputError("stdin is closed: name a file instead of -")
        try:
            fd = sys.stdin.fileno()
        except (OSError, ValueError, io.UnsupportedOperation):
            raise InputError("stdin is not a file descriptor: name a file instead of -") from None
        return Source(arg, fd, owned=False)
    if os.path.isdir(arg):
        from .sniff import directory_text

        raise InputError(f"{arg} is {directory_text(arg)}: {reads}; name one of its files")
    fd = os.open(arg, os.O_RDONLY)
    try:
        return Source(arg, fd, owned=True)
    except BaseException:
        os.close(fd)
        raise


class Rewound(io.RawIOBase):
    """``head`` (bytes already read from ``rest``), then the rest of ``rest``; then, if ``error`` is given, that
    error is raised where the rest would have begun (the damage met while reading the head comes where it is)."""

    def __init__(self, head: bytes, rest, error: BaseException | None = None) -> None:
        self._head, self._rest, self._error = head, rest, error
        # one read of the rest at a time (a GzipFile's read would lose the bytes before a cut with its error)
        self._read = getattr(rest, "read1", rest.read)

    def readable(self) -> bool:
        return True

    def readinto(self, buf) -> int:
        data = self.read(len(buf))
        buf[: len(data)] = data
        return len(data)

    def read(self, size: int = -1, /) -> bytes:
        n = size if size is not None and size >= 0 else 1 << 62
        if self._head:
            data, self._head = self._head[:n], self._head[n:]
            return data
        if self._error is not None:
            error, self._error = self._error, None
            raise error
        return self._read(size if size is not None and size >= 0 else -1)

    read1 = read

    def peek(self, size: int = 1, /) -> bytes:
        if not self._head and self._error is None:
            peek = getattr(self._rest, "peek", None)
            if peek is not None:
                return peek(size)
            self._head = self._rest.read(max(size, 1 << 16))
        return self._head

    def tell(self) -> int:  # (the readers use peek: a stream here never seeks)
        raise io.UnsupportedOperation("a rewound stream does not tell")


def read_head(read: Callable[[int], bytes], n: int) -> tuple[bytes, BaseException | None]:
    """Up to ``n`` bytes from ``read`` (fewer only at the end of the stream), and the error that stopped the
    reading early, if any (a damaged gzip stream): the bytes read before it are kept."""
    parts, have = [], 0
    try:
        while have < n:
            b = read(n - have)
            if not b:
                break
            parts.append(b)
            have += len(b)
    except READ_ERRORS as e:
        return b"".join(parts), e
    return b"".join(parts), None


class Sniffed:
    """A stream's first bytes and the stream from byte 0: ``stream`` (decompressed when ``gzipped``; peekable),
    ``head`` (its first bytes), ``complete`` (``head`` is the whole stream), ``gzip_error`` (a gzip stream that
    could not be started: why)."""

    def __init__(self, stream, head: bytes, complete: bool, gzipped: bool, gzip_error: str | None) -> None:
        self.stream, self.head, self.complete = stream, head, complete
        self.gzipped, self.gzip_error = gzipped, gzip_error


def sniff(raw, n: int, *, buffered: bool = True) -> Sniffed:
    """Read the first ``n`` bytes of ``raw`` (decompressed, when it starts with gzip's magic) and hand back a
    stream that replays them. ``buffered``: a plain stream is an ``io.BufferedReader`` (reads fill their size); a
    follower passes False, so that a read returns what has arrived. A gzip stream's reads return what one read
    decompressed, so that the bytes before a cut are all handed over before its error."""
    head, error = read_head(raw.read, n)
    gzipped = head[:2] == GZIP_MAGIC
    gzip_error = None
    source = Rewound(head, raw, error)
    if gzipped:
        unzipped = gzip.GzipFile(fileobj=source, mode="rb")
        head, error = read_head(unzipped.read1, n)  # (read1: the bytes before a cut are not lost with its error)
        if error is not None and not head:
            gzip_error = f"{type(error).__name__}: {error}" if not str(error) else str(error)
        source = Rewound(head, unzipped, error)
    complete = error is None and len(head) < n
    # (not buffered over gzip: a buffered read gathers several reads, and a cut stream's error would take the
    # bytes read before it along)
    stream = io.BufferedReader(source, 1 << 16) if buffered and not gzipped else source
    return Sniffed(stream, head, complete, gzipped, gzip_error)
