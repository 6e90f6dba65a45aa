"""What every command shares at its edge: bounded numeric options, input files that fail in one line, and the
one JSON reader of the command line.

* Integers on the command line (:func:`int_range`, :func:`cli_int`) are ASCII digits with an optional sign,
  at most 20 of them, within the option's bounds: ``--version ٣`` (an Arabic-Indic digit, which Python's
  ``int`` takes) and a 5,000-digit number are usage errors (exit 2) naming the text, never a reading of it.
* JSON (:func:`loads`, :func:`read_json_file`): an object that holds one key twice is refused, naming the key
  (:class:`DuplicateKeyError`), instead of keeping the last value as Python's reader does. Every JSON the
  command line reads goes through it: ``encode``'s input, ``assign``'s groups, ``negotiate`` and ``simulate``
  scenarios, ``capture``'s text dumps, the conformance adapters' replies and the pipeline's JSON lines.
"""

from __future__ import annotations

import argparse
import json
import re
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from .errors import CodecError, InputError, os_error_text, read_whole

__all__ = [
    "DuplicateKeyError",
    "cli_int",
    "int_range",
    "kafka_int",
    "loads",
    "read_json_file",
    "input_errors",
    "seconds",
    "cannot_start",
    "INT",
    "LONG",
]

_INTEGER = re.compile(r"[+-]?[0-9]{1,20}")
#: Kafka's config types (ConfigDef.Type INT and LONG) as bounds; a Java long is also an option's default bound.
INT, LONG = (-(1 << 31), (1 << 31) - 1), (-(1 << 63), (1 << 63) - 1)
KAFKA_INT_TYPES = {"INT": INT, "LONG": LONG}


def kafka_int(value, key: str, kind: str = "INT", minimum: int | None = None) -> int:
    """A JSON value that stands for a Kafka config or field of type ``kind`` (``INT``, ``LONG``): an integer
    (not a boolean) within the type, and ``>= minimum``; ``ValueError`` naming ``key`` and the type otherwise."""
    lo, hi = KAFKA_INT_TYPES[kind]
    lo = lo if minimum is None else max(lo, minimum)
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        shown = (
            repr(value)[:60]
            if not isinstance(value, int) or isinstance(value, bool)
            else str(value)
            if value.bit_length() <= 128
            else f"an integer of {value.bit_length()} bits"
        )
        raise ValueError(f"{key} must be an integer in {lo}..{hi} (Kafka's {kind}), not {shown}")
    return value


def cli_int(text: str, lo: int = LONG[0], hi: int | None = LONG[1]) -> int:
    """An integer written on the command line: ASCII digits (at most 20) with an optional sign, in [lo, hi];
    ``ValueError`` naming the text otherwise."""
    shown = text if len(text) <= 40 else text[:40] + "..."
    if not isinstance(text, str) or _INTEGER.fullmatch(text) is None:
        raise ValueError(f"{shown!r} is not an integer (ASCII digits, at most 20)")
    n = int(text)
    if n < lo or (hi is not None and n > hi):
        raise ValueError(f"{n} is outside {lo}..{hi if hi is not None else ''}")
    return n


def int_range(lo: int = LONG[0], hi: int | None = LONG[1]):
    """An argparse type: an integer in [lo, hi] written in ASCII digits (a usage error otherwise, exit 2)."""

    def parse(text: str) -> int:
        try:
            return cli_int(text, lo, hi)
        except ValueError as e:
            raise argparse.ArgumentTypeError(str(e)) from None

    parse.__name__ = "integer"
    return parse


_SECONDS = re.compile(r"[0-9]{1,20}(\.[0-9]{0,20})?|\.[0-9]{1,20}")


def seconds(text: str) -> float:
    """An argparse type: a non-negative number of seconds in ASCII digits (``2``, ``0.5``)."""
    if _SECONDS.fullmatch(text) is None:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text[:40]!r}")
    return float(text)


class DuplicateKeyError(ValueError):
    """A JSON object that holds one key twice (which value was meant cannot be told)."""

    def __init__(self, key: str) -> None:
        self.key = key
        shown = key if len(key) <= 60 else key[:60] + "..."
        super().__init__(f"duplicate key {shown!r} in one JSON object")


def _unique_keys(pairs: list[tuple[str, object]]) -> dict:
    out = dict(pairs)
    if len(out) != len(pairs):
        seen = set()
        for k, _ in pairs:
            if k in seen:
                raise DuplicateKeyError(k)
            seen.add(k)
    return out


def loads(text: str | bytes, **kwargs):
    """``json.loads`` that refuses an object holding one key twice (:class:`DuplicateKeyError`, a
    ``ValueError``); every other failure is ``json.loads``'s own."""
    return json.loads(text, object_pairs_hook=_unique_keys, **kwargs)


def read_json_file(path: str | Path, what: str):
    """Parse a JSON file, with any problem (missing, not UTF-8, not JSON, a duplicate key, nested too deeply) as
    one :class:`InputError` line naming the file."""
    raw = b""
    try:
        raw = read_whole(path, f"{what} {path}")
        return loads(raw.decode("utf-8"))
    except OSError as e:
        raise InputError(f"{what} {os_error_text(e)}" if e.filename else f"{what} {path}: {e.strerror or e}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        hint = _json_hint(raw)
        why = f"not UTF-8 at byte {e.start}" if isinstance(e, UnicodeDecodeError) else f"not JSON ({e})"
        raise InputError(f"{what} {path}: {f'not JSON: {hint}' if hint else why}") from None
    except RecursionError:
        raise InputError(f"{what} {path}: nests too deeply") from None
    except ValueError as e:  # a duplicate key, an integer of more than 4,300 digits
        raise InputError(f"{what} {path}: {e}") from None


def _json_hint(raw: bytes) -> str:
    from .sniff import json_hint

    return json_hint(raw)


@contextmanager
def input_errors(what: str) -> Iterator[None]:
    """Turn what a malformed input makes plain Python raise (a missing key, a wrong type, an empty list)
    into one :class:`InputError` naming the input."""
    try:
        yield
    except CodecError:
        raise
    except KeyError as e:
        raise InputError(
            f"{what}: missing {e.args[0]!r}" if e.args else f"{what}: a required field is missing"
        ) from None
    except (TypeError, ValueError, IndexError, AttributeError, StopIteration, ZeroDivisionError, OverflowError) as e:
        # Python's own errors are named (their words alone may not say what went wrong); a module's own error
        # (a ScenarioError) already says it in the input's terms
        kind = f" ({type(e).__name__})" if type(e).__module__ == "builtins" else ""
        raise InputError(f"{what}: {e}{kind}") from None
    except RecursionError:
        raise InputError(f"{what}: nests too deeply") from None


def cannot_start(argv: list[str] | tuple[str, ...], error: OSError | None = None) -> str | None:
    """Why the command ``argv`` cannot start, naming the word at fault (issue #46: ``--impl "python x.py"`` where no
    ``python`` is on PATH said only "No such file or directory"); None when its program is found and executable.
    ``error``: what starting it raised, said when nothing more precise is known."""
    import os
    import shutil

    word = argv[0] if argv else ""
    if not word:
        return "the command is empty"
    if os.sep not in word:
        if shutil.which(word) is None:
            n = len(_path_dirs())
            return f"{word!r} is not on PATH ({n:,} folder{'s' if n != 1 else ''} searched)"
    elif os.path.isdir(word):
        return f"{word!r} is a directory, not a program"
    elif not os.path.exists(word):
        return f"{word!r} does not exist"
    elif not os.access(word, os.X_OK):
        return f"{word!r} is not executable (run it through its interpreter, or chmod +x it)"
    if error is not None:
        return f"{word!r}: {error.strerror or error}"
    return None


def _path_dirs() -> list[str]:
    import os

    return [d for d in os.environ.get("PATH", os.defpath).split(os.pathsep) if d]
