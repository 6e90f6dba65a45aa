"""The consumer assignors over real bytes: a group read from the leader's JoinGroup response, the SyncGroup
assignments written for it, and ``--check``: every generation of a capture, the leader's actual assignment against
the one the named assignor gives.

* :func:`group_from_join` — the members' ``ConsumerProtocolSubscription`` bytes (the JoinGroup response's member
  metadata, in its order, with each member's ``group.instance.id``) plus the metadata the leader had (the topics'
  partition counts and replica racks, which no group message carries) make a :class:`ConsumerGroup`: topics,
  ``userData`` (kept raw: the sticky assignors read it as Kafka does), owned partitions, the v2+ generation
  (``-1``: none), the v3 rack (empty: none).
* :func:`assignment_bytes` — a member's ``ConsumerProtocolAssignment`` as the Java client's leader writes it: v3,
  partitions grouped by topic in first-seen order, null user data.
* :func:`check_capture` — for each generation of a capture whose leader's JoinGroup response and SyncGroup request
  were both seen: which assignor ran (``--consumer``, or ``auto``: the protocol the coordinator chose), and per
  member the partitions Kafka's assignor gives and the leader did not (``missing``) or the leader gave and Kafka's
  does not (``extra``). Cooperative-sticky's withheld partitions are named as such. A generation that cannot be
  checked (no metadata for a subscribed topic, a protocol not known, bytes not decoded) says why; each verdict
  carries the generation's ``findings`` (:mod:`codec.assignor.consumer.findings`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...errors import CodecError
from ...group import consumer_assignment, decode_consumer, encode_consumer, decode_message
from ...wire.builder import wire_class
from . import assign_consumer
from .findings import decoded, group_findings
from .json_io import consumer_group_from_json
from .model import CLIENT_ASSIGNORS, TP, AssignmentError, ConsumerGroup, ConsumerMember

__all__ = [
    "group_from_join",
    "assignment_bytes",
    "assign_join_group_consumer",
    "CapturedGeneration",
    "captured_generations",
    "check_generation",
    "check_capture",
    "partitions_of",
]

SUBSCRIPTION = "ConsumerProtocolSubscription"
ASSIGNMENT = "ConsumerProtocolAssignment"


def _metadata(doc: Any) -> ConsumerGroup:
    """The leader's metadata (``topics``, ``partitionRacks``, ``topicIds``) from an ``assign --consumer`` JSON
    document without members."""
    if not isinstance(doc, Mapping):
        raise AssignmentError('the metadata is a JSON object: {"topics": {name: partitions}, ...}')
    if doc.get("members"):
        raise AssignmentError("with bytes, the members come from the JoinGroup response: the metadata has none")
    group, _ = consumer_group_from_json({**doc, "members": [], "assignor": "range"})
    return group


def member_from_subscription(member_id: str, instance_id: str | None, metadata: bytes) -> ConsumerMember:
    """A member as its subscription bytes say (``CodecError`` when they are not a ConsumerProtocol subscription)."""
    msg = decode_consumer(SUBSCRIPTION, metadata)
    d = msg.data
    owned = tuple((tp.topic, p) for tp in getattr(d, "owned_partitions", None) or () for p in tp.partitions)
    generation = getattr(d, "generation_id", -1)
    rack = getattr(d, "rack_id", None)
    user = d.user_data
    raw = getattr(user, "raw", user)
    return ConsumerMember(
        member_id=member_id,
        topics=tuple(d.topics),
        owned=owned,
        generation=generation if generation is not None and generation >= 0 else None,
        rack=rack or None,
        instance_id=instance_id,
        user_data=None if raw is None else bytes(raw),
    )


def group_from_join(members: Iterable[tuple[str, str | None, bytes]], metadata_doc: Any) -> ConsumerGroup:
    meta = _metadata(metadata_doc)
    out = []
    for mid, instance, raw in members:
        try:
            out.append(member_from_subscription(mid, instance, raw))
        except CodecError as e:
            raise AssignmentError(f"member {mid!r}: its metadata is no ConsumerProtocol subscription: {e}") from None
    return ConsumerGroup(meta.topics, tuple(out), meta.partition_racks, meta.topic_ids, meta.prefer_rack_aware)


def assignment_bytes(partitions: list[TP], version: int = 3) -> bytes:
    Topic = wire_class(ASSIGNMENT, "TopicPartition")
    by_topic: dict[str, list[int]] = {}
    for t, p in partitions:
        by_topic.setdefault(t, []).append(p)
    msg = consumer_assignment(
        version, assigned_partitions=tuple(Topic(topic=t, partitions=tuple(ps)) for t, ps in by_topic.items())
    )
    return encode_consumer(msg)


def assign_join_group_consumer(body: bytes, version: int, metadata_doc: Any, assignor: str, *, emit_bytes: bool):
    """``assign --consumer A --from-join-group``: the leader's JoinGroup response body + the metadata document in;
    the assignment (and, with ``emit_bytes``, each member's SyncGroup assignment bytes) out."""
    from .json_io import consumer_result_to_json

    resp = decode_message("JoinGroupResponse", version, body).value
    if not resp.members:
        raise AssignmentError("this JoinGroup response has no members: only the leader's carries them")
    group = group_from_join([(m.member_id, m.group_instance_id, _raw(m.metadata)) for m in resp.members], metadata_doc)
    name = _auto(assignor, resp.protocol_name)
    result = assign_consumer(group, name)
    out = {"assignor": name, **consumer_result_to_json(result)}
    if emit_bytes:
        out["syncGroup"] = {m: assignment_bytes(tps).hex() for m, tps in result.members.items()}
    return out


def _raw(value: Any) -> bytes:
    raw = getattr(value, "raw", value)
    return bytes(raw or b"")


def _auto(assignor: str, protocol: str | None) -> str:
    if assignor != "auto":
        return assignor
    if protocol in CLIENT_ASSIGNORS:
        return protocol
    raise AssignmentError(f"--consumer auto: the group's protocol {protocol!r} is none of Kafka's assignors; name one")


@dataclass
class CapturedGeneration:
    """One generation as the capture shows it: the leader's JoinGroup response (members in order) and the
    assignments of its SyncGroup request (raw bytes)."""

    group: str
    generation: int
    protocol: str | None = None
    leader: str | None = None
    leader_client: str | None = None
    members: list[tuple[str, str | None, bytes]] = field(default_factory=list)
    assignments: dict[str, bytes] | None = None


def captured_generations(path: str | Path) -> Iterator[CapturedGeneration]:
    """Every generation of a pcap/pcapng capture of classic consumer groups, in the order they formed."""
    from ...capture.story import GroupFrame, capture_story

    gens: dict[tuple[str, int], CapturedGeneration] = {}
    clients: dict[int, str] = {}
    for gf in capture_story(str(path)):
        if not isinstance(gf, GroupFrame) or gf.frame is None or gf.group is None:
            continue
        body = gf.frame.body
        if gf.direction == "request" and getattr(gf.frame, "header", None) is not None:
            clients[gf.conn] = getattr(gf.frame.header, "client_id", None) or clients.get(gf.conn, "")
        if gf.api_key == 11 and gf.direction == "response" and not body.error_code and body.members:
            g = gens.setdefault((gf.group, body.generation_id), CapturedGeneration(gf.group, body.generation_id))
            g.protocol, g.leader = body.protocol_name, body.leader
            g.members = [(m.member_id, m.group_instance_id, _raw(m.metadata)) for m in body.members]
            g.leader_client = clients.get(gf.conn)
        elif gf.api_key == 14 and gf.direction == "request" and body.assignments:
            g = gens.setdefault((gf.group, body.generation_id), CapturedGeneration(gf.group, body.generation_id))
            g.assignments = {a.member_id: _raw(a.assignment) for a in body.assignments}
    yield from sorted(gens.values(), key=lambda g: (g.group, g.generation))


def partitions_of(raw: bytes) -> list[TP]:
    """The ``(topic, partition)`` pairs of a ConsumerProtocol assignment's bytes, in their order (a
    :class:`~codec.errors.CodecError` when they do not read)."""
    msg = decode_consumer(ASSIGNMENT, raw)
    return [(tp.topic, p) for tp in msg.data.assigned_partitions for p in tp.partitions]


def _items(tps: Iterable[TP]) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for t, p in sorted(tps):
        out.setdefault(t, []).append(p)
    return out


def check_generation(gen: CapturedGeneration, metadata_doc: Any, assignor: str) -> dict[str, Any]:
    """One generation's verdict (see the module docstring)."""
    out: dict[str, Any] = {"group": gen.group, "generation": gen.generation, "protocol": gen.protocol,
                           "leader": gen.leader, "leaderClient": gen.leader_client}  # fmt: skip
    if not gen.members or gen.assignments is None:
        out["checked"] = False
        out["why"] = (
            "the leader's " + ("JoinGroup response" if not gen.members else "SyncGroup request") + " was not seen"
        )
        return out
    try:
        name = _auto(assignor, gen.protocol)
        group = group_from_join(gen.members, metadata_doc)
        missing_topics = sorted({t for m in group.members for t in m.topics} - set(group.topics))
        if missing_topics:
            raise AssignmentError(f"the metadata lacks subscribed topic(s) {', '.join(missing_topics)}")
        expected = assign_consumer(group, name)
        actual = {m: partitions_of(b) for m, b in gen.assignments.items()}
    except (AssignmentError, CodecError) as e:
        out["checked"] = False
        out["why"] = str(e)
        return out
    out["assignor"] = name
    out["checked"] = True
    diffs = []
    for mid in dict.fromkeys([*expected.members, *actual]):
        want, got = set(expected.members.get(mid, ())), set(actual.get(mid, ()))
        if want != got:
            d: dict[str, Any] = {"memberId": mid}
            if want - got:
                d["missing"] = _items(want - got)
            if got - want:
                d["extra"] = _items(got - want)
            withheld = set(expected.revoking.get(mid, ())) & (got - want)
            if withheld:
                d["withheldByKafka"] = _items(withheld)
            diffs.append(d)
    out["matches"] = not diffs
    out["differences"] = diffs
    out["expected"] = {m: _items(tps) for m, tps in expected.members.items()}
    if expected.revoking:
        out["revoking"] = {m: _items(tps) for m, tps in expected.revoking.items()}
    return out


def check_capture(path: str | Path, metadata_doc: Any, assignor: str) -> Iterator[dict[str, Any]]:
    """Every generation's verdict (:func:`check_generation`) with its ``findings``
    (:mod:`codec.assignor.consumer.findings`: a partition owned twice or unowned, an eager move without revocation,
    a cooperative move in one step, an assignment that is not the named assignor's)."""
    gens = list(captured_generations(path))
    verdicts = {(g.group, g.generation): check_generation(g, metadata_doc, assignor) for g in gens}
    topics = None
    if isinstance(metadata_doc, Mapping) and isinstance(metadata_doc.get("topics"), Mapping):
        topics = _metadata(metadata_doc).topics

    def protocol_of(g: CapturedGeneration) -> str | None:
        try:
            return _auto(assignor, g.protocol)
        except AssignmentError:
            return None

    found = group_findings(
        [decoded(g, protocol_of(g), member_from_subscription, partitions_of) for g in gens], topics, verdicts
    )
    for key, verdict in verdicts.items():
        verdict["findings"] = found[key]
        yield verdict
