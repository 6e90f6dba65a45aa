"""KIP-932 share groups' partition assignor, as Kafka's group coordinator runs it: ``SimpleAssignor`` of the 4.1.0
release (apache/kafka ``13f70256db``, ``group-coordinator/.../assignor/SimpleAssignor.java``; the schemas' release,
``schemas/README.md``). Kafka-exact, Java collection orders included.

A share group's members share partitions: a partition may go to several members, and a member keeps what it holds
unless balance says otherwise; there is no revocation (a member simply gets its new assignment). The assignor sees
the group as the coordinator hands it over (``GroupSpec``): every member's subscribed topics and current
assignment, the topics' partition counts and, from the share-group state, which partitions are assignable (those
whose state is initialized; all when not given). Kafka's rules:

* **Homogeneous** (every subscribed topic is subscribed by every member): the targets are the first member's topics
  (Java ``HashMap`` order of the member ids), each topic's assignable partitions in order. Each member is *hashed*
  onto one target (``abs(memberId.hashCode() % targets)``), so two members can land on one partition. A member then
  keeps partitions of its current assignment that are still subscribed and that no member was hashed onto, while it
  holds fewer than ``ceil(targets / members)`` (in the iteration order of Kafka's ``HashMap<TopicIdPartition, ...>``:
  by ``31 * Uuid.hashCode() + partition``, a bucket newest first, as ``computeIfAbsent`` fills it). The
  partitions nobody holds yet go round robin over the members, each taking one more while it holds at most that
  count, members that are full dropped from the round.
* **Heterogeneous**: each subscribing member is hashed onto one partition of its own subscription; every partition
  that nobody was hashed onto and that no member currently holds goes round robin, topic by topic, over the members
  subscribed to its topic; then every member keeps all of its current partitions of topics it still subscribes to
  that nobody was hashed onto. So a partition held by a member that no longer subscribes to it, and hashed onto
  nobody, is assigned to nobody (Kafka's behaviour; :attr:`ShareAssignment.unassigned` names such partitions).

Member order is Java's: the coordinator builds a ``HashMap`` of the members (put in the order given here), and the
heterogeneous case a second one of the subscribing members; within one hash bucket the order of insertion stands
(buckets of 8 or more colliding ids, which Java turns into trees, are not modelled). A member's current partitions
enter Kafka's map topic by topic in ``HashMap<Uuid>`` order, each topic's partitions in ``HashSet<Integer>`` order.

:func:`assign_share` takes a :class:`ShareGroupSpec`; :func:`share_group_from_json` / :func:`share_result_to_json` are
the JSON shape of ``rebalance-codec assign --share``.
"""

from __future__ import annotations

import base64
import bisect
import itertools
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ..javaorder import copy_capacity, filled_capacity, hash_order, hashmap_order, int32, string_hash, uuid_hash
from .model import AssignmentError

__all__ = [
    "ShareAssignment",
    "ShareGroupSpec",
    "ShareMember",
    "assign_share",
    "share_group_from_json",
    "share_result_to_json",
]

HOMOGENEOUS, HETEROGENEOUS = "homogeneous", "heterogeneous"
#: target partitions per assignment (checked before any is made): a partition count is a few bytes of input, and the
#: work and the output are linear in the partitions, so this bounds what a small input can cost (codec.budget)
MAX_PARTITIONS = 100_000


@dataclass(frozen=True, slots=True)
class ShareMember:
    """A member as the coordinator hands it to the assignor: its subscribed topic ids (in their set's order) and
    its current assignment, topic id -> partitions (in the order they were put)."""

    member_id: str
    topics: tuple[uuid.UUID, ...]
    assignment: tuple[tuple[uuid.UUID, tuple[int, ...]], ...] = ()


@dataclass(frozen=True, slots=True)
class ShareGroupSpec:
    """The members (in the order they were put into the coordinator's map), every topic's partition count, and
    the assignable partitions by topic (None: all)."""

    members: tuple[ShareMember, ...]
    partitions: dict[uuid.UUID, int]
    assignable: dict[uuid.UUID, frozenset[int]] | None = None
    subscription_type: str | None = None  # None: as the coordinator computes it


@dataclass(frozen=True, slots=True)
class ShareAssignment:
    subscription_type: str
    members: dict[str, dict[uuid.UUID, frozenset[int]]]  # every member, in the spec's order
    targets: tuple[tuple[uuid.UUID, int], ...]  # every assignable partition of a subscribed topic
    unassigned: tuple[tuple[uuid.UUID, int], ...]  # targets no member holds


# -- Java's hash orders (codec.javaorder) --------------------------------------------------------------------------------------


def _tp_hash(tp: tuple[uuid.UUID, int]) -> int:
    """``TopicIdPartition`` is a record: ``31 * topicId.hashCode() + partitionId``."""
    return int32(31 * uuid_hash(tp[0]) + tp[1])


# -- the assignor ----------------------------------------------------------------------------------------------


def _subscription_type(members: Sequence[ShareMember]) -> str:
    """``ModernGroup.subscriptionType``: homogeneous when every subscribed topic is subscribed by every member."""
    counts: dict[uuid.UUID, int] = {}
    for m in members:
        for t in set(m.topics):
            counts[t] = counts.get(t, 0) + 1
    return HOMOGENEOUS if all(c == len(members) for c in counts.values()) else HETEROGENEOUS


def _targets(spec: ShareGroupSpec, topics: Iterable[uuid.UUID]) -> list[tuple[uuid.UUID, int]]:
    out: list[tuple[uuid.UUID, int]] = []
    for t in dict.fromkeys(topics):
        n = spec.partitions.get(t)
        if n is None:
            raise AssignmentError(
                f"Members are subscribed to topic {_kafka_uuid(t)} which doesn't exist in the topic "
                "metadata. (Kafka's PartitionAssignorException)"
            )
        allowed = None if spec.assignable is None else spec.assignable.get(t, frozenset())
        if len(out) + (n if allowed is None else min(n, len(allowed))) > MAX_PARTITIONS:
            raise AssignmentError(f"more than {MAX_PARTITIONS:,} partitions to assign")
        out += [(t, p) for p in range(n) if allowed is None or p in allowed]
    return out


def _computed_order(calls: Iterable, hash_fn) -> list:
    """The iteration order of a ``new HashMap<>()`` filled by ``computeIfAbsent`` with the keys of ``calls`` (one
    per call, repeats included): Java 17's ``computeIfAbsent`` puts a new entry at the *head* of its bucket and
    resizes lazily, at the start of a call that finds the size above the threshold (``put`` appends and resizes
    after the insertion). A resize keeps each bucket's relative order, so a bucket lists its keys newest first."""
    cap = 0
    seen: dict[object, int] = {}  # key -> insertion index
    for key in calls:
        if cap == 0 or len(seen) > cap * 3 // 4:
            cap = 16 if cap == 0 else cap * 2
        seen.setdefault(key, len(seen))

    def bucket(x) -> int:
        h = hash_fn(x) & 0xFFFFFFFF
        return (h ^ (h >> 16)) & (cap - 1)

    return sorted(seen, key=lambda x: (bucket(x), -seen[x]))


def _current(member_ids: list[str], by_id: dict[str, ShareMember]) -> dict[tuple[uuid.UUID, int], list[str]]:
    """Kafka's ``currentAssignment``: partition -> members (``computeIfAbsent`` into a ``HashMap``, member by member,
    each member's topics in its ``HashMap<Uuid, ...>``'s order and their partitions in ``HashSet`` order), in
    Java's order of that map."""
    calls: list[tuple[tuple[uuid.UUID, int], str]] = []
    for mid in member_ids:
        topics = dict(by_id[mid].assignment)
        for t in hash_order(list(topics), uuid_hash, filled_capacity(len(topics))):
            ps = list(dict.fromkeys(topics[t]))
            calls += [((t, p), mid) for p in hash_order(ps, lambda x: x, copy_capacity(len(ps)))]
    current: dict[tuple[uuid.UUID, int], list[str]] = {}
    for tp, mid in calls:
        current.setdefault(tp, []).append(mid)
    return {tp: current[tp] for tp in _computed_order((tp for tp, _ in calls), _tp_hash)}


def _hash_members(member_ids: Iterable[str], targets: Sequence, into: dict) -> None:
    """``memberHashAssignment``: each member onto ``targets[abs(hashCode % size)]`` (Java's remainder keeps the
    sign)."""
    if targets:
        for mid in member_ids:
            into.setdefault(targets[abs(string_hash(mid)) % len(targets)], []).append(mid)


def _round_robin(member_ids: Sequence[str], targets: list, into: dict) -> None:
    """``roundRobinAssignment``: the targets in turn to the members, starting over when they run out."""
    for i, tp in enumerate(targets):
        into.setdefault(tp, []).append(member_ids[i % len(member_ids)])


def _round_robin_with_count(member_ids: Sequence[str], targets: list, final: dict, desired: int) -> None:
    """``roundRobinAssignmentWithCount``: like :func:`_round_robin`, but a member holding more than ``desired``
    leaves the round and the partition goes to the next one."""
    members, i, k = list(member_ids), 0, 0
    while k < len(targets):
        if i >= len(members):
            i = 0
            if not members:
                raise AssignmentError("Inconsistent number of member IDs (Kafka's PartitionAssignorException)")
        held = final.setdefault(members[i], set())
        if len(held) <= desired:
            held.add(targets[k])
            i, k = i + 1, k + 1
        else:
            del members[i]


def _homogeneous(spec, member_ids, by_id) -> dict[str, set]:
    topics = by_id[member_ids[0]].topics
    if not topics:
        return {}
    subscribed = set(topics)
    targets = _targets(spec, topics)
    current = _current(member_ids, by_id)
    desired = (len(targets) + len(member_ids) - 1) // len(member_ids)
    hashed: dict = {}
    _hash_members(member_ids, targets, hashed)
    final: dict[str, set] = {}
    held_by: set = set(hashed)
    for tp, ms in hashed.items():
        for mid in ms:
            final.setdefault(mid, set()).add(tp)
    for tp, ms in current.items():
        if tp[0] in subscribed:
            for mid in ms:
                mine = final.setdefault(mid, set())
                if len(mine) < desired and tp not in hashed:
                    mine.add(tp)
                    held_by.add(tp)
    _round_robin_with_count(member_ids, [tp for tp in targets if tp not in held_by], final, desired)
    return final


class _Concatenated(Sequence):
    """Lists read as one, by position, without being copied: a heterogeneous member's targets are its topics'
    (each topic's list made once), so that members x partitions tuples are never made."""

    def __init__(self, parts: list[list]) -> None:
        self.parts, self.ends = parts, list(itertools.accumulate(len(p) for p in parts))

    def __len__(self) -> int:
        return self.ends[-1] if self.ends else 0

    def __getitem__(self, i):  # type: ignore[override]  # positions only (what _hash_members asks), no slices
        k = bisect.bisect_right(self.ends, i)
        return self.parts[k][i - (self.ends[k - 1] if k else 0)]


def _heterogeneous(spec, member_ids, by_id) -> dict[str, set]:
    subscribing = hashmap_order([mid for mid in member_ids if by_id[mid].topics])
    of_topic: dict[uuid.UUID, list] = {}  # each topic's targets (Kafka's error for the first topic it lacks)
    for mid in subscribing:
        for t in dict.fromkeys(by_id[mid].topics):
            if t not in of_topic:
                of_topic[t] = _targets(spec, [t])
                if sum(map(len, of_topic.values())) > MAX_PARTITIONS:
                    raise AssignmentError(f"more than {MAX_PARTITIONS:,} partitions to assign")
    targets_of = {mid: _Concatenated([of_topic[t] for t in dict.fromkeys(by_id[mid].topics)]) for mid in subscribing}
    targets = [tp for tps in of_topic.values() for tp in tps]
    subscribers: dict[uuid.UUID, dict[str, None]] = {}
    for mid in subscribing:
        for t in dict.fromkeys(by_id[mid].topics):
            if of_topic[t]:  # a topic none of whose partitions is assignable has no subscribers here
                subscribers.setdefault(t, {})[mid] = None
    current = _current(member_ids, by_id)
    hashed: dict = {}
    for mid in subscribing:
        _hash_members([mid], targets_of[mid], hashed)
    unassigned: dict[uuid.UUID, list] = {}
    for tp in targets:
        if tp not in hashed and tp not in current:
            unassigned.setdefault(tp[0], []).append(tp)
    for t, tps in unassigned.items():
        _round_robin(list(subscribers[t]), tps, hashed)
    final: dict[str, set] = {}
    for tp, ms in hashed.items():
        for mid in ms:
            final.setdefault(mid, set()).add(tp)
    for tp, ms in current.items():
        for mid in ms:
            if mid in subscribers.get(tp[0], ()) and tp not in hashed:
                final.setdefault(mid, set()).add(tp)
    return final


def assign_share(spec: ShareGroupSpec) -> ShareAssignment:
    """The target assignment Kafka's ``SimpleAssignor`` computes for ``spec`` (see the module docstring).
    Raises :class:`AssignmentError` where Kafka throws ``PartitionAssignorException``."""
    by_id = {m.member_id: m for m in spec.members}
    if len(by_id) != len(spec.members):
        raise AssignmentError("a member id appears twice")
    kind = spec.subscription_type or _subscription_type(spec.members)
    if kind not in (HOMOGENEOUS, HETEROGENEOUS):
        raise AssignmentError(f"subscriptionType is homogeneous or heterogeneous, not {kind!r}"[:120])
    member_ids = hashmap_order(list(by_id))
    final = {} if not member_ids else (_homogeneous if kind == HOMOGENEOUS else _heterogeneous)(spec, member_ids, by_id)
    topics = (
        {t for m in spec.members for t in m.topics}
        if kind == HETEROGENEOUS
        else (set(by_id[member_ids[0]].topics) if member_ids else set())
    )
    targets = tuple(_targets(spec, [t for m in spec.members for t in m.topics if t in topics]))
    held = {tp for tps in final.values() for tp in tps}
    members = {}
    for m in spec.members:
        mine: dict[uuid.UUID, set[int]] = {}
        for t, p in final.get(m.member_id, ()):
            mine.setdefault(t, set()).add(p)
        members[m.member_id] = {t: frozenset(ps) for t, ps in mine.items()}
    return ShareAssignment(kind, members, targets, tuple(tp for tp in targets if tp not in held))


# -- JSON ------------------------------------------------------------------------------------------------------


def _kafka_uuid(u: uuid.UUID) -> str:
    return base64.urlsafe_b64encode(u.bytes).rstrip(b"=").decode("ascii")


def _parse_uuid(text: Any, where: str) -> uuid.UUID:
    if isinstance(text, str):
        try:
            if len(text) == 22:
                return uuid.UUID(bytes=base64.urlsafe_b64decode(text + "=="))
            if len(text) == 36:
                return uuid.UUID(text)
        except ValueError:
            pass
    raise AssignmentError(f"{where}: a topic id is Kafka's 22-character Uuid or a dashed UUID, not {text!r}"[:160])


def _name_id(name: str) -> uuid.UUID:
    """A topic id for a topic given by name alone (stable: derived from the name)."""
    return uuid.uuid5(uuid.NAMESPACE_URL, "kafka-topic:" + name)


def _int(x: Any, where: str, low: int = 0, high: int = (1 << 31) - 1) -> int:
    if type(x) is not int or not low <= x <= high:
        raise AssignmentError(f"{where}: an integer {low}..{high}, not {x!r}"[:160])
    return x


def _list(x: Any, where: str) -> list:
    if not isinstance(x, list):
        raise AssignmentError(f"{where}: a list, not {type(x).__name__}")
    return x


def share_group_from_json(doc: Any) -> tuple[ShareGroupSpec, dict[uuid.UUID, str]]:
    """The spec of ``assign --share``'s JSON and the topics' names by id::

        {"topics": {"orders": 3, "payments": 2}        # name -> partition count, or a list of
                                                        # {"name", "partitions", "topicId"} (Kafka's Uuid string)
         "members": [{"memberId": "A", "subscribedTopicNames": ["orders"],
                      "assignment": {"orders": [0, 2]}}],   # the current (target) assignment; optional
         "assignablePartitions": {"orders": [0, 1, 2]},     # optional: the initialized partitions (default all)
         "subscriptionType": "homogeneous"}                 # optional: as the coordinator computes it

    Members are put into Kafka's map in the order listed. A topic given without an id gets one derived from its
    name (the result can depend on topic ids only through which current partitions a full member keeps); a
    subscription to a topic the topics lack is Kafka's error ("doesn't exist in the topic metadata")."""
    if not isinstance(doc, dict):
        raise AssignmentError("a share group is a JSON object with topics and members")
    unknown = sorted(set(doc) - {"topics", "members", "assignablePartitions", "subscriptionType", "assignor"})
    if unknown:
        raise AssignmentError(
            f"a share group has no key {unknown[0][:60]!r} (its keys: topics, members, "
            "assignablePartitions, subscriptionType)"
        )
    if doc.get("assignor", "simple") != "simple":
        raise AssignmentError(f"share groups have one assignor, simple, not {str(doc['assignor'])[:40]!r}")
    raw_topics = doc.get("topics", {})
    if isinstance(raw_topics, dict):
        raw_topics = [{"name": k, "partitions": v} for k, v in raw_topics.items()]
    ids: dict[str, uuid.UUID] = {}
    counts: dict[uuid.UUID, int] = {}
    for i, t in enumerate(_list(raw_topics, "topics")):
        where = f"topics[{i}]"
        if not isinstance(t, dict) or not isinstance(t.get("name"), str):
            raise AssignmentError(f"{where}: a topic is {{name, partitions[, topicId]}}")
        tid = _parse_uuid(t["topicId"], f"{where}.topicId") if "topicId" in t else _name_id(t["name"])
        if t["name"] in ids or tid in counts:
            raise AssignmentError(f"{where}: topic {t['name'][:60]!r} (or its id) appears twice")
        ids[t["name"]], counts[tid] = tid, _int(t.get("partitions"), f"{where}.partitions")

    def topic(name: Any, where: str) -> uuid.UUID:
        """A topic's id; a name the topics lack gets one too, without a partition count: the metadata lacks it
        (Kafka's assignor refuses a subscription to it; a current assignment may still name it)."""
        if not isinstance(name, str):
            raise AssignmentError(f"{where}: a topic name, not {name!r}"[:160])
        return ids.setdefault(name, _name_id(name))

    members = []
    for i, m in enumerate(_list(doc.get("members", []), "members")):
        where = f"members[{i}]"
        if not isinstance(m, dict) or not isinstance(m.get("memberId"), str):
            raise AssignmentError(f"{where}: a member is {{memberId, subscribedTopicNames[, assignment]}}")
        subs = tuple(
            dict.fromkeys(
                topic(n, f"{where}.subscribedTopicNames[{j}]")
                for j, n in enumerate(_list(m.get("subscribedTopicNames", []), f"{where}.subscribedTopicNames"))
            )
        )
        current = m.get("assignment") or {}
        if not isinstance(current, dict):
            raise AssignmentError(f"{where}.assignment: topic name -> partitions")
        asg = tuple(
            (
                topic(n, f"{where}.assignment"),
                tuple(
                    _int(p, f"{where}.assignment.{n}[{j}]") for j, p in enumerate(_list(ps, f"{where}.assignment.{n}"))
                ),
            )
            for n, ps in current.items()
        )
        members.append(ShareMember(m["memberId"], subs, asg))
    assignable = doc.get("assignablePartitions")
    if assignable is not None:
        if not isinstance(assignable, dict):
            raise AssignmentError("assignablePartitions: topic name -> partitions")
        assignable = {
            topic(n, "assignablePartitions"): frozenset(
                _int(p, f"assignablePartitions.{n}") for p in _list(ps, f"assignablePartitions.{n}")
            )
            for n, ps in assignable.items()
        }
    return (
        ShareGroupSpec(tuple(members), counts, assignable, doc.get("subscriptionType")),
        {tid: name for name, tid in ids.items()},
    )


def share_result_to_json(result: ShareAssignment, names: dict[uuid.UUID, str]) -> dict:
    """``{"assignor", "subscriptionType", "members": [{memberId, assignment: {topic: [partitions]}}],
    "shared": [{"holders": n, "partitions": {topic: [partitions]}}], "unassigned": {topic: [partitions]}}``: every
    member in input order; the partitions two or more members hold (they share them), grouped by how many hold
    them; the partitions nobody holds. A topic's name is written once per list, never once per partition, and a
    member's id once (who shares a partition is the members' assignments), so the output stays proportional to
    the assignment (codec.budget)."""

    def name(t: uuid.UUID) -> str:
        return names.get(t, _kafka_uuid(t))

    def by_topic(tps: Iterable[tuple[uuid.UUID, int]]) -> dict[str, list[int]]:
        out: dict[str, list[int]] = {}
        for t, p in tps:
            out.setdefault(name(t), []).append(p)
        return {k: sorted(out[k]) for k in sorted(out)}

    holders: dict[tuple[uuid.UUID, int], int] = {}
    for asg in result.members.values():
        for t, ps in asg.items():
            for p in ps:
                holders[(t, p)] = holders.get((t, p), 0) + 1
    shared: dict[int, list[tuple[uuid.UUID, int]]] = {}
    for tp, n in holders.items():
        if n > 1:
            shared.setdefault(n, []).append(tp)
    return {
        "assignor": "simple",
        "subscriptionType": result.subscription_type,
        "members": [
            {
                "memberId": mid,
                "assignment": {name(t): sorted(ps) for t, ps in sorted(asg.items(), key=lambda kv: name(kv[0]))},
            }
            for mid, asg in result.members.items()
        ],
        "shared": [{"holders": n, "partitions": by_topic(tps)} for n, tps in sorted(shared.items())],
        "unassigned": by_topic(result.unassigned),
    }
