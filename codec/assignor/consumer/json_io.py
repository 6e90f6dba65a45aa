"""``assign --consumer``'s JSON: a plain consumer group in, each member's partitions out.

::

    {"assignor": "cooperative-sticky",                   # optional; --consumer names it
     "topics": {"orders": 6, "events": 3},               # the metadata: name -> partition count
     "topicIds": {"orders": "T1-A4s3VTwiI5CTbEp6POw"},   # optional (server side): Kafka's Uuid, or a dashed UUID
     "partitionRacks": {"orders": [["a", "b"], ...]},    # optional (KIP-881): each partition's replica racks
     "preferRackAwareLogic": false,                      # optional: Kafka's test-only switch (below)
     "subscriptionType": "heterogeneous",                # optional (server side): the GroupSpec's, forced (below)
     "members": [{"memberId": "c-1", "topics": ["orders", "events"],
                  "ownedPartitions": [{"topic": "orders", "partition": 0}],
                  "generation": 4, "rackId": "a", "groupInstanceId": null,
                  "userData": "0000..."}]}                # optional: the subscription's raw userData, hex

    {"assignment": {"c-1": [{"topic": "orders", "partition": 0}, ...]},
     "revoking": {"c-2": [...]},                         # cooperative-sticky: owned partitions withheld this round
     "builder": "constrained"}

Members are listed as the leader's JoinGroup response lists them (client side) or as the coordinator's member map
holds them (server side): Kafka's hash orders start from there. ``ownedPartitions`` is what the member owns
(client side: its subscription's; server side: its current target assignment); ``generation`` the subscription's
``generationId`` (null: none). Without ``userData``, a sticky member's user data says what ``ownedPartitions`` and
``generation`` say (as the Java client writes it). ``preferRackAwareLogic`` is a switch only Kafka's own tests turn
on (``AbstractPartitionAssignor.preferRackAwareLogic``): the client-side assignors then match racks even where every
partition has replicas on every rack; it lets Kafka's test cases run here as they run there. ``subscriptionType``
likewise forces the server side's ``GroupSpec`` type, which the coordinator otherwise computes from the
subscriptions (Kafka's tests hand the assignors types the subscriptions do not have).
"""

from __future__ import annotations

import base64
import uuid
from typing import Any, Mapping

from .model import CONSUMER_ASSIGNORS, TP, AssignmentError, ConsumerAssignment, ConsumerGroup, ConsumerMember

__all__ = ["consumer_group_from_json", "consumer_result_to_json", "kafka_uuid", "parse_uuid", "MAX_PARTITIONS"]

#: partitions in one group (a partition count is a few bytes of input; the work and the output grow with it)
MAX_PARTITIONS = 1_000_000
_GROUP_KEYS = {
    "assignor",
    "topics",
    "topicIds",
    "partitionRacks",
    "members",
    "preferRackAwareLogic",
    "subscriptionType",
}
_MEMBER_KEYS = {"memberId", "topics", "ownedPartitions", "generation", "rackId", "groupInstanceId", "userData"}
_INT32 = (-(1 << 31), (1 << 31) - 1)


def kafka_uuid(u: uuid.UUID) -> str:
    """Kafka's string form of a ``Uuid``: URL-safe base64 without padding."""
    return base64.urlsafe_b64encode(u.bytes).rstrip(b"=").decode("ascii")


def parse_uuid(text: Any, where: str) -> uuid.UUID:
    if isinstance(text, str):
        try:
            if len(text) == 22:
                return uuid.UUID(bytes=base64.urlsafe_b64decode(text + "=="))
            if len(text) == 36:
                return uuid.UUID(text)
        except ValueError:
            pass
    raise AssignmentError(f"{where}: a topic id is Kafka's 22-character Uuid or a dashed UUID, not {text!r}"[:160])


def _int(x: Any, where: str, low: int = _INT32[0], high: int = _INT32[1]) -> int:
    if type(x) is not int or not low <= x <= high:
        raise AssignmentError(f"{where}: an integer {low}..{high}, not {x!r}"[:160])
    return x


def _str(x: Any, where: str, nullable: bool = False) -> str | None:
    if x is None and nullable:
        return None
    if not isinstance(x, str):
        raise AssignmentError(f"{where}: a string{' or null' if nullable else ''}, not {x!r}"[:160])
    return x


def _list(x: Any, where: str) -> list:
    if not isinstance(x, list):
        raise AssignmentError(f"{where}: a list, not {type(x).__name__}")
    return x


def _unknown(obj: Mapping, allowed: set[str], where: str) -> None:
    extra = sorted(set(obj) - allowed)
    if extra:
        raise AssignmentError(f"{where}: unknown key {extra[0][:60]!r} (keys: {', '.join(sorted(allowed))})")


def _partitions(raw: Any, where: str) -> tuple[TP, ...]:
    out = []
    for i, tp in enumerate(_list(raw, where)):
        w = f"{where}[{i}]"
        if not isinstance(tp, Mapping):
            raise AssignmentError(f"{w}: a partition is {{topic, partition}}")
        _unknown(tp, {"topic", "partition"}, w)
        out.append((_str(tp.get("topic"), f"{w}.topic") or "", _int(tp.get("partition"), f"{w}.partition")))
    return tuple(out)


def _member(raw: Any, i: int) -> ConsumerMember:
    where = f"members[{i}]"
    if not isinstance(raw, Mapping):
        raise AssignmentError(f"{where}: a member is an object with memberId and topics")
    _unknown(raw, _MEMBER_KEYS, where)
    topics = tuple(_str(t, f"{where}.topics[{j}]") or "" for j, t in enumerate(_list(raw.get("topics", []), where)))
    generation = raw.get("generation")
    user_data = raw.get("userData")
    if user_data is not None:
        try:
            user_data = bytes.fromhex(_str(user_data, f"{where}.userData") or "")
        except ValueError:
            raise AssignmentError(f"{where}.userData: hex bytes, or null") from None
    return ConsumerMember(
        member_id=_str(raw.get("memberId"), f"{where}.memberId") or "",
        topics=topics,
        owned=_partitions(raw.get("ownedPartitions", []), f"{where}.ownedPartitions"),
        generation=None if generation is None else _int(generation, f"{where}.generation"),
        rack=_str(raw.get("rackId"), f"{where}.rackId", nullable=True),
        instance_id=_str(raw.get("groupInstanceId"), f"{where}.groupInstanceId", nullable=True),
        user_data=user_data,
    )


def consumer_group_from_json(doc: Any, assignor: str | None = None) -> tuple[ConsumerGroup, str]:
    """The group and the assignor to run (``assignor`` overrides the document's ``"assignor"``)."""
    if not isinstance(doc, Mapping):
        raise AssignmentError("a consumer group is a JSON object with topics and members")
    _unknown(doc, _GROUP_KEYS, "group")
    name = assignor or doc.get("assignor")
    if name not in CONSUMER_ASSIGNORS:
        raise AssignmentError(f"assignor: one of {', '.join(CONSUMER_ASSIGNORS)}, not {name!r}"[:200])
    raw_topics = doc.get("topics", {})
    if not isinstance(raw_topics, Mapping):
        raise AssignmentError("topics: an object of topic name -> partition count")
    topics = {str(t): _int(n, f"topics.{t}"[:80], 0) for t, n in raw_topics.items()}
    if sum(topics.values()) > MAX_PARTITIONS:
        raise AssignmentError(f"topics: more than {MAX_PARTITIONS:,} partitions")
    ids_raw = doc.get("topicIds") or {}
    if not isinstance(ids_raw, Mapping):
        raise AssignmentError("topicIds: an object of topic name -> topic id")
    topic_ids = {str(t): parse_uuid(v, f"topicIds.{t}"[:80]) for t, v in ids_raw.items()}
    if len(set(topic_ids.values())) != len(topic_ids):
        raise AssignmentError("topicIds: two topics share an id")
    racks_raw = doc.get("partitionRacks") or {}
    if not isinstance(racks_raw, Mapping):
        raise AssignmentError("partitionRacks: an object of topic name -> a list of each partition's replica racks")
    racks: dict[str, tuple[frozenset[str], ...]] = {}
    for t, per in racks_raw.items():
        where = f"partitionRacks.{t}"[:80]
        racks[str(t)] = tuple(
            frozenset(r for r in _list(rs, f"{where}[{p}]") if _str(r, f"{where}[{p}]", nullable=True) is not None)
            for p, rs in enumerate(_list(per, where))
        )
    members = tuple(_member(m, i) for i, m in enumerate(_list(doc.get("members", []), "members")))
    prefer = doc.get("preferRackAwareLogic", False)
    if not isinstance(prefer, bool):
        raise AssignmentError(f"preferRackAwareLogic: true or false, not {prefer!r}"[:160])
    kind = doc.get("subscriptionType")
    if kind not in (None, "homogeneous", "heterogeneous"):
        raise AssignmentError(f"subscriptionType: homogeneous or heterogeneous, not {kind!r}"[:160])
    return ConsumerGroup(topics, members, racks, topic_ids, prefer, kind), name


def _tps(tps: list[TP]) -> list[dict[str, Any]]:
    return [{"topic": t, "partition": p} for t, p in tps]


def consumer_result_to_json(result: ConsumerAssignment) -> dict[str, Any]:
    out: dict[str, Any] = {"assignment": {m: _tps(tps) for m, tps in result.members.items()}}
    if result.revoking:
        out["revoking"] = {m: _tps(tps) for m, tps in result.revoking.items()}
    if result.builder:
        out["builder"] = result.builder
    return out
