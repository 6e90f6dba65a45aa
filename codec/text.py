"""Any string Java can write, written out safely: one representation for every output.

Java strings are UTF-16 and may hold unpaired surrogates; Kafka's ``writeUTF`` (AssignmentInfo) and modified
UTF-8 carry them, so the decoders hand back Python strings such as ``"h\\ud800"``. Such a string cannot be
encoded as UTF-8, so every writer goes through this module:

* JSON (``dumps``): a lone surrogate is written as its JSON escape (``"h\\ud800"``), and so are DEL, the C1
  controls and U+2028/U+2029 (which some readers take for line breaks and some terminals for commands);
  other non-ASCII text stays as it is. ``json.loads`` reads the escapes back to the same string, so
  ``encode`` writes the same bytes again.
* Text for people (``printable``): the pretty view, the capture story, error lines. Lone surrogates,
  control characters (C0, DEL, C1), the line and paragraph separators, noncharacters (U+FDD0-U+FDEF and the
  last two code points of every plane, U+FFFE/U+FFFF among them, which XML cannot carry), format characters
  (Unicode category Cf: the bidi overrides and isolates that reorder what a reader sees, zero-width spaces
  and joiners, the BOM, tag characters) and the other invisible characters (the Hangul fillers, the
  combining grapheme joiner) are written as ``\\xNN`` / ``\\uXXXX`` / ``\\UXXXXXXXX`` escapes, and a
  backslash as ``\\\\``, so no wire string can start a new line, move the cursor, send an escape sequence
  to the terminal, or hide or reorder text.
* Columnar stores whose strings must be valid UTF-8 (``utf8_safe``): the JSON escape of each lone surrogate,
  with backslashes doubled so the escaped text is unambiguous (``unescape_utf8_safe`` reverses it). Only
  strings that hold a lone surrogate change.
"""

from __future__ import annotations

import json
import re
from functools import cache

__all__ = ["dumps", "dumps_chunks", "printable", "has_lone_surrogate", "utf8_safe", "unescape_utf8_safe"]

# The module's patterns are compiled on first use (:func:`_pattern`): compiling them costs most of a millisecond,
# a decode call's start-up needs none of them for ASCII output.
_LONE = "[\ud800-\udfff]"
_JSON_ESCAPE = "[\x7f-\x9f\u2028\u2029\ud800-\udfff]"
# Format characters (Unicode category Cf, as of Unicode 16; tests/test_text.py checks the running Python's
# table against it): soft hyphen, Arabic number signs, bidi marks, embeddings, overrides and isolates, zero-width
# space/joiners, word joiner, invisible operators, BOM, interlinear annotation, Egyptian hieroglyph format
# controls, shorthand format controls, musical symbol formats, tag characters.
_FORMAT = (
    "\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e\u200b-\u200f\u202a-\u202e"
    "\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\U000110bd\U000110cd\U00013430-\U0001343f"
    "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f"
)
# Invisible characters of other categories: the combining grapheme joiner and the Hangul fillers.
_INVISIBLE = "\u034f\u115f\u1160\u3164\uffa0"
# Noncharacters: U+FDD0-U+FDEF and the last two code points of each of the 17 planes.
_NONCHARACTERS = "\ufdd0-\ufdef" + "".join(f"{chr(p * 0x10000 + 0xFFFE)}{chr(p * 0x10000 + 0xFFFF)}" for p in range(17))
# C0 controls, DEL, C1 controls, U+2028/U+2029 (line breaks to some terminals and to JavaScript), lone
# surrogates, the characters above, and the backslash that introduces our escapes.
_UNPRINTABLE = "[\\\\\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff" + _FORMAT + _INVISIBLE + _NONCHARACTERS + "]"
_SAFE_ESCAPE = r"\\(\\|u[0-9a-f]{4})"


@cache
def _pattern(source: str) -> re.Pattern:
    """One of the module's patterns, compiled once, on first use."""
    return re.compile(source)


def _u_escape(m: re.Match) -> str:
    return f"\\u{ord(m.group()):04x}"


def has_lone_surrogate(s: str) -> bool:
    return _pattern(_LONE).search(s) is not None


def dumps(value, **kwargs) -> str:
    """``json.dumps`` with non-ASCII text kept as it is, and lone surrogates, DEL, C1 controls and U+2028/9 as
    ``\\uXXXX`` escapes, so the result always encodes as UTF-8, is one line for any line splitter, and
    ``json.loads`` returns the original value."""
    kwargs.setdefault("ensure_ascii", False)
    text = json.dumps(value, **kwargs)
    if kwargs["ensure_ascii"] or (text.isascii() and "\x7f" not in text):  # (nothing to escape)
        return text
    # These characters can only stand inside a JSON string (keys included), where an escape means the same.
    return _pattern(_JSON_ESCAPE).sub(_u_escape, text)


def dumps_chunks(value, **kwargs):
    """:func:`dumps` as the chunks of ``json.JSONEncoder.iterencode`` (for a writer that stops at a budget)."""
    kwargs.setdefault("ensure_ascii", False)
    for chunk in json.JSONEncoder(**kwargs).iterencode(value):
        if kwargs["ensure_ascii"] or (chunk.isascii() and "\x7f" not in chunk):  # (most chunks: nothing to escape)
            yield chunk
        else:
            yield _pattern(_JSON_ESCAPE).sub(_u_escape, chunk)


def _printable_escape(m: re.Match) -> str:
    c = m.group()
    if c == "\\":
        return "\\\\"
    code = ord(c)
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def printable(s: str) -> str:
    """``s`` for a terminal or a text report: one line, no control sequences, nothing invisible or reordering,
    no noncharacter, always valid UTF-8."""
    return _pattern(_UNPRINTABLE).sub(_printable_escape, s)


def utf8_safe(s: str | None) -> str | None:
    """``s`` as valid UTF-8 text for a column store: unchanged unless it holds a lone surrogate, in which case
    backslashes are doubled and each lone surrogate becomes ``\\uXXXX``."""
    if s is None or not (lone := _pattern(_LONE)).search(s):
        return s
    return lone.sub(_u_escape, s.replace("\\", "\\\\"))


def unescape_utf8_safe(s: str) -> str:
    """The inverse of :func:`utf8_safe` for a string known to have been escaped."""
    return _pattern(_SAFE_ESCAPE).sub(lambda m: "\\" if m.group(1) == "\\" else chr(int(m.group(1)[1:], 16)), s)
