"""The byte encodings of Kafka's strings and varints that every layer shares, without construct: the native
codec, the Python fast path and the construct primitives (:mod:`codec.wire.primitives`) all use these.

* :func:`uvarint_bytes`: unsigned LEB128 (Kafka's compact lengths and tags);
* :func:`utf8_or_refuse`: UTF-8, a lone surrogate refused with the field's path (Java would write ``?``);
* :func:`mutf8_encode` / :func:`mutf8_decode`: Java's modified UTF-8 (``DataOutputStream.writeUTF``);
* :func:`java_utf8_decode`: UTF-8 read as Java's ``new String(bytes, UTF_8)`` reads it, U+FFFD in place of each
  malformed sequence (Kafka's ``Type.STRING``, through ``Utils.utf8``), for the decode option ``strings="java"``.
"""

from __future__ import annotations

from ..errors import EncodeError

__all__ = ["uvarint_bytes", "utf8_or_refuse", "mutf8_encode", "mutf8_decode", "java_utf8_decode"]


def uvarint_bytes(n: int) -> bytes:
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def utf8_or_refuse(s: str, path: str = "") -> bytes:
    """``s`` as UTF-8; a lone surrogate (which UTF-8 cannot carry) is an ``EncodeError`` naming the field.
    Java's ``String.getBytes(UTF_8)`` would write ``?`` in its place: a silent loss this codec refuses."""
    try:
        return s.encode("utf-8")
    except UnicodeEncodeError as e:
        raise EncodeError(
            f"lone surrogate U+{ord(s[e.start]):04X} at character {e.start} cannot be written as "
            f"UTF-8 (Java would write '?')",
            path=path,
        ) from None


def mutf8_encode(s: str) -> bytes:
    """Java's modified UTF-8 (``DataOutputStream.writeUTF`` without the length)."""
    if s.isascii() and "\x00" not in s:
        return s.encode("ascii")
    units = s.encode("utf-16-be", "surrogatepass")
    out = bytearray()
    for i in range(0, len(units), 2):
        c = (units[i] << 8) | units[i + 1]
        if 0x0001 <= c <= 0x007F:
            out.append(c)
        elif c <= 0x07FF:
            out += bytes((0xC0 | (c >> 6), 0x80 | (c & 0x3F)))
        else:
            out += bytes((0xE0 | (c >> 12), 0x80 | ((c >> 6) & 0x3F), 0x80 | (c & 0x3F)))
    return bytes(out)


def mutf8_decode(raw: bytes) -> str:
    """Inverse of :func:`mutf8_encode`, as lenient and as strict as ``DataInputStream.readUTF``.

    Raises ``ValueError(index)`` at the first malformed byte."""
    if raw.isascii():
        return raw.decode("ascii")
    units = bytearray()
    i, n = 0, len(raw)
    while i < n:
        c = raw[i]
        top = c >> 4
        if top < 8:
            units += bytes((0, c))
            i += 1
        elif top in (12, 13):
            if i + 1 >= n or raw[i + 1] & 0xC0 != 0x80:
                raise ValueError(i)
            u = ((c & 0x1F) << 6) | (raw[i + 1] & 0x3F)
            units += u.to_bytes(2, "big")
            i += 2
        elif top == 14:
            if i + 2 >= n or raw[i + 1] & 0xC0 != 0x80 or raw[i + 2] & 0xC0 != 0x80:
                raise ValueError(i)
            u = ((c & 0x0F) << 12) | ((raw[i + 1] & 0x3F) << 6) | (raw[i + 2] & 0x3F)
            units += u.to_bytes(2, "big")
            i += 3
        else:
            raise ValueError(i)
    return units.decode("utf-16-be", "surrogatepass")


_REPL = "\ufffd"


def java_utf8_decode(raw: bytes) -> str:
    """``raw`` as Java's ``new String(raw, StandardCharsets.UTF_8)`` reads it (``String.decodeUTF8_UTF16`` of JDK 17,
    whose replacement differs from Python's ``"replace"`` at encoded surrogates): one U+FFFD for an encoded surrogate
    (``ED A0 80``; Python gives three), whole or cut short by the end (``ED A0``), for the start of a malformed 3- or
    4-byte sequence, for each byte that cannot start one (``C0``, ``C1``, ``F5``-``FF``, a continuation byte). Valid
    UTF-8 reads as Python's strict decoder reads it. Held to Java's own output (tests/wire/test_java_strings.py)."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        pass
    out: list[str] = []
    sp, sl = 0, len(raw)
    while sp < sl:
        b1 = raw[sp]
        sp += 1
        if b1 < 0x80:
            out.append(chr(b1))
        elif 0xC2 <= b1 <= 0xDF:  # two bytes
            if sp < sl:
                b2 = raw[sp]
                if b2 & 0xC0 != 0x80:
                    out.append(_REPL)  # (b2 is read again)
                else:
                    out.append(chr(((b1 & 0x1F) << 6) | (b2 & 0x3F)))
                    sp += 1
                continue
            out.append(_REPL)
            break
        elif b1 >> 4 == 0xE:  # three bytes
            if sp + 1 < sl:
                b2, b3 = raw[sp], raw[sp + 1]
                if (b1 == 0xE0 and b2 & 0xE0 == 0x80) or b2 & 0xC0 != 0x80 or b3 & 0xC0 != 0x80:
                    out.append(_REPL)
                    sp += 0 if (b1 == 0xE0 and b2 & 0xE0 == 0x80) or b2 & 0xC0 != 0x80 else 1
                    continue
                sp += 2
                c = ((b1 & 0x0F) << 12) | ((b2 & 0x3F) << 6) | (b3 & 0x3F)
                out.append(_REPL if 0xD800 <= c <= 0xDFFF else chr(c))
                continue
            if sp < sl and ((b1 == 0xE0 and raw[sp] & 0xE0 == 0x80) or raw[sp] & 0xC0 != 0x80):
                out.append(_REPL)  # (the byte after is read again)
                continue
            out.append(_REPL)
            break
        elif b1 >> 3 == 0x1E:  # four bytes (F0-F7)
            if sp + 2 < sl:
                b2, b3, b4 = raw[sp], raw[sp + 1], raw[sp + 2]
                uc = ((b1 & 0x07) << 18) | ((b2 & 0x3F) << 12) | ((b3 & 0x3F) << 6) | (b4 & 0x3F)
                if b2 & 0xC0 != 0x80 or b3 & 0xC0 != 0x80 or b4 & 0xC0 != 0x80 or not 0x10000 <= uc <= 0x10FFFF:
                    out.append(_REPL)
                    if b1 > 0xF4 or (b1 == 0xF0 and not 0x90 <= b2 <= 0xBF) or (b1 == 0xF4 and b2 & 0xF0 != 0x80):
                        pass  # (malformed4: 1)
                    elif b2 & 0xC0 != 0x80:
                        pass
                    elif b3 & 0xC0 != 0x80:
                        sp += 1
                    else:
                        sp += 2
                    continue
                out.append(chr(uc))
                sp += 3
                continue
            if b1 > 0xF4 or (
                sp < sl
                and (
                    (b1 == 0xF0 and not 0x90 <= raw[sp] <= 0xBF)
                    or (b1 == 0xF4 and raw[sp] & 0xF0 != 0x80)
                    or raw[sp] & 0xC0 != 0x80
                )
            ):
                out.append(_REPL)
                continue
            sp += 1
            out.append(_REPL)
            if sp < sl and raw[sp] & 0xC0 != 0x80:
                continue
            break
        else:
            out.append(_REPL)
    return "".join(out)
