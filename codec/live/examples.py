"""``__consumer_offsets`` records of example groups, written with the project's encoders, for ``watch``'s tests,
its benchmark and the mock cluster's ``--example``.

Each builder plays a group's life as Kafka's coordinator records it and keeps a record of what it did
(:class:`Played`: each generation or epoch, who joined and left): that record, not ``watch``'s output, is what a
test expects.

* :class:`ClassicGroup` — a classic group (``consumer``, Kafka Streams' ``stream`` protocol, or ``connect``): one
  GroupMetadataValue per generation with every member's subscription and assignment (ConsumerProtocol; for
  Streams, SubscriptionInfo and AssignmentInfo v11 inside; for Connect, worker metadata and assignments), as the
  coordinator stores it at the leader's SyncGroup (``GroupMetadataManager.classicGroupSyncToLeader``), and an
  empty one when the last member leaves;
* :class:`HeartbeatGroup` — a Kafka 4 group (``consumer``, ``streams`` or ``share``): for a join, the member's
  metadata record, the group epoch, the members' target assignments and the target assignment epoch, then the
  member's current assignment; for a leave, the member's tombstones, the new group epoch and the new targets
  (``GroupMetadataManager.consumerGroupHeartbeat`` / ``consumerGroupFenceMember`` write them in that order);
* :func:`offset_commit` — an OffsetCommitKey v1 / OffsetCommitValue v3 record;
* :func:`example_records` — a cluster's worth: a Streams application of ``streams_members`` members, consumer and
  Connect groups, Kafka 4 consumer, streams and share groups, and their offset commits.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field

from ..kafka4 import encode_record

__all__ = ["ClassicGroup", "HeartbeatGroup", "Played", "offset_commit", "example_records", "topic_id"]

Record = tuple[bytes, "bytes | None"]
T0 = 1_767_225_600_000  # 2026-01-01T00:00:00Z, in ms: the examples' clock starts here


@dataclass(slots=True)
class Played:
    """What a builder did: one entry per generation (classic) or epoch (Kafka 4) it wrote, in order, with the
    members that joined and left since the one before (member ids)."""

    group: str
    kind: str  # "generation" or "epoch"
    steps: list[tuple[int, list[str], list[str]]] = field(default_factory=list)


def topic_id(topic: str) -> str:
    """A stable topic id (Kafka's 22-character form) for an example topic."""
    import base64

    raw = uuid.uuid5(uuid.NAMESPACE_URL, f"topic:{topic}").bytes
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _spread(items: list, n: int) -> list[list]:
    """``items`` dealt to ``n`` members in contiguous ranges (as the range assignor does)."""
    out, start = [], 0
    for i in range(n):
        k = len(items) // n + (1 if i < len(items) % n else 0)
        out.append(items[start : start + k])
        start += k
    return out


def offset_commit(group: str, topic: str, partition: int, offset: int, ts: int = T0) -> Record:
    """An offset commit as a consumer's OffsetCommit request stores it."""
    return encode_record(
        {
            "recordType": 1,
            "key": {"group": group, "topic": topic, "partition": partition},
            "valueVersion": 3,
            "value": {"offset": offset, "leaderEpoch": 0, "metadata": "", "commitTimestamp": ts},
        }
    )


class ClassicGroup:
    """A classic group whose members join and leave; :meth:`join` and :meth:`leave` return the record of the
    generation that follows. ``protocol_type`` ``consumer`` (protocol ``range``, or ``stream`` for Kafka Streams)
    or ``connect`` (protocol ``sessioned``). ``topics``: topic -> partitions (for Streams, the subtopologies'
    source topics; for Connect, connectors -> tasks)."""

    def __init__(
        self,
        name: str,
        topics: dict[str, int],
        *,
        protocol_type: str = "consumer",
        protocol: str = "range",
        value_version: int = 3,
    ) -> None:
        self.name, self.topics = name, topics
        self.protocol_type, self.protocol, self.value_version = protocol_type, protocol, value_version
        self.members: dict[str, tuple[str, str | None]] = {}  # member id -> (client id, instance id)
        self.generation = 0
        self.played = Played(name, "generation")
        self.ts = T0

    def _member_id(self, client: str) -> str:
        return f"{client}-{uuid.uuid5(uuid.NAMESPACE_URL, f'{self.name}/{client}/{self.generation}')}"

    def join(self, client: str, instance: str | None = None) -> tuple[Record, str]:
        """A member joins (a new member id, or a static member's instance id); the next generation's record."""
        mid = self._member_id(client)
        self.members[mid] = (client, instance)
        return self._generation([mid], []), mid

    def leave(self, member_id: str) -> Record:
        del self.members[member_id]
        return self._generation([], [member_id])

    def rebalance(self) -> Record:
        """A generation with the same members (a metadata change, a follow-up rebalance)."""
        return self._generation([], [])

    def _generation(self, joined: list[str], left: list[str]) -> Record:
        self.generation += 1
        self.ts += 10_000
        self.played.steps.append((self.generation, joined, left))
        ids = sorted(self.members)
        members = []
        shares = self._assign(ids)
        for i, mid in enumerate(ids):
            client, instance = self.members[mid]
            sub, asg = self._payloads(i, mid, ids, shares)
            members.append(
                {
                    "memberId": mid,
                    "groupInstanceId": instance,
                    "clientId": client,
                    "clientHost": f"/10.0.{i // 250}.{i % 250 + 1}",
                    "rebalanceTimeout": 300_000,
                    "sessionTimeout": 45_000,
                    "subscription": sub,
                    "assignment": asg,
                }
            )
        value = {
            "protocolType": self.protocol_type,
            "generation": self.generation,
            "protocol": self.protocol if ids else None,
            "leader": ids[0] if ids else None,
            "currentStateTimestamp": self.ts,
            "members": members,
        }
        key = {"group": self.name}
        return encode_record({"recordType": 2, "key": key, "valueVersion": self.value_version, "value": value})

    def _assign(self, ids: list[str]) -> list[list[tuple[str, int]]]:
        items = [(t, p) for t, n in sorted(self.topics.items()) for p in range(n)]
        return _spread(items, len(ids)) if ids else []

    def _payloads(self, i: int, mid: str, ids: list[str], shares) -> tuple[str, str]:
        import base64

        b64 = lambda b: base64.b64encode(b).decode()  # noqa: E731
        if self.protocol_type == "connect":
            return b64(_connect_metadata(i)), b64(_connect_assignment(ids[0], shares[i], self.generation))
        if self.protocol == "stream":
            return b64(_streams_subscription(self, i, mid)), b64(_streams_assignment(self, i, shares))
        return b64(_consumer_subscription(sorted(self.topics))), b64(_consumer_assignment(shares[i]))


def _by_topic(items) -> list[dict]:
    topics: dict[str, list[int]] = {}
    for t, p in items:
        topics.setdefault(t, []).append(p)
    return [{"topic": t, "partitions": ps} for t, ps in sorted(topics.items())]


def _consumer_subscription(topics: list[str], user_data: bytes | None = None) -> bytes:
    from ..group.consumer import consumer_from_json, encode_consumer

    import base64

    ud = None if user_data is None else base64.b64encode(user_data).decode()
    msg = consumer_from_json(
        "ConsumerProtocolSubscription",
        {"version": 3, "topics": topics, "userData": ud, "ownedPartitions": [], "generationId": -1, "rackId": None},
    )
    return encode_consumer(msg)


def _consumer_assignment(items, user_data: bytes | None = None) -> bytes:
    from ..group.consumer import consumer_from_json, encode_consumer

    import base64

    ud = None if user_data is None else base64.b64encode(user_data).decode()
    msg = consumer_from_json(
        "ConsumerProtocolAssignment", {"version": 3, "assignedPartitions": _by_topic(items), "userData": ud}
    )
    return encode_consumer(msg)


def _task(topic: str, topics: list[str], p: int) -> dict:
    return {"subtopology": topics.index(topic), "partition": p, "topologyName": None}


def _streams_subscription(g: ClassicGroup, i: int, mid: str) -> bytes:
    from ..streams import encode_subscription, subscription_from_json

    pid = str(uuid.uuid5(uuid.NAMESPACE_URL, f"{g.name}/process/{i}"))
    info = subscription_from_json(
        {
            "version": 11,
            "latestSupportedVersion": 11,
            "processId": pid,
            "userEndPoint": f"app-{i}:7070",
            "taskOffsetSums": [],
            "errorCode": 0,
            "clientTags": {"zone": f"zone-{i % 3}"},
            "uniqueField": 0,
        }
    )
    return _consumer_subscription(sorted(g.topics), encode_subscription(info))


def _streams_assignment(g: ClassicGroup, i: int, shares) -> bytes:
    from ..streams import assignment_from_json, encode_assignment

    topics = sorted(g.topics)
    n = len(shares)
    standby = shares[(i + 1) % n] if n > 1 else []
    by_host = [
        {"host": f"app-{j}", "port": 7070, "partitions": _flat(_by_topic(shares[j]))} for j in range(n) if shares[j]
    ]
    info = assignment_from_json(
        {
            "version": 11,
            "commonlySupportedVersion": 11,
            "activeTasks": [_task(t, topics, p) for t, p in shares[i]],
            "standbyTasks": [
                {"taskId": _task(t, topics, p), "partitions": [{"topic": t, "partition": p}]} for t, p in standby
            ],
            "partitionsByHost": by_host,
            "standbyPartitionsByHost": [],
            "errCode": 0,
            "nextRebalanceMs": 9223372036854775807,
        }
    )
    return _consumer_assignment(shares[i], encode_assignment(info))


def _flat(by_topic: list[dict]) -> list[dict]:
    return [{"topic": t["topic"], "partition": p} for t in by_topic for p in t["partitions"]]


def _connect_metadata(i: int) -> bytes:
    from ..connect import connect_metadata_from_json, encode_connect_metadata

    return encode_connect_metadata(
        connect_metadata_from_json({"url": f"http://worker-{i}:8083/", "configOffset": 42, "allocation": None}), 1
    )


def _connect_assignment(leader: str, items, generation: int) -> bytes:
    from ..connect import connect_assignment_from_json, encode_connect_assignment

    info = connect_assignment_from_json(
        {
            "error": 0,
            "leader": leader,
            "leaderUrl": "http://worker-0:8083/",
            "configOffset": 42,
            "connectorIds": sorted({t for t, p in items if p == 0}),
            "taskIds": [{"connector": t, "task": p} for t, p in items],
            "revokedConnectorIds": [],
            "revokedTaskIds": [],
            "delay": 0,
        }
    )
    return encode_connect_assignment(info, 1)


class HeartbeatGroup:
    """A Kafka 4 group (``protocol`` ``consumer``, ``streams`` or ``share``) whose members join and leave; each
    call returns the records the coordinator writes for it."""

    _PREFIX = {"consumer": "ConsumerGroup", "streams": "StreamsGroup", "share": "ShareGroup"}

    def __init__(self, name: str, protocol: str, topics: dict[str, int]) -> None:
        self.name, self.protocol, self.topics = name, protocol, topics
        self.prefix = self._PREFIX[protocol]
        self.members: dict[str, str] = {}  # member id -> client id
        self.epoch = 0
        self.played = Played(name, "epoch")
        self.ts = T0

    def _rec(self, kind: str, key: dict, value: dict | None) -> Record:
        return encode_record({"record": self.prefix + kind, "key": {"groupId": self.name, **key}, "value": value})

    def _member_value(self, client: str, i: int) -> dict:
        common = {"instanceId": None, "rackId": None, "clientId": client, "clientHost": f"/10.1.0.{i % 250 + 1}"}
        if self.protocol == "streams":
            return {
                **common,
                "rebalanceTimeoutMs": 300_000,
                "topologyEpoch": 1,
                "processId": str(uuid.uuid5(uuid.NAMESPACE_URL, f"{self.name}/{client}")),
                "userEndpoint": {"host": client, "port": 7070},
                "clientTags": [],
            }
        if self.protocol == "share":
            return {
                "rackId": None,
                "clientId": client,
                "clientHost": common["clientHost"],
                "subscribedTopicNames": sorted(self.topics),
            }
        return {
            **common,
            "subscribedTopicNames": sorted(self.topics),
            "subscribedTopicRegex": None,
            "rebalanceTimeoutMs": 300_000,
            "serverAssignor": "uniform",
            "classicMemberMetadata": None,
        }

    def _target(self, items) -> dict:
        if self.protocol == "streams":
            topics = sorted(self.topics)
            tasks: dict[str, list[int]] = {}
            for t, p in items:
                tasks.setdefault(str(topics.index(t)), []).append(p)
            active = [{"subtopologyId": s, "partitions": ps} for s, ps in sorted(tasks.items())]
            return {"activeTasks": active, "standbyTasks": [], "warmupTasks": []}
        parts = [{"topicId": topic_id(t["topic"]), "partitions": t["partitions"]} for t in _by_topic(items)]
        return {"topicPartitions": parts}

    def _epoch(self, joined: list[str], left: list[str]) -> list[Record]:
        self.epoch += 1
        self.ts += 10_000
        self.played.steps.append((self.epoch, joined, left))
        meta = {"epoch": self.epoch, "metadataHash": 0}
        recs = [self._rec("Metadata", {}, meta)]
        ids = sorted(self.members)
        if not ids:
            return recs
        items = [(t, p) for t, n in sorted(self.topics.items()) for p in range(n)]
        for mid, share in zip(ids, _spread(items, len(ids))):
            recs.append(self._rec("TargetAssignmentMember", {"memberId": mid}, self._target(share)))
        recs.append(self._rec("TargetAssignmentMetadata", {}, {"assignmentEpoch": self.epoch}))
        return recs

    def join(self, client: str) -> tuple[list[Record], str]:
        mid = str(uuid.uuid5(uuid.NAMESPACE_URL, f"{self.name}/{client}/{self.epoch}"))[:22]
        self.members[mid] = client
        recs = [self._rec("MemberMetadata", {"memberId": mid}, self._member_value(client, len(self.members)))]
        recs += self._epoch([mid], [])
        return recs, mid

    def leave(self, member_id: str) -> list[Record]:
        del self.members[member_id]
        recs = [
            self._rec("CurrentMemberAssignment", {"memberId": member_id}, None),
            self._rec("TargetAssignmentMember", {"memberId": member_id}, None),
            self._rec("MemberMetadata", {"memberId": member_id}, None),
        ]
        return recs + self._epoch([], [member_id])


def example_records(
    *, streams_members: int = 100, consumer_groups: int = 20, commits_per_generation: int = 10
) -> list[Record]:
    """A cluster's worth of records (see the module docstring), interleaved as groups live side by side."""
    return list(example_cluster(streams_members, consumer_groups, commits_per_generation)[0])


def example_cluster(
    streams_members: int = 100, consumer_groups: int = 20, commits_per_generation: int = 10
) -> tuple[list[Record], list[Played]]:
    """The records of :func:`example_records`, and what each group played."""
    out: list[Record] = []
    played: list[Played] = []
    app = ClassicGroup("streams-app", {"orders": 50, "payments": 50}, protocol="stream", value_version=4)
    ids = []
    for i in range(streams_members):
        rec, mid = app.join(f"streams-app-{i}-StreamThread-1-consumer")
        ids.append(mid)
        out.append(rec)
        out += [offset_commit(app.name, "orders", p, i * 100) for p in range(commits_per_generation)]
    out.append(app.leave(ids[0]))
    played.append(app.played)
    for g in range(consumer_groups):
        cg = ClassicGroup(f"consumer-group-{g}", {"events": 12})
        mids = []
        for c in range(3):
            rec, mid = cg.join(f"consumer-{g}-{c}")
            mids.append(mid)
            out.append(rec)
            out += [offset_commit(cg.name, "events", p % 12, c * 10) for p in range(commits_per_generation)]
        out.append(cg.leave(mids[1]))
        played.append(cg.played)
    cn = ClassicGroup(
        "connect-cluster", {"s3-sink": 4, "jdbc-source": 2}, protocol_type="connect", protocol="sessioned"
    )
    for w in range(3):
        out.append(cn.join(f"connect-worker-{w}")[0])
    played.append(cn.played)
    for protocol in ("consumer", "streams", "share"):
        hg = HeartbeatGroup(f"kip-{protocol}-group", protocol, {"clicks": 8})
        mids = []
        for c in range(3):
            recs, mid = hg.join(f"{protocol}-client-{c}")
            mids.append(mid)
            out += recs
        out += hg.leave(mids[0])
        played.append(hg.played)
    return out, played
