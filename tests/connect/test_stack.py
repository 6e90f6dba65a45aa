"""Kafka Connect's messages inside whole group frames: the stack decode goes down into them when the group's
protocol type is ``connect``, reading them as every current worker does (IncrementalCooperativeConnectProtocol's
deserializer, reader version 1).

The frames are assembled here byte by byte (the headers and bodies of Kafka's JoinGroup and SyncGroup at the
versions named) around Kafka's own bytes from ``connect.jsonl``. The expected values are Kafka's: a record's
``decoded`` when Kafka's incremental deserializer read it (versions 1 and 2), and its
``decoded.readByIncrementalDecoder`` for a version-0 message (read by the same deserializer as a worker does).
"""

from __future__ import annotations

import base64
import struct

import pytest

from codec.group import (
    Connection,
    decode_request_frame,
    decode_response_frame,
    encode_request_frame,
    encode_response_frame,
    request_frame_from_json,
    request_frame_json,
    response_frame_from_json,
    response_frame_json,
)
from codec.group.pretty import pretty_request_frame, pretty_response_frame
from codec.errors import DecodeError
from codec.catalog import get_kind
from tests.conftest import KAFKA_VECTORS, SHARED, load_jsonl

RECORDS = load_jsonl(KAFKA_VECTORS / "connect.jsonl")
METADATA = [r for r in RECORDS if r["kind"] == "ConnectMetadata"]
ASSIGNMENTS = [r for r in RECORDS if r["kind"] == "ConnectAssignment"]


# --- bytes by hand ----------------------------------------------------------------------------------------


def i16(v: int) -> bytes:
    return struct.pack(">h", v)


def i32(v: int) -> bytes:
    return struct.pack(">i", v)


def s16(s: str | None) -> bytes:
    """A (nullable) int16-length string."""
    if s is None:
        return i16(-1)
    b = s.encode()
    return i16(len(b)) + b


def b32(b: bytes) -> bytes:
    return i32(len(b)) + b


def uvarint(n: int) -> bytes:
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def cstr(s: str | None) -> bytes:
    """A (nullable) compact string: unsigned varint length + 1, 0 for null."""
    if s is None:
        return b"\0"
    b = s.encode()
    return uvarint(len(b) + 1) + b


def cbytes(b: bytes) -> bytes:
    return uvarint(len(b) + 1) + b


def carray(items: list[bytes]) -> bytes:
    return uvarint(len(items) + 1) + b"".join(items)


NO_TAGS = b"\0"


def request_header(api_key: int, version: int, cid: int, client: str, flexible: bool) -> bytes:
    """Request header v1 (int16 key, int16 version, int32 correlation id, nullable string client id), plus the
    empty tagged-field section of v2 when the request is flexible."""
    return i16(api_key) + i16(version) + i32(cid) + s16(client) + (NO_TAGS if flexible else b"")


def join_group_request_v5(cid: int, protocols: list[tuple[str, bytes]]) -> bytes:
    body = (
        s16("connect-cluster")
        + i32(10000)
        + i32(300000)
        + s16("")
        + s16(None)
        + s16("connect")
        + i32(len(protocols))
        + b"".join(s16(n) + b32(m) for n, m in protocols)
    )
    return request_header(11, 5, cid, "connect-1", False) + body


def join_group_response_v5(cid: int, protocol: str, members: list[tuple[str, bytes]]) -> bytes:
    body = (
        i32(0)
        + i16(0)
        + i32(4)
        + s16(protocol)
        + s16("w-1")
        + s16("w-1")
        + i32(len(members))
        + b"".join(s16(m) + s16(None) + b32(md) for m, md in members)
    )
    return i32(cid) + body


def join_group_response_v7(cid: int, protocol: str, members: list[tuple[str, bytes]]) -> bytes:
    """Flexible: response header v1 (correlation id, tags); ProtocolType in the body from v7."""
    body = (
        i32(0)
        + i16(0)
        + i32(4)
        + cstr("connect")
        + cstr(protocol)
        + cstr("w-1")
        + cstr("w-1")
        + carray([cstr(m) + cstr(None) + cbytes(md) + NO_TAGS for m, md in members])
        + NO_TAGS
    )
    return i32(cid) + NO_TAGS + body


def sync_group_request_v3(cid: int, assignments: list[tuple[str, bytes]]) -> bytes:
    body = (
        s16("connect-cluster")
        + i32(4)
        + s16("w-1")
        + s16(None)
        + i32(len(assignments))
        + b"".join(s16(m) + b32(a) for m, a in assignments)
    )
    return request_header(14, 3, cid, "connect-1", False) + body


def sync_group_request_v5(cid: int, protocol: str, assignments: list[tuple[str, bytes]]) -> bytes:
    body = (
        cstr("connect-cluster")
        + i32(4)
        + cstr("w-1")
        + cstr(None)
        + cstr("connect")
        + cstr(protocol)
        + carray([cstr(m) + cbytes(a) + NO_TAGS for m, a in assignments])
        + NO_TAGS
    )
    return request_header(14, 5, cid, "connect-1", True) + body


def sync_group_response_v3(cid: int, assignment: bytes) -> bytes:
    return i32(cid) + i32(0) + i16(0) + b32(assignment)


def sync_group_response_v5(cid: int, protocol: str, assignment: bytes) -> bytes:
    return i32(cid) + NO_TAGS + i32(0) + i16(0) + cstr("connect") + cstr(protocol) + cbytes(assignment) + NO_TAGS


# --- Kafka's view, in either style ---------------------------------------------------------------------------


def incremental_view(r: dict) -> dict:
    """What Kafka's IncrementalCooperativeConnectProtocol deserializer read from the record's bytes."""
    d = r["decoded"]
    if r["version"] == 0:
        return d["readByIncrementalDecoder"]
    return {k: v for k, v in d.items() if k not in ("readByEagerDecoder", "readByIncrementalDecoder")}


def header_version(r: dict) -> int:
    return int(r["hex"][:4], 16)


def without_versions(value: dict) -> dict:
    """Our JSON without its ``version`` keys (Kafka's records name the version beside the decoded value)."""
    v = {k: x for k, x in value.items() if k != "version"}
    if isinstance(v.get("allocation"), dict):
        v["allocation"] = without_versions(v["allocation"])
    return v


NATIVE_NAMES = {
    "url": "url",
    "configOffset": "config_offset",
    "allocation": "allocation",
    "error": "error",
    "leader": "leader",
    "leaderUrl": "leader_url",
    "connectorIds": "connectors",
    "taskIds": "tasks",
    "revokedConnectorIds": "revoked_connectors",
    "revokedTaskIds": "revoked_tasks",
    "delay": "delay",
}
KAFKA_EMPTY = {
    "error": 0,
    "leader": None,
    "leaderUrl": None,
    "configOffset": -1,
    "connectorIds": [],
    "taskIds": [],
    "revokedConnectorIds": [],
    "revokedTaskIds": [],
    "delay": 0,
}


def native(kafka_view: dict) -> dict:
    """Kafka's field names in the native style's snake_case; Kafka's empty assignment as an allocation is the
    null that was on the wire (the native view keeps it null)."""
    out = {}
    for k, v in kafka_view.items():
        if k == "allocation":
            v = None if v == KAFKA_EMPTY else native(v)
        out[NATIVE_NAMES[k]] = v
    return out


def layer_value(layer: dict, kind: str) -> dict:
    assert layer["layer"] == kind, layer
    assert "error" not in layer, layer["error"]
    return layer["value"]


# --- JoinGroup request: every worker metadata Kafka wrote, as a worker sends it --------------------------------


@pytest.mark.parametrize("r", METADATA, ids=lambda r: r["id"])
def test_join_group_request_carries_connect_metadata(r):
    md = bytes.fromhex(r["hex"])
    frame = join_group_request_v5(7, [(r["protocol"], md)])
    decoded = decode_request_frame(frame)
    nested = decoded.body.protocols[0].metadata
    assert nested.layer == "ConnectMetadata" and nested.ok and nested.raw == md
    # IncrementalCooperativeConnectProtocol's deserializer (1+), as a current worker reads it, even a v0 message
    assert nested.value.reader_version >= 1
    assert nested.value.info.version == header_version(r)

    kafka = request_frame_json(decoded, "kafka")["body"]["protocols"][0]
    assert kafka["name"] == r["protocol"]
    assert base64.b64decode(kafka["metadata"]["bytes"]) == md
    value = layer_value(kafka["metadata"], "ConnectMetadata")
    assert value["version"] == header_version(r)
    assert without_versions(value) == incremental_view(r)

    nat = request_frame_json(decoded, "native")["body"]["protocols"][0]["metadata"]
    assert bytes.fromhex(nat["bytes"]) == md
    assert without_versions(layer_value(nat, "ConnectMetadata")) == native(incremental_view(r))

    # and back: the frame's JSON (either style) encodes to the same bytes, also from the value alone
    for style in ("kafka", "native"):
        j = request_frame_json(decoded, style)
        assert encode_request_frame(request_frame_from_json(j, style=style)) == frame
        j["body"]["protocols"][0]["metadata"].pop("bytes")
        assert encode_request_frame(request_frame_from_json(j, style=style)) == frame, style


def pick(records: list[dict], version: int) -> dict:
    return next(r for r in records if r["version"] == version)


def test_a_sessioned_workers_join_group_reads_each_protocols_own_metadata():
    """A sessioned worker lists sessioned, compatible, default with v2, v1 and v0 metadata (Kafka's
    ``IncrementalCooperativeConnectProtocol.metadataRequest``); each is read by the v1 reader."""
    recs = [pick(METADATA, 2), pick(METADATA, 1), pick(METADATA, 0)]
    protocols = [
        ("sessioned", bytes.fromhex(recs[0]["hex"])),
        ("compatible", bytes.fromhex(recs[1]["hex"])),
        ("default", bytes.fromhex(recs[2]["hex"])),
    ]
    frame = join_group_request_v5(1, protocols)
    decoded = decode_request_frame(frame)
    assert [p.name for p in decoded.body.protocols] == ["sessioned", "compatible", "default"]
    body = request_frame_json(decoded, "kafka")["body"]
    assert body["protocolType"] == "connect"
    for p, r in zip(body["protocols"], recs):
        assert without_versions(layer_value(p["metadata"], "ConnectMetadata")) == incremental_view(r)
    pretty = pretty_request_frame(decoded)
    assert pretty.count("ConnectMetadata v") == 3
    assert "ConnectMetadata v0  (group protocol default; read as IncrementalCooperativeConnectProtocol)" in pretty
    # the same request with protocol type "consumer" is not read as Connect
    consumer = frame.replace(s16("connect"), s16("consumer"))
    assert all(
        p.metadata.layer == "ConsumerProtocolSubscription" for p in decode_request_frame(consumer).body.protocols
    )


# --- JoinGroup response: the members' metadata the leader reads ----------------------------------------------


def test_join_group_response_v7_says_connect_itself():
    recs = [pick(METADATA, 2), pick(METADATA, 1), pick(METADATA, 0)]
    members = [(f"w-{i}", bytes.fromhex(r["hex"])) for i, r in enumerate(recs)]
    data = join_group_response_v7(9, "sessioned", members)
    resp = decode_response_frame(data, 11, 7)
    j = response_frame_json(resp, "kafka")
    assert j["body"]["protocolType"] == "connect" and j["body"]["protocolName"] == "sessioned"
    for m, r in zip(j["body"]["members"], recs):
        assert without_versions(layer_value(m["metadata"], "ConnectMetadata")) == incremental_view(r)
    for m, r in zip(response_frame_json(resp, "native")["body"]["members"], recs):
        assert without_versions(layer_value(m["metadata"], "ConnectMetadata")) == native(incremental_view(r))
    assert encode_response_frame(response_frame_from_json(j)) == data
    assert "ConnectMetadata v2" in pretty_response_frame(resp)


def test_join_group_response_v5_needs_the_requests_protocol_type():
    r = pick(METADATA, 1)
    data = join_group_response_v5(9, "compatible", [("w-1", bytes.fromhex(r["hex"]))])
    told = decode_response_frame(data, 11, 5, protocol_type="connect")
    value = layer_value(response_frame_json(told, "kafka")["body"]["members"][0]["metadata"], "ConnectMetadata")
    assert without_versions(value) == incremental_view(r)
    # untold, a v5 response is a consumer group's: its metadata is not read as Connect's
    assert decode_response_frame(data, 11, 5).body.members[0].metadata.layer == "ConsumerProtocolSubscription"


# --- SyncGroup: the leader's assignments and each worker's own ----------------------------------------------


@pytest.mark.parametrize("r", ASSIGNMENTS, ids=lambda r: r["id"])
def test_sync_group_request_and_response_carry_connect_assignments(r):
    asg = bytes.fromhex(r["hex"])
    req = sync_group_request_v5(3, r["protocol"], [("w-1", asg)])
    decoded = decode_request_frame(req)
    nested = decoded.body.assignments[0].assignment
    assert nested.layer == "ConnectAssignment" and nested.ok and nested.value.reader_version >= 1
    for style, want in (("kafka", incremental_view(r)), ("native", native(incremental_view(r)))):
        j = request_frame_json(decoded, style)
        value = layer_value(j["body"]["assignments"][0]["assignment"], "ConnectAssignment")
        assert value.pop("version") == header_version(r)
        assert value == want, style
        assert encode_request_frame(request_frame_from_json(j, style=style)) == req

    resp = sync_group_response_v5(3, r["protocol"], asg)
    decoded = decode_response_frame(resp, 14, 5)
    for style, want in (("kafka", incremental_view(r)), ("native", native(incremental_view(r)))):
        j = response_frame_json(decoded, style)
        value = layer_value(j["body"]["assignment"], "ConnectAssignment")
        assert value.pop("version") == header_version(r)
        assert value == want, style
        assert encode_response_frame(response_frame_from_json(j, style=style)) == resp


def test_old_sync_group_versions_on_one_connection():
    """SyncGroup v3 carries no protocol type: the connection's JoinGroup request says ``connect``, and both the
    leader's SyncGroup request and the worker's response are read as Connect assignments."""
    md, a1, a0 = pick(METADATA, 1), pick(ASSIGNMENTS, 1), pick(ASSIGNMENTS, 0)
    conn = Connection()
    conn.request(join_group_request_v5(1, [("compatible", bytes.fromhex(md["hex"]))]))
    _, join = conn.response(join_group_response_v5(1, "compatible", [("w-1", bytes.fromhex(md["hex"]))]))
    assert join.body.members[0].metadata.layer == "ConnectMetadata"
    sync = conn.request(
        sync_group_request_v3(2, [("w-1", bytes.fromhex(a1["hex"])), ("w-2", bytes.fromhex(a0["hex"]))])
    )
    got = [request_frame_json(sync, "kafka")["body"]["assignments"][i]["assignment"] for i in (0, 1)]
    assert without_versions(layer_value(got[0], "ConnectAssignment")) == incremental_view(a1)
    assert without_versions(layer_value(got[1], "ConnectAssignment")) == incremental_view(a0)
    _, resp = conn.response(sync_group_response_v3(2, bytes.fromhex(a0["hex"])))
    value = layer_value(response_frame_json(resp, "kafka")["body"]["assignment"], "ConnectAssignment")
    assert without_versions(value) == incremental_view(a0)
    # and a lone v3 response frame, told the protocol type
    alone = decode_response_frame(sync_group_response_v3(2, bytes.fromhex(a1["hex"])), 14, 3, protocol_type="connect")
    assert alone.body.assignment.layer == "ConnectAssignment"


def test_a_connect_layer_that_does_not_decode_stays_bytes_with_the_reason():
    cut = bytes.fromhex(pick(METADATA, 2)["hex"])[:-3]
    decoded = decode_request_frame(join_group_request_v5(1, [("sessioned", cut)]))
    nested = decoded.body.protocols[0].metadata
    assert nested.layer == "ConnectMetadata" and not nested.ok and nested.raw == cut
    j = request_frame_json(decoded, "kafka")["body"]["protocols"][0]["metadata"]
    assert j["error"]["at"] == "protocols[0].metadata" and "ConnectMetadata" in j["error"]["message"]
    assert "NOT DECODED" in pretty_request_frame(decoded)


def test_trailing_bytes_after_a_connect_message_are_reported():
    r = pick(ASSIGNMENTS, 1)
    asg = bytes.fromhex(r["hex"]) + b"\x01\x02"
    j = response_frame_json(decode_response_frame(sync_group_response_v5(1, "compatible", asg), 14, 5), "kafka")
    value = layer_value(j["body"]["assignment"], "ConnectAssignment")
    assert value["trailing"] == {"offset": len(asg) - 2, "bytes": 2}


# --- --kind auto ---------------------------------------------------------------------------------------------


def test_auto_goes_down_into_connect_metadata_in_a_request_frame():
    r = pick(METADATA, 2)
    frame = join_group_request_v5(5, [("sessioned", bytes.fromhex(r["hex"]))])
    auto = get_kind("auto")
    for style, want in (("kafka", incremental_view(r)), ("native", native(incremental_view(r)))):
        d = auto.decode(frame, style=style, version=None)
        assert d.value["kind"] == "request-frame"
        layer = d.value["value"]["body"]["protocols"][0]["metadata"]
        assert without_versions(layer_value(layer, "ConnectMetadata")) == want
        assert auto.encode(d.value, style=style, version=None) == frame


# a 16-byte ApiVersions v3 response (the v0 layout of UNSUPPORTED_VERSION 35: ApiVersions 0-2), from
# frames.jsonl: int16 0 then int16 4 read as ConnectMetadata v0 with the url "\0#\0\0"
API_VERSIONS_RESPONSE = bytes.fromhex("00000004002300000001001200000002")


def test_auto_refuses_bytes_that_are_connect_only_with_a_control_character_in_a_url():
    as_connect = get_kind("connect-metadata").decode(API_VERSIONS_RESPONSE, style="kafka", version=None)
    assert as_connect.value["url"] == "\x00#\x00\x00"  # the named kind still reads what it is told to
    with pytest.raises(DecodeError, match=r"connect-metadata only with a control character in url, which no Connect"):
        get_kind("auto").decode(API_VERSIONS_RESPONSE, style="kafka", version=None)
    frames = [f for f in load_jsonl(SHARED / "captures" / "frames.jsonl") if f["direction"] == "response"]
    assert len(frames) == 775
    for f in frames:  # a response frame does not name its API: auto reads none of them as anything
        with pytest.raises(DecodeError, match="no self-describing kind"):
            get_kind("auto").decode(bytes.fromhex(f["hex"]), style="kafka", version=None)


def test_auto_still_names_connect_messages_with_control_characters_outside_the_urls():
    """Kafka's classes write connector names with a NUL ("nul\\0c"), so only the URLs are checked; and a
    leader URL with a control character, written by our encoder (no worker would), is refused."""
    auto = get_kind("auto")
    nul = [r for r in ASSIGNMENTS if "\x00" in "".join(r["decoded"]["connectorIds"])]
    assert nul
    for r in nul:
        d = auto.decode(bytes.fromhex(r["hex"]), style="kafka", version=None)
        assert "connect-assignment" in [d.value["kind"], *d.value.get("alsoFits", [])]
    r = next(r for r in nul if r["decoded"]["leaderUrl"])
    value = dict(get_kind("connect-assignment").decode(bytes.fromhex(r["hex"]), style="kafka", version=None).value)
    value["leaderUrl"] = value["leaderUrl"] + "\x07"
    broken = get_kind("connect-assignment").encode(value, style="kafka", version=None)
    with pytest.raises(DecodeError, match="connect-assignment only with a control character in leaderUrl"):
        auto.decode(broken, style="kafka", version=None)


@pytest.mark.parametrize("kind", ["ConnectMetadata", "ConnectAssignment"])
def test_auto_names_a_bare_connect_message(kind):
    """Bare Connect messages: named connect-metadata/-assignment (read by the header's deserializer, as
    ``decode --kind connect-…`` reads them), or, where an earlier candidate also reads all the bytes, named
    among those that also fit."""
    recs = METADATA if kind == "ConnectMetadata" else ASSIGNMENTS
    want = "connect-metadata" if kind == "ConnectMetadata" else "connect-assignment"
    auto = get_kind("auto")
    hits = 0
    for r in recs:
        d = auto.decode(bytes.fromhex(r["hex"]), style="kafka", version=None)
        if d.value["kind"] == want:
            hits += 1
            assert d.value["value"]["version"] == header_version(r)
            view = {
                k: v for k, v in r["decoded"].items() if k not in ("readByEagerDecoder", "readByIncrementalDecoder")
            }
            assert without_versions(d.value["value"]) == view
        else:  # an earlier candidate read all of it too: then the Connect kind is named as also fitting
            assert want in d.value["alsoFits"]
    assert hits > 0
