"""The decode option ``strings="java"``: a string's malformed UTF-8 read as Kafka's Java reader reads it
(``Type.STRING`` through ``Utils.utf8``: ``new String(bytes, StandardCharsets.UTF_8)``), by both engines.

``java_utf8_strings.jsonl`` holds what Java 17's ``new String(bytes, UTF_8)`` made of 1,849 byte strings at the UTF-8
boundaries (its ``about`` line says how it was made): Java's replacement differs from Python's ``"replace"`` (one
U+FFFD for an encoded surrogate, whole or cut short by the end, where Python gives one for each byte), so these are
the expected values, never this codec's output. The default stays the input policy: malformed UTF-8 refused.
"""

from __future__ import annotations

import json
import struct
from pathlib import Path

import pytest

from codec.errors import DecodeError
from codec.wire import message, native
from codec.wire.builder import decode_wire_reference
from codec.wire.encodings import java_utf8_decode

HERE = Path(__file__).parent
_LINES = [json.loads(x) for x in (HERE / "java_utf8_strings.jsonl").read_text(encoding="utf-8").splitlines()]
CASES = [(bytes.fromhex(r["hex"]), r["java"]) for r in _LINES if "hex" in r]


def _units(s: str) -> str:
    return s.encode("utf-16-be", "surrogatepass").hex()


def _strict_refuses(raw: bytes) -> bool:
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return True
    return False


def _user_data(topic: bytes, partitions=(3,), generation: int = 9) -> bytes:
    """StickyAssignorUserData v1 assembled field by field: one topic (int16 length + bytes), its partitions, the
    generation."""
    return (
        struct.pack(">ih", 1, len(topic))
        + topic
        + struct.pack(f">i{len(partitions)}i", len(partitions), *partitions)
        + struct.pack(">i", generation)
    )


def test_the_cases_are_there():
    assert len(CASES) == 1849
    assert sum(_strict_refuses(raw) for raw, _ in CASES) > 1500  # mostly malformed
    # Java's replacement is not Python's: an encoded surrogate is one U+FFFD, Python's "replace" makes three
    java = dict(CASES)
    assert java[bytes.fromhex("eda080")] == "fffd" and _units(bytes.fromhex("eda080").decode("utf-8", "replace")) == (
        "fffd" * 3
    )
    # (the 14 cases where they differ all hold an encoded surrogate, ED A0-BF: whole, or cut short by the end)
    differ = [raw for raw, j in CASES if _units(raw.decode("utf-8", "replace")) != j]
    assert len(differ) == 14 and all(b"\xed" in raw for raw in differ)


def test_the_python_reading_is_javas():
    assert [(raw.hex(), _units(java_utf8_decode(raw))) for raw, _ in CASES] == [(raw.hex(), j) for raw, j in CASES]


@pytest.mark.skipif(not native.available(), reason="no native codec")
def test_the_engines_reading_is_javas():
    from codec.wire import _native

    assert [(raw.hex(), _units(_native.java_utf8_decode(raw))) for raw, _ in CASES] == [
        (raw.hex(), j) for raw, j in CASES
    ]


def _topics(decode) -> list[tuple[str, str]]:
    out = []
    for raw, _ in CASES:
        value, end = decode(_user_data(raw))
        out.append((raw.hex(), _units(value.previous_assignment[0].topic)))
        assert (value.previous_assignment[0].partitions, value.generation, end) == ((3,), 9, 18 + len(raw))
    return out


@pytest.mark.skipif(not native.available(), reason="no native codec")
def test_a_message_read_with_java_strings_by_the_engine():
    """The engine's program of the option (``native.JAVA_STRINGS``) reads every case itself (no fallback), as Java."""
    prog = native.program("StickyAssignorUserData", 1, native.JAVA_STRINGS)
    assert prog is not None

    def decode(data: bytes):
        got = prog.decode(data, 0)
        assert got is not None, data.hex()
        return got

    assert _topics(decode) == [(raw.hex(), j) for raw, j in CASES]


def test_a_message_read_with_java_strings_by_the_python_path():
    def decode(data: bytes):
        return decode_wire_reference("StickyAssignorUserData", 1, data, strings="java")

    assert _topics(decode) == [(raw.hex(), j) for raw, j in CASES]


@pytest.mark.parametrize("active", [True, False], ids=["native", "python"])
def test_the_option_through_the_message_layer_and_the_default_policy(active):
    """``message.decode(..., strings="java")`` reads as Java with the engine on and off; without the option the
    input policy refuses malformed UTF-8 at its byte (the field's path)."""
    old = native.set_active(active and native.available())
    try:
        for raw, j in CASES[::7]:
            data = _user_data(raw)
            got = message.decode("StickyAssignorUserData", 1, data, strings="java")
            assert _units(got.value.previous_assignment[0].topic) == j
            if _strict_refuses(raw):
                with pytest.raises(DecodeError, match="invalid UTF-8") as e:
                    message.decode("StickyAssignorUserData", 1, data)
                assert e.value.path == "previous_assignment[0].topic"
        with pytest.raises(ValueError):
            message.decode("StickyAssignorUserData", 1, _user_data(b"t"), strings="replace")
    finally:
        native.set_active(old)
