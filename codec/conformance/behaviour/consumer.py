"""The consumer group protocol's coordinator (KIP-848, ConsumerGroupHeartbeat), as the scenarios script it.

It answers as Kafka's ``GroupMetadataManager.consumerGroupHeartbeat`` does for one member: a heartbeat at epoch
0 joins (v0: the coordinator names the member; v1: the member names itself, KIP-1082), the answer carries the
member's epoch, the heartbeat interval and, when it changed, the member's assignment (topic ids and partitions);
a heartbeat of an unknown member is UNKNOWN_MEMBER_ID, of another epoch FENCED_MEMBER_EPOCH; epoch -1 leaves, -2
leaves a static member's place open. The member's target assignment is the script's: :meth:`ConsumerGroup.assign`
sends a new one (a new epoch), and :attr:`ConsumerGroup.owned` is what the member last said it owns (the
``TopicPartitions`` of its heartbeat: its acknowledgement).
"""

from __future__ import annotations

import itertools
import uuid
from typing import Any

from .broker import Broker, Reply, topic_id
from .faults import Faults
from .trace import Request, Trace

__all__ = ["ConsumerGroup"]

TopicPartition = tuple[str, int]

UNKNOWN_MEMBER_ID = 25
FENCED_MEMBER_EPOCH = 110
STALE_MEMBER_EPOCH = 113


class ConsumerGroup:
    """One consumer group (KIP-848) whose one real member is the client under test."""

    def __init__(
        self,
        trace: Trace,
        group_id: str,
        topics: dict[str, int],
        *,
        interval_ms: int = 500,
        first: list[TopicPartition] | None = None,
    ) -> None:
        self.trace = trace
        self.group_id = group_id
        self.topics = topics
        self.interval_ms = interval_ms
        self.faults = Faults()  # the errors a script arms (answered first)
        self.member_id: str | None = None
        self.instance_id: str | None = None
        self.epoch = 0
        self.group_epoch = 0
        self.target: list[TopicPartition] = []
        self.first = first  # the assignment a joining member gets (default: every partition)
        self.sent = True  # whether the member has been sent its current target
        self.owned: list[TopicPartition] | None = None
        self.left: int | None = None
        self._ids = itertools.count(1)
        self.joins = 0

    def all_partitions(self) -> list[TopicPartition]:
        return [(t, p) for t, n in sorted(self.topics.items()) for p in range(n)]

    def assign(self, parts: list[TopicPartition], *, bump: bool = True) -> None:
        """The member's next assignment: sent with its next heartbeat's answer (a new epoch unless ``bump`` is
        False: a partition added when its previous owner let it go)."""
        self.target = sorted(parts)
        if bump:
            self.group_epoch += 1
        self.sent = False
        self.trace.note("script", detail=f"target assignment {self.target} (epoch {self.group_epoch})")

    def handle(self, broker: Broker, api: str, version: int, req: dict, entry: Request) -> Any:
        if api in ("ConsumerGroupHeartbeat", "OffsetCommit", "FindCoordinator"):
            got = self.faults(api, version, req, entry)
            if got is not None and (got.body is not None or got.drop):
                return got
            if got is not None:  # the group's own answer, held back
                normal = self._answer(broker, api, version, req, entry)
                if normal is not None:
                    normal.delay = got.delay
                return normal
        return self._answer(broker, api, version, req, entry)

    def _answer(self, broker: Broker, api: str, version: int, req: dict, entry: Request) -> Any:
        if api == "ConsumerGroupHeartbeat":
            return self._heartbeat(version, req, entry)
        if api == "OffsetCommit":
            epoch = req.get("generationIdOrMemberEpoch", -1)
            error = 0
            if req.get("memberId") and req.get("memberId") != self.member_id:
                error = UNKNOWN_MEMBER_ID
            elif epoch >= 0 and epoch != self.epoch:
                error = STALE_MEMBER_EPOCH
            return Reply(broker._offset_commit(req, error), error=error)
        if api in ("JoinGroup", "SyncGroup", "Heartbeat", "LeaveGroup"):
            # a classic member of a consumer group: not what these scenarios play
            return Reply(self._classic_refusal(api), error=23)
        return None

    def _classic_refusal(self, api: str) -> dict:
        return {"throttleTimeMs": 0, "errorCode": 23, "memberId": "", "generationId": -1, "assignment": ""}

    def body(self, error: int = 0, message: str | None = None, *, assignment: bool = False) -> dict:
        parts: dict[str, list[int]] = {}
        for t, p in self.target:
            parts.setdefault(t, []).append(p)
        return {
            "throttleTimeMs": 0,
            "errorCode": error,
            "errorMessage": message,
            "memberId": self.member_id,
            "memberEpoch": self.epoch if not error else -1,
            "heartbeatIntervalMs": self.interval_ms if not error else 0,
            "assignment": (
                {"topicPartitions": [{"topicId": topic_id(t), "partitions": ps} for t, ps in parts.items()]}
                if assignment and not error
                else None
            ),
        }

    def _owned(self, req: dict) -> list[TopicPartition] | None:
        tps = req.get("topicPartitions")
        if tps is None:
            return None
        by_id = {topic_id(t): t for t in self.topics}
        return sorted((by_id.get(tp["topicId"], tp["topicId"]), p) for tp in tps for p in tp["partitions"])

    def _heartbeat(self, version: int, req: dict, entry: Request) -> Reply:
        epoch = req.get("memberEpoch", 0)
        member_id = req.get("memberId") or ""
        owned = self._owned(req)
        if owned is not None:
            entry.extra["owned"] = [list(tp) for tp in owned]
        if epoch in (-1, -2):
            self.left = epoch
            gone = member_id == self.member_id
            self.trace.note("script", detail=f"member {member_id} leaves with epoch {epoch}")
            if gone:
                self.epoch = epoch
                self.owned = None
            return Reply({**self.body(0 if gone else UNKNOWN_MEMBER_ID), "memberId": member_id, "memberEpoch": epoch})
        if epoch == 0:
            if version == 0 or not member_id:
                member_id = member_id or str(uuid.UUID(int=next(self._ids)))
            self.member_id = member_id
            self.instance_id = req.get("instanceId")
            self.joins += 1
            self.owned = owned or []
            if self.first is not None or not self.target or self.joins > 1:
                self.target = sorted(self.first if self.first is not None else self.all_partitions())
            self.group_epoch += 1
            self.epoch = self.group_epoch
            self.sent = True
            return Reply(self.body(assignment=True))
        if member_id != self.member_id:
            return Reply({**self.body(UNKNOWN_MEMBER_ID), "memberId": member_id}, error=UNKNOWN_MEMBER_ID)
        if epoch != self.epoch:
            return Reply({**self.body(FENCED_MEMBER_EPOCH), "memberId": member_id}, error=FENCED_MEMBER_EPOCH)
        if owned is not None:
            self.owned = owned
        if not self.sent:
            self.sent = True
            self.epoch = self.group_epoch
            return Reply(self.body(assignment=True))
        return Reply(self.body())

    def fence(self) -> None:
        """The member's epoch no longer counts (a fault answered it FENCED_MEMBER_EPOCH or UNKNOWN_MEMBER_ID):
        it must rejoin at epoch 0."""
        self.epoch = -1
