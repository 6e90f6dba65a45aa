"""codec.text: the one representation of strings Java can write (lone surrogates, NUL, 4-byte UTF-8) in every
output. Expected strings are written out by hand."""

from __future__ import annotations

import json
import unicodedata

from hypothesis import given
from hypothesis import strategies as st

from codec.text import dumps, has_lone_surrogate, printable, unescape_utf8_safe, utf8_safe

# Any string a Java String can hold: every UTF-16 code unit, lone surrogates included, plus astral characters.
java_strings = st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=0x10FFFF, blacklist_categories=()))


def test_dumps_escapes_lone_surrogates_only():
    assert dumps({"host": "h\ud800", "t": "é😀\x00"}) == '{"host": "h\\ud800", "t": "é😀\\u0000"}'
    assert dumps(["\udfff"], separators=(",", ":")) == '["\\udfff"]'
    # Keys too.
    assert dumps({"\ud800": 1}) == '{"\\ud800": 1}'


def test_dumps_without_surrogates_is_json_dumps():
    value = {"a": ["é", "x\\y", "\t😀"], "b": None}
    assert dumps(value) == json.dumps(value, ensure_ascii=False)


def test_dumps_escapes_what_splits_or_steers_a_line():
    assert dumps(["\x7f\x85\x9b\u2028\u2029"]) == '["\\u007f\\u0085\\u009b\\u2028\\u2029"]'


@given(java_strings)
def test_dumps_round_trips_and_is_utf8(s):
    text = dumps({"s": s})
    text.encode("utf-8")  # never raises
    assert len(text.splitlines()) == 1  # no character any line splitter breaks at
    assert json.loads(text) == {"s": s}


def test_printable_by_hand():
    assert printable("g\x1b]0;x\x07\nnext") == "g\\x1b]0;x\\x07\\x0anext"
    assert printable("h\ud800") == "h\\ud800"
    assert printable("a\\b") == "a\\\\b"
    assert printable("\x7f\x85\u2028\u2029") == "\\x7f\\x85\\u2028\\u2029"
    assert printable("é 😀 tab\tend") == "é 😀 tab\\x09end"


def test_printable_hides_nothing_and_reorders_nothing():
    """Issue #27: bidi overrides and isolates, zero-width characters, the BOM, tag characters and noncharacters
    are escaped too (U+FFFE/U+FFFF are not XML; a right-to-left override shows a line's text reversed)."""
    assert printable("ok\u202egnp.exe") == "ok\\u202egnp.exe"
    assert printable("a\u2066b\u2069c\u200bd\u200de\ufefff") == "a\\u2066b\\u2069c\\u200bd\\u200de\\ufefff"
    assert printable("\ufffe\uffff\ufdd0\U0001fffe\U0010ffff") == "\\ufffe\\uffff\\ufdd0\\U0001fffe\\U0010ffff"
    assert printable("\U000e0041\u00ad\u3164") == "\\U000e0041\\xad\\u3164"


def _is_hidden(c: str) -> bool:
    """What a person must never get raw: controls, separators, surrogates, format characters (Cf) and
    noncharacters, from Python's own Unicode tables."""
    code = ord(c)
    return (
        unicodedata.category(c) in ("Cc", "Cf", "Cs", "Zl", "Zp") or 0xFDD0 <= code <= 0xFDEF or code & 0xFFFE == 0xFFFE
    )


def test_printable_escapes_every_character_of_those_classes():
    hidden = [chr(c) for c in range(0x110000) if _is_hidden(chr(c))]
    assert len(hidden) > 1000
    assert all(printable(c).startswith("\\") for c in hidden), [c for c in hidden if not printable(c).startswith("\\")][
        :5
    ]


@given(java_strings)
def test_printable_is_one_safe_line(s):
    out = printable(s)
    out.encode("utf-8")
    assert not any(_is_hidden(c) for c in out)


def test_utf8_safe_by_hand():
    assert utf8_safe("plain\\text é") == "plain\\text é"  # unchanged: no lone surrogate
    assert utf8_safe("h\ud800\\") == "h\\ud800\\\\"
    assert utf8_safe(None) is None


@given(java_strings)
def test_utf8_safe_is_lossless(s):
    out = utf8_safe(s)
    out.encode("utf-8")
    assert (out != s) == has_lone_surrogate(s)
    if has_lone_surrogate(s):
        assert unescape_utf8_safe(out) == s
