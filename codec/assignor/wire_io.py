"""``assign --from-join-group`` and ``assign --emit-bytes``: the assignor over real bytes.

* ``--from-join-group``: the leader's JoinGroup response body (every member's ConsumerProtocol
  subscription with its SubscriptionInfo) plus a topology file
  (``{"subtopologies": [{"subtopology", "sourceTopics", "changelogTopics", "partitions"}],
  "endOffsetSums": {"0_1": n}, "configs": {...}, "assignor": ..., "nowMs": ...}``) in; each member's
  assignment out.
* ``--emit-bytes`` on a JSON group description: each client becomes ``capacity`` consumers named
  ``<processId>-<k>`` reading source topic ``topic-<subtopology>`` (changelog ``topic-<subtopology>-changelog``
  when stateful); the first consumer reports the client's offset sums (``taskLags`` are turned back into
  offset sums against ``endOffsetSums``, or, for a task without one, against its largest lag, which puts
  the furthest-behind client at offset 0) and owns the partitions of its previous active tasks. Their
  subscriptions are encoded at v11 and the Streams leader runs over those bytes.

Either way the output adds ``members``: per member its active and standby tasks, ``nextRebalanceMs`` and,
with ``--emit-bytes``, the hex of its SyncGroup assignment (a ConsumerProtocol assignment carrying the
AssignmentInfo).
"""

from __future__ import annotations

from typing import Any, Mapping

from ..group import consumer_subscription, decode_message, encode_consumer
from ..streams import LATEST_SUPPORTED_VERSION, SubscriptionInfo, encode_subscription
from ..types import TaskId
from ..wire.builder import wire_class
from .json_io import configs_from_json, group_from_json, result_to_json
from .leader import Subtopology, Topology
from .model import AssignmentError, GroupDescription
from .streams import LeaderResult, streams_leader_assign

__all__ = [
    "topology_from_json",
    "topology_to_json",
    "assign_join_group",
    "assign_description_over_bytes",
    "description_to_bytes",
    "leader_result_json",
]


def topology_from_json(doc: Mapping) -> Topology:
    subs = doc.get("subtopologies")
    if not isinstance(subs, list) or not subs:
        raise AssignmentError("topology: expected a non-empty 'subtopologies' list")
    out = []
    for i, s in enumerate(subs):
        where = f"topology.subtopologies[{i}]"
        try:
            sub = Subtopology(
                int(s["subtopology"]),
                _topics(s["sourceTopics"], f"{where}.sourceTopics"),
                _topics(s.get("changelogTopics", []), f"{where}.changelogTopics"),
                int(s.get("partitions", 1)),
                s.get("topologyName"),
            )
        except AssignmentError:
            raise
        except (KeyError, TypeError, ValueError, AttributeError):
            raise AssignmentError(
                f"{where}: expected {{subtopology, sourceTopics, changelogTopics, partitions}}"
            ) from None
        if not 1 <= sub.partitions <= MAX_PARTITIONS:
            raise AssignmentError(f"{where}.partitions: expected 1..{MAX_PARTITIONS}")
        out.append(sub)
    return Topology(tuple(out))


MAX_PARTITIONS = 100_000  # per subtopology: work stays proportional to a real topology


def _topics(v, where: str) -> tuple[str, ...]:
    """A list of topic names; a bare string is refused rather than read as its letters."""
    if not isinstance(v, list) or not all(isinstance(t, str) and t for t in v):
        raise AssignmentError(f"{where}: expected a list of topic names, got {v!r}"[:200])
    return tuple(v)


def topology_to_json(topology: Topology) -> dict:
    return {
        "subtopologies": [
            {
                "subtopology": s.subtopology,
                "sourceTopics": list(s.source_topics),
                "changelogTopics": list(s.changelog_topics),
                "partitions": s.partitions,
            }
            for s in topology.subtopologies
        ]
    }


def leader_result_json(result: LeaderResult, *, emit_bytes: bool) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if result.group is not None:
        out.update(result_to_json(result.group.clients))
    out.update(
        {
            "version": result.version,
            "commonlySupportedVersion": result.commonly_supported_version,
            "errorCode": result.error_code,
            "futureMembers": list(result.future_members),
        }
    )
    members = []
    for m, info in result.infos.items():
        entry: dict[str, Any] = {
            "memberId": m,
            "active": [str(t) for t in dict.fromkeys(info.active_tasks)],
            "standby": [str(t) for t in info.standby_tasks],
            "nextRebalanceMs": info.next_rebalance_ms,
        }
        if emit_bytes:
            entry["assignment"] = result.assignments[m].hex()
        members.append(entry)
    out["members"] = members
    if result.notes:
        out["notes"] = list(result.notes)
    return out


def _now_ms(doc: Mapping) -> int:
    """``nowMs``: the leader's clock, an integer of milliseconds (0 when absent)."""
    now = doc.get("nowMs", 0)
    if type(now) is not int or not 0 <= now < 1 << 62:
        raise AssignmentError(f"nowMs: needs an integer of milliseconds in 0..2^62, got {now!r}"[:200])
    return now


def _end_sums(doc: Mapping) -> dict[TaskId, int]:
    return {TaskId.parse(k): int(v) for k, v in (doc.get("endOffsetSums") or {}).items()}


def assign_join_group(join_body: bytes, join_version: int, topology_doc: Mapping, *, emit_bytes: bool) -> dict:
    """The leader's JoinGroup response body plus a topology document in; the assignment out."""
    topology = topology_from_json(topology_doc)  # the user's own file first: its errors are the clearest
    body = decode_message("JoinGroupResponse", join_version, join_body).value
    if not body.members:
        raise AssignmentError("this JoinGroup response has no members: only the leader's carries them")
    metadata = {m.member_id: m.metadata or b"" for m in body.members}
    result = streams_leader_assign(
        metadata,
        topology,
        configs=configs_from_json(topology_doc.get("configs")),
        end_offset_sums=_end_sums(topology_doc),
        leader_member_id=body.leader or body.member_id,
        now_ms=_now_ms(topology_doc),
        assignor=topology_doc.get("assignor", "high_availability"),
    )
    return leader_result_json(result, emit_bytes=emit_bytes)


# --emit-bytes writes every member's subscription and assignment; a group this large is far beyond Kafka's limits.
MAX_EMIT_MEMBERS = 10_000


def description_to_bytes(doc: Mapping) -> tuple[dict[str, bytes], Topology, GroupDescription, dict[TaskId, int]]:
    """A JSON group description as the leader would see it on the wire: each member's ConsumerProtocol
    subscription bytes, the topology, the parsed description and the end-offset sums (see the module
    docstring for the conventions)."""
    group = group_from_json(doc)  # validates the description
    members = sum(c.capacity for c in group.clients)
    if members > MAX_EMIT_MEMBERS:
        raise AssignmentError(
            f"--emit-bytes builds one member per unit of capacity: {members} members is more than {MAX_EMIT_MEMBERS}"
        )
    by_sub: dict[int, list] = {}
    for spec in group.tasks:
        if spec.task_id.topology_name is not None:
            raise AssignmentError(
                f"--emit-bytes cannot carry task {spec.task_id}: the Streams leader here models "
                "one unnamed topology, and dropping the name would merge it with another task"
            )
        by_sub.setdefault(spec.task_id.subtopology, []).append(spec)
    subtopologies = []
    for s, specs in sorted(by_sub.items()):
        parts = sorted(t.task_id.partition for t in specs)
        if parts != list(range(len(parts))):
            raise AssignmentError(f"--emit-bytes needs the partitions of subtopology {s} to be 0..n-1")
        stateful = any(t.stateful for t in specs)
        if stateful and not all(t.stateful for t in specs):
            raise AssignmentError(
                f"--emit-bytes needs subtopology {s} to be wholly stateful or stateless, as a "
                "real topology is (statefulness comes from a subtopology's changelog topics)"
            )
        subtopologies.append(Subtopology(s, (f"topic-{s}",), (f"topic-{s}-changelog",) if stateful else (), len(parts)))
    topology = Topology(tuple(subtopologies))
    ends = dict(group.end_offset_sums)
    for client in group.clients:  # lags without end sums: put the furthest-behind client at offset 0
        for t, lag in (client.task_lags or {}).items():
            if lag >= 0 and t not in group.end_offset_sums:
                ends[t] = max(ends.get(t, 0), lag)
    Owned = wire_class("ConsumerProtocolSubscription", "TopicPartition")
    metadata: dict[str, bytes] = {}
    for client in group.clients:
        sums = dict(client.task_offset_sums or {})
        for t, lag in (client.task_lags or {}).items():
            if lag in (-2, -3):
                sums[t] = lag
            elif lag < ends.get(t, 0) or t in client.prev_active or t in client.prev_standby:
                sums[t] = ends.get(t, 0) - lag
        for t in client.prev_active:
            sums.setdefault(t, -2)
        owned: dict[str, list[int]] = {}
        for t in sorted(client.prev_active):
            owned.setdefault(f"topic-{t.subtopology}", []).append(t.partition)
        for k in range(client.capacity):
            info = SubscriptionInfo(
                version=LATEST_SUPPORTED_VERSION,
                latest_supported_version=LATEST_SUPPORTED_VERSION,
                process_id=client.process_id,
                task_offset_sums=sums if k == 0 else {},
                client_tags=dict(client.client_tags),
            )
            cps = consumer_subscription(
                3,
                topics=tuple(f"topic-{s.subtopology}" for s in subtopologies),
                user_data=encode_subscription(info),
                owned_partitions=tuple(Owned(topic=t, partitions=tuple(p)) for t, p in owned.items()) if k == 0 else (),
            )
            metadata[f"{client.process_id}-{k}"] = encode_consumer(cps)
    return metadata, topology, group, ends


def assign_description_over_bytes(doc: Mapping) -> dict:
    """A JSON group description run through the Streams leader over real subscription bytes."""
    metadata, topology, group, ends = description_to_bytes(doc)
    result = streams_leader_assign(
        metadata,
        topology,
        configs=group.configs,
        end_offset_sums=ends,
        leader_member_id=min(metadata),
        now_ms=_now_ms(doc),
        assignor=group.assignor,
    )
    return leader_result_json(result, emit_bytes=True)
