"""Value types shared by every layer: TaskId, TopicPartition, HostInfo, and Java's orderings.

Orderings matter for identical results with Kafka (wire-facts §9): TaskIds compare by
(named topology, subtopology, partition) with a null topology first; strings compare as Java's
``String.compareTo`` does (UTF-16 code units); process ids compare as ``java.util.UUID.compareTo``
(most significant 64 bits as a *signed* long, then the least significant, also signed).
"""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass
from functools import cache

__all__ = [
    "TaskId",
    "TopicPartition",
    "HostInfo",
    "java_string_key",
    "java_uuid_key",
    "parse_uuid",
    "process_id_for_int",
]

_INT32 = (-(2**31), 2**31 - 1)


def java_string_key(s: str) -> bytes:
    """Sort key equal to Java ``String.compareTo`` order (UTF-16 code units, not code points)."""
    return s.encode("utf-16-be", "surrogatepass")


def _signed64(n: int) -> int:
    return n - (1 << 64) if n >= (1 << 63) else n


def java_uuid_key(u: uuid.UUID) -> tuple[int, int]:
    """Sort key equal to ``java.util.UUID.compareTo`` (signed MSB, then signed LSB)."""
    n = u.int
    return (_signed64(n >> 64), _signed64(n & ((1 << 64) - 1)))


# Kafka's Uuid.toString(): URL-safe base64 of the 16 bytes without padding, 22 characters; the last carries 2
# bits of the UUID and 4 zero bits, so only A, Q, g and w are canonical there.
_KAFKA_UUID = r"[A-Za-z0-9_-]{21}[AQgw]"
# java.util.UUID.toString(): 8-4-4-4-12 hexadecimal digits.
_DASHED_UUID = r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"


@cache
def _pattern(source: str, flags: int = 0) -> re.Pattern:
    """One of the module's patterns, compiled once, on first use (not at import: a decode call's start-up needs
    none of them)."""
    return re.compile(source, flags)


def parse_uuid(text: str) -> uuid.UUID:
    """A UUID as Kafka writes it (``Uuid.toString()``: 22 characters of URL-safe base64, canonical) or as Java's
    ``UUID.toString()`` does (8-4-4-4-12 hexadecimal digits); nothing else: no ``+``/``/`` alphabet, padding,
    braces, ``urn:`` prefix, missing dashes or non-ASCII digits. ``ValueError`` naming the text otherwise."""
    if isinstance(text, str):
        if _pattern(_KAFKA_UUID).fullmatch(text):
            import base64  # (here, not at the top: a decode call's start-up does not need it)

            return uuid.UUID(bytes=base64.urlsafe_b64decode(text + "=="))
        if _pattern(_DASHED_UUID).fullmatch(text):
            return uuid.UUID(text)
    shown = repr(text) if not isinstance(text, str) or len(text) <= 60 else repr(text[:60]) + "..."
    raise ValueError(
        f"not a UUID: {shown} (22 characters of URL-safe base64, as Kafka writes a Uuid, or "
        "8-4-4-4-12 hexadecimal digits)"
    )


def process_id_for_int(n: int) -> uuid.UUID:
    """Kafka's test helper ``processIdForInt(n)``: ``new UUID(0, n)``."""
    return uuid.UUID(int=n & ((1 << 64) - 1))


_TASK_RE = r"(?:(?P<name>.*)__)?(?P<sub>-?[0-9]{1,20})_(?P<part>-?[0-9]{1,20})\Z"


@dataclass(frozen=True, slots=True)
class TaskId:
    """A Streams task: ``subtopology`` (Kafka's topicGroupId), ``partition`` and an optional named
    topology. ``str()`` prints it as Kafka does: ``1_2``, or ``name__1_2`` with a named topology.
    An empty topology name is the same as none (Kafka's TaskId constructor downgrades ``""``)."""

    subtopology: int
    partition: int
    topology_name: str | None = None

    def __post_init__(self) -> None:
        if self.topology_name == "":
            object.__setattr__(self, "topology_name", None)

    @classmethod
    def parse(cls, text: str) -> "TaskId":
        """Parse Kafka's printed form (``1_2`` or ``name__1_2``)."""
        m = _pattern(_TASK_RE, re.S).match(text)
        if not m:
            raise ValueError(f"not a task id: {text!r} (expected SUBTOPOLOGY_PARTITION, e.g. 1_2)")
        return cls(int(m["sub"]), int(m["part"]), m["name"])

    def __str__(self) -> str:
        base = f"{self.subtopology}_{self.partition}"
        return f"{self.topology_name}__{base}" if self.topology_name is not None else base

    def sort_key(self) -> tuple:
        name = self.topology_name
        return (
            (0, b"", self.subtopology, self.partition)
            if name is None
            else (1, java_string_key(name), self.subtopology, self.partition)
        )

    def __lt__(self, other: "TaskId") -> bool:
        return self.sort_key() < other.sort_key()

    def __le__(self, other: "TaskId") -> bool:
        return self.sort_key() <= other.sort_key()

    def __gt__(self, other: "TaskId") -> bool:
        return self.sort_key() > other.sort_key()

    def __ge__(self, other: "TaskId") -> bool:
        return self.sort_key() >= other.sort_key()


@dataclass(frozen=True, slots=True)
class TopicPartition:
    """A topic and partition; sorts as Kafka's consumer sorts assigned partitions
    (topic by Java String order, then partition)."""

    topic: str
    partition: int

    def sort_key(self) -> tuple[bytes, int]:
        return (java_string_key(self.topic), self.partition)

    def __lt__(self, other: "TopicPartition") -> bool:
        return self.sort_key() < other.sort_key()

    def __str__(self) -> str:
        return f"{self.topic}-{self.partition}"


@dataclass(frozen=True, slots=True)
class HostInfo:
    """The ``application.server`` endpoint of a Streams instance (interactive queries)."""

    host: str
    port: int

    def sort_key(self) -> tuple[bytes, int]:
        return (java_string_key(self.host), self.port)

    def __lt__(self, other: "HostInfo") -> bool:
        return self.sort_key() < other.sort_key()

    def __str__(self) -> str:
        return f"{self.host}:{self.port}"


# Constructors for the decoders' hot loops: the same values as ``TaskId(s, p, name)``,
# ``TopicPartition(t, p)`` and ``HostInfo(h, p)`` without the frozen dataclasses' ``__init__`` (the profile
# of a 200-task SubscriptionInfo decode was dominated by TaskId construction). A plain class with the same
# slots is filled with ordinary attribute stores, then given the real class (identical layouts, so
# CPython allows the ``__class__`` assignment): about a third of the cost of the ``__init__``. The type checker
# cannot follow an object changing its class: the two lines that do it say so (inline, not in a helper: a call
# would cost what the builders save).
class _TaskIdBuilder:
    __slots__ = TaskId.__slots__
    subtopology: int
    partition: int
    topology_name: str | None


class _TopicPartitionBuilder:
    __slots__ = TopicPartition.__slots__
    topic: str
    partition: int


class _HostInfoBuilder:
    __slots__ = HostInfo.__slots__
    host: str
    port: int


def _task_id(subtopology: int, partition: int, topology_name: str | None = None) -> TaskId:
    t = _TaskIdBuilder()
    t.subtopology = subtopology
    t.partition = partition
    t.topology_name = None if topology_name == "" else topology_name  # as TaskId.__post_init__
    t.__class__ = TaskId  # type: ignore[assignment]  # the class swap above
    return t  # type: ignore[return-value]  # (a TaskId now)


def _topic_partition(topic: str, partition: int) -> TopicPartition:
    tp = _TopicPartitionBuilder()
    tp.topic = topic
    tp.partition = partition
    tp.__class__ = TopicPartition  # type: ignore[assignment]  # the class swap above
    return tp  # type: ignore[return-value]  # (a TopicPartition now)


def _host_info(host: str, port: int) -> HostInfo:
    h = _HostInfoBuilder()
    h.host = host
    h.port = port
    h.__class__ = HostInfo  # type: ignore[assignment]  # the class swap above
    return h  # type: ignore[return-value]  # (a HostInfo now)
