"""The user data the classic sticky assignors put in a ConsumerProtocol subscription, read as Kafka reads it.

``StickyAssignor`` (JoinGroup protocol name ``sticky``) writes ``StickyAssignorUserData`` with its old
``Struct`` schemas (``StickyAssignor.java``)::

    v0: previous_assignment: [topic: string (int16 length), partitions: [int32] (int32 count)] (int32 count)
    v1: v0, then generation: int32

It always writes v1 (``serializeTopicPartitionAssignment``, the partitions grouped by topic) and reads v1, else
v0, else nothing (``deserializeTopicPartitionAssignment``: "ignore the consumer's previous assignment if it
cannot be parsed" -- no partitions, generation -1); empty user data is no partitions and no generation. Bytes
left after the fields are not looked at (``Schema.read`` reads what the schema names), so a v0 followed by four
more bytes reads as v1.

``CooperativeStickyAssignor`` (``cooperative-sticky``) writes ``generation: int32`` alone (its
``COOPERATIVE_STICKY_ASSIGNOR_USER_DATA_V0``) and reads it only when the subscription has no ``GenerationId``
(v0-v1); bytes it cannot read count as generation -1. franz-go's ``kmsg.StickyMemberMetadata`` reads the first
layout (its ``CurrentAssignment`` and ``Generation``).

:func:`decode_sticky_user_data` returns what the bytes hold, or raises :class:`DecodeError` (offset and field
path) where Kafka would fall back to nothing; Kafka's strings are read as UTF-8 with malformed bytes replaced, as
``Type.STRING`` does.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from ..errors import DecodeError, EncodeError, TruncatedError
from ..text import printable
from ..wire.jsoncheck import describe

__all__ = [
    "STICKY",
    "COOPERATIVE_STICKY",
    "STICKY_ASSIGNORS",
    "STICKY_LAYER",
    "COOPERATIVE_STICKY_LAYER",
    "layer_of",
    "StickyUserData",
    "decode_sticky_user_data",
    "encode_sticky_user_data",
    "sticky_user_data_json",
    "sticky_user_data_from_json",
    "pretty_sticky_user_data",
    "read_carried",
    "kafka_reads_instead",
]

STICKY = "sticky"
COOPERATIVE_STICKY = "cooperative-sticky"
STICKY_ASSIGNORS = (STICKY, COOPERATIVE_STICKY)
STICKY_LAYER = "StickyAssignorUserData"
COOPERATIVE_STICKY_LAYER = "CooperativeStickyAssignorUserData"
_LAYERS = {STICKY: STICKY_LAYER, COOPERATIVE_STICKY: COOPERATIVE_STICKY_LAYER}
_ASSIGNOR = {v: k for k, v in _LAYERS.items()}
_INT = struct.Struct(">i")
_SHORT = struct.Struct(">h")


def layer_of(assignor: str | None) -> str | None:
    """The user data layer of a JoinGroup protocol (assignor) name, or None when it is not a sticky one."""
    return _LAYERS.get(assignor or "")


@dataclass(frozen=True, slots=True)
class StickyUserData:
    """One sticky assignor's user data. ``assignor``: ``sticky`` or ``cooperative-sticky``; ``version``: the
    layout that read it (sticky: 1 with a generation, 0 without; cooperative-sticky: 0); ``partitions``: the
    previous assignment as written, (topic, partitions) in order (sticky only, else empty); ``generation``:
    None when the layout has none; ``trailing``: bytes after the fields, which Kafka does not read."""

    assignor: str
    version: int
    partitions: tuple[tuple[str, tuple[int, ...]], ...] = ()
    generation: int | None = None
    trailing: bytes = b""
    #: the protocol that carried it, when that is not ``assignor`` (librdkafka's ``cooperative-sticky`` writes the
    #: ``sticky`` layout, :func:`read_carried`)
    carried_by: str | None = None

    @property
    def layer(self) -> str:
        return _LAYERS[self.assignor]

    def topic_partitions(self) -> list[tuple[str, int]]:
        return [(t, p) for t, ps in self.partitions for p in ps]


class _Reader:
    def __init__(self, data: bytes, layer: str, version: int) -> None:
        self.data, self.pos, self.layer, self.version = data, 0, layer, version

    def fail(self, reason: str, path: str, at: int | None = None) -> DecodeError:
        return DecodeError(
            reason, message=self.layer, version=self.version, offset=self.pos if at is None else at, path=path
        )

    def take(self, n: int, path: str) -> bytes:
        have = len(self.data) - self.pos
        if n > have:
            raise TruncatedError(
                f"truncated (need {n}, have {have})",
                message=self.layer,
                version=self.version,
                offset=self.pos,
                path=path,
            )
        self.pos += n
        return self.data[self.pos - n : self.pos]

    def int32(self, path: str) -> int:
        return _INT.unpack(self.take(4, path))[0]

    def count(self, path: str, each: int) -> int:
        at = self.pos
        n = self.int32(path)
        if n < 0:
            raise self.fail(f"array size {n} cannot be negative", path, at)
        have = len(self.data) - self.pos
        if n * each > have:
            raise self.fail(f"array of {n} needs at least {n * each} bytes, {have} remain", path, at)
        return n


def _read_sticky(data: bytes, version: int) -> StickyUserData:
    r = _Reader(data, STICKY_LAYER, version)
    topics = []
    for i in range(r.count("previous_assignment", 6)):
        at = r.pos
        n = _SHORT.unpack(r.take(2, f"previous_assignment[{i}].topic"))[0]
        if n < 0:
            raise r.fail(f"string length {n} cannot be negative", f"previous_assignment[{i}].topic", at)
        topic = r.take(n, f"previous_assignment[{i}].topic").decode("utf-8", "replace")
        k = r.count(f"previous_assignment[{i}].partitions", 4)
        parts = struct.unpack(f">{k}i", r.take(4 * k, f"previous_assignment[{i}].partitions"))
        topics.append((topic, parts))
    generation = r.int32("generation") if version == 1 else None
    return StickyUserData(STICKY, version, tuple(topics), generation, data[r.pos :])


def decode_sticky_user_data(assignor: str, data: bytes | bytearray | memoryview) -> StickyUserData:
    """Read ``data`` as ``assignor`` (``sticky`` or ``cooperative-sticky``) reads its user data (the module
    docstring); a :class:`DecodeError` where Kafka's assignor would read nothing (no partitions, generation -1).
    Empty bytes are an error here too: Kafka reads them as no user data at all."""
    data = bytes(data)
    if assignor == STICKY:
        try:
            return _read_sticky(data, 1)
        except DecodeError:
            return _read_sticky(data, 0)  # v0 is v1's prefix: where it fails, v1 failed at the same place
    if assignor == COOPERATIVE_STICKY:
        r = _Reader(data, COOPERATIVE_STICKY_LAYER, 0)
        generation = r.int32("generation")
        return StickyUserData(COOPERATIVE_STICKY, 0, (), generation, data[r.pos :])
    raise DecodeError(f"no sticky assignor is called {assignor!r} (sticky, cooperative-sticky)", message="user data")


def kafka_reads_instead(assignor: str) -> str:
    """What Kafka's assignor makes of user data it cannot read, in a phrase (no parentheses: it goes inside one)."""
    if assignor == STICKY:
        return "Kafka's StickyAssignor reads no previous partitions, generation -1"
    return "Kafka's CooperativeStickyAssignor reads generation -1 when the subscription, v0-1, has no GenerationId"


def read_carried(assignor: str, data: bytes, *, other_layout: bool = True) -> StickyUserData:
    """The user data a subscription of protocol ``assignor`` carries, for a view: as Kafka's assignor reads it
    (:func:`decode_sticky_user_data`), with two readings Kafka does not make, each said. Under ``cooperative-sticky``,
    bytes that are not 4 long and read whole as ``StickyAssignorUserData`` v1 are shown so (``carried_by``: librdkafka
    writes its sticky layout for both protocols; Kafka's class would read their first 4 bytes as the generation).
    Under ``sticky``, bytes Kafka cannot read whose tail after 2 bytes reads whole as v1 raise a
    :class:`DecodeError` that says so (the captures' kafka-python writes an int16 version first). ``other_layout``
    False: the first reading is not tried (the caller named the layout)."""
    data = bytes(data)
    if other_layout and assignor == COOPERATIVE_STICKY and len(data) != 4:
        try:
            u = _read_sticky(data, 1)
        except DecodeError:
            u = None
        if u is not None and not u.trailing:
            return StickyUserData(STICKY, 1, u.partitions, u.generation, b"", carried_by=COOPERATIVE_STICKY)
    try:
        return decode_sticky_user_data(assignor, data)
    except DecodeError as e:
        hint = ""
        if assignor == STICKY and len(data) >= 2:
            try:
                u = _read_sticky(data[2:], 1)
            except DecodeError:
                u = None
            if u is not None and not u.trailing:
                hint = (
                    f"after its first 2 bytes, int16 {_SHORT.unpack(data[:2])[0]}, the rest reads as {STICKY_LAYER} "
                    f"v1: generation {u.generation}, {len(u.topic_partitions())} partitions; "
                )
        reason = f"{e.reason} ({hint}{kafka_reads_instead(assignor)})"  # (the line's detail, after where it failed)
        raise DecodeError(reason, message=e.message, version=e.version, offset=e.offset, path=e.path) from None


def encode_sticky_user_data(u: StickyUserData) -> bytes:
    """The bytes of ``u`` (then its ``trailing``): what the Java assignors write for the same values."""
    out: list[bytes] = []
    if u.assignor == STICKY:
        if u.version not in (0, 1):
            raise EncodeError(f"version {u.version} does not exist (0, 1)", message=STICKY_LAYER, path="version")
        if (u.generation is None) != (u.version == 0):
            want = "no generation" if u.version == 0 else "a generation"
            raise EncodeError(f"v{u.version} has {want}", message=STICKY_LAYER, version=u.version, path="generation")
        out.append(_INT.pack(len(u.partitions)))
        for i, (topic, parts) in enumerate(u.partitions):
            name = topic.encode("utf-8")
            if len(name) > 0x7FFF:
                raise EncodeError(
                    f"topic of {len(name)} bytes is longer than 32767",
                    message=STICKY_LAYER,
                    version=u.version,
                    path=f"previous_assignment[{i}].topic",
                )
            out += [_SHORT.pack(len(name)), name, struct.pack(f">i{len(parts)}i", len(parts), *parts)]
        if u.generation is not None:
            out.append(_INT.pack(u.generation))
    elif u.assignor == COOPERATIVE_STICKY:
        if u.version != 0 or u.generation is None or u.partitions:
            raise EncodeError(
                "cooperative-sticky user data is v0: a generation, no partitions", message=COOPERATIVE_STICKY_LAYER
            )
        out.append(_INT.pack(u.generation))
    else:
        raise EncodeError(f"no sticky assignor is called {u.assignor!r}", message="user data")
    return b"".join(out) + u.trailing


def _k(name: str, style: str) -> str:
    if style != "kafka":
        return name
    head, *rest = name.split("_")
    return head + "".join(w.title() for w in rest)


def sticky_user_data_json(u: StickyUserData, style: str = "kafka") -> dict:
    """``{"version", "previousAssignment": [{"topic", "partitions"}], "generation"}`` (Kafka's field names;
    snake_case for ``style`` other than ``kafka``) for ``sticky``, ``{"version", "generation"}`` for
    ``cooperative-sticky``; ``generation`` only where the layout has one, ``trailing`` (hex) when bytes follow."""
    out: dict = {"version": u.version}
    if u.assignor == STICKY:
        out[_k("previous_assignment", style)] = [{"topic": t, "partitions": list(ps)} for t, ps in u.partitions]
    if u.generation is not None:
        out["generation"] = u.generation
    if u.trailing:
        out["trailing"] = u.trailing.hex()
    return out


def _int(v, path: str, layer: str, bits: int = 32) -> int:
    if type(v) is not int or not -(1 << (bits - 1)) <= v < (1 << (bits - 1)):
        raise EncodeError(f"expected an int{bits}, got {describe(v)}", message=layer, path=path)
    return v


def sticky_user_data_from_json(assignor: str, value, version: int | None = None) -> StickyUserData:
    """Inverse of :func:`sticky_user_data_json` (either style); every key checked."""
    layer = _LAYERS.get(assignor)
    if layer is None:
        raise EncodeError(
            f"no sticky assignor is called {assignor!r} (sticky, cooperative-sticky)", message="user data"
        )
    if not isinstance(value, dict):
        raise EncodeError(f"expected a JSON object, got {describe(value)}", message=layer)
    keys = ("version", "generation", "trailing") + (
        ("previousAssignment", "previous_assignment") if assignor == STICKY else ()
    )
    unknown = sorted(k for k in value if k not in keys)
    if unknown:
        raise EncodeError(
            f"no key {describe(unknown[0])} here (keys: {', '.join(keys)})", message=layer, path=unknown[0][:60]
        )
    if version is None:
        version = _int(value.get("version", 1 if assignor == STICKY else 0), "version", layer, 16)
    generation = value.get("generation")
    generation = None if generation is None else _int(generation, "generation", layer)
    trailing = value.get("trailing") or ""
    try:
        tail = bytes.fromhex(trailing)
    except (TypeError, ValueError):
        raise EncodeError(f"trailing must be hex, got {describe(trailing)}", message=layer, path="trailing") from None
    topics: list[tuple[str, tuple[int, ...]]] = []
    if assignor == STICKY:
        given = [k for k in ("previousAssignment", "previous_assignment") if k in value]
        if len(given) > 1:
            raise EncodeError(
                "given twice (previousAssignment, previous_assignment)", message=layer, path="previous_assignment"
            )
        items = value.get(given[0]) if given else []
        if not isinstance(items, list):
            raise EncodeError(f"expected an array, got {describe(items)}", message=layer, path="previous_assignment")
        for i, item in enumerate(items):
            path = f"previous_assignment[{i}]"
            if not isinstance(item, dict) or sorted(item) != ["partitions", "topic"]:
                raise EncodeError('expected {"topic": ..., "partitions": [...]}', message=layer, path=path)
            if not isinstance(item["topic"], str):
                raise EncodeError(
                    f"expected a string, got {describe(item['topic'])}", message=layer, path=f"{path}.topic"
                )
            parts = item["partitions"]
            if not isinstance(parts, list):
                raise EncodeError(f"expected an array, got {describe(parts)}", message=layer, path=f"{path}.partitions")
            topics.append(
                (item["topic"], tuple(_int(p, f"{path}.partitions[{j}]", layer) for j, p in enumerate(parts)))
            )
    return StickyUserData(assignor, version, tuple(topics), generation, tail)


def pretty_sticky_user_data(u: StickyUserData, *, size: int | None = None) -> str:
    """A readable view: the layer and version, the generation, the previous assignment by topic."""
    head = f"{u.layer} v{u.version}" + (f"  {size} bytes" if size is not None else "")
    lines = [head]
    if u.carried_by:
        lines.append(f"  note: {carried_note(u)}")
    if u.generation is not None:
        lines.append(f"  generation: {u.generation}")
    if u.assignor == STICKY:
        lines.append(f"  previous_assignment: {len(u.partitions)} topics")
        lines += [f"    {printable(repr_topic(t))} {list(ps)}" for t, ps in u.partitions]
    if u.trailing:
        lines.append(f"  note: {len(u.trailing)} trailing bytes Kafka does not read")
    return "\n".join(lines)


def carried_note(u: StickyUserData) -> str:
    """Why a user data is shown in another protocol's layout (:func:`read_carried`)."""
    return (
        f"{u.carried_by} carried the {u.assignor} layout (as librdkafka writes it); Kafka's "
        f"CooperativeStickyAssignor would read its first 4 bytes as the generation when the subscription has no "
        f"GenerationId (v0-1)"
    )


def repr_topic(topic: str) -> str:
    return '"' + topic.replace('"', '\\"') + '"'
