"""What the sticky assignors read from a member (its claimed partitions and generation, :func:`member_data`) and
their rack information (:class:`RackInfo`): :mod:`codec.assignor.consumer.sticky` says the rules.

The user data's layouts are the schema files the one message layer reads (``StickyAssignorUserData``,
``CooperativeStickyAssignorUserData``: :mod:`codec.group.sticky`, which keeps Kafka's read rule); the assignor asks
it to read a topic's malformed UTF-8 as Kafka's ``Type.STRING`` does (``strings="java"``: U+FFFD in place), since the
assignor must see the partitions Kafka's assignor sees, where the codec's default input policy refuses such bytes."""

from __future__ import annotations

from ...errors import DecodeError
from ...group.sticky import COOPERATIVE_STICKY, STICKY
from ...group.sticky import decode_sticky_user_data as _read_user_data
from .model import TP, ConsumerGroup, ConsumerMember

__all__ = ["DEFAULT_GENERATION", "member_data", "decode_sticky_user_data", "RackInfo", "remove_first"]

DEFAULT_GENERATION = -1


def decode_sticky_user_data(data: bytes) -> tuple[list[TP], int | None]:
    """``StickyAssignor.deserializeTopicPartitionAssignment``: V1 (partitions, generation), else V0 (partitions, no
    generation), else nothing at generation -1; a topic's malformed UTF-8 read as Java reads it."""
    try:
        u = _read_user_data(STICKY, data, strings="java")
    except DecodeError:
        return [], DEFAULT_GENERATION
    return u.topic_partitions(), u.generation


def member_data(assignor: str, m: ConsumerMember) -> tuple[list[TP], int | None]:
    """What ``assignor`` reads a member's previous partitions and generation from (the module docstring)."""
    if assignor == "sticky":
        if m.user_data is None:
            return list(m.owned), m.generation
        if not m.user_data:
            return [], None
        return decode_sticky_user_data(m.user_data)
    if m.generation is not None and m.generation >= 0:
        return list(m.owned), m.generation
    if m.user_data is None:
        return list(m.owned), None
    try:  # CooperativeStickyAssignor.memberData: bytes it cannot read are generation -1
        return list(m.owned), _read_user_data(COOPERATIVE_STICKY, m.user_data).generation
    except DecodeError:
        return list(m.owned), DEFAULT_GENERATION


def subscription_generation(m: ConsumerMember) -> int:
    return m.generation if m.generation is not None and m.generation >= 0 else DEFAULT_GENERATION


class RackInfo:
    """``AbstractStickyAssignor.RackInfo``."""

    def __init__(self, group: ConsumerGroup, per_topic: dict[str, int], members: list[ConsumerMember]) -> None:
        by_rack: dict[str, list[str]] = {}
        for m in members:
            if m.rack:
                by_rack.setdefault(m.rack, []).append(m.member_id)
        partition_racks: dict[TP, frozenset[str]] = {}
        all_racks: set[str] = set()
        if by_rack:
            for t, n in per_topic.items():
                replica = group.partition_racks.get(t, ())
                for p in range(n):
                    rs = replica[p] if p < len(replica) else frozenset()
                    partition_racks[(t, p)] = rs
                    all_racks |= rs
        use = bool(by_rack) and not set(by_rack).isdisjoint(all_racks)
        use = use and (group.prefer_rack_aware or not all(rs == all_racks for rs in partition_racks.values()))
        self.consumer_racks = {c: r for r, cs in by_rack.items() for c in cs} if use else {}
        self.partition_racks = partition_racks if use else {}
        self.consumers_by_partition = {
            tp: sum(len(by_rack.get(r, ())) for r in rs) for tp, rs in partition_racks.items()
        }

    def mismatch(self, consumer: str, tp: TP) -> bool:
        rack = self.consumer_racks.get(consumer)
        racks = self.partition_racks.get(tp)
        return rack is not None and (racks is None or rack not in racks)

    def sort_by_rack_consumers(self, partitions: list[TP]) -> list[TP]:
        if not self.consumers_by_partition:
            return partitions
        return sorted(partitions, key=lambda tp: self.consumers_by_partition.get(tp, 0))

    def next_rack_consumer(self, tp: TP, consumers: list[str], first: int) -> int:
        racks = self.partition_racks.get(tp)
        if not racks:
            return -1
        for i in range(len(consumers)):
            index = (first + i) % len(consumers)
            rack = self.consumer_racks.get(consumers[index])
            if rack is not None and rack in racks:
                return index
        return -1


def remove_first(lst: list, x) -> None:
    """``List.remove(Object)``: the first occurrence, if any."""
    try:
        lst.remove(x)
    except ValueError:
        pass
