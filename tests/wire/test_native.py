"""The native codec (codec/wire/_native.c running the programs of codec/wire/native.py) against the
pure-Python reference (the construct path), issue #29.

* every (message, version) of every schema has a program in every mode;
* every vector in ``vectors/*.jsonl`` and ``../shared/vectors/kafka-java/*.jsonl``: the engine itself (no
  fallback) decodes each body to the reference's object and end, encodes it back to the reference's bytes,
  gives ``to_json``'s dicts in both styles and the rows of the classic versions; cut and corrupted, it
  returns None (the caller's cue to take the reference path) exactly where the reference raises;
* the public entry points with the native codec on and off: the same value, or the same error (type,
  message, offset, path);
* hypothesis objects of every message version, and every field set to a wrong or out-of-range value;
* the Streams shapes (straight to and from the models) against the Python conversions;
* the makers and the engine's tuple hash against what they stand for.

The whole vector suite through both codecs (the conformance runner) is in ``tests/test_codecs.py``.
"""

from __future__ import annotations

import dataclasses
import struct
import uuid
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from codec.streams import (
    decode_assignment,
    decode_subscription,
    encode_assignment,
    encode_subscription,
    shapes,
)
from codec.streams.assignment import assignment_from_wire
from codec.streams.subscription import subscription_from_wire
from codec.wire import fastpath, native
from codec.wire.builder import (
    decode_wire,
    decode_wire_reference,
    encode_wire,
    encode_wire_reference,
    to_json,
)
from codec.wire.schema import load_message, schema_names
from tests.strategies import subscription_infos, wire_objects
from tests.wire.test_fastpath import RECORDS, _cuts, _row, _wire_level, entry, outcome

pytestmark = pytest.mark.skipif(not native.available(), reason=f"no native codec: {native.unavailable_reason()}")

SCHEMAS = schema_names()
MESSAGE_VERSIONS = [(name, v) for name in SCHEMAS for v in load_message(name).versions]


@contextmanager
def codec(name: str):
    """``native``, ``python`` (the fast path, then the reference) or ``reference`` (construct alone)."""
    old_native = native.set_active(name == "native")
    old_fast = fastpath.set_enabled(name == "python")
    try:
        yield
    finally:
        native.set_active(old_native)
        fastpath.set_enabled(old_fast)


def both(fn, *args, **kwargs):
    with codec("reference"):
        ref = outcome(fn, *args, **kwargs)
    with codec("native"):
        got = outcome(fn, *args, **kwargs)
    return got, ref


@pytest.mark.parametrize("mode", ["object", "kafka", "snake", "rows"])
def test_every_message_version_has_a_program(mode):
    for name, v in MESSAGE_VERSIONS:
        if mode == "rows" and load_message(name).is_flexible(v):
            continue
        assert native.program(name, v, mode) is not None, (name, v, mode)


@pytest.mark.parametrize("chunk", range(4))
def test_the_engine_equals_the_reference_on_every_vector(chunk):
    """No fallback: the programs themselves, in every mode, against the construct path."""
    hits = 0
    for rid, name, version, data, record in RECORDS[chunk::4]:
        where = _wire_level(name, version, data)
        if where is None:
            continue
        msg, v, start = where
        ref = outcome(decode_wire_reference, msg, v, data, start=start)
        got = native.program(msg, v).decode(data, start)
        if got is None:
            assert ref[0] == "error", f"{rid}: the engine missed on bytes the reference decodes"
            continue
        assert ("ok", got) == ref, rid
        obj, end = got
        assert native.program(msg, v).encode(obj) == encode_wire_reference(msg, v, obj), rid
        for style in ("kafka", "snake"):
            assert native.program(msg, v, style).decode(data, start) == (to_json(obj, msg, v, style=style), end), rid
        if not load_message(msg).is_flexible(v):
            rows = native.program(msg, v, "rows")
            assert rows.decode(data, start) == (_row(obj, load_message(msg).root, v), end), rid
            assert rows.encode(_row(obj, load_message(msg).root, v)) == data[start:end], rid
        hits += 1
    assert hits > 500


@pytest.mark.parametrize("chunk", range(2))
def test_the_engine_misses_exactly_where_the_reference_refuses(chunk):
    """Cut, corrupted and extended vectors: the engine's value is the reference's, or it returns None
    where the reference raises (and never None where the reference decodes)."""
    for rid, name, version, data, record in RECORDS[chunk::50]:
        where = _wire_level(name, version, data)
        if where is None or not data:
            continue
        msg, v, start = where
        cases = [data[:k] for k in _cuts(data)] + [data + b"\x00\x01"]
        cases += [
            data[:k] + bytes((b,)) + data[k + 1 :]
            for k in range(start, len(data), max(1, len(data) // 12))
            for b in (0x00, 0x7F, 0x80, 0xFF)
        ]
        prog = native.program(msg, v)
        for case in cases:
            ref = outcome(decode_wire_reference, msg, v, case, start=start)
            got = prog.decode(case, start)
            assert (got is None) == (ref[0] == "error"), (rid, case.hex())
            if got is not None:
                assert ("ok", got) == ref, (rid, case.hex())


@pytest.mark.parametrize("chunk", range(4))
def test_public_entry_points_agree_on_every_vector(chunk):
    for rid, name, version, data, record in RECORDS[chunk::4]:
        fn = entry(name, version, record)
        if fn is None:
            continue
        got, ref = both(fn, data)
        assert got == ref, rid


@pytest.mark.parametrize("chunk", range(2))
def test_public_errors_agree_on_cut_and_corrupted_vectors(chunk):
    for rid, name, version, data, record in RECORDS[chunk::60]:
        fn = entry(name, version, record)
        if fn is None or not data:
            continue
        cases = [data[:k] for k in _cuts(data)] + [data + b"\x00\x01"]
        for k in range(0, len(data), max(1, len(data) // 8)):
            cases += [data[:k] + bytes((b,)) + data[k + 1 :] for b in (0x00, 0xFF)]
        for case in cases:
            got, ref = both(fn, case)
            assert got == ref, (rid, case.hex())


@pytest.mark.parametrize(("name", "version"), MESSAGE_VERSIONS)
@settings(max_examples=5)
@given(data=st.data())
def test_generated_objects(name, version, data):
    obj = data.draw(wire_objects(name, version))
    got, ref = both(encode_wire, name, version, obj)
    assert got == ref
    if ref[0] != "ok":
        assert native.program(name, version).encode(obj) is None
        return
    raw = ref[1]
    assert native.program(name, version).encode(obj) == raw  # no fallback: the engine itself
    got, ref = both(decode_wire, name, version, raw)
    assert got == ref
    assert native.program(name, version).decode(raw, 0) == ref[1]
    for style in ("kafka", "snake"):
        assert native.program(name, version, style).decode(raw, 0)[0] == to_json(ref[1][0], name, version, style=style)
    for k in sorted({0, 1, len(raw) // 2, len(raw) - 1}):
        if 0 <= k < len(raw):
            got, ref = both(decode_wire, name, version, raw[:k])
            assert got == ref


_BAD = (2**31, -(2**63) - 1, True, 1.5, "x", b"x", None, (1,), -1, bytearray(b"x"), [], {})


@pytest.mark.parametrize(("name", "version"), MESSAGE_VERSIONS)
@settings(max_examples=1)
@given(data=st.data())
def test_encode_errors_agree(name, version, data):
    """Every field of the root struct set to values of the wrong type or out of range."""
    obj = data.draw(wire_objects(name, version))
    for fld in dataclasses.fields(obj):
        for bad in _BAD:
            changed = dataclasses.replace(obj, **{fld.name: bad})
            got, ref = both(encode_wire, name, version, changed)
            assert got == ref, (fld.name, bad)


def test_other_inputs_take_the_reference_path():
    """A dict for an object, a memoryview or a str for bytes: the engine says None, the reference decides."""
    prog = native.program("SyncGroupResponse", 0)
    assert prog.encode({"error_code": 3, "assignment": b"xy"}) is None
    assert prog.decode("not bytes", 0) is None
    mv = memoryview(b"\x00\x00\x00\x05\x00\x00\x00\x00\x00\x02xy")
    assert native.program("SyncGroupResponse", 1).decode(mv, 0) == decode_wire_reference("SyncGroupResponse", 1, mv)
    assert native.program("SyncGroupResponse", 1).decode(b"\x00", 5) is None  # a start past the end


def test_a_large_bytes_field_is_written_once():
    """The encoder gathers: big bytes values are referenced and copied into the result once."""
    W = native.program("SyncGroupRequest", 3)
    big = bytes(range(256)) * 400
    obj = decode_wire_reference(
        "SyncGroupRequest",
        3,
        encode_wire_reference(
            "SyncGroupRequest",
            3,
            {
                "group_id": "g",
                "generation_id": 1,
                "member_id": "m",
                "group_instance_id": None,
                "assignments": [{"member_id": f"m{i}", "assignment": big[i:]} for i in range(20)],
            },
        ),
    )[0]
    assert W.encode(obj) == encode_wire_reference("SyncGroupRequest", 3, obj)


def test_known_tagged_fields_decode_and_encode_natively():
    """ConsumerGroupMemberMetadataValue's ClassicMemberMetadata (tag 0, a nullable struct behind a uvarint
    marker): set, it is written and read by the engine itself (the Python fast path leaves it to the
    reference)."""
    name = "ConsumerGroupMemberMetadataValue"
    versions = [v for v in load_message(name).versions if load_message(name).root.tagged_at(v)]
    assert versions
    for v in versions:
        _check_tagged(name, v)


def _check_tagged(name: str, v: int) -> None:
    @settings(max_examples=25)
    @given(obj=wire_objects(name, v))
    def check(obj):
        from codec.wire.builder import wire_class

        classic = wire_class(name, "ClassicMemberMetadata")(session_timeout_ms=45000)
        obj = dataclasses.replace(obj, classic_member_metadata=classic)
        raw = outcome(encode_wire_reference, name, v, obj)
        if raw[0] != "ok":
            return
        assert native.program(name, v).encode(obj) == raw[1]
        got = native.program(name, v).decode(raw[1], 0)
        assert got == decode_wire_reference(name, v, raw[1]) and got[0].classic_member_metadata == classic

    check()


# --- the Streams shapes -------------------------------------------------------------------------------------


def _streams_records():
    for rid, name, version, data, record in RECORDS:
        if name in ("SubscriptionInfo", "subscription"):
            yield rid, "SubscriptionInfo", data
        elif name in ("AssignmentInfo", "assignment"):
            yield rid, "AssignmentInfo", data


def _model(message: str, version: int, data: bytes):
    """The model by the Python conversion of the reference's wire object (or its error)."""
    ref = outcome(decode_wire_reference, message, version, data)
    if ref[0] != "ok":
        return ref
    conv = subscription_from_wire if message == "SubscriptionInfo" else assignment_from_wire
    got = outcome(conv, ref[1][0])
    return ("ok", (got[1], ref[1][1])) if got[0] == "ok" else got


def test_shapes_decode_every_streams_vector_as_the_conversions_do():
    hits = 0
    for rid, message, data in _streams_records():
        if len(data) < 4:
            continue
        v = struct.unpack_from(">i", data)[0]
        shape = (shapes.subscription_decode if message == "SubscriptionInfo" else shapes.assignment_decode)(v)
        if shape is None:
            continue
        got = native.program(message, v, shape=shape).decode(data, 0)
        ref = _model(message, v, data)
        if got is None:
            assert ref[0] == "error", f"{rid}: the shape missed on a message the conversion takes"
            continue
        assert ("ok", got) == ref, rid
        hits += 1
    assert hits > 1000


def test_shapes_encode_every_streams_vector_as_the_conversions_do():
    for rid, message, data in _streams_records():
        decode = decode_subscription if message == "SubscriptionInfo" else decode_assignment
        encode = encode_subscription if message == "SubscriptionInfo" else encode_assignment
        with codec("reference"):
            decoded = outcome(decode, data)
        if decoded[0] != "ok" or getattr(decoded[1], "future", False):
            continue
        got, ref = both(encode, decoded[1])
        assert got == ref, rid


@pytest.mark.parametrize("version", range(1, 12))
@settings(max_examples=30)
@given(data=st.data())
def test_subscription_models_round_trip_alike(version, data):
    info = data.draw(subscription_infos(version))
    for kw in ({}, {"drop_unrepresentable": True}):
        got, ref = both(encode_subscription, info, **kw)
        assert got == ref
        if ref[0] == "ok":
            assert both(decode_subscription, ref[1])[0] == both(decode_subscription, ref[1])[1]


def test_a_shape_that_names_what_the_schema_lacks_is_refused():
    bad = native.Shape("typo", decode={"NoSuchStruct": native.Flat()})
    with pytest.raises(ValueError, match="NoSuchStruct"):
        native._compiled("SubscriptionInfo", 7, "object", bad)
    assert native.program("SubscriptionInfo", 7, shape=bad) is None


# --- makers and hashes ----------------------------------------------------------------------------------------


def test_makers_build_what_the_constructors_build():
    from codec.group.consumer import ConsumerMessage
    from codec.group.messages import DecodedMessage
    from codec.types import HostInfo, TaskId

    for on in (True, False):
        with codec("native" if on else "python"):
            make = native.maker(DecodedMessage)
            made = make("M", 1, 2, 3, 4)
            assert made == DecodedMessage("M", 1, 2, 3, 4) and type(made) is DecodedMessage
            cm = native.maker(ConsumerMessage)("n", 3, None, b"t")
            assert cm == ConsumerMessage(name="n", version=3, data=None, trailing=b"t")
            assert hash(native.maker(TaskId)(1, 2, None)) == hash(TaskId(1, 2))
            assert native.maker(HostInfo)("h", 1) == HostInfo("h", 1)
    with pytest.raises(TypeError):
        native.maker(HostInfo)("h")


def test_a_dict_sized_from_a_count_allocates_what_the_bytes_can_hold():
    """A dict-shaped array is sized for its count at once, but for no more entries than one per 8 bytes that
    remain: a SubscriptionInfo v11 claiming 100,000 tasks in 100,000 bytes of zeros (each 18 bytes: one task,
    the same key again and again) peaks below 8x its size (sized for the claimed count: ~26x)."""
    import tracemalloc

    from codec.streams.shapes import subscription_decode

    prog = native.program("SubscriptionInfo", 11, shape=subscription_decode(11))
    n = 100_000
    data = struct.pack(">ii16sii", 11, 11, bytes(16), 0, n) + bytes(n)
    prog.decode(data, 0)  # (anything decoding allocates once, outside the measure)
    tracemalloc.start()
    try:
        assert prog.decode(data, 0) is None  # the bytes end before the count does: a miss
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 8 * len(data), peak


def test_a_front_takes_its_table_and_leaves_the_rest_to_its_function():
    """``native.front``: a positional call with a key in the table and a value is the table's; an absent or
    unhashable key, a None result, keyword arguments, the codec off -> the function itself; an error
    that is not the lookup's propagates."""
    calls = []

    def fn(a, b, data, *, flag=False):
        """The doc."""
        calls.append((a, b, data, flag))
        return "fallback"

    def boom(data):
        raise ZeroDivisionError

    table = {
        ("m", 1): lambda data: ("hit", data),
        ("m", 2): lambda data: None,
        ("m", 3): boom,
        ("m", 1, "s"): lambda data: "suffixed",
    }
    f = native.front(fn, table, 2)
    assert f("m", 1, b"x") == ("hit", b"x") and calls == []
    assert f("m", 2, b"x") == "fallback" and calls == [("m", 2, b"x", False)]  # a miss
    assert f("m", 9, b"x") == "fallback"  # not in the table
    assert f(["unhashable"], 1, b"x") == "fallback"
    assert f("m", 1, b"x", flag=True) == "fallback" and calls[-1] == ("m", 1, b"x", True)
    assert f("m", 1, data=b"x") == "fallback"
    with pytest.raises(ZeroDivisionError):
        f("m", 3, b"x")
    with codec("python"):
        assert f("m", 1, b"x") == "fallback"
    assert native.front(fn, table, 2, ("s",))("m", 1, b"x") == "suffixed"
    # a version prefix ends the key: bytes of 2 to prefix_max bytes only
    pre = native.front(lambda name, data: "fallback", {("m", 0x0102): lambda data: ("hit", data)}, 1, prefix_max=4)
    assert pre("m", b"\x01\x02x") == ("hit", b"\x01\x02x")
    assert pre("m", b"\x01\x02xyz") == pre("m", b"\x01") == pre("m", bytearray(b"\x01\x02x")) == "fallback"
    assert f.__wrapped__ is fn and f.__name__ == "fn" and f.__doc__ == "The doc."
    import inspect
    import pickle

    from codec.group import messages

    assert str(inspect.signature(messages.decode_message)).startswith("(name: 'str', version: 'int'")
    assert pickle.loads(pickle.dumps(messages.decode_message)) is messages.decode_message


@settings(max_examples=200)
@given(st.tuples(st.integers(-(2**70), 2**70), st.one_of(st.none(), st.text(max_size=5)), st.uuids()))
def test_the_engines_tuple_hash_is_pythons(t):
    assert native._engine.tuple_hash(t) == hash(t)


def test_dict_keys_the_engine_built_are_found_by_python():
    """Keys inserted with the engine's hash: looked up through the class's own __hash__."""
    from codec.types import TaskId

    info = decode_subscription(
        encode_subscription(
            decode_subscription(
                bytes.fromhex(
                    "0000000b0000000b"
                    + "00" * 16
                    + "00000000"
                    + "00000001"
                    + "00000001"
                    + "00000002"
                    + "0000000000000007"
                    + "ffff"
                    + "00"
                    + "00000000"
                    + "00000000"
                )
            )
        )
    )
    assert info.task_offset_sums[TaskId(1, 2)] == 7 and TaskId(1, 2) in set(info.task_offset_sums)
    assert uuid.UUID(int=0) == info.process_id


@settings(max_examples=300)
@given(
    st.text(max_size=40)
    | st.lists(
        st.integers(0, 0x10FFFF).filter(lambda c: not 0xD800 <= c <= 0xDFFF) | st.integers(0xD800, 0xDFFF), max_size=12
    ).map(lambda cs: "".join(map(chr, cs)))
)
def test_the_engines_modified_utf8_is_the_references(s):
    from codec.wire.encodings import mutf8_decode, mutf8_encode

    raw = mutf8_encode(s)
    assert native._engine.mutf8_encode(s) == raw
    assert native._engine.mutf8_decode(raw) == mutf8_decode(raw)  # (two lone halves of a pair read back as one)


@settings(max_examples=300)
@given(st.binary(max_size=24))
def test_the_engines_modified_utf8_refuses_what_the_reference_refuses(raw):
    from codec.wire.encodings import mutf8_decode

    assert outcome(native._engine.mutf8_decode, raw)[0] == outcome(mutf8_decode, raw)[0]
    if outcome(mutf8_decode, raw)[0] == "ok":
        assert native._engine.mutf8_decode(raw) == mutf8_decode(raw)


def _stub_names(text: str) -> dict[str, set[str]]:
    """The public names a stub declares: ``""`` -> the module's, a class's name -> its methods."""
    import ast

    names: dict[str, set[str]] = {"": set()}
    for node in ast.parse(text).body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names[""].add(node.name)
        if isinstance(node, ast.ClassDef):
            names[node.name] = {n.name for n in node.body if isinstance(n, ast.FunctionDef)}
    return names


def _public(obj: object) -> set[str]:
    return {n for n in dir(obj) if not n.startswith("_")}


def test_the_engines_stub_names_what_the_built_engine_has():
    """codec/wire/_native.pyi (written by hand: mypy cannot read the C file) declares exactly the functions and
    the program type's methods the built extension has; a name added to or dropped from the C method tables
    without the stub fails here."""
    from codec.wire import _native

    stub = _stub_names(Path(_native.__file__).with_name("_native.pyi").read_text(encoding="utf-8"))
    assert stub[""] == _public(_native)
    assert stub["StructProgram"] == _public(_native.StructProgram)
    # (the check sees a difference: a stub that lacks a method of the program type)
    assert _stub_names("class StructProgram:\n    def decode(self): ...\n")["StructProgram"] != _public(
        _native.StructProgram
    )


@pytest.mark.skipif(not native.available(), reason="the native codec is not built")
def test_a_dict_array_gives_what_its_shape_names_instead():
    """An array shaped ``dict`` or ``counts`` may give, instead of the dict, its values (``:values``), its items or
    None when empty (``:items``), each entry as its key tuple with the value appended (``:rows``) or its number
    of keys (``:len``). Each is the plain dict's, made by Python here, on every AssignmentInfo v7 and
    SubscriptionInfo v11 vector; a ``:rows`` key that is not a tuple is a miss; ``:then`` on other arrays is
    refused when the program is compiled."""
    T = native.Tuple
    task = {"TaskId": T("subtopology", "partition"), "TopicPartition": native.Flat()}

    def asg(then: str):
        arrays = {
            "AssignmentInfo.active_tasks": "counts" + then,
            "AssignmentInfo.standby_tasks": "dict" + then,
            "StandbyTask.partitions": "count",
            "AssignmentInfo.partitions_by_host": "dict" + (":len" if then else ""),
            "HostPartitions.indexed_partitions": "count",
            "AssignmentInfo.topic_dictionary": "dict",
            "AssignmentInfo.standby_partitions_by_host": "dict",
        }
        decode = task | {
            "StandbyTask": native.Pair("task_id", "partitions"),
            "HostPartitions": native.Pair(T("host", "port"), native.Const(None)),
            "TopicIndex": native.Pair("index", native.Const(None)),
            "IndexedPartition": T("partition"),
            "AssignmentInfo": T("active_tasks", "standby_tasks", "partitions_by_host"),
        }
        return native.program("AssignmentInfo", 7, shape=native.Shape(f"test-then-a{then}", decode, arrays))

    def sub(then: str):
        arrays = {"SubscriptionInfo.task_offset_sums": "dict" + then, "SubscriptionInfo.client_tags": "dict" + then}
        decode = {
            "TaskOffsetSum": native.Pair(T("topic_group_id", "partition"), "offset_sum"),
            "ClientTag": native.Pair("key", "value"),
            "SubscriptionInfo": T("task_offset_sums", "client_tags"),
        }
        return native.program("SubscriptionInfo", 11, shape=native.Shape(f"test-then-s{then}", decode, arrays))

    def rows(d: dict) -> list:
        return [(*k, v) for k, v in d.items()]

    seen = {"a": 0, "s": 0, "empty": 0}
    for _, message, data in _streams_records():
        version = struct.unpack_from(">i", data)[0] if len(data) >= 4 else None
        if message == "AssignmentInfo" and version == 7:
            plain = asg("").decode(data, 0)
            if plain is None:
                continue
            (active, standby, hosts), end = plain
            assert asg(":rows").decode(data, 0) == ((rows(active), rows(standby), len(hosts)), end)
            assert asg(":values").decode(data, 0)[0][:2] == (list(active.values()), list(standby.values()))
            seen["a"] += 1
        elif message == "SubscriptionInfo" and version == 11:
            plain = sub("").decode(data, 0)
            if plain is None:
                continue
            (tasks, tags), end = plain
            items = sub(":items").decode(data, 0)
            assert items == ((list(tasks.items()) or None, list(tags.items()) or None), end)
            assert sub(":len").decode(data, 0) == ((len(tasks), len(tags)), end)
            seen["s"] += 1
            seen["empty"] += not tags
            if tags:  # string keys: no rows
                assert sub(":rows").decode(data, 0) is None
    assert seen["a"] > 20 and seen["s"] > 20 and seen["empty"] > 0, seen
    bad = native.Shape("test-then-bad", arrays={"SubscriptionInfo.prev_tasks": "count:len"})
    with pytest.raises(ValueError, match="follows a dict or counts array"):
        native._compiled("SubscriptionInfo", 6, "object", bad)


def test_each_decodes_a_list_by_version():
    """``native.each``: every buffer through the table's decoder of its version (its first 2 or 4 bytes), None
    where the version is absent, the decoder misses, or the buffer is not bytes of ``width`` to ``max_size``
    bytes; an error that is not a miss propagates. With the codec off: the fallback of each bytes."""

    def boom(b):
        raise ZeroDivisionError

    table = {1: lambda b: ("one", b[4:]), -1: lambda b: ("minus", len(b)), 2: lambda b: None, 258: lambda b: "two"}
    bufs = [b"\0\0\0\1x", b"\xff\xff\xff\xffyz", b"\0\0\0\2", b"\0\0\0\3", b"\0\0\0", bytearray(b"\0\0\0\1"), None]
    bufs += [b"\0\0\0\1" + bytes(20)]
    want = [("one", b"x"), ("minus", 6), None, None, None, None, None, None]
    with codec("native"):
        if native.active():
            assert native.each(table, bufs, 4, 10, lambda b: "fallback") == want
            assert native.each(table, [b"\1\2", b"\1"], 2, 10, None) == ["two", None]
            with pytest.raises(ZeroDivisionError):
                native.each({1: boom}, [b"\0\0\0\1"], 4, 10, None)
    with codec("python"):
        assert native.each(table, bufs[:2] + [None], 4, 10, len) == [5, 6, None]
