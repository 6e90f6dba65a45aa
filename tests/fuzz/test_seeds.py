"""Every fuzz target has seeds, each does what its origin says (decodes, or is rejected), and the pieces
the seeds are assembled from are right by independent facts: the captures' recorded body offsets, Kafka's
flexible versions, the pcap and record-batch layouts written out by hand."""

from __future__ import annotations

import gzip
import io
import json
import struct

import pytest

from codec.errors import DecodeError
from codec.fuzz import seed_corpus, seeds, targets
from codec.fuzz.corpus import _batch, _cut_pcap, _request_header, _request_header_length, _response_header
from tests.conftest import SHARED

TARGETS = targets()


@pytest.fixture(scope="module")
def corpus():
    assert (SHARED / "vectors" / "kafka-java").is_dir(), (
        f"{SHARED} is missing: the tests need ../shared beside the repository (or REBALANCE_CODEC_SHARED)"
    )
    return seed_corpus(SHARED)


def test_every_target_has_seeds(corpus):
    # 95, connect-metadata/r0, /r1 and connect-assignment/r0, /r1, and the response frames of Kafka 4's group
    # APIs (#21): 68 and 69 v0-1, 88 v0-1 (v1: Kafka 4.4) and 89 v0; the share groups' (#30): 76 and 77 v1; and the
    # response frames of the APIs around the group (#45, at Kafka 4.4's versions): Fetch 4-18, ListOffsets 1-11,
    # Metadata 0-13, OffsetCommit 2-10, OffsetFetch 1-10, FindCoordinator 0-6, ApiVersions 0-5 (72); and those of the
    # RPCs added at Kafka 4.4 (#43): DescribeGroups 0-6, ListGroups 0-5, OffsetDelete 0, DeleteGroups 0-3,
    # TxnOffsetCommit 0-6, ShareFetch and ShareAcknowledge 1-2, Initialize/Read/Delete ShareGroupState 0, Write and
    # ReadSummary 0-1, DescribeShareGroupOffsets 0-1, Alter and Delete ShareGroupOffsets 0 (40); Kafka 4.4's
    # StreamsGroupDescribe v1 (89) and StreamsGroupTopologyDescriptionUpdate v0 (93), and the share coordinator's
    # __share_group_state records, whole (share-state-record) (3); the sticky and cooperative-sticky assignors' user
    # data (2)
    assert len(TARGETS) == 108 + 72 + 40 + 3 + 2
    assert {"response-frame/89/v1", "response-frame/93/v0", "share-state-record"} <= set(TARGETS)
    without = sorted(t for t in TARGETS if not corpus.get(t))
    assert without == []
    assert set(corpus) <= set(TARGETS)  # no seed goes to a target that does not exist


def test_every_seed_does_what_its_origin_says(corpus):
    wrong = []
    for name, ss in corpus.items():
        for s in ss:
            try:
                TARGETS[name](s.data)
                got = True
            except DecodeError:
                got = False
            if s.accepted is not None and got != s.accepted:
                wrong.append((name, s.origin, got))
    assert wrong == []
    # every target has a seed it decodes (the render pass needs one), and the rejections are the few
    # expected ones: invalid vectors and kio's frames of APIs this codec does not frame
    accepted = {name for name, ss in corpus.items() if any(s.accepted for s in ss)}
    assert accepted == set(TARGETS)
    rejected = [s.origin for ss in corpus.values() for s in ss if s.accepted is False]
    assert rejected and all(o.startswith(("vectors/", "kio/")) for o in rejected)


def test_the_sources_all_contribute(corpus):
    origins = {s.origin.split(" ")[0].split("/")[0] for ss in corpus.values() for s in ss}
    assert {"vectors", "kafka-java", "kio", "captures", "built:"} <= origins
    pcaps = [s for s in corpus["pcap"] if s.origin.startswith("captures/pcaps/")]
    assert len(pcaps) >= 16 * 2  # every real capture, in windows
    assert any(s.data[:2] == b"\x1f\x8b" for s in pcaps)  # one as stored, gzipped
    # Kafka 4's record vectors reach the segment reader: a key and value of every consumer, streams and share record
    # type (3-8, 16; 17, 19-23; 9-15), and the vectors' cuts as bad records
    from codec.capture.offsets import BadRecord, OffsetsRecord, read_segment

    read = [
        r for s in corpus["offsets-segment"] if "behind its key" in s.origin for r in read_segment(io.BytesIO(s.data))
    ]
    assert {r.key_version for r in read if isinstance(r, OffsetsRecord)} == {*range(3, 18), *range(19, 24)}
    assert any(isinstance(r, BadRecord) for r in read)
    # Heartbeat and LeaveGroup bodies at every version, not only those real clients sent
    for name, versions in (
        ("HeartbeatRequest", 5),
        ("HeartbeatResponse", 5),
        ("LeaveGroupRequest", 6),
        ("LeaveGroupResponse", 6),
    ):
        for v in range(versions):
            assert any(s.origin.startswith("built:") and s.canonical for s in corpus[f"{name}/v{v}"]), (name, v)


def test_seeds_without_the_shared_folder(tmp_path):
    from codec.fuzz import corpus as builders

    alone = seed_corpus(None)
    # the project's own vectors and the messages built here still seed every target
    assert {t for t in TARGETS if not alone.get(t)} == set()
    assert not any(s.origin.startswith(("kafka-java", "kio", "captures/")) for ss in alone.values() for s in ss)
    assert seeds(None).keys() == alone.keys()
    # a shared folder without the expected files adds nothing, and is no error either
    c = builders._Corpus()
    builders._from_kafka_java(c, tmp_path)
    assert builders._from_kio(c, tmp_path) == [] and builders._from_frames_jsonl(c, tmp_path) == {}
    builders._from_pcaps(c, tmp_path)
    assert c.by_target == {}


# --- the pieces, by independent facts -----------------------------------------------------------------


def test_built_heartbeat_by_hand(corpus):
    # HeartbeatRequest v0: int16-length group id "g-1", int32 generation 7, member id "consumer-1-5f0c"
    want = b"\x00\x03g-1" + struct.pack(">i", 7) + b"\x00\x0fconsumer-1-5f0c"
    assert any(s.data == want and s.canonical for s in corpus["HeartbeatRequest/v0"])
    # v4 is flexible: compact strings (uvarint length + 1), a null group instance id (0), no tagged fields
    want = b"\x04g-1" + struct.pack(">i", 7) + b"\x10consumer-1-5f0c" + b"\x09static-1" + b"\x00"
    assert any(s.data == want for s in corpus["HeartbeatRequest/v4"])
    # HeartbeatResponse v0 is the error code alone (27 REBALANCE_IN_PROGRESS)
    assert b"\x00\x1b" in [s.data for s in corpus["HeartbeatResponse/v0"]]


def test_headers_by_hand():
    assert _request_header(12, 3, 5, "c") == bytes.fromhex("000c000300000005000163")  # v1
    assert _request_header(12, 4, 5, None) == bytes.fromhex("000c000400000005ffff00")  # v2: tags
    assert _request_header(11, 5, 1, "") == bytes.fromhex("000b0005000000010000")  # JoinGroup v5: v1
    assert _request_header(11, 6, 1, "") == bytes.fromhex("000b000600000001000000")  # v6 flexible
    assert _response_header(14, 3, 9) == bytes.fromhex("00000009")
    assert _response_header(14, 4, 9) == bytes.fromhex("0000000900")


def test_header_length_agrees_with_the_captures():
    """The body offset read from a request header's own layout is the one recorded with every captured
    request (frames.jsonl), including header v2 with tagged fields."""
    n = 0
    for line in (SHARED / "captures" / "frames.jsonl").read_text(encoding="utf-8").splitlines():
        r = json.loads(line)
        if r["direction"] == "request":
            assert _request_header_length(bytes.fromhex(r["hex"]), r["header_version"]) == r["body_offset"]
            n += 1
    assert n > 700  # 787 requests in the shared captures
    # a header v2 with one tagged field (tag 3, 2 bytes) before the body
    wire = bytes.fromhex("000c000400000005000163010302abcd") + b"BODY"
    assert wire[_request_header_length(wire, 2) :] == b"BODY"


def test_pcap_cut_by_hand():
    # a little-endian pcap: 24-byte header, then records of 16-byte header (incl_len third) + data
    head = struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1)
    recs = [struct.pack("<IIII", i, 0, 3 + i, 3 + i) + bytes([i]) * (3 + i) for i in range(5)]
    raw = head + b"".join(recs)
    assert _cut_pcap(raw, 0, 2) == head + recs[0] + recs[1]
    assert _cut_pcap(raw, 3, 10) == head + recs[3] + recs[4]
    assert _cut_pcap(raw, 7, 2) == head


def test_record_batch_by_hand():
    """The segment writer against Kafka's DefaultRecordBatch layout: the header fields at their offsets,
    the CRC-32C over everything after the CRC field, and the reader finds every record with a good CRC."""
    import crc32c

    from codec.capture.offsets import OffsetsRecord, read_segment

    key = (1).to_bytes(2, "big") + b"\x00\x01g\x00\x01t\x00\x00\x00\x03"  # OffsetCommitKey v1: g, t, 3
    value = (1).to_bytes(2, "big") + struct.pack(">q", 42) + b"\x00\x00" + struct.pack(">qq", 5, -1)
    seg = _batch([(key, value), (key, None)], base_offset=100)
    base_offset, length, epoch, magic, crc = struct.unpack_from(">qiibI", seg)
    assert (base_offset, length, magic) == (100, len(seg) - 12, 2)
    assert crc == crc32c.crc32c(seg[21:])
    attributes, last_delta = struct.unpack_from(">hi", seg, 21)
    count = struct.unpack_from(">i", seg, 57)[0]
    assert (attributes, last_delta, count) == (0, 1, 2)
    out = list(read_segment(io.BytesIO(seg)))
    assert [type(o) for o in out] == [OffsetsRecord, OffsetsRecord] and all(o.crc_ok for o in out)
    assert out[0].value.offset == 42 and out[1].tombstone
    zipped = _batch([(key, value)], base_offset=7, codec=1)
    assert struct.unpack_from(">h", zipped, 21)[0] == 1  # attributes: gzip
    assert gzip.decompress(zipped[61:])  # the records, gzipped
    assert [o.value.offset for o in read_segment(io.BytesIO(zipped))] == [42]


def test_connect_targets_are_seeded_by_both_readers(corpus):
    """The Connect vectors go to the target of the reader their ``version`` names (0: ConnectProtocol's, 1 and
    2: IncrementalCooperativeConnectProtocol's), Kafka's own records to both readers."""
    for kind in ("connect-metadata", "connect-assignment"):
        for reader in (0, 1):
            ss = corpus[f"{kind}/r{reader}"]
            assert any(s.origin.startswith("vectors/kafka-java-connect.jsonl") and s.canonical for s in ss)
            assert any(s.origin.startswith("vectors/") and s.accepted is False for s in ss)
    # every record's bytes of Kafka's connect.jsonl reach both readers (most through the golden vectors)
    for line in (SHARED / "vectors" / "kafka-java" / "connect.jsonl").read_text(encoding="utf-8").splitlines():
        r = json.loads(line)
        kind = "connect-metadata" if r["kind"].startswith("ConnectMetadata") else "connect-assignment"
        for reader in (0, 1):
            assert bytes.fromhex(r["hex"]) in {s.data for s in corpus[f"{kind}/r{reader}"]}, (r["id"], reader)
    # ConnectMetadata v0 of Kafka's (URL "https://10.0.0.100:8443/", config offset 0), by hand: int16 header 0,
    # int16 length 24 and the URL, int64 0; both readers decode it (reader 1 finds no allocation)
    want = bytes.fromhex("00000018") + b"https://10.0.0.100:8443/" + bytes(8)
    r0 = [s for s in corpus["connect-metadata/r0"] if s.data == want]
    r1 = [s for s in corpus["connect-metadata/r1"] if s.data == want]
    assert r0 and r0[0].accepted and r0[0].canonical
    assert r1 and r1[0].accepted and not r1[0].canonical  # the other reader: a view of Kafka's bytes
    assert TARGETS["connect-metadata/r0"](want).url == "https://10.0.0.100:8443/"
    # a v1 header: reader 0 reads the v0 fields and ignores the rest; reader 1 needs the allocation
    v1 = bytes.fromhex("0001") + want[2:]
    assert TARGETS["connect-metadata/r0"](v1).config_offset == 0
    with pytest.raises(DecodeError):
        TARGETS["connect-metadata/r1"](v1 + b"\x00")  # a truncated int32 allocation length
