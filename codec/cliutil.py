"""What every command shares at its edge: bounded numeric options and input files that fail in one line."""

from __future__ import annotations

import argparse
import json
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from .errors import CodecError, InputError

__all__ = ["int_range", "read_json_file", "input_errors"]


def int_range(lo: int, hi: int | None = None):
    """An argparse type: an integer in [lo, hi] (a usage error otherwise, exit 2)."""

    def parse(text: str) -> int:
        try:
            n = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
        if n < lo or (hi is not None and n > hi):
            raise argparse.ArgumentTypeError(f"{n} is outside {lo}..{hi if hi is not None else ''}")
        return n

    parse.__name__ = "integer"
    return parse


def read_json_file(path: str | Path, what: str):
    """Parse a JSON file, with any problem (missing, not UTF-8, not JSON, nested too deeply) as one
    :class:`InputError` line naming the file."""
    try:
        text = Path(path).read_bytes().decode("utf-8")
        return json.loads(text)
    except OSError as e:
        raise InputError(f"{what} {path}: {e.strerror or e}") from None
    except UnicodeDecodeError as e:
        raise InputError(f"{what} {path}: not UTF-8 at byte {e.start}") from None
    except json.JSONDecodeError as e:
        raise InputError(f"{what} {path}: not JSON ({e})") from None
    except RecursionError:
        raise InputError(f"{what} {path}: nests too deeply") from None


@contextmanager
def input_errors(what: str) -> Iterator[None]:
    """Turn what a malformed input makes plain Python raise (a missing key, a wrong type, an empty list)
    into one :class:`InputError` naming the input."""
    try:
        yield
    except CodecError:
        raise
    except KeyError as e:
        raise InputError(f"{what}: missing {e.args[0]!r}" if e.args else f"{what}: a required field is missing") from None
    except (TypeError, ValueError, IndexError, AttributeError, StopIteration, ZeroDivisionError, OverflowError) as e:
        raise InputError(f"{what}: {e} ({type(e).__name__})") from None
    except RecursionError:
        raise InputError(f"{what}: nests too deeply") from None
