"""The decode shapes compiled to Python (codec.wire.shapes_python) and projected (codec.wire.shapes.project): the
compiled form gives what the walking interpreter gives, over wire objects and over the fast path's row tuples, on
every Streams vector; a miss is still reported with its path; a projection changes only what it names."""

from __future__ import annotations

import dataclasses
import struct
import uuid

import pytest

from codec.errors import DecodeError
from codec.pipeline import rows
from codec.streams import encode_subscription, shapes
from codec.streams.models import SubscriptionInfo
from codec.types import TaskId
from codec.wire import fastpath, native
from codec.wire.builder import decode_wire_reference
from codec.wire.lowering import lower
from codec.wire.shapes import Const, NewDict, Tuple, project
from codec.wire.shapes_python import Miss, _Run, compiled, interpret
from tests.wire.test_native import _streams_records

SHAPES = {
    "SubscriptionInfo": (shapes.subscription_decode, rows._subscription_shape),
    "AssignmentInfo": (shapes.assignment_decode, rows._assignment_shape),
}


def _walk(shape, message, version, obj):
    try:
        return "ok", _Run(shape, message, version).struct(lower(message, version), obj, "", None, None)
    except DecodeError as e:
        return "error", e.path


def test_compiled_shapes_give_what_the_walk_gives_on_every_streams_vector():
    seen = {"model": 0, "row": 0, "miss": 0}
    for rid, message, data in _streams_records():
        version = struct.unpack_from(">i", data)[0] if len(data) >= 4 else None
        if version is None or not 1 <= version <= 11:
            continue
        try:
            obj, _ = decode_wire_reference(message, version, data)
        except DecodeError:
            continue
        for make in SHAPES[message]:
            shape = make(version)
            want = _walk(shape, message, version, obj)
            try:
                got = ("ok", compiled(shape, message, version)(obj))
            except Miss:
                got = ("miss", None)
                seen["miss"] += 1
                assert want[0] == "error", rid
            else:
                assert got == want, rid
                seen["model" if make is SHAPES[message][0] else "row"] += 1
        # over the row tuples of the generated fast path: what the engine's program of the row shape gives
        row_shape = SHAPES[message][1](version)
        engine = native.program(message, version, shape=row_shape) if native.available() else None
        tuples = fastpath.row_decoder(message, version)(data, 0)[0]
        try:
            got_rows = compiled(row_shape, message, version, rows=True)(tuples)
        except Miss:
            assert engine is None or engine.decode(data, 0) is None, rid
            continue
        assert got_rows == _walk(row_shape, message, version, obj)[1], rid
        if engine is not None:
            assert engine.decode(data, 0)[0] == got_rows, rid
    assert seen["model"] > 1000 and seen["row"] > 1000, seen


def test_a_miss_of_the_compiled_form_is_reported_with_its_path():
    """A repeated client tag key: the compiled form misses, interpret walks again and names the element."""
    info = SubscriptionInfo(version=11, process_id=uuid.UUID(int=7), client_tags={"az": "1"})

    obj, _ = decode_wire_reference("SubscriptionInfo", 11, encode_subscription(info))
    obj = dataclasses.replace(obj, client_tags=[*obj.client_tags, *obj.client_tags])
    shape = shapes.subscription_decode(11)
    with pytest.raises(Miss):
        compiled(shape, "SubscriptionInfo", 11)(obj)
    with pytest.raises(DecodeError, match="duplicate key") as ei:
        interpret(shape, "SubscriptionInfo", 11, obj)
    assert ei.value.path == "client_tags[1].key", ei.value.path


def test_a_projection_changes_only_what_it_names():
    model = shapes.subscription_decode(10)
    p = project(
        model,
        "test-projection",
        objs={TaskId: lambda t: Tuple(t["subtopology"], t["partition"])},
        then={"SubscriptionInfo.task_offset_sums": "len", "SubscriptionInfo.absent": "len"},
        conv={"SubscriptionInfo.process_id": "uuid_text"},
    )
    assert p.name == "test-projection" and repr(p.decode["SubscriptionInfo"]) == repr(model.decode["SubscriptionInfo"])
    assert p.arrays == {**model.arrays, "SubscriptionInfo.task_offset_sums": "dict:len"}
    assert p.conv == {**model.conv, "SubscriptionInfo.process_id": "uuid_text"}
    pair = p.decode["TaskOffsetSum"]
    assert isinstance(pair.key, Tuple) and pair.value == "offset_sum"
    assert [x if isinstance(x, str) else type(x).__name__ for x in pair.key.items] == ["topic_group_id", "partition"]
    # a class it does not name stays an Obj; constants and new dicts are untouched
    assert project(model, "same", objs={int: lambda t: Const(None)}).decode["TaskOffsetSum"].key.cls is TaskId
    assert isinstance(model.decode["SubscriptionInfo"].slots["client_tags"], NewDict)


def test_compiled_encode_rows_write_the_bytes_the_wire_object_path_writes():
    """Each Streams vector's model, re-encoded at its version: the encode shape compiled to the fast path's row tuples
    (what ``encode_subscription`` runs without the engine) gives the bytes of the wire-object path (the shape walked
    by ``interpret_encode``, then the construct reference); a model the shape cannot take raises."""
    from codec.streams import assignment, subscription
    from codec.wire.builder import encode_wire_reference
    from codec.wire.shapes import interpret_encode
    from codec.wire.shapes_python import compiled_encode

    seen = 0
    for _, message, data in _streams_records():
        version = struct.unpack_from(">i", data)[0] if len(data) >= 4 else None
        if version is None or not 1 <= version <= 11:
            continue
        try:
            obj, _ = decode_wire_reference(message, version, data)
            model = interpret(SHAPES[message][0](version), message, version, obj)
        except DecodeError:
            continue
        if message == "SubscriptionInfo":
            shape, extras = shapes.subscription_encode(version), subscription.task_extras(model, version)
        else:
            shape, extras = shapes.assignment_encode(version), assignment._dictionary(model, version)
        try:
            want = encode_wire_reference(message, version, interpret_encode(shape, message, version, model, *extras))
        except Exception:  # noqa: BLE001 - what the model path refuses is not this test's
            continue
        rows_ = compiled_encode(shape, message, version)(model, *extras)
        assert fastpath.row_encoder(message, version)(rows_) == want
        seen += 1
    assert seen > 1000, seen
    with pytest.raises(TypeError):  # a model of another class
        compiled_encode(shapes.subscription_encode(11), "SubscriptionInfo", 11)(object())


def test_without_the_engine_the_streams_models_encode_without_wire_objects(monkeypatch):
    """Without the engine, ``encode_assignment`` and ``encode_subscription`` of a usual model take the encode shape
    compiled to rows, never the wire-object walk (``interpret_encode``: 7x slower on AssignmentInfo v7 with 100 hosts,
    which the pure-Python AssignmentInfo encode took until it was wired in). The bytes are those the engine writes."""
    from codec.streams import assignment, decode_assignment, decode_subscription, encode_assignment, subscription

    vectors = [(m, d) for _, m, d in _streams_records() if m in ("AssignmentInfo", "SubscriptionInfo")]
    models = []
    for message, data in vectors:
        version = struct.unpack_from(">i", data)[0] if len(data) >= 4 else 0
        if not 7 <= version <= 11:
            continue
        try:
            model = (decode_assignment if message == "AssignmentInfo" else decode_subscription)(data)
            encode = encode_assignment if message == "AssignmentInfo" else encode_subscription
            models.append((encode, model, encode(model)))  # with the engine
        except Exception:  # noqa: BLE001 - what the model path refuses is not this test's
            continue
    assert sum(encode is encode_assignment for encode, _, _ in models) > 50, len(models)

    def walked(*args, **kwargs):
        raise AssertionError("the wire-object walk ran")

    monkeypatch.setattr(assignment, "interpret_encode", walked)
    monkeypatch.setattr(subscription, "interpret_encode", walked)
    old = native.set_active(False)
    try:
        for encode, model, want in models:
            assert encode(model) == want
    finally:
        native.set_active(old)
