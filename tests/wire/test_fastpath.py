"""The generated fast path against the interpreted construct path (the reference), issue #10.

* every vector in ``vectors/*.jsonl`` and ``../shared/vectors/kafka-java/*.jsonl``: the generated decoder
  (no fallback) decodes every valid body to an object equal to the reference's, ending at the same
  offset, and the generated encoder writes the same bytes back;
* every vector through the public entry points with the fast path on and off: same result, or the same
  error (type, message, offset, path), whole, cut at many lengths and with corrupted bytes;
* hypothesis objects of every (message, version) of every schema, encoded and decoded both ways, and
  the same objects with one field set to a value the version cannot carry.
"""

from __future__ import annotations

import json
from contextlib import contextmanager

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from codec.group import consumer as gc
from codec.group import frames as gf
from codec.group import messages as gm
from codec.streams import decode_assignment, decode_subscription, encode_assignment, encode_subscription
from codec.wire import fastpath
from codec.wire.builder import decode_wire, decode_wire_reference, encode_wire, encode_wire_reference, wire_class
from codec.wire.schema import load_message, schema_names
from tests.conftest import KAFKA_VECTORS, ROOT
from tests.strategies import wire_objects

SCHEMAS = schema_names()


@contextmanager
def fast(on: bool):
    old = fastpath.set_enabled(on)
    try:
        yield
    finally:
        fastpath.set_enabled(old)


def outcome(fn, *args, **kwargs):
    """A comparable result: ('ok', value) or ('error', type, str, offset, path)."""
    try:
        return ("ok", fn(*args, **kwargs))
    except Exception as e:  # noqa: BLE001 - whatever the reference raises, the fast path must too
        return ("error", type(e).__name__, str(e), getattr(e, "offset", None), getattr(e, "path", None))


def both(fn, *args, **kwargs):
    with fast(False):
        ref = outcome(fn, *args, **kwargs)
    with fast(True):
        got = outcome(fn, *args, **kwargs)
    return got, ref


# --- the vectors ----------------------------------------------------------------------------------------


def _records():
    """(id, message, version, wire bytes, entry point) for every vector with a wire form."""
    out = []
    for path in sorted((ROOT / "vectors").glob("*.jsonl")) + sorted(KAFKA_VECTORS.glob("*.jsonl")):
        for i, line in enumerate(path.read_text(encoding="utf-8").splitlines()):
            if not line.strip():
                continue
            r = json.loads(line)
            rid = f"{path.stem}:{r.get('id') or i}"
            if "nested_streams" in path.name:
                for key, kind in (("subscription", "subscription"), ("assignment", "assignment")):
                    sub = r.get(key)
                    if isinstance(sub, dict) and sub.get("hex") is not None:
                        out.append((f"{rid}:{key}", kind, None, bytes.fromhex(sub["hex"]), r))
                continue
            hexed = r.get("wire") if "wire" in r else r.get("hex")
            if hexed is None:
                continue
            name = r.get("message") or r.get("kind")
            out.append((rid, name, r.get("version"), bytes.fromhex(hexed), r))
    return out


RECORDS = _records()


def entry(name: str, version, record):
    """The public decode for one vector's kind."""
    if name in ("SubscriptionInfo", "subscription"):
        return lambda data: decode_subscription(data, detail=True)
    if name in ("AssignmentInfo", "assignment"):
        return lambda data: decode_assignment(data, detail=True)
    if name in (gc.SUBSCRIPTION, gc.ASSIGNMENT):
        return lambda data: gc.decode_consumer(name, data)
    if name in gm.MESSAGES or name in gm.HEADERS:
        return lambda data: gm.decode_message(name, version, data, nested=True)
    if name == "RequestFrame":
        return lambda data: gf.decode_request_frame(data)
    if name == "ResponseFrame":
        exp = record.get("expected") or {}
        key, ver = exp.get("apiKey"), exp.get("apiVersion", version)
        return lambda data: gf.decode_response_frame(data, key, ver)
    return None


def test_vector_corpus_is_there():
    kinds = {r[1] for r in RECORDS}
    assert {"SubscriptionInfo", "AssignmentInfo", "JoinGroupResponse", "RequestFrame"} <= kinds
    assert len(RECORDS) > 4000


def _wire_level(name, version, data):
    """(message, layout version, start) of the body inside a vector, when it is one wire message."""
    if name in ("SubscriptionInfo", "subscription", "AssignmentInfo", "assignment"):
        msg = "SubscriptionInfo" if name.startswith(("S", "s")) else "AssignmentInfo"
        if len(data) < 4:
            return None
        v = int.from_bytes(data[:4], "big", signed=True)
        return (msg, v, 0) if v in load_message(msg).valid else None
    if name in (gc.SUBSCRIPTION, gc.ASSIGNMENT):
        if len(data) < 2:
            return None
        v = int.from_bytes(data[:2], "big", signed=True)
        spec = load_message(name)
        return (name, min(v, spec.valid.high), 2) if v >= spec.valid.low else None
    if name in SCHEMAS and version is not None and version in load_message(name).valid:
        return (name, version, 0)
    return None


@pytest.mark.parametrize("chunk", range(8))
def test_generated_code_equals_reference_on_every_vector(chunk):
    """No fallback here: the generated functions themselves against the construct path."""
    hits = 0
    for rid, name, version, data, record in RECORDS[chunk::8]:
        where = _wire_level(name, version, data)
        if where is None:
            continue
        msg, v, start = where
        ref = outcome(decode_wire_reference, msg, v, data, start=start)
        dec = fastpath.decoder(msg, v)
        assert dec is not None, (msg, v)
        try:
            got = ("ok", dec(data, start))
        except Exception:  # noqa: BLE001 - a miss: the reference must refuse too
            assert ref[0] == "error", f"{rid}: the fast path missed on bytes the reference decodes"
            continue
        assert got == ref, rid
        hits += 1
        obj = got[1][0]
        enc = fastpath.encoder(msg, v)
        ref_bytes = outcome(encode_wire_reference, msg, v, obj)
        try:
            fast_bytes = ("ok", enc(obj))
        except Exception:  # noqa: BLE001
            assert ref_bytes[0] == "error", f"{rid}: the encoder missed on an object the reference encodes"
            continue
        assert fast_bytes == ref_bytes, rid
    assert hits > 100


def _row(obj, spec, version):
    """The row form of a wire object (what row_encoder takes): the tuple of its fields at ``version`` in
    wire order, nested structs and arrays of structs likewise."""
    out = []
    for f in spec.fields_at(version):
        v = getattr(obj, f.py_name)
        if f.struct is not None:
            v = tuple(_row(x, f.struct, version) for x in v) if f.is_array else _row(v, f.struct, version)
        out.append(v)
    return tuple(out)


@pytest.mark.parametrize("chunk", range(8))
def test_row_decoders_give_the_rows_of_the_reference_objects(chunk):
    """row_decoder: the reference object's fields as tuples, the same end, and row_encoder's inverse;
    what the reference refuses, it refuses (classic versions; flexible ones have none)."""
    hits = 0
    for rid, name, version, data, record in RECORDS[chunk::8]:
        where = _wire_level(name, version, data)
        if where is None:
            continue
        msg, v, start = where
        dec = fastpath.row_decoder(msg, v)
        if load_message(msg).is_flexible(v):
            assert dec is None
            continue
        assert dec is not None, (msg, v)
        ref = outcome(decode_wire_reference, msg, v, data, start=start)
        try:
            row, end = dec(data, start)
        except Exception:  # noqa: BLE001 - a miss: the reference must refuse too
            assert ref[0] == "error", f"{rid}: the row decoder missed on bytes the reference decodes"
            continue
        assert ref[0] == "ok", f"{rid}: the row decoder took bytes the reference refuses"
        assert (row, end) == (_row(ref[1][0], load_message(msg).root, v), ref[1][1]), rid
        enc = fastpath.row_encoder(msg, v)
        if enc is not None:
            assert enc(row) == data[start:end], rid
        hits += 1
        if hits % 10 == 0:  # cut and corrupted: the same rows or a refusal where the reference refuses
            cases = [data[:k] for k in _cuts(data)]
            cases += [data[:k] + bytes((b,)) + data[k + 1 :] for k in range(start, len(data), 7) for b in (0x80, 0xFF)]
            for case in cases:
                ref = outcome(decode_wire_reference, msg, v, case, start=start)
                try:
                    got = dec(case, start)
                except Exception:  # noqa: BLE001
                    assert ref[0] == "error", (rid, case.hex())
                    continue
                assert ref[0] == "ok" and got == (_row(ref[1][0], load_message(msg).root, v), ref[1][1]), (
                    rid,
                    case.hex(),
                )
    assert hits > 50


@pytest.mark.parametrize("chunk", range(8))
def test_public_entry_points_agree_on_every_vector(chunk):
    for rid, name, version, data, record in RECORDS[chunk::8]:
        fn = entry(name, version, record)
        if fn is None:
            continue
        got, ref = both(fn, data)
        assert got == ref, rid


def _cuts(data: bytes) -> list[int]:
    n = len(data)
    if n <= 48:
        return list(range(n))
    step = max(1, n // 40)
    return sorted(set(range(0, 24)) | set(range(0, n, step)) | {n - 1, n - 2})


@pytest.mark.parametrize("chunk", range(8))
def test_errors_agree_on_cut_and_corrupted_vectors(chunk):
    """Truncations, single-byte corruptions and trailing bytes: same value or same error both ways."""
    for rid, name, version, data, record in RECORDS[chunk::40]:
        fn = entry(name, version, record)
        if fn is None or not data:
            continue
        cases = [data[:k] for k in _cuts(data)] + [data + b"\x00\x01"]
        for k in range(0, len(data), max(1, len(data) // 12)):
            for b in (0x00, 0x7F, 0x80, 0xFF):
                cases.append(data[:k] + bytes((b,)) + data[k + 1 :])
        for case in cases:
            got, ref = both(fn, case)
            assert got == ref, (rid, case.hex())
        where = _wire_level(name, version, data)
        if where is not None:
            msg, v, start = where
            for case in cases[:8]:
                got, ref = both(decode_wire, msg, v, case, start=start)
                assert got == ref, (rid, "decode_wire", case.hex())


def test_encode_entry_points_agree_on_streams_vectors():
    for rid, name, version, data, record in RECORDS:
        if name not in ("SubscriptionInfo", "subscription", "AssignmentInfo", "assignment"):
            continue
        decoded = outcome(entry(name, version, record), data)
        if decoded[0] != "ok":
            continue
        info = decoded[1].info
        encode = encode_subscription if name in ("SubscriptionInfo", "subscription") else encode_assignment
        if getattr(info, "future", False):
            continue
        got, ref = both(encode, info)
        assert got == ref, rid


# --- generated objects ----------------------------------------------------------------------------------

MESSAGE_VERSIONS = [(name, v) for name in SCHEMAS for v in load_message(name).versions]


def _generated_object_agrees(name, version, data):
    obj = data.draw(wire_objects(name, version))
    got, ref = both(encode_wire, name, version, obj)
    assert got == ref
    if ref[0] != "ok":
        return
    raw = ref[1]
    enc = fastpath.encoder(name, version)
    assert enc is not None and enc(obj) == raw  # no fallback: the generated encoder itself
    got, ref = both(decode_wire, name, version, raw)
    assert got == ref
    dec = fastpath.decoder(name, version)
    assert dec(raw, 0) == ref[1]
    # cut and extended: errors and end offsets agree
    for k in sorted({0, 1, len(raw) // 2, len(raw) - 1}):
        if 0 <= k < len(raw):
            got, ref = both(decode_wire, name, version, raw[:k])
            assert got == ref
    got, ref = both(decode_wire, name, version, bytearray(raw + b"\x07"))
    assert got == ref


@pytest.mark.parametrize(("name", "version"), MESSAGE_VERSIONS)
@settings(max_examples=5)
@given(data=st.data())
def test_generated_objects(name, version, data):
    """Every (message, version): five drawn objects through both paths (the default run; the 25 draws of
    :func:`test_generated_objects_deep` run with ``-m slow``)."""
    _generated_object_agrees(name, version, data)


@pytest.mark.slow
@pytest.mark.parametrize(("name", "version"), MESSAGE_VERSIONS)
@settings(max_examples=25)
@given(data=st.data())
def test_generated_objects_deep(name, version, data):
    """Every (message, version): 25 drawn objects through both paths (``-m slow``)."""
    _generated_object_agrees(name, version, data)


_BAD = (2**31, -(2**63) - 1, True, 1.5, "x", b"x", None, (1,), -1)


@pytest.mark.parametrize(("name", "version"), MESSAGE_VERSIONS)
@settings(max_examples=2)
@given(data=st.data())
def test_encode_errors_agree(name, version, data):
    """Every field of the root struct set to values of the wrong type or out of range."""
    import dataclasses

    obj = data.draw(wire_objects(name, version))
    for fld in dataclasses.fields(obj):
        for bad in _BAD:
            changed = dataclasses.replace(obj, **{fld.name: bad})
            got, ref = both(encode_wire, name, version, changed)
            assert got == ref, (fld.name, bad)


def test_dicts_and_other_sequences_take_the_reference_path():
    W = wire_class("SyncGroupResponse", "SyncGroupResponse")
    obj = W(error_code=0, assignment=bytearray(b"\x01\x02"))
    assert encode_wire("SyncGroupResponse", 0, obj) == encode_wire_reference("SyncGroupResponse", 0, obj)
    as_dict = {"error_code": 3, "assignment": b"xy"}
    assert encode_wire("SyncGroupResponse", 0, as_dict) == encode_wire_reference("SyncGroupResponse", 0, as_dict)
    mv = memoryview(b"\x00\x00\x00\x05\x00\x00\x00\x00\x00\x02xy")
    assert decode_wire("SyncGroupResponse", 1, mv) == decode_wire_reference("SyncGroupResponse", 1, mv)


def test_source_is_readable():
    src = fastpath.source("JoinGroupResponse", 5)
    assert "unpack_from" in src and "def decode" in src
    assert "def encode" in fastpath.source("SubscriptionInfo", 7, "encode")


def test_fast_path_can_be_turned_off():
    with fast(False):
        assert fastpath.decoder("SubscriptionInfo", 7) is None
    with fast(True):
        assert fastpath.decoder("SubscriptionInfo", 7) is not None


# --- the Streams encoders' row path (model -> bytes without wire objects) ---------------------------------

from codec.streams import SubscriptionInfo, subscription_to_wire  # noqa: E402
from codec.types import TaskId  # noqa: E402
from tests.strategies import subscription_infos  # noqa: E402


def _sub_reference(info, version=None, **kw):
    v = info.version if version is None else version
    return encode_wire_reference("SubscriptionInfo", v, subscription_to_wire(info, v, **kw))


@pytest.mark.parametrize("version", range(7, 12))
@settings(max_examples=40)
@given(data=st.data())
def test_subscription_rows_equal_the_wire_object_path(version, data):
    info = data.draw(subscription_infos(version))
    got, ref = both(encode_subscription, info)
    assert got == ref
    assert outcome(_sub_reference, info) == ref
    assert fastpath.row_encoder("SubscriptionInfo", version) is not None


@pytest.mark.parametrize("version", range(7, 12))
@pytest.mark.parametrize(
    "change",
    [
        {"unique_field": 3},
        {"error_code": 4},
        {"client_tags": {"az": "a"}},
        {"latest_supported_version": 6},
        {"latest_supported_version": None},
        {"task_offset_sums": {TaskId(1, 2, "named"): 5}},
        {"task_offset_sums": {TaskId(1, 2): True}},
        {"task_offset_sums": {TaskId(1, 2): 2**63}},
        {"user_endpoint": b"bytes"},
        {"unique_field": 200},
        {"process_id": "not a uuid"},
        {"client_tags": {"k": 1}},
        {"version": 12},
    ],
)
def test_subscription_rows_refuse_what_the_reference_refuses(version, change):
    import dataclasses

    base = SubscriptionInfo(version=version, latest_supported_version=11)
    info = dataclasses.replace(base, **change)
    for kw in ({}, {"drop_unrepresentable": True}):
        got, ref = both(encode_subscription, info, **kw)
        assert got == ref, (change, kw)


# --- the slot-filling constructors ------------------------------------------------------------------------


def test_makers_build_what_the_constructors_build():
    import dataclasses

    from codec.types import HostInfo, TopicPartition, _host_info, _task_id, _topic_partition

    for name in SCHEMAS:
        message = load_message(name)
        for struct_name in message.structs:
            cls = wire_class(name, struct_name)
            names = tuple(f.name for f in dataclasses.fields(cls))
            for k in range(len(names) + 1):
                part = names[:k]
                defaults = cls()
                values = [getattr(defaults, n) for n in part]
                made = fastpath.maker(name, struct_name, part)(*values)
                assert type(made) is cls and made == cls(**dict(zip(part, values)))
                if "unknown_tagged_fields" not in part and "unknown_tagged_fields" in names:
                    assert (
                        made.unknown_tagged_fields
                        is not fastpath.maker(name, struct_name, part)(*values).unknown_tagged_fields
                    )  # a fresh dict each time
    for args in ((1, 2), (1, 2, None), (1, 2, ""), (-1, 0, "topo")):
        t = _task_id(*args)
        assert (
            type(t) is TaskId
            and t == TaskId(*args)
            and hash(t) == hash(TaskId(*args))
            and repr(t) == repr(TaskId(*args))
        )
    assert _topic_partition("t", 3) == TopicPartition("t", 3) and type(_topic_partition("t", 3)) is TopicPartition
    assert _host_info("h", 9) == HostInfo("h", 9) and type(_host_info("h", 9)) is HostInfo
    with pytest.raises(TypeError):
        fastpath.maker("SubscriptionInfo", "TaskId", ("nope",))
