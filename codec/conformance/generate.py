"""Generated differential cases (``conformance --generate N``): random values drawn from the schemas, written
and read by the built-in codec, which the implementation under test must read and write the same way.

A case is one message × version and one op. A **decode** case hands the implementation bytes the built-in
codec wrote and asks for the value; an **encode** case hands it a value and asks for the bytes. The two ops of
a cell draw independent values, so no answer can be copied from another request of the run. What is drawn:

* message bodies, headers, Kafka 4 RPC bodies and ``__consumer_offsets`` record parts, ConsumerProtocol
  messages: each field of the version from its schema (``schemas/``): integers across their whole range with
  the extremes (minimum, maximum, -1, 0, 1) often; strings Java can write (any Unicode scalar: NUL, controls,
  noncharacters, bidi controls, 4-byte UTF-8; now and then thousands of characters, up to the 32767-byte
  limit); bytes; nulls where the version makes a field nullable (strings, bytes, arrays, structs); empty,
  short and long arrays; the version's tagged fields, each present or not, and unknown tagged fields
  (``_unknownTaggedFields``) where the version is flexible;
* request and response frames: a header of the version Kafka's rule gives the API version (correlation ids,
  client ids, tagged fields), then a body as above, for every API of the suite that has that version;
* Kafka Streams' SubscriptionInfo and AssignmentInfo, Kafka Connect's metadata and assignment: their models
  (task ids with and without named topologies, offset sums, host maps, client tags, connectors and tasks,
  allocations), values each version can carry, with strings as the writer takes them (``writeUTF`` and
  ``writeChars`` strings may hold lone surrogates, as Java strings can).

The built-in codec is the reference (it is itself held to Kafka's bytes by the vectors): it writes the value,
reads the bytes back, and the case keeps the value as read, in Kafka's JSON shape (what the vectors'
``expected`` holds: no ``version`` key for ConsumerProtocol and Connect messages, no ``api`` for frames, a
carried layer as its bytes). A case is **canonical** when writing that value gives the same bytes again;
otherwise (Java's hash order, Connect's grouping) the implementation's bytes are read back by the reference
and compared as values. A draw the reference does not give back whole, or whose bytes a vector of the suite
already holds, is drawn again, and after a few tries left out and counted (the run reports how many), never
used: a case is a value nobody wrote down.

Everything follows from the seed: the same seed, cells and count give the same cases, in the same order.
"""

from __future__ import annotations

import random
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache
from typing import Any

from ..text import dumps
from ..wire.builder import default_value, to_json, wire_class
from ..wire.lowering import field_op, lower, lower_struct
from ..wire.registry import messages_of_type, record_for
from ..wire.schema import FieldSpec, MessageSpec, StructSpec, load_message, schema_names
from .impl import BuiltinImplementation
from .messages import MESSAGES, first_difference, flatten_layers, normalize

__all__ = ["Case", "cell_ops", "draw_case", "generated_cells", "kafka_shape", "plan", "take_case"]

_REFERENCE = BuiltinImplementation()
_INT_BITS = {"int8": 8, "int16": 16, "int32": 32, "int64": 64}
STRING_MAX = 0x7FFF  # Kafka's longest string, in UTF-8 bytes (both encodings)


@dataclass(frozen=True)
class Case:
    """One generated case: ask the implementation to ``op`` (decode ``wire`` or encode ``value``)."""

    id: str
    op: str
    message: str
    version: int | None
    api_key: int | None  # the API of a frame: the request's ``apiKey`` for a response frame
    wire: bytes
    value: Any
    canonical: bool


# --- the cells -------------------------------------------------------------------------------------------

# the messages drawn by their family's writer (Kafka Streams' and Connect's hand-written layouts): the schemas' streams
# type, and the data messages of Kafka Connect (named so)
_STREAMS = tuple(messages_of_type("streams"))
_CONNECT = tuple(m for m in messages_of_type("data") if m.startswith("Connect"))
_FRAMES = ("RequestFrame", "ResponseFrame")


@cache
def _frame_apis() -> dict[int, tuple[str, str]]:
    """API key -> (request schema, response schema), for every API whose frames the codec reads."""
    from ..wire.registry import apis

    return {k: (a.request, a.response) for k, a in apis().items() if a.request is not None and a.response is not None}


def _frame_cells(message: str) -> list[tuple[str, int, int]]:
    """(frame, version, API key) for every API whose frames the codec reads, at each version it has."""
    out = []
    for key, (req, resp) in sorted(_frame_apis().items()):
        out += [(message, v, key) for v in load_message(req if message == "RequestFrame" else resp).versions]
    return sorted(out)


def generated_cells(messages: Iterable[str] | None = None) -> list[tuple[str, int | None, int | None]]:
    """Every (message, version, API key) the generator draws: a frame is a cell per API that has the version;
    a body's API is None, and so is a record's version (as their vectors have)."""
    names = set(schema_names())
    cells: list[tuple[str, int | None, int | None]] = []
    for message in messages if messages is not None else MESSAGES:
        if message in _FRAMES:
            cells += _frame_cells(message)
        elif message in names:
            spec = load_message(message)
            if spec.kind.startswith("coordinator"):
                cells.append((message, None, None))
            else:
                # a version whose body has no field and no tagged field has one value, which its vectors hold
                cells += [
                    (message, v, None) for v in spec.versions if lower(message, v).fields or lower(message, v).flexible
                ]
                cells += [(message, v, None) for v in _PROBES.get(message, ())]
    return cells


# Versions past the newest a reader knows that it still reads, as a version probe: a SubscriptionInfo of a newer
# member (Kafka's reader keeps its two version words and asks for a probing rebalance). Only read, never written:
# no writer has such a version (the vectors flagged version-probe are decode-only too).
_PROBES = {"SubscriptionInfo": (12,)}


def cell_ops(message: str, version: int | None) -> tuple[str, ...]:
    """The ops a cell of :func:`generated_cells` is asked: a version probe is only read."""
    return ("decode",) if version in _PROBES.get(message, ()) else ("decode", "encode")


# --- random values ---------------------------------------------------------------------------------------

# Characters a Java string may hold that codecs get wrong: NUL, controls, DEL and C1, the line separators,
# bidi controls, zero-width joiners, the BOM, noncharacters, a replacement character, combining marks, and
# letters of 2, 3 and 4 UTF-8 bytes.
_SPECIAL = (
    "\x00",
    "\x01",
    "\t",
    "\n",
    "\r",
    "\x1b",
    "\x7f",
    "\x85",
    "\u2028",
    "\u2029",
    "\u202e",
    "\u2066",
    "\u200b",
    "\u200d",
    "\ufeff",
    "\ufffe",
    "\uffff",
    "\U0010ffff",
    "\ufffd",
    "\u0301",
    "\u00e9",
    "\u00df",
    "\u4e2d",
    "\u6587",
    "\U0001f600",
    "\U0001f469\u200d\U0001f4bb",
    "\\",
    '"',
    "/",
    "'",
    " ",
)
_ALPHABET = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_:"


def _int(rng: random.Random, bits: int, signed: bool = True) -> int:
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    r = rng.random()
    if r < 0.3:
        return rng.choice((lo, hi, lo + 1, hi - 1, 0, 1, -1 if signed else 2))
    if r < 0.5:
        return rng.randint(max(lo, -1000), min(hi, 1000))
    return rng.randint(lo, hi)


def _text(rng: random.Random, *, surrogates: bool = False, max_bytes: int = STRING_MAX) -> str:
    """A string Java can write: mostly short, sometimes long, mostly ASCII with a few characters codecs get
    wrong, now and then mostly non-ASCII; lone surrogates only where the writer keeps them
    (``writeUTF``/``writeChars``)."""
    r = rng.random()
    n = (
        0
        if r < 0.1
        else rng.randint(1, 12)
        if r < 0.85
        else rng.randint(13, 200)
        if r < 0.995
        else rng.randint(1000, 11000)
    )
    if n == 0:
        return ""
    chars = rng.choices(_ALPHABET, k=n)
    if rng.random() < 0.1:
        chars = rng.choices(_SPECIAL, k=n)
    for _ in range(rng.randint(0, 3) if rng.random() < 0.6 else 0):
        p = rng.random()
        if p < 0.6:
            c = rng.choice(_SPECIAL)
        elif p < 0.9 or not surrogates:
            c = chr(
                rng.choice((rng.randint(0xA0, 0xD7FF), rng.randint(0xE000, 0xFFFF), rng.randint(0x10000, 0x10FFFF)))
            )
        else:
            c = chr(rng.randint(0xD800, 0xDFFF))
        chars[rng.randrange(n)] = c
    text = "".join(chars)
    if len(text) * 4 > max_bytes and len(text.encode("utf-8", "surrogatepass")) > max_bytes:
        text = text.encode("utf-8", "surrogatepass")[:max_bytes].decode("utf-8", "ignore")
    return text


def _bytes(rng: random.Random) -> bytes:
    r = rng.random()
    n = 0 if r < 0.15 else rng.randint(1, 16) if r < 0.9 else rng.randint(17, 600) if r < 0.995 else 8000
    return rng.randbytes(n)


def _uuid(rng: random.Random) -> uuid.UUID:
    return uuid.UUID(int=0) if rng.random() < 0.1 else uuid.UUID(int=rng.getrandbits(128))


def _count(rng: random.Random, budget: list[int], struct: bool) -> int:
    """An array's length: empty, short or long, within what is left of the case's element budget."""
    r = rng.random()
    n = 0 if r < 0.25 else rng.randint(1, 4) if r < 0.92 else rng.randint(5, 20 if struct else 200)
    n = max(0, min(n, budget[0]))
    budget[0] -= n
    return n


class _Schema:
    """Random wire objects of one message's schema at one version."""

    def __init__(self, rng: random.Random, message: MessageSpec, version: int, *, tame: bool = False) -> None:
        self.rng, self.message, self.version, self.tame = rng, message, version, tame
        self.budget = [40 if tame else 400]

    def struct(self, spec: StructSpec, fixed: dict | None = None) -> Any:
        kwargs = {f.py_name: self.field(f) for f in spec.fields_at(self.version)}
        if lower_struct(self.message.name, spec.name, self.version).flexible:
            known: set[int] = set()
            for f in spec.tagged_at(self.version):
                assert f.tag is not None  # tagged_at yields the tagged fields
                known.add(f.tag)
                if self.rng.random() < 0.5:
                    kwargs[f.py_name] = self.field(f)
            if not self.tame and self.rng.random() < 0.25:
                kwargs["unknown_tagged_fields"] = self.unknown_tags(known)
        kwargs.update(fixed or {})
        return wire_class(self.message.name, spec.name)(**kwargs)

    def unknown_tags(self, known: set[int]) -> dict[int, bytes]:
        tags = {}
        for _ in range(self.rng.randint(1, 3)):
            tag = self.rng.choice(
                (self.rng.randint(0, 40), self.rng.randint(128, 20000), self.rng.randint(0, (1 << 31) - 1))
            )
            if tag not in known:
                tags[tag] = self.rng.randbytes(self.rng.choice((0, 1, 2, 5, 130)))
        return dict(sorted(tags.items()))

    def field(self, f: FieldSpec) -> Any:
        rng = self.rng
        op = field_op(self.message, f, self.version)  # (the lowering decides what may be null on the wire)
        nullable = op.prefix_nullable or op.nullable
        if nullable and rng.random() < 0.2:
            return None
        if f.is_array:
            n = _count(rng, self.budget, f.struct is not None)
            return tuple(self.scalar(f) for _ in range(n))
        return self.scalar(f)

    def scalar(self, f: FieldSpec) -> Any:
        rng, t = self.rng, f.element_type
        if f.struct is not None:
            return self.struct(f.struct)
        if t in _INT_BITS:
            return _int(rng, _INT_BITS[t])
        if t == "uint16":
            return _int(rng, 16, signed=False)
        if t == "bool":
            return rng.random() < 0.5
        if t == "uuid":
            return _uuid(rng)
        if t == "string":
            return _text(rng, max_bytes=300 if self.tame else STRING_MAX)
        if t == "bytes":
            return _bytes(rng)
        if t == "float64":
            return rng.choice((0.0, -0.0, 1.5, -2.25, 1e300, 5e-324, rng.uniform(-1e9, 1e9)))
        return default_value(f, self.message)


def _body(rng: random.Random, name: str, version: int, tame: bool, **fixed) -> Any:
    spec = load_message(name)
    return _Schema(rng, spec, version, tame=tame).struct(spec.root, fixed)


def _schema_value(
    rng: random.Random, message: str, version: int | None, tame: bool, api_key: int | None = None
) -> tuple[dict, int | None]:
    """A message of the schema family as Kafka's JSON: (value, api_key)."""
    if message in _FRAMES:
        return _frame_value(rng, message, _versioned(message, version), tame, api_key)
    spec = load_message(message)
    if record_for(message) is not None:
        # a record part: a value starts with its version (a classic record's is the cell's, Kafka 4's the release's)
        at = spec.valid.low if version is None else version
        value = to_json(_body(rng, message, at, tame), message, at)
        return ({"valueVersion": at, **value} if message.endswith("Value") else value), None
    version = _versioned(message, version)
    return to_json(_body(rng, message, version, tame), message, version), None


def _versioned(message: str, version: int | None) -> int:
    """``version``, which only a coordinator record's cell leaves out (:func:`generated_cells`)."""
    if version is None:
        raise ValueError(f"a {message} case needs a version")
    return version


def _frame_value(
    rng: random.Random, message: str, version: int, tame: bool, api_key: int | None = None
) -> tuple[dict, int | None]:
    """A request or response frame of an API that has ``version`` (``api_key``'s, when given)."""
    from ..wire.registry import request_header_version, response_header_version

    request = message == "RequestFrame"
    keys = [
        k
        for k, (req, resp) in sorted(_frame_apis().items())
        if version in load_message(req if request else resp).valid and api_key in (None, k)
    ]
    if not keys:
        raise ValueError(f"no API {api_key} has a {message} v{version}")
    key = rng.choice(keys)
    schema = _frame_apis()[key][0 if request else 1]
    if request:
        hv = request_header_version(key, version)
        header = _body(rng, "RequestHeader", hv, tame, request_api_key=key, request_api_version=version)
        head = to_json(header, "RequestHeader", hv)
    else:
        hv = response_header_version(key, version)
        head = to_json(_body(rng, "ResponseHeader", hv, tame), "ResponseHeader", hv)
    body = to_json(_body(rng, schema, version, tame), schema, version)
    value = {"apiKey": key, "apiVersion": version, "headerVersion": hv, "header": head, "body": body}
    return value, None if request else key


def _java_text(rng: random.Random, *, nonempty: bool = False, surrogates: bool = True, max_bytes: int = 600) -> str:
    s = _text(rng, surrogates=surrogates, max_bytes=max_bytes)
    return s or ("x" if nonempty else s)


def _task_id(rng: random.Random, named: bool, surrogates: bool):
    from ..types import TaskId

    name = (
        _java_text(rng, nonempty=True, surrogates=surrogates, max_bytes=100) if named and rng.random() < 0.4 else None
    )
    return TaskId(_int(rng, 32), _int(rng, 32), name)


def _streams_wire(rng: random.Random, message: str, version: int, tame: bool) -> bytes:
    from ..streams import (
        AssignmentInfo,
        SubscriptionInfo,
        encode_assignment,
        encode_subscription,
    )
    from ..types import HostInfo, TopicPartition

    budget = [30 if tame else 200]

    def n(struct: bool = True) -> int:
        return _count(rng, budget, struct)

    if message == "SubscriptionInfo" and version in _PROBES[message]:
        # a newer member's subscription: its version, the newest it supports, then a layout no reader here knows
        latest = rng.choice((version, version + 1, rng.randint(version, 2**31 - 1)))
        return version.to_bytes(4, "big") + latest.to_bytes(4, "big") + _bytes(rng)
    if message == "SubscriptionInfo":
        sums = {
            _task_id(rng, version >= 10, False): (_int(rng, 64) if version >= 7 else rng.choice((-2, -3)))
            for _ in range(n())
        }
        info = SubscriptionInfo(
            version=version,
            latest_supported_version=-1 if version <= 2 else rng.choice((version, 11, rng.randint(version, 2**31 - 1))),
            process_id=_uuid(rng),
            user_endpoint=(None if rng.random() < 0.3 else _java_text(rng, nonempty=True, surrogates=False))
            if version >= 2
            else None,
            task_offset_sums=sums,
            unique_field=_int(rng, 8) if version >= 8 else 0,
            error_code=_int(rng, 32) if version >= 9 else 0,
            client_tags={
                _java_text(rng, surrogates=False, max_bytes=60): _java_text(rng, surrogates=False, max_bytes=60)
                for _ in range(n())
            }
            if version >= 11
            else {},
        )
        return encode_subscription(info, version)

    def parts() -> tuple:
        return tuple(TopicPartition(_java_text(rng, max_bytes=100), _int(rng, 32)) for _ in range(n()))

    def hosts() -> dict:
        return {HostInfo(_java_text(rng, max_bytes=100), _int(rng, 32)): parts() for _ in range(n())}

    assignment = AssignmentInfo(
        version=version,
        commonly_supported_version=_int(rng, 32) if version >= 3 else -1,
        active_tasks=tuple(_task_id(rng, version >= 10, True) for _ in range(n())),
        standby_tasks={_task_id(rng, version >= 10, True): parts() for _ in range(n())},
        partitions_by_host=hosts() if version >= 2 else {},
        standby_partitions_by_host=hosts() if version >= 6 else {},
        error_code=_int(rng, 32) if version >= 4 else 0,
        next_rebalance_ms=_int(rng, 64) if version >= 7 else 2**63 - 1,
    )
    return encode_assignment(assignment, version)


def _connect_wire(rng: random.Random, message: str, version: int, tame: bool) -> bytes:
    from ..connect.assignment import (
        ConnectAssignment,
        ConnectorTaskId,
        encode_connect_assignment,
    )
    from ..connect.metadata import ConnectMetadata, encode_connect_metadata

    budget = [20 if tame else 100]

    def names() -> tuple[str, ...]:
        return tuple(
            dict.fromkeys(_java_text(rng, surrogates=False, max_bytes=80) for _ in range(_count(rng, budget, True)))
        )

    def tasks() -> tuple:
        return tuple(
            ConnectorTaskId(_java_text(rng, surrogates=False, max_bytes=80), rng.randint(0, 2**31 - 1))
            for _ in range(_count(rng, budget, True))
        )

    def assignment(v: int) -> ConnectAssignment:
        return ConnectAssignment(
            version=v,
            error=_int(rng, 16),
            leader=_java_text(rng, surrogates=False),
            leader_url=_java_text(rng, surrogates=False),
            config_offset=_int(rng, 64),
            connectors=names(),
            tasks=tasks(),
            revoked_connectors=names() if v >= 1 else (),
            revoked_tasks=tasks() if v >= 1 else (),
            delay=_int(rng, 32) if v >= 1 else 0,
        )

    if message == "ConnectAssignment":
        return encode_connect_assignment(assignment(version), version)
    allocation = assignment(version) if version >= 1 and rng.random() < 0.7 else None
    return encode_connect_metadata(
        ConnectMetadata(
            version=version, url=_java_text(rng, surrogates=False), config_offset=_int(rng, 64), allocation=allocation
        ),
        version,
    )


# --- the reference ---------------------------------------------------------------------------------------

# Keys the built-in codec's JSON adds that Kafka's JSON shape (the vectors' expected values) does not have.
_NOT_KAFKA = {
    "ConsumerProtocolSubscription": ("version",),
    "ConsumerProtocolAssignment": ("version",),
    "ConnectMetadata": ("version",),
    "ConnectAssignment": ("version",),
    "RequestFrame": ("api",),
    "ResponseFrame": ("api",),
    "SubscriptionInfo": ("prevTasks", "standbyTasks", "wire"),
}


def kafka_shape(message: str, value: Any) -> Any:
    """The built-in codec's decoded value in Kafka's JSON shape: the keys only it adds left out, carried
    layers as their bytes."""
    if not isinstance(value, dict):
        return value
    drop = _NOT_KAFKA.get(message, ())
    value = {k: v for k, v in value.items() if k not in drop}
    return flatten_layers(value) if message in _FRAMES else value


def _reference(
    message: str, version: int | None, api_key: int | None, *, value: Any = None, wire: bytes | None = None
) -> tuple[bytes, Any, bool] | str:
    """(wire, value as read in Kafka's shape, canonical), or why the reference does not give the draw back."""
    if wire is None:
        enc = _REFERENCE.encode(message, version, value, api_key=api_key)
        if not enc.ok:
            return f"the reference does not write the drawn value: {enc.error and enc.error.get('message')}"
        wire = enc.value
    dec = _REFERENCE.decode(message, version, wire, api_key=api_key)
    if not dec.ok:
        return f"the reference does not read its own bytes: {dec.error and dec.error.get('message')}"
    got = kafka_shape(message, dec.value)
    if value is not None:
        if dumps(got, sort_keys=True) == dumps(value, sort_keys=True):
            return wire, got, True  # the very value drawn: writing it again gives the same bytes
        d = first_difference(normalize(message, value), normalize(message, got))
        if d:
            return f"the reference reads back another value: {d}"
    if "encode" not in cell_ops(message, version):  # a version probe: only read, by Kafka as by the reference
        return wire, got, False
    again = _REFERENCE.encode(message, version, got, api_key=api_key)
    if not again.ok:
        return f"the reference does not write what it read: {again.error and again.error.get('message')}"
    if again.value == wire:
        return wire, got, True
    back = _REFERENCE.decode(message, version, again.value, api_key=api_key)
    d = (
        "unreadable"
        if not back.ok
        else first_difference(normalize(message, got), normalize(message, kafka_shape(message, back.value)))
    )
    if d:
        return f"the reference's own bytes of what it read read back otherwise: {d}"
    return wire, got, False


def draw_case(
    rng: random.Random, message: str, version: int | None, *, tame: bool = False, api_key: int | None = None
) -> tuple[bytes, Any, bool, int | None] | str:
    """One draw of ``message`` at ``version``: (wire, value, canonical, api_key), or why it was dropped.
    ``tame``: small values without unknown tagged fields (the runner's witnesses); ``api_key``: a frame of
    that API."""
    try:
        if message in _STREAMS:
            raw = _streams_wire(rng, message, _versioned(message, version), tame)
            api_key, ref = None, _reference(message, version, None, wire=raw)
        elif message in _CONNECT:
            raw = _connect_wire(rng, message, _versioned(message, version), tame)
            api_key, ref = None, _reference(message, version, None, wire=raw)
        else:
            value, api_key = _schema_value(rng, message, version, tame, api_key)
            ref = _reference(message, version, api_key, value=value)
    except Exception as e:  # noqa: BLE001 - a draw the codec cannot write is dropped and counted, never used
        return f"{type(e).__name__}: {e}"
    if isinstance(ref, str):
        return ref
    wire, got, canonical = ref
    return wire, got, canonical, api_key


def case_rng(seed: int, index: int, attempt: int, tag: str = "generate") -> random.Random:
    """The random source of case ``index`` of a run with ``seed`` (each case replays on its own); ``tag`` keeps
    the runner's witnesses apart from the run's cases."""
    return random.Random(f"rebalance-codec {tag} {seed} {index} {attempt}")


def plan(
    seed: int,
    n: int,
    cells: list[tuple[str, int | None, int | None]],
    ops: Iterable[str] = ("decode", "encode"),
    *,
    wanted: Callable[[str, str, int | None], bool] | None = None,
    rounds: Iterable[str] = (),
) -> list[tuple]:
    """``n`` cases spread over ``cells`` x ``ops`` (each cell's ops: :func:`cell_ops`) and the families of generated
    rounds ``rounds`` names (op ``assign``): (op, message, version, API key, index). Every pair comes once before
    any comes twice, in an order the seed shuffles; ``wanted(op, message, version)`` leaves pairs out (the
    undeclared ones). A family of rounds gets at most :data:`ROUNDS_MAX` (a round costs a whole assignment): when
    only rounds are left to draw, the plan ends short of ``n``."""
    pairs = [(op, m, v, a) for m, v, a in cells for op in ops if op in cell_ops(m, v)]
    pairs += [("assign", m, None, None) for m in rounds]
    pairs = [p for p in pairs if wanted is None or wanted(*p[:3])]
    order = random.Random(f"rebalance-codec cells {seed}")
    out: list[tuple] = []
    drawn: dict[tuple, int] = {}
    while len(out) < n and pairs:
        batch = list(pairs)
        order.shuffle(batch)
        for pair in batch[: n - len(out)]:
            out.append((*pair, len(out)))
            drawn[pair] = drawn.get(pair, 0) + 1
        pairs = [p for p in pairs if p[0] != "assign" or drawn.get(p, 0) < ROUNDS_MAX]
    return out


ROUNDS_MAX = 64  # generated rounds of one family in a run, at most


@cache
def _suite_wires() -> frozenset[str]:
    """The bytes of every vector of the suite (hex): what an adapter could answer from a copy of the files."""
    from .vectors import suite

    return frozenset(v["wire"] for v in suite() if "wire" in v)


# draws of a case before it is left out: the reference does not give a draw back whole, or the draw is a vector's
# bytes; a small message (ConsumerGroupDescribeRequest: an array of ids and a boolean) draws its empty and
# one-element forms often, and the suite holds those, so four draws left one case of a 400-case run out now and then
ATTEMPTS = 16


def take_case(
    seed: int,
    index: int,
    op: str,
    message: str,
    version: int | None,
    api_key: int | None = None,
    *,
    tag: str = "generate",
) -> Case | str:
    """Case ``index`` of the run with ``seed``: drawn again (up to :data:`ATTEMPTS` times, each from its own
    random source) when the reference does not give a draw back whole or the bytes are a vector's; the last
    reason when no draw will do. ``tag`` other than ``generate``: a witness of the runner (:mod:`.evidence`), a
    small value (``tame``: no unknown tagged field, short strings) drawn apart from the run's cases."""
    why = ""
    for attempt in range(ATTEMPTS):
        rng = case_rng(seed, index, attempt, tag)
        got = draw_case(rng, message, version, api_key=api_key, tame=tag != "generate")
        if isinstance(got, str):
            why = f"{message}{'' if version is None else f' v{version}'}: {got}"
            continue
        wire, value, canonical, key = got
        if wire.hex() in _suite_wires():  # a value a vector already holds is drawn again: a case is fresh
            why = f"{message}{'' if version is None else f' v{version}'}: drew only bytes of the suite's vectors"
            continue
        ver = "" if version is None else f"-v{version}"
        name = "gen" if tag == "generate" else "witness"
        return Case(f"{name}-{message.lower()}{ver}-{op}-{index}", op, message, version, key, wire, value, canonical)
    return why
