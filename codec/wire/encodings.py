"""The byte encodings of Kafka's strings and varints that every layer shares, without construct: the native
codec, the Python fast path and the construct primitives (:mod:`codec.wire.primitives`) all use these.

* :func:`uvarint_bytes`: unsigned LEB128 (Kafka's compact lengths and tags);
* :func:`utf8_or_refuse`: UTF-8, a lone surrogate refused with the field's path (Java would write ``?``);
* :func:`mutf8_encode` / :func:`mutf8_decode`: Java's modified UTF-8 (``DataOutputStream.writeUTF``).
"""

from __future__ import annotations

from ..errors import EncodeError

__all__ = ["uvarint_bytes", "utf8_or_refuse", "mutf8_encode", "mutf8_decode"]


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
