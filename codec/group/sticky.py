"""The user data the classic sticky assignors put in a ConsumerProtocol subscription: the family's read rule and
its model; the layouts are schema files (``schemas/StickyAssignorUserData.json``,
``schemas/CooperativeStickyAssignorUserData.json``), read and written by the one message layer
(:mod:`codec.wire.message`: the lowering, with the native engine where it runs).

``StickyAssignor`` (JoinGroup protocol name ``sticky``) writes ``StickyAssignorUserData`` with its old
``Struct`` schemas (``StickyAssignor.java``; the classic encoding of the schema file)::

    v0: previous_assignment: [topic: string (int16 length), partitions: [int32] (int32 count)] (int32 count)
    v1: v0, then generation: int32

The bytes carry no version. Kafka always writes v1 (``serializeTopicPartitionAssignment``, the partitions grouped
by topic) and reads v1, else v0, else nothing (``deserializeTopicPartitionAssignment``: "ignore the consumer's
previous assignment if it cannot be parsed" -- no partitions, generation -1); empty user data is no partitions and
no generation. Bytes left after the fields are not looked at (``Schema.read`` reads what the schema names), so a v0
followed by four more bytes reads as v1. That read rule is this module's (:func:`decode_sticky_user_data`).

``CooperativeStickyAssignor`` (``cooperative-sticky``) writes ``generation: int32`` alone (its
``COOPERATIVE_STICKY_ASSIGNOR_USER_DATA_V0``) and reads it only when the subscription has no ``GenerationId``
(v0-v1); bytes it cannot read count as generation -1. franz-go's ``kmsg.StickyMemberMetadata`` reads the first
layout (its ``CurrentAssignment`` and ``Generation``).

:func:`decode_sticky_user_data` returns what the bytes hold, or raises :class:`DecodeError` (offset and field
path) where Kafka would fall back to nothing. One divergence, the input policy's
(``docs/explanations/input-policy.md``): Kafka's ``Type.STRING`` replaces malformed UTF-8 in a topic with U+FFFD
and reads on; this codec refuses it (:func:`kafka_reads_instead` says what Kafka reads then) unless asked to read as
Kafka does (``strings="java"``, what the assignors of :mod:`codec.assignor.consumer` ask).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import DecodeError, EncodeError
from ..text import printable
from ..wire import message as _wire
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
#: the schema (``schemas/<name>.json``) of each assignor's user data
STICKY_LAYER = "StickyAssignorUserData"
COOPERATIVE_STICKY_LAYER = "CooperativeStickyAssignorUserData"
_LAYERS = {STICKY: STICKY_LAYER, COOPERATIVE_STICKY: COOPERATIVE_STICKY_LAYER}
_ASSIGNOR = {v: k for k, v in _LAYERS.items()}


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


def _read_sticky(data: bytes, version: int, strings: str = "strict") -> StickyUserData:
    """``StickyAssignorUserData`` at ``version`` (the schema's layout, through the message layer)."""
    got = (  # (the strict call passes no keyword: the hot path's front takes it)
        _wire.decode(STICKY_LAYER, version, data, strings=strings)
        if strings != "strict"
        else _wire.decode(STICKY_LAYER, version, data)
    )
    v = got.value
    # (a null list would read as empty, as the shapes read one: no schema here lets one through)
    topics = tuple((t.topic, tuple(t.partitions or ())) for t in v.previous_assignment or ())
    return StickyUserData(STICKY, version, topics, v.generation if version == 1 else None, data[got.consumed :])


def decode_sticky_user_data(
    assignor: str, data: bytes | bytearray | memoryview, *, strings: str = "strict"
) -> StickyUserData:
    """Read ``data`` as ``assignor`` (``sticky`` or ``cooperative-sticky``) reads its user data (the module
    docstring); a :class:`DecodeError` where Kafka's assignor would read nothing (no partitions, generation -1).
    Empty bytes are an error here too: Kafka reads them as no user data at all. ``strings="java"``: a topic's
    malformed UTF-8 read as Kafka's ``Type.STRING`` reads it (U+FFFD in place; :func:`codec.wire.message.decode`),
    where the input policy refuses it (the assignors, :mod:`codec.assignor.consumer.sticky_data`, read so)."""
    data = bytes(data)
    if assignor == STICKY:
        try:
            return _read_sticky(data, 1, strings)
        except DecodeError:
            return _read_sticky(data, 0, strings)  # v0 is v1's prefix: where it fails, v1 failed at the same place
    if assignor == COOPERATIVE_STICKY:
        got = _wire.decode(COOPERATIVE_STICKY_LAYER, 0, data)
        return StickyUserData(COOPERATIVE_STICKY, 0, (), got.value.generation, data[got.consumed :])
    raise DecodeError(f"no sticky assignor is called {assignor!r} (sticky, cooperative-sticky)", message="user data")


def kafka_reads_instead(assignor: str, error: DecodeError | None = None) -> str:
    """What Kafka's assignor makes of user data it cannot read, in a phrase (no parentheses: it goes inside one).
    ``error``: this codec's refusal, when it is the one divergence (malformed UTF-8 in a topic, which Kafka's
    ``Type.STRING`` reads with U+FFFD in its place)."""
    if error is not None and error.reason.startswith("invalid UTF-8"):
        return (
            f"Kafka's {'Cooperative' if assignor == COOPERATIVE_STICKY else ''}StickyAssignor reads the topic with "
            "U+FFFD in place of the malformed bytes and reads on; this codec refuses malformed UTF-8"
        )
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
                    f"after its first 2 bytes, int16 {int.from_bytes(data[:2], 'big', signed=True)}, the rest reads "
                    f"as {STICKY_LAYER} "
                    f"v1: generation {u.generation}, {len(u.topic_partitions())} partitions; "
                )
        reason = f"{e.reason} ({hint}{kafka_reads_instead(assignor, e)})"  # (the line's detail, after where it failed)
        raise DecodeError(reason, message=e.message, version=e.version, offset=e.offset, path=e.path) from None


def encode_sticky_user_data(u: StickyUserData) -> bytes:
    """The bytes of ``u`` (then its ``trailing``): what the Java assignors write for the same values."""
    if u.assignor == STICKY:
        if u.version not in (0, 1):
            raise EncodeError(f"version {u.version} does not exist (0, 1)", message=STICKY_LAYER, path="version")
        if (u.generation is None) != (u.version == 0):
            want = "no generation" if u.version == 0 else "a generation"
            raise EncodeError(f"v{u.version} has {want}", message=STICKY_LAYER, version=u.version, path="generation")
        return _wire.encode(STICKY_LAYER, u.version, _model(u)) + u.trailing
    if u.assignor == COOPERATIVE_STICKY:
        if u.version != 0 or u.generation is None or u.partitions:
            raise EncodeError(
                "cooperative-sticky user data is v0: a generation, no partitions", message=COOPERATIVE_STICKY_LAYER
            )
        return _wire.encode(COOPERATIVE_STICKY_LAYER, 0, _model(u)) + u.trailing
    raise EncodeError(f"no sticky assignor is called {u.assignor!r}", message="user data")


def _model(u: StickyUserData):
    """The wire model of ``u``'s fields (the schema's classes; a v0 generation is the field's default)."""
    from ..wire.models import wire_class

    if u.assignor == STICKY:
        topic = wire_class(STICKY_LAYER, "TopicPartitions")
        return wire_class(STICKY_LAYER, STICKY_LAYER)(
            previous_assignment=tuple(topic(topic=t, partitions=tuple(ps)) for t, ps in u.partitions),
            generation=-1 if u.generation is None else u.generation,
        )
    return wire_class(COOPERATIVE_STICKY_LAYER, COOPERATIVE_STICKY_LAYER)(generation=u.generation)


def sticky_user_data_json(u: StickyUserData, style: str = "kafka") -> dict:
    """``{"version", "previousAssignment": [{"topic", "partitions"}], "generation"}`` (the schema's JSON, Kafka's
    field names; snake_case for ``style`` other than ``kafka``) for ``sticky``, ``{"version", "generation"}`` for
    ``cooperative-sticky``; ``generation`` only where the layout has one, ``trailing`` (hex) when bytes follow.
    ``version`` is the layout that read the bytes, which they do not say (the read rule's)."""
    style = "kafka" if style == "kafka" else "snake"
    out: dict = {"version": u.version, **_wire.to_json(u.layer, u.version, _model(u), style)}
    if u.trailing:
        out["trailing"] = u.trailing.hex()
    return out


def _int(v, path: str, layer: str, bits: int = 32) -> int:
    if type(v) is not int or not -(1 << (bits - 1)) <= v < (1 << (bits - 1)):
        raise EncodeError(f"expected an int{bits}, got {describe(v)}", message=layer, path=path)
    return v


def sticky_user_data_from_json(assignor: str, value, version: int | None = None) -> StickyUserData:
    """Inverse of :func:`sticky_user_data_json` (either style): ``version`` and ``trailing`` read here, the fields
    by the schema's JSON checker (every key, type and range checked; a field left out takes its default)."""
    layer = _LAYERS.get(assignor)
    if layer is None:
        raise EncodeError(
            f"no sticky assignor is called {assignor!r} (sticky, cooperative-sticky)", message="user data"
        )
    if not isinstance(value, dict):
        raise EncodeError(f"expected a JSON object, got {describe(value)}", message=layer)
    if version is None:
        version = _int(value.get("version", 1 if assignor == STICKY else 0), "version", layer, 16)
    trailing = value.get("trailing") or ""
    try:
        tail = bytes.fromhex(trailing)
    except (TypeError, ValueError):
        raise EncodeError(f"trailing must be hex, got {describe(trailing)}", message=layer, path="trailing") from None
    _wire.check_version(layer, version, EncodeError)
    if assignor == STICKY and version == 0 and "generation" in value:
        raise EncodeError("v0 has no generation", message=layer, version=0, path="generation")
    model = _wire.from_json(layer, version, value, "kafka", extra=("version", "trailing"))  # (either key spelling)
    if assignor == COOPERATIVE_STICKY:
        return StickyUserData(assignor, version, (), model.generation, tail)
    topics = tuple((t.topic, t.partitions) for t in model.previous_assignment)
    return StickyUserData(assignor, version, topics, model.generation if version == 1 else None, tail)


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
