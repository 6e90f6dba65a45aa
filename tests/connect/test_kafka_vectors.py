"""Every record of Kafka Connect's ``connect.jsonl``, through the Python API.

Expected values are Kafka's own: ``decoded`` is what Kafka's deserializer returned for ``hex`` (and
``readBy…Decoder`` what the other deserializer returned), ``hex`` what Kafka's serializer wrote for ``data``,
``error`` where Kafka's deserializer threw. Kafka groups the assigned connectors in Java ``HashSet`` order
(flag ``java-hash-order``): those records are compared with the connectors as a set and the tasks per
connector, unless the encoder is asked for Java's order, when the bytes must be Kafka's exactly."""

from __future__ import annotations

import re

import pytest

from codec.connect import (
    ConnectAssignment,
    ConnectMetadata,
    connect_assignment_from_json,
    connect_assignment_json,
    connect_metadata_from_json,
    connect_metadata_json,
    decode_connect_assignment,
    decode_connect_metadata,
    encode_connect_assignment,
    encode_connect_metadata,
)
from codec.errors import DecodeError, LimitExceededError, TruncatedError, UnsupportedVersionError
from tests.conftest import KAFKA_VECTORS, load_jsonl

RECORDS = load_jsonl(KAFKA_VECTORS / "connect.jsonl")
WRITTEN = [r for r in RECORDS if r["kind"] in ("ConnectMetadata", "ConnectAssignment")]
READ_AS = [r for r in RECORDS if r["kind"] not in ("ConnectMetadata", "ConnectAssignment")]
VIEWS = {"readByIncrementalDecoder": 1, "readByEagerDecoder": 0}


def is_metadata(r: dict) -> bool:
    return r["kind"].startswith("ConnectMetadata")


def reader_of(r: dict) -> int | None:
    """The deserializer a ReadAs record was handed to (0: ConnectProtocol's, 1: IncrementalCooperative's)."""
    return {"ReadAsEager": 0, "ReadAsIncremental": 1}.get(
        r["kind"].replace("ConnectMetadata", "").replace("ConnectAssignment", "")
    )


def decode_json(r: dict, data: bytes, reader: int | None) -> dict:
    """Our Kafka-style JSON of the bytes, without the ``version`` key Kafka's records leave out."""
    if is_metadata(r):
        d = decode_connect_metadata(data, reader_version=reader, detail=True)
        value = connect_metadata_json(d.info, reader_version=d.reader_version)
    else:
        d = decode_connect_assignment(data, reader_version=reader, detail=True)
        value = connect_assignment_json(d.info, reader_version=d.reader_version)
    assert value.pop("version") == int.from_bytes(data[:2], "big", signed=True)
    return value


def set_like(value: dict) -> dict:
    """The assigned connectors as a set, the tasks as each connector's list (their order in a connector is
    Kafka's input order; the connectors' order is Java's HashSet order)."""
    v = dict(value)
    if isinstance(v.get("allocation"), dict):
        v["allocation"] = set_like(v["allocation"])
    if "connectorIds" in v:
        v["connectorIds"] = sorted(v["connectorIds"])
        v["taskIds"] = sorted(v["taskIds"], key=lambda t: t["connector"])
    return v


def without_views(decoded: dict) -> dict:
    return {k: v for k, v in decoded.items() if k not in VIEWS}


@pytest.mark.parametrize("r", WRITTEN, ids=lambda r: r["id"])
def test_decode_is_kafkas_decoded(r):
    data = bytes.fromhex(r["hex"])
    assert decode_json(r, data, None) == without_views(r["decoded"])
    for key, reader in VIEWS.items():
        if key in r["decoded"]:
            assert decode_json(r, data, reader) == r["decoded"][key], key


@pytest.mark.parametrize("r", WRITTEN, ids=lambda r: r["id"])
def test_encode_data_is_kafkas_hex(r):
    meta = is_metadata(r)
    info = (connect_metadata_from_json if meta else connect_assignment_from_json)(r["data"])
    encode = encode_connect_metadata if meta else encode_connect_assignment
    # Java's HashSet order for the assigned connectors: Kafka's bytes exactly, for every record
    assert encode(info, r["version"], java_order=True).hex() == r["hex"]
    # the order given: Kafka's bytes where Kafka's order is not Java's hash order, else the same value
    got = encode(info, r["version"])
    if "java-hash-order" not in r.get("flags", ()):
        assert got.hex() == r["hex"]
    else:
        assert set_like(decode_json(r, got, None)) == set_like(without_views(r["decoded"]))
    # the version key of the value, else the newest
    assert encode(info).hex()[:4] == f"{r['version']:04x}" if "version" in r["data"] else encode(info)[:2] == b"\0\2"


@pytest.mark.parametrize("r", WRITTEN, ids=lambda r: r["id"])
def test_decoded_encodes_back_to_kafkas_hex(r):
    """Kafka's decoded value lists the connectors in the order of the bytes, so writing it in the order
    given reproduces them."""
    meta = is_metadata(r)
    value = {**without_views(r["decoded"]), "version": r["version"]}
    info = (connect_metadata_from_json if meta else connect_assignment_from_json)(value)
    assert (encode_connect_metadata if meta else encode_connect_assignment)(info).hex() == r["hex"]


@pytest.mark.parametrize("r", READ_AS, ids=lambda r: r["id"])
def test_read_as_records_fail_and_succeed_where_kafka_does(r):
    data = bytes.fromhex(r["hex"])
    reader = reader_of(r)
    assert reader is not None
    if "error" in r:
        with pytest.raises(DecodeError) as e:
            decode_json(r, data, reader)
        check_error_like_kafkas(e.value, r["error"])
    else:
        assert decode_json(r, data, reader) == r["decoded"]


_KAFKA_FIELDS = {
    "version": "version",
    "url": "url",
    "config-offset": "config_offset",
    "allocation": "allocation",
    "error": "error",
    "leader": "leader",
    "leader-url": "leader_url",
    "assignment": "assignment",
    "revoked": "revoked",
    "delay": "delay",
    "connector": "connector",
    "tasks": "tasks",
}


def check_error_like_kafkas(e: DecodeError, kafka: str) -> None:
    """Our error names the fields Kafka's names (in order, in the path), and the same lengths."""
    if "Unsupported subscription version" in kafka:
        assert isinstance(e, UnsupportedVersionError) and e.path == "version" and e.offset == 0
        return
    m = re.search(r"Error reading array of size (\d+), only (\d+) bytes available", kafka)
    if m:  # a count larger than the bytes that remain: refused before reading an element, as by Kafka
        assert isinstance(e, LimitExceededError) and f"array count {m[1]} exceeds the {m[2]} bytes" in str(e), str(e)
    else:
        assert isinstance(e, TruncatedError), (kafka, str(e))
    parts = [p.split("[")[0] for p in e.path.split(".")]
    names = [_KAFKA_FIELDS[n] for n in re.findall(r"Error reading field '([^']+)'", kafka)]
    assert names and names[-1] == parts[-1], (kafka, e.path)
    it = iter(parts)
    assert all(n in it for n in names), (kafka, e.path)  # in order
    m = re.search(r"reading (?:string of length|bytes of size) (\d+), only (\d+) bytes available", kafka)
    if m:
        assert f"(need {m[1]}, have {m[2]})" in str(e), (kafka, str(e))
    assert e.message in ("ConnectMetadata", "ConnectAssignment") and e.offset is not None


def test_the_records_cover_what_they_promise():
    kinds = {(r["kind"], r["version"]) for r in WRITTEN}
    assert kinds == {(k, v) for k in ("ConnectMetadata", "ConnectAssignment") for v in (0, 1, 2)}
    assert sum("java-hash-order" in r.get("flags", ()) for r in WRITTEN) > 50
    prefixes = [r for r in READ_AS if "prefix" in r.get("flags", ())]
    assert len(prefixes) > 200 and any("error" not in r for r in prefixes) and any("error" in r for r in prefixes)
    assert {reader_of(r) for r in READ_AS} == {0, 1}
    # some of Kafka's allocations are null (data null or EMPTY), and they read as the empty assignment
    nulls = [r for r in WRITTEN if is_metadata(r) and r["version"] > 0 and r["data"]["allocation"] in (None, "EMPTY")]
    assert {str(r["data"]["allocation"]) for r in nulls} == {"None", "EMPTY"}


def test_models_of_a_record():
    """One record read into the models, by hand: ConnectMetadata-v2-pub-0005."""
    r = next(x for x in WRITTEN if x["id"] == "ConnectMetadata-v2-pub-0005")
    info = decode_connect_metadata(bytes.fromhex(r["hex"]))
    assert isinstance(info, ConnectMetadata) and info.version == 2 and info.url == "https://10.0.0.191:8443/"
    a = info.allocation
    assert isinstance(a, ConnectAssignment) and a.version == 2 and a.connectors == ("\u00e4-connector",)
    assert [str(t) for t in a.tasks] == ["mirror-58-762753141", "emoji-\U0001f600-16"]
    assert info.assignment is a
