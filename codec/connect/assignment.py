"""ConnectAssignment: what the leader of a Kafka Connect group gives each worker, every version 0-2.

Kafka's rules (``ConnectProtocol``, ``IncrementalCooperativeConnectProtocol``, ``ExtendedAssignment``; see
:mod:`codec.connect.common` for which deserializer reads what): connectors and tasks travel grouped by
connector, with task id -1 for the connector itself; a reader lists the connectors and the tasks in the order
of the groups; a writer groups the assigned connectors first (in ``HashSet`` order), then each task under its
connector, and the revoked ones the same way (connectors in the order given). The v1/v2 reader fills the
revoked lists and the delay with their defaults when the bytes end before them.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import EncodeError
from ..streams.common import check_size
from ..streams.constants import DEFAULT_MAX_METADATA_SIZE
from ..types import java_string_key
from ..wire.builder import encode_wire, wire_class
from .common import HEADER_SIZE, write_version, java_hash_set_order, read_body, read_header, reader_layout
from .constants import CONNECT_PROTOCOL_V0, CONNECT_PROTOCOL_V1, CONNECTOR_TASK

__all__ = [
    "regrouped",
    "ConnectorTaskId",
    "ConnectAssignment",
    "DecodedConnectAssignment",
    "EMPTY_ASSIGNMENT",
    "decode_connect_assignment",
    "encode_connect_assignment",
    "connect_assignment_from_wire",
    "connect_assignment_to_wire",
]

MESSAGE = "ConnectAssignment"


@dataclass(frozen=True, slots=True, order=False)
class ConnectorTaskId:
    """One task of a connector (Kafka's ``ConnectorTaskId``): ``str()`` is ``connector-task`` as Kafka prints
    it; :meth:`sort_key` orders as its ``compareTo`` (connector by UTF-16 code units, then task)."""

    connector: str
    task: int

    def __str__(self) -> str:
        return f"{self.connector}-{self.task}"

    def sort_key(self) -> tuple[bytes, int]:
        return (java_string_key(self.connector), self.task)


Tasks = tuple[ConnectorTaskId, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class ConnectAssignment:
    """One worker's assignment, as Kafka's ``ExtendedAssignment`` holds it.

    ``version`` is the header (as read, or the version to write; None: the newest at the top level, the
    metadata's own version inside a worker's metadata). ``connectors`` and ``tasks`` keep the order of the
    bytes. ``leader`` and ``leader_url`` are None only in Kafka's empty assignment (:data:`EMPTY_ASSIGNMENT`),
    which travels as a null allocation and cannot be written as an assignment."""

    version: int | None = None
    error: int = 0
    leader: str | None = None
    leader_url: str | None = None
    config_offset: int = -1
    connectors: tuple[str, ...] = ()
    tasks: Tasks = ()
    revoked_connectors: tuple[str, ...] = ()
    revoked_tasks: Tasks = ()
    delay: int = 0

    @property
    def failed(self) -> bool:
        return self.error != 0

    @property
    def is_empty(self) -> bool:
        """Whether this is Kafka's ``ExtendedAssignment.empty()`` (whatever its version)."""
        return _without_version(self) == _without_version(EMPTY_ASSIGNMENT)


#: Kafka's ``ExtendedAssignment.empty()``: what a null allocation reads as.
EMPTY_ASSIGNMENT = ConnectAssignment(version=CONNECT_PROTOCOL_V1)


def _without_version(a: ConnectAssignment) -> tuple:
    return (
        a.error,
        a.leader,
        a.leader_url,
        a.config_offset,
        a.connectors,
        a.tasks,
        a.revoked_connectors,
        a.revoked_tasks,
        a.delay,
    )


@dataclass(frozen=True, slots=True)
class DecodedConnectAssignment:
    """A decode with its details: the model, the wire object of the layout read, which reader read it (0:
    ConnectProtocol's, 1+: IncrementalCooperativeConnectProtocol's), where the fields ended and how many bytes
    followed (Kafka ignores them)."""

    info: ConnectAssignment
    wire: object
    reader_version: int
    consumed: int
    trailing: int


def decode_connect_assignment(
    data: bytes | bytearray | memoryview,
    *,
    reader_version: int | None = None,
    detail: bool = False,
    max_size: int = DEFAULT_MAX_METADATA_SIZE,
):
    """Decode a Connect assignment as Kafka's deserializer does.

    ``reader_version``: 0 reads as ``ConnectProtocol.deserializeAssignment`` (workers before 2.3), 1 or more as
    ``IncrementalCooperativeConnectProtocol.deserializeAssignment`` (every worker since); None lets the header
    choose (0: ConnectProtocol's). Returns a :class:`ConnectAssignment`, or a :class:`DecodedConnectAssignment`
    with ``detail=True``. Input above ``max_size`` bytes is refused."""
    data = bytes(data)
    check_size(MESSAGE, data, max_size)
    header = read_header(MESSAGE, data)
    layout = reader_layout(MESSAGE, header, reader_version)
    wire, end = read_body(MESSAGE, layout, header, data, HEADER_SIZE)
    info = connect_assignment_from_wire(wire, header)
    return DecodedConnectAssignment(info, wire, layout, end, len(data) - end) if detail else info


def regrouped(wire) -> tuple[str, ...]:
    """The connectors that the wire object ``wire`` names in more than one group of its assignment or of its
    revocations. Kafka's reader lists each group's connector and tasks as they come; its writer gives every
    connector one group (a connector named twice is written once), so such bytes do not come back the same from
    any writer, Kafka's included."""
    out = []
    for field in ("assignment", "revoked"):
        seen: set[str] = set()
        for g in getattr(wire, field, None) or ():
            if g.connector in seen:
                out.append(f"{field}: connector {g.connector!r}")
            seen.add(g.connector)
    return tuple(dict.fromkeys(out))


def _split(groups) -> tuple[tuple[str, ...], Tasks]:
    connectors: list[str] = []
    tasks: list[ConnectorTaskId] = []
    for g in groups or ():
        for t in g.tasks:
            if t == CONNECTOR_TASK:
                connectors.append(g.connector)
            else:
                tasks.append(ConnectorTaskId(g.connector, t))
    return tuple(connectors), tuple(tasks)


def connect_assignment_from_wire(w, version: int) -> ConnectAssignment:
    """The model of a wire object (a null array reads as nothing assigned or revoked, as in Kafka)."""
    connectors, tasks = _split(w.assignment)
    revoked_connectors, revoked_tasks = _split(w.revoked)
    return ConnectAssignment(
        version=version,
        error=w.error,
        leader=w.leader,
        leader_url=w.leader_url,
        config_offset=w.config_offset,
        connectors=connectors,
        tasks=tasks,
        revoked_connectors=revoked_connectors,
        revoked_tasks=revoked_tasks,
        delay=w.delay,
    )


def _groups(connectors, tasks, path: str, connector_order):
    """Kafka's grouping (``asMap`` / ``revokedAsMap``): the connectors first, each with -1, in
    ``connector_order``; then every task appended to its connector's group, a new group opening where a task
    first names a connector that has none."""
    Group = wire_class(MESSAGE, "ConnectorAssignment")
    grouped: dict[str, list[int]] = {c: [CONNECTOR_TASK] for c in connector_order(list(connectors))}
    for i, t in enumerate(tasks):
        if t.task == CONNECTOR_TASK:
            raise EncodeError(
                f"task {t.connector!r} -1 would read back as the connector itself (CONNECTOR_TASK); "
                "list the connector among the connectors instead",
                message=MESSAGE,
                path=f"{path}[{i}]",
            )
        grouped.setdefault(t.connector, []).append(t.task)
    return tuple(Group(connector=c, tasks=tuple(ts)) for c, ts in grouped.items())


def _distinct(names: list[str]) -> list[str]:
    return list(dict.fromkeys(names))


def connect_assignment_to_wire(
    info: ConnectAssignment,
    version: int | None = None,
    *,
    drop_unrepresentable: bool = False,
    java_order: bool = False,
    reader_version: int | None = None,
):
    """The wire object of ``info`` at ``version`` (default ``info.version``, else the newest), in the layout
    ``reader_version``'s deserializer reads (:func:`codec.connect.common.reader_layout`; None: the header's).

    In the version 0 layout revoked connectors and tasks and a delay cannot be carried: :class:`EncodeError`, unless
    ``drop_unrepresentable`` (Kafka's v0 writer leaves them out). The assigned connectors are grouped in
    the order given, duplicates dropped; ``java_order=True`` groups them in Java's ``HashSet`` order instead,
    as Kafka's writer does (:func:`codec.connect.common.java_hash_set_order`), for Kafka's bytes exactly."""
    v = _version(info, version)
    layout = reader_layout(MESSAGE, v, reader_version)
    if info.leader is None or info.leader_url is None:
        what = "leader" if info.leader is None else "leader_url"
        raise EncodeError(
            f"{what} is null: only Kafka's empty assignment has none, and it travels as a null "
            "allocation, never as an assignment",
            message=MESSAGE,
            version=v,
            path=what,
        )
    if layout == CONNECT_PROTOCOL_V0 and not drop_unrepresentable:
        for name in ("revoked_connectors", "revoked_tasks", "delay"):
            if getattr(info, name):
                raise EncodeError(
                    f"{name} cannot be carried by the version 0 layout (ConnectProtocol)",
                    message=MESSAGE,
                    version=v,
                    path=name,
                )
    order = java_hash_set_order if java_order else _distinct
    fields = {
        "error": info.error,
        "leader": info.leader,
        "leader_url": info.leader_url,
        "config_offset": info.config_offset,
        "assignment": _groups(info.connectors, info.tasks, "tasks", order),
    }
    if layout >= CONNECT_PROTOCOL_V1:
        fields["revoked"] = _groups(info.revoked_connectors, info.revoked_tasks, "revoked_tasks", _distinct)
        fields["delay"] = info.delay
    return wire_class(MESSAGE, MESSAGE)(**fields)


def _version(info: ConnectAssignment, version: int | None) -> int:
    return write_version(MESSAGE, info.version, version)


def encode_connect_assignment(
    info: ConnectAssignment,
    version: int | None = None,
    *,
    drop_unrepresentable: bool = False,
    java_order: bool = False,
    reader_version: int | None = None,
) -> bytes:
    """The int16 header, then the fields: the v0 layout at version 0 (``ConnectProtocol.serializeAssignment``),
    the v1 layout above (``IncrementalCooperativeConnectProtocol.serializeAssignment``). ``reader_version``
    names the deserializer the bytes are for, as in :func:`decode_connect_assignment`: a worker's allocation is
    always read by IncrementalCooperativeConnectProtocol's (reader version 1), so an allocation whose header
    says 0 is still written in the v1 layout, revocations and delay included."""
    v = _version(info, version)
    layout = reader_layout(MESSAGE, v, reader_version)
    wire = connect_assignment_to_wire(
        info, v, drop_unrepresentable=drop_unrepresentable, java_order=java_order, reader_version=reader_version
    )
    return v.to_bytes(2, "big") + _encode(layout, v, wire)


def _encode(layout: int, version: int, wire) -> bytes:
    try:
        return encode_wire(MESSAGE, layout, wire)
    except EncodeError as e:
        raise EncodeError(e.reason, message=MESSAGE, version=version, path=e.path) from None
