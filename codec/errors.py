"""The error taxonomy: one root, one class per side of the wire.

``DecodeError`` means *the bytes* are wrong (the peer's fault, like h11's RemoteProtocolError);
``EncodeError`` means *the request* is impossible (the caller's fault, like LocalProtocolError).
Subclasses exist only where a caller acts differently.

Every ``DecodeError`` carries the message, the version, the byte offset and the field path, and
formats them the same way everywhere, e.g.::

    AssignmentInfo v6: truncated at offset 38 in standby_partitions_by_host[1].host (need 2, have 1)
"""

from __future__ import annotations

import sys

__all__ = [
    "CodecError",
    "DecodeError",
    "TruncatedError",
    "UnsupportedVersionError",
    "LimitExceededError",
    "EncodeError",
    "InputError",
    "os_error_text",
    "MAX_WHOLE_INPUT",
    "read_whole",
    "stdin_bytes",
]

#: The most bytes a command reads of an input it takes whole (a message's bytes or hex, a JSON document, a
#: scenario, a vector file; one line of ``--lines``): 256 MiB, two and a half times the largest request a
#: Kafka broker accepts (socket.request.max.bytes, 100 MiB), so any Kafka message fits, as hex too.
MAX_WHOLE_INPUT = 256 << 20


class CodecError(Exception):
    """Root of every error this package raises on purpose."""

    def to_json(self) -> dict:
        """The error as a ``--lines`` output line gives it (the decode and encode errors add where)."""
        return {"type": type(self).__name__, "message": str(self), "offset": None, "path": ""}


class DecodeError(CodecError, ValueError):
    """Bytes that cannot be decoded.

    Attributes: ``message`` (the message name, e.g. ``"SubscriptionInfo"``), ``version`` (or None when
    the version itself could not be read), ``offset`` (byte offset into the decoded buffer), ``path``
    (dotted field path with array indices, ``""`` for the message itself) and ``reason``.
    """

    def __init__(
        self,
        reason: str,
        *,
        message: str | None = None,
        version: int | None = None,
        offset: int | None = None,
        path: str = "",
    ) -> None:
        self.reason = reason
        self.message = message
        self.version = version
        self.offset = offset
        self.path = path
        super().__init__(self._format())

    def _format(self) -> str:
        head = self.message or "input"
        if self.version is not None:
            head += f" v{self.version}"
        where = ""
        if self.offset is not None:
            where = f" at offset {self.offset}"
        if self.path:
            where += f" in {self.path}"
        reason = self.reason
        # "truncated (need 2, have 1)" reads best with the location in the middle.
        detail = ""
        if reason.endswith(")") and " (" in reason:
            reason, detail = reason.split(" (", 1)
            detail = " (" + detail
        return f"{head}: {reason}{where}{detail}"

    def __str__(self) -> str:  # always reflect later updates (with_context)
        return self._format()

    def with_context(
        self, *, message: str | None = None, version: int | None = None, offset_base: int = 0, path_prefix: str = ""
    ) -> "DecodeError":
        """Fill in what an inner layer could not know (used when one message nests another)."""
        if message is not None and self.message is None:
            self.message = message
        if version is not None and self.version is None:
            self.version = version
        if self.offset is not None:
            self.offset += offset_base
        if path_prefix:
            self.path = path_prefix + ("." + self.path if self.path and not self.path.startswith("[") else self.path)
        self.args = (self._format(),)
        return self

    def to_json(self) -> dict:
        return {
            "type": type(self).__name__,
            "message": str(self),
            "offset": self.offset,
            "path": self.path,
        }


class TruncatedError(DecodeError):
    """The input ended before a field was complete."""


class UnsupportedVersionError(DecodeError):
    """The version word names a version this message does not have (e.g. AssignmentInfo 12)."""


class LimitExceededError(DecodeError):
    """A size or count exceeds a configured maximum or the bytes that remain."""


class EncodeError(CodecError, ValueError):
    """A model that cannot be written at the requested version (Kafka's UnsupportedVersionException,
    TaskAssignmentException and IllegalArgumentException cases), or a value out of its wire range."""

    def __init__(self, reason: str, *, message: str | None = None, version: int | None = None, path: str = "") -> None:
        self.reason = reason
        self.message = message
        self.version = version
        self.path = path
        head = message or "value"
        if version is not None:
            head += f" v{version}"
        where = f" ({path})" if path else ""
        super().__init__(f"{head}: {reason}{where}")

    def to_json(self) -> dict:
        return {"type": type(self).__name__, "message": str(self), "offset": None, "path": self.path}


class InputError(CodecError, ValueError):
    """A file or value a command reads that is not what it expects (a scenario, a topology, a group
    description): the user's input, reported in one line, never a traceback."""


def os_error_text(e: OSError) -> str:
    """An operating-system error as the command line says it: ``PATH: reason``, as Unix tools do (``.: Is a
    directory``), not Python's ``[Errno 21] Is a directory: '.'``; Python's text where there is no path."""
    if not e.strerror or e.filename is None:
        return str(e)
    if isinstance(e, IsADirectoryError) and e.filename2 is None:
        from .sniff import directory_text

        return f"{e.filename} is {directory_text(str(e.filename))}: give one of its files"
    names = f"{e.filename} -> {e.filename2}" if e.filename2 is not None else str(e.filename)
    return f"{names}: {e.strerror}"


def read_whole(source, name: str | None = None, limit: int = MAX_WHOLE_INPUT) -> bytes:
    """Every byte of ``source`` (a path, or a binary file open for reading), or :class:`InputError` naming it
    (``name``, else the path; ``""``: nothing, for a caller that names it) as soon as it holds more than
    ``limit`` bytes: an endless input (``/dev/zero``, a pipe that never ends) stops with one error line instead
    of filling memory. Read in pieces, so refusing costs no more than the limit."""
    if not hasattr(source, "read"):
        with open(source, "rb") as f:
            return read_whole(f, str(source) if name is None else name, limit)
    chunks, total = [], 0
    while chunk := source.read(min(1 << 20, limit + 1 - total)):
        chunks.append(chunk)
        total += len(chunk)
        if total > limit:
            raise InputError(
                f"{name + ': ' if name else ''}more than {limit:,} bytes, the most a command reads of one input "
                "(codec.errors.MAX_WHOLE_INPUT)"
            )
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def stdin_bytes():
    """``sys.stdin.buffer``, or :class:`InputError` when the process was started with stdin closed (``<&-``:
    Python's ``sys.stdin`` is then None)."""
    if sys.stdin is None:
        raise InputError("stdin is closed: give the input as an argument, or as @path")
    return sys.stdin.buffer
