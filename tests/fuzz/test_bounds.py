"""No decoder allocates in proportion to a count or length the remaining bytes cannot back.

For every array, bytes and string field of every message at every version, a message is cut right after
that field's count and the count rewritten to claim two billion elements (or bytes): decoding must fail
with a DecodeError while the peak of Python's allocations stays a small constant."""

from __future__ import annotations

import tracemalloc

import pytest

from codec.errors import DecodeError
from codec.wire.builder import decode_wire, encode_wire, field_offsets, wire_class
from codec.wire.primitives import uvarint_bytes
from codec.wire.schema import load_message, schema_names

CLAIM = 2_000_000_000
PEAK_LIMIT = 256 * 1024  # bytes: the decoder's own working set, nothing proportional to CLAIM


def _full(message, spec, version):
    """A wire object whose arrays all hold one element (recursively), so every count is on the wire."""
    import uuid

    samples = {"string": "s", "javaUTF": "s", "bytes": b"b", "uuid": uuid.UUID(int=1)}
    kwargs = {}
    for f in spec.fields_at(version):
        if f.struct is not None:
            child = _full(message, f.struct, version)
            kwargs[f.py_name] = (child,) if f.is_array else child
        elif f.is_array:
            kwargs[f.py_name] = (samples.get(f.element_type, 0),)
        elif f.type == "bytes":
            kwargs[f.py_name] = b"xy"
        elif f.type in ("string", "javaUTF", "javaChars"):
            kwargs[f.py_name] = "xy"
    if spec.name == message.name and "version" in {f.py_name for f in spec.fields}:
        kwargs["version"] = version  # the Streams messages carry their own version word
    return wire_class(message.name, spec.name)(**kwargs)


def _has_lengths(spec, version) -> bool:
    return any(
        f.is_array
        or f.type in ("bytes", "string", "javaUTF", "javaChars")
        or (f.struct is not None and _has_lengths(f.struct, version))
        for f in spec.fields_at(version)
    )


def _resolve(message, path: str):
    spec = message.root
    field = None
    for part in path.split("."):
        name = part.split("[")[0]
        field = next(f for f in spec.fields if f.py_name == name)
        if field.struct is not None:
            spec = field.struct
    return field


def _cases():
    for name in schema_names():
        message = load_message(name)
        for version in message.versions:
            yield name, version


def _claims(name: str, version: int):
    message = load_message(name)
    data = encode_wire(name, version, _full(message, message.root, version))
    flexible = message.is_flexible(version)
    for path, off in field_offsets(name, version, data).items():
        if path.rsplit(".", 1)[-1] == "_tagged_fields":  # a flexible struct's tagged-field section, not a field
            continue
        f = _resolve(message, path)
        if not (f.is_array or f.type in ("bytes", "string", "javaUTF", "javaChars")):
            continue
        compact = flexible and not (f.flexible_override is not None and version not in f.flexible_override)
        if f.type in ("string",) and not compact:
            claim = (0x7FFF).to_bytes(2, "big")  # an int16 length can claim no more
        elif f.type == "javaUTF":
            claim = (0xFFFF).to_bytes(2, "big")
        elif compact:
            claim = uvarint_bytes(CLAIM + 1)
        else:
            claim = CLAIM.to_bytes(4, "big")
        yield path, data[:off] + claim


@pytest.mark.parametrize("name,version", list(_cases()))
def test_huge_claims_are_rejected_without_allocating(name, version):
    claims = list(_claims(name, version))
    assert bool(claims) == _has_lengths(load_message(name).root, version)
    for path, data in claims:
        try:  # warm the caches (compiled structures, generated code) outside the measurement
            decode_wire(name, version, data)
        except DecodeError:
            pass
        tracemalloc.start()
        try:
            with pytest.raises(DecodeError):
                decode_wire(name, version, data)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        assert peak < PEAK_LIMIT, f"{name} v{version} {path}: peak {peak} bytes"


def test_four_byte_input_claiming_two_billion_elements():
    # The example: an AssignmentInfo v1 whose activeTasks count claims 2e9 in a 4+4-byte input.
    from codec.streams import decode_assignment

    data = (1).to_bytes(4, "big") + CLAIM.to_bytes(4, "big")
    with pytest.raises(DecodeError):  # warm the caches outside the measurement
        decode_assignment(data)
    tracemalloc.start()
    try:
        with pytest.raises(DecodeError):
            decode_assignment(data)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < PEAK_LIMIT


def test_every_message_has_its_length_fields_checked():
    counted = sum(1 for name, version in _cases() for _ in _claims(name, version))
    assert counted > 300  # every array/bytes/string field of every message and version


@pytest.mark.parametrize("reader", [0, 1])
def test_connect_decoders_reject_huge_claims_without_allocating(reader):
    """The fuzz targets connect-metadata/r0, /r1 and connect-assignment/r0, /r1 (codec.connect's decoders with a
    reader version, not only decode_wire of their schemas above): a count or length claiming two billion."""
    from codec.connect import decode_connect_assignment, decode_connect_metadata

    claim = CLAIM.to_bytes(4, "big")
    # ConnectAssignment, header v(reader): int16 error 0, leader "l", leader URL "u", int64 config offset 0,
    # then the int32 count of the assignment's connector groups
    assignment = reader.to_bytes(2, "big") + b"\x00\x00" + b"\x00\x01l" + b"\x00\x01u" + bytes(8) + claim
    cases = [(decode_connect_assignment, assignment)]
    if reader:  # ConnectMetadata v1: URL "u", int64 config offset 0, then the int32 length of the allocation
        cases.append((decode_connect_metadata, b"\x00\x01" + b"\x00\x01u" + bytes(8) + claim))
    else:  # v0: an int16 URL length of 0x7FFF with one byte behind it
        cases.append((decode_connect_metadata, b"\x00\x00" + b"\x7f\xffu"))
    for decode, data in cases:
        with pytest.raises(DecodeError):  # warm the caches outside the measurement
            decode(data, reader_version=reader)
        tracemalloc.start()
        try:
            with pytest.raises(DecodeError):
                decode(data, reader_version=reader)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        assert peak < PEAK_LIMIT, (decode.__name__, reader, peak)
