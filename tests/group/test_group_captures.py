"""Real clients' frames (frames.jsonl): every JoinGroup, SyncGroup, Heartbeat and LeaveGroup request,
and every mock-broker response the captures README does not mark unusable, decodes through the whole
stack with the recorded API key, version, correlation id, header version and body offset, and
re-encodes byte for byte, both as decoded and from the unwrapped models."""

from __future__ import annotations

import collections

import pytest

from codec.group import (
    Connection,
    ConsumerMessage,
    Nested,
    RequestFrame,
    ResponseFrame,
    encode_request_frame,
    encode_response_frame,
    unwrap_body,
)
from codec.group.nested import nested_fields
from codec.wire.builder import encode_wire
from tests.group.data import GROUP_API_KEYS, capture_records, is_reference

RECORDS = capture_records()


def _paired():
    """Each record with the frame decoded by its connection's pairing helper (or the exception)."""
    conns: dict[tuple, Connection] = collections.defaultdict(Connection)
    out = []
    for r in RECORDS:
        conn = conns[(r["run"], r["scenario"], r["conn"])]
        data = bytes.fromhex(r["hex"])
        try:
            frame = conn.request(data) if r["direction"] == "request" else conn.response(data)[1]
        except Exception as e:  # noqa: BLE001 - kept to be asserted on per record
            frame = e
        out.append((r, frame))
    return out


PAIRED = _paired()
GROUP = [(r, f) for r, f in PAIRED if r["api_key"] in GROUP_API_KEYS and is_reference(r)]


def _layers(frame) -> list[Nested]:
    schema = frame.api.request if isinstance(frame, RequestFrame) else frame.api.response
    carrier = nested_fields(schema)
    if carrier is None:
        return []
    array, field, _ = carrier
    items = [frame.body] if array is None else frame.body.__getattribute__(array)
    found = [getattr(i, field) for i in items]
    return [n for n in found if isinstance(n, Nested)] + [
        n.value.data.user_data
        for n in found
        if isinstance(n, Nested) and n.ok and isinstance(n.value.data.user_data, Nested)
    ]


def test_corpus_shape():
    counts = collections.Counter((r["api_name"], r["direction"]) for r, _ in GROUP)
    assert counts[("JoinGroup", "request")] == 162 and counts[("SyncGroup", "request")] == 158
    assert all(
        counts[(a, d)] for a in ("JoinGroup", "SyncGroup", "Heartbeat", "LeaveGroup") for d in ("request", "response")
    )


def _id(item):
    r, _ = item
    return f"{r['scenario']}-{r['conn'].split(':')[1]}-{r['direction']}-{r['api_name']}v{r['api_version']}-c{r['correlation_id']}"


@pytest.mark.parametrize("item", GROUP, ids=_id)
def test_frame(item):
    r, frame = item
    if isinstance(frame, Exception):
        raise frame
    data = bytes.fromhex(r["hex"])
    assert (frame.api_key, frame.api_version, frame.correlation_id) == (
        r["api_key"],
        r["api_version"],
        r["correlation_id"],
    )
    assert frame.header_version == r["header_version"]
    header = "RequestHeader" if isinstance(frame, RequestFrame) else "ResponseHeader"
    assert len(encode_wire(header, frame.header_version, frame.header)) == r["body_offset"]
    if isinstance(frame, RequestFrame):
        assert frame.client_id == r["client_id"]
    if r.get("error_code") is not None:
        assert frame.body.error_code == r["error_code"]
    assert frame.trailing == b""
    # every nested layer decoded; the Streams layer never appears (no client here writes it); a sticky assignor's
    # user data is read as Kafka's reads it: all of it but kafka-python's (an int16 before the layout: unreadable)
    layers = _layers(frame)
    sticky = [n for n in layers if n.layer in ("StickyAssignorUserData", "CooperativeStickyAssignorUserData")]
    others = [n for n in layers if all(n is not x for x in sticky)]
    assert all(n.ok for n in others), [n.error for n in others if not n.ok]
    assert all(isinstance(n.value, ConsumerMessage) for n in others)
    assert all(n.ok or r["client"].startswith("kafka-python") for n in sticky), [n.error for n in sticky]
    # byte-identical, as decoded and rebuilt from the models
    encode = encode_request_frame if isinstance(frame, RequestFrame) else encode_response_frame
    assert encode(frame) == data
    schema = frame.api.request if isinstance(frame, RequestFrame) else frame.api.response
    rebuilt = (
        RequestFrame(header=frame.header, body=unwrap_body(schema, frame.body))
        if isinstance(frame, RequestFrame)
        else ResponseFrame(
            api_key=frame.api_key,
            api_version=frame.api_version,
            header=frame.header,
            body=unwrap_body(schema, frame.body),
        )
    )
    assert encode(rebuilt) == data


def test_consumer_protocol_versions_match_the_readme():
    """The README's client table: the Java client writes subscription v3 and assignment v3; librdkafka
    subscription v3 and assignment v0; kafka-python subscription v0/v1 and assignment v0/v1; aiokafka v0."""
    sub: dict[str, set] = collections.defaultdict(set)
    asg: dict[str, set] = collections.defaultdict(set)
    for r, frame in GROUP:
        client = r["client"].split(" ")[0]
        if r["api_name"] == "JoinGroup" and r["direction"] == "request":
            sub[client] |= {p.metadata.value.version for p in frame.body.protocols}
        if r["api_name"] == "SyncGroup" and r["direction"] == "request":
            asg[client] |= {a.assignment.value.version for a in frame.body.assignments}
    assert sub["Apache"] == {3} and asg["Apache"] == {3}
    assert sub["librdkafka"] == {3} and asg["librdkafka"] == {0}
    assert sub["kafka-python"] == {0, 1} and asg["kafka-python"] <= {0, 1}
    assert sub["aiokafka"] == {0} and asg["aiokafka"] <= {0}


def test_unusable_replies_are_the_only_failures():
    failed = [r for r, f in PAIRED if isinstance(f, Exception)]
    assert failed and all(not is_reference(r) for r in failed)
