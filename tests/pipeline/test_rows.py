"""The executors' fast path (codec.pipeline.rows) against the models (codec.pipeline.records): for every
input both give the same units, or the fast path declines and the models decide.

The reference rows are the models' (decode_record -> Units.units, or the quarantine entry of its
RecordError); the fast path's are what decode_rows builds when the record comes as plain bytes. Inputs:
every Kafka-written and handcrafted SubscriptionInfo/AssignmentInfo vector, every truncation and a
thousand seeded byte edits of a sample of them, and hand-made cases for each rule the fast path must
apply or decline on."""

from __future__ import annotations

import json
import random
import struct
import uuid

import pytest

pa = pytest.importorskip("pyarrow", reason="the pipeline's executor code needs pyarrow (spark extra)")

from codec.pipeline import arrow  # noqa: E402
from codec.pipeline.arrow import INPUT_COLUMNS, Units, decode_batch, decode_rows  # noqa: E402
from codec.pipeline.records import RecordError, decode_record  # noqa: E402
from codec.pipeline.rows import assignment_fields, assignment_rows, subscription_fields, subscription_rows  # noqa: E402
from codec.wire import native  # noqa: E402
from codec.streams import AssignmentInfo, SubscriptionInfo, encode_assignment, encode_subscription  # noqa: E402
from codec.types import HostInfo, TaskId, TopicPartition  # noqa: E402
from tests.conftest import KAFKA_VECTORS, ROOT  # noqa: E402

KINDS = {"subscription-info": subscription_fields, "assignment-info": assignment_fields}
BULK = {"subscription-info": subscription_rows, "assignment-info": assignment_rows}


def _vectors() -> list[tuple[str, str, bytes]]:
    out = []
    for name, kind in (("subscription", "subscription-info"), ("assignment", "assignment-info")):
        for f in (f"{name}.jsonl", f"{name}_edge.jsonl"):
            for line in (KAFKA_VECTORS / f).read_text().splitlines():
                r = json.loads(line)
                if "hex" in r:  # (encoder-side error records have none)
                    out.append((f"{f}:{r.get('id', len(out))}", kind, bytes.fromhex(r["hex"])))
        for line in (ROOT / "vectors" / f"handcrafted-{kind}.jsonl").read_text().splitlines():
            r = json.loads(line)
            if r.get("wire") is not None:  # (encode-only vectors have no bytes)
                out.append((r["id"], kind, bytes.fromhex(r["wire"])))
    return out


VECTORS = _vectors()


def reference(kind: str, data: bytes) -> list:
    u = Units()
    try:
        u.units(kind, decode_record(kind, data))
    except RecordError as e:
        u.quarantine(kind, e, data)
    return u.table().to_pylist()


def through_rows(kind: str, data: bytes) -> list:
    u = Units()
    decode_rows([(kind, None, None, data, None, None, None, None, None, None)], u)
    return u.table().to_pylist()


def check(kind: str, data: bytes) -> bool:
    """The two paths agree on ``data``; returns whether the fast path took it."""
    took = KINDS[kind](data) is not None
    want = reference(kind, data)
    assert through_rows(kind, data) == want
    if took:  # the fast path never accepts what the models refuse
        assert want[0]["unit_kind"] != "quarantine"
    return took


def test_every_vector_gives_the_models_rows():
    taken = sum(check(kind, data) for _, kind, data in VECTORS)
    # all but the version probes and the invalid handcrafted inputs take the fast path
    assert taken >= 0.9 * len(VECTORS) - 150, taken
    kafka_ok = [
        (k, d)
        for i, k, d in VECTORS
        if i.startswith(("subscription.jsonl", "assignment.jsonl")) and 1 <= struct.unpack_from(">i", d)[0] <= 11
    ]
    assert kafka_ok and all(KINDS[k](d) is not None for k, d in kafka_ok)


def _truncations_and_byte_edits(vectors: int, edits: int) -> None:
    """Every cut of ``vectors`` vectors drawn at random, and ``edits`` vectors with 1-3 bytes changed."""
    rng = random.Random(441)
    sample = rng.sample(VECTORS, vectors)
    for _, kind, data in sample:
        for cut in range(len(data)):
            assert not check(kind, data[:cut]) or cut >= 8
    for _ in range(edits):
        _, kind, data = rng.choice(VECTORS)
        b = bytearray(data)
        for _ in range(rng.randint(1, 3)):
            if b:
                b[rng.randrange(len(b))] = rng.randrange(256)
        check(kind, bytes(b))


def test_truncations_and_byte_edits():
    """20 vectors cut and 300 edited (the default run; :func:`test_truncations_and_byte_edits_in_full`, 60 and
    1,000, runs with ``-m slow``)."""
    _truncations_and_byte_edits(20, 300)


@pytest.mark.slow
def test_truncations_and_byte_edits_in_full():
    _truncations_and_byte_edits(60, 1000)


PID = uuid.UUID("6f1c2f0e-8d2b-4c6a-9e4e-0123456789ab")


def _sub(version=11, **kw) -> bytes:
    return encode_subscription(SubscriptionInfo(version=version, process_id=PID, **kw))


def test_subscription_rules():
    t0, t1 = TaskId(0, 1), TaskId(1, 0)
    cases = {
        "v11 sums, endpoint, tags": _sub(
            task_offset_sums={t0: 10, t1: -2}, user_endpoint="h:1", client_tags={"az": "a", "rack": "r1"}
        ),
        "v6 prev/standby": _sub(6, task_offset_sums={t0: -2, t1: -3}, user_endpoint="h:1"),
        "v8 grouped": _sub(8, task_offset_sums={t0: 5, TaskId(0, 2): 7, t1: 9}),
        "v1": _sub(1, latest_supported_version=-1, task_offset_sums={t0: -2}),
        "v10 named": _sub(10, task_offset_sums={TaskId(0, 1, "topo"): 3}),
    }
    for name, data in cases.items():
        assert check("subscription-info", data), name
    # a duplicate task: first position, last value (what the models' dict keeps)
    v11 = cases["v11 sums, endpoint, tags"]
    one = struct.pack(">iiqh", 0, 1, 99, -1)
    at = v11.index(struct.pack(">iiqh", 0, 1, 10, -1))
    dup = v11[: at - 4] + struct.pack(">i", 3) + v11[at : at + 2 * 18] + one + v11[at + 2 * 18 :]
    assert check("subscription-info", dup)
    assert through_rows("subscription-info", dup)[0]["tasks"][0]["offset_sum"] == 99
    # declined, and then decided by the models: a probe, lsv below the version, a duplicate tag key,
    # a tag that is not UTF-8, an empty endpoint (null in both)
    probe = struct.pack(">ii", 12, 12) + b"\x00" * 40
    low_lsv = struct.pack(">ii", 11, 10) + v11[8:]
    tag = struct.pack(">i", 2) + b"az"
    dup_tag = v11.replace(
        tag + struct.pack(">i", 1) + b"a" + struct.pack(">i", 4) + b"rack",
        tag + struct.pack(">i", 1) + b"a" + struct.pack(">i", 2) + b"az",
    )
    bad_utf8 = v11.replace(tag, struct.pack(">i", 2) + b"\xff\xfe")
    for name, data in {"probe": probe, "low lsv": low_lsv, "duplicate tag": dup_tag, "bad utf8": bad_utf8}.items():
        assert data != v11 and not check("subscription-info", data), name
    assert through_rows("subscription-info", probe)[0]["is_version_probe"] is True
    # v10+: an empty topology name is no name (Kafka's TaskId), also when it meets the unnamed task
    named = _sub(task_offset_sums={TaskId(0, 1, "x"): 5})
    empty = named.replace(struct.pack(">h", 1) + b"x", struct.pack(">h", 0))
    assert check("subscription-info", empty)
    assert through_rows("subscription-info", empty)[0]["tasks"][0]["topology"] is None
    one = struct.pack(">iiqh", 0, 1, 5, 0)
    i = empty.index(one)
    both_names = empty[: i - 4] + struct.pack(">i", 2) + struct.pack(">iiqh", 0, 1, 4, -1) + one + empty[i + len(one) :]
    assert check("subscription-info", both_names)
    assert [(t["topology"], t["offset_sum"]) for t in through_rows("subscription-info", both_names)[0]["tasks"]] == [
        (None, 5)
    ]
    assert check("subscription-info", _sub(user_endpoint=None))
    assert through_rows("subscription-info", _sub(user_endpoint=None))[0]["user_endpoint"] is None


def test_assignment_rules():
    t0, t1 = TaskId(0, 0), TaskId(0, 1)
    tp = TopicPartition("src", 0)
    info = AssignmentInfo(
        version=11,
        active_tasks=(t0, t0, t1),
        standby_tasks={TaskId(1, 0): (tp, tp)},
        partitions_by_host={HostInfo("a", 1): (tp,), HostInfo("b", 2): ()},
        standby_partitions_by_host={HostInfo("a", 1): (tp,)},
        error_code=0,
        next_rebalance_ms=1234,
    )
    for v in range(1, 12):
        data = encode_assignment(info, v, drop_unrepresentable=True)
        assert check("assignment-info", data), v
    row = through_rows("assignment-info", encode_assignment(info))[0]
    assert [(t["partition"], t["partitions"]) for t in row["active"]] == [(0, 2), (1, 1)]
    assert row["standby"][0]["partitions"] == 2 and row["endpoints"] == 2
    # v5+: a host-map partition whose topic index is not in the dictionary -> declined, quarantined
    data = encode_assignment(info)
    entry = b"\x00\x01a" + struct.pack(">iiii", 1, 1, 0, 0)  # host a:1, one partition: (topic index 0, 0)
    at = data.rindex(entry) + len(entry) - 8  # in the standby host map
    bad = data[:at] + struct.pack(">ii", 7, 0) + data[at + 8 :]
    assert not check("assignment-info", bad)
    assert through_rows("assignment-info", bad)[0]["error_path"].endswith("topic_index")
    # the same host twice counts once (the models' dict)
    twice = AssignmentInfo(version=4, partitions_by_host={HostInfo("a", 1): (tp,)})
    data = encode_assignment(twice)
    host = data[data.index(b"\x00\x01a") :]
    doubled = data[: data.index(b"\x00\x01a") - 4] + struct.pack(">i", 2) + host[:-4] + host
    assert check("assignment-info", doubled)
    for v in (0, 12, -1):
        assert not check("assignment-info", struct.pack(">i", v) + data[4:])


def _batch(records: list[tuple]) -> pa.RecordBatch:
    """Input records ``(kind, data, key, input_error)`` as the job's batch (other columns null)."""
    types = {"generation": pa.int32(), "ts_ms": pa.int64(), "version": pa.int32(), "api_key": pa.int32()}
    types |= {"body_offset": pa.int32(), "data": pa.binary(), "key": pa.binary()}
    cols = {c: [None] * len(records) for c in INPUT_COLUMNS}
    cols["record_id"] = [f"r{i}" for i in range(len(records))]
    cols["source"] = ["s"] * len(records)
    cols["kind"], cols["data"], cols["key"], cols["input_error"] = (list(c) for c in zip(*records))
    return pa.RecordBatch.from_arrays(
        [pa.array(cols[c], types.get(c, pa.string())) for c in INPUT_COLUMNS], names=list(INPUT_COLUMNS)
    )


def _edited(rng: random.Random, data: bytes) -> bytes:
    b = bytearray(data)
    for _ in range(rng.randint(1, 3)):
        if b:
            b[rng.randrange(len(b))] = rng.randrange(256)
    return bytes(b)


@pytest.mark.parametrize("codec_name", ["native", "python"])
def test_a_batch_decoded_in_bulk_equals_one_decoded_record_by_record(codec_name, monkeypatch):
    """``decode_batch`` takes the SubscriptionInfo and AssignmentInfo records of a batch in bulk (one call per
    kind) and places their units among the others'. Against the same batch decoded record by record (the bulk
    decoders turned off: every record through ``decode_rows``): the same table, row for row, for every vector,
    truncations and byte edits of them, and records the bulk path must leave alone (an input error, a key in hex,
    no bytes, a kind under another name, a JoinGroup frame), shuffled together."""
    if codec_name == "native" and not native.available():
        pytest.skip("the native codec is not built")
    rng = random.Random(29)
    records = [(kind, data, None, None) for _, kind, data in VECTORS]
    for _, kind, data in rng.sample(VECTORS, 40):
        records += [(kind, data[:cut], None, None) for cut in range(0, len(data), 7)]
        records += [(kind, _edited(rng, data), None, None) for _ in range(5)]
    _, kind, data = VECTORS[0]
    records += [
        (kind, data, None, "ValueError: the input says no"),
        (kind, None, None, None),
        ("SubscriptionInfo", data, None, None),  # (canonical: subscription-info)
        ("assignment", VECTORS[-1][2], None, None),
        (kind, data, b"\x00\x01", None),  # a binary key does not stop the bulk path
        ("join-group-response", data, None, None),
        (None, data, None, None),
    ]
    rng.shuffle(records)
    batch = _batch(records)
    old = native.set_active(codec_name == "native")
    try:
        got = decode_batch(batch)
        monkeypatch.setattr(arrow, "_BULK", {})
        want = decode_batch(batch)
    finally:
        native.set_active(old)
    assert got.num_rows == want.num_rows > len(records) - 10
    assert got.to_pylist() == want.to_pylist()
    assert got.schema == want.schema


def test_bulk_decoders_equal_the_per_record_ones():
    """``subscription_rows`` / ``assignment_rows`` (one call for a list) give each element what
    ``subscription_fields`` / ``assignment_fields`` give it, on both codecs, version probes and
    non-bytes included."""
    rng = random.Random(1071)
    datas: dict[str, list] = {k: [] for k in KINDS}
    for _, kind, data in VECTORS:
        datas[kind] += [data, data[: rng.randrange(len(data) + 1)], _edited(rng, data)]
    for kind in KINDS:
        datas[kind] += [b"", b"\x00", bytearray(datas[kind][0]), None]
    probe = _sub(version=11)
    datas["subscription-info"].append(probe[:4] + struct.pack(">i", 10) + probe[8:])  # v11 from a v10 leader
    for name in ("native", "python"):
        if name == "native" and not native.available():
            continue
        old = native.set_active(name == "native")
        try:
            for kind, items in datas.items():
                one = [KINDS[kind](d) if isinstance(d, bytes) else None for d in items]
                assert BULK[kind](items) == one
                assert sum(r is not None for r in one) > len(items) // 4
        finally:
            native.set_active(old)


def _rows_differential(inputs: int, seed: int) -> int:
    """``inputs`` fuzz mutations (:func:`codec.fuzz.mutations.mutate`) of the SubscriptionInfo and AssignmentInfo
    vectors through both codecs' bulk row decoders, compared input by input; returns how many the rows took."""
    from codec.fuzz.mutations import mutate

    rng = random.Random(seed)
    pools = {k: [d for _, kind, d in VECTORS if kind == k] for k in KINDS}
    taken = 0
    for kind, pool in pools.items():
        for start in range(0, inputs // 2, 5000):
            datas = [mutate(rng.choice(pool), rng, pool) for _ in range(min(5000, inputs // 2 - start))]
            old = native.set_active(True)
            try:
                fast = BULK[kind](datas)
            finally:
                native.set_active(False)
            try:
                ref = BULK[kind](datas)
            finally:
                native.set_active(old)
            for data, a, b in zip(datas, fast, ref):
                assert a == b, (kind, data.hex())
            taken += sum(r is not None for r in fast)
    return taken


@pytest.mark.skipif(not native.available(), reason="the native codec is not built")
def test_the_codecs_row_decoders_agree_on_mutated_inputs():
    """A differential oracle for the pipeline's row decoders, as the fuzzer's is for the codec's targets: the
    native shapes (``dict:values``, ``counts:rows`` ...) against the pure-Python rows on 100,000 mutations."""
    assert _rows_differential(100_000, 29) > 10_000


@pytest.mark.fuzz
@pytest.mark.skipif(not native.available(), reason="the native codec is not built")
def test_the_codecs_row_decoders_agree_on_two_million_mutated_inputs():
    assert _rows_differential(2_000_000, 1071) > 200_000


@pytest.mark.skipif(not native.available(), reason="the native codec is not built")
def test_the_bulk_decoders_have_every_version_after_one_call(monkeypatch):
    """A version missing from the bulk decoders' table would send its records through the models one by one,
    silently slower: one bulk call fills every version, whatever single-record calls filled before it."""
    from codec.pipeline import rows
    from codec.streams.constants import LATEST_SUPPORTED_VERSION

    for name, table in (("_NATIVE_SUBSCRIPTION", {}), ("_NATIVE_ASSIGNMENT", {})):
        monkeypatch.setattr(rows, name, table)
    old = native.set_active(True)
    try:
        sub = next(d for _, k, d in VECTORS if k == "subscription-info" and subscription_fields(d) is not None)
        assert len(rows._NATIVE_SUBSCRIPTION) == 1
        subscription_rows([sub])
        assignment_rows([])
        assert (
            set(rows._NATIVE_SUBSCRIPTION)
            == set(rows._NATIVE_ASSIGNMENT)
            == set(range(1, LATEST_SUPPORTED_VERSION + 1))
        )
    finally:
        native.set_active(old)
