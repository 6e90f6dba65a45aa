"""SubscriptionInfo: the version-independent model and its conversion to and from every wire version.

Kafka's decoding rules (wire-facts §2), exactly:

* a version above 11 is a *version probe*: only ``version`` and ``latestSupportedVersion`` are read,
  the rest is ignored (processId zero, no tasks, no endpoint); a reader from before 2.0 (``latest`` 1 or 2)
  refuses it instead (:mod:`codec.streams.readers`);
* otherwise the whole message is parsed at its version and checked: ``latestSupportedVersion == -1``
  only for v1-2, else ``1 <= version <= latestSupportedVersion``;
* v1-6 prevTasks/standbyTasks become offset sums -2/-3;
* a zero-length endpoint is null; trailing bytes are accepted and reported.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from ..errors import DecodeError, EncodeError, TruncatedError, UnsupportedVersionError
from ..wire import native
from ..wire.builder import decode_wire, encode_wire
from ..wire.shapes import interpret_encode
from ..wire.shapes_python import compiled_encode, interpret
from . import shapes
from .common import check_size, version_guard
from .constants import DEFAULT_MAX_METADATA_SIZE, LATEST_OFFSET, LATEST_SUPPORTED_VERSION, UNKNOWN, UNKNOWN_OFFSET_SUM
from .models import SubscriptionInfo
from .readers import can_probe

__all__ = [
    "DecodedSubscription",
    "decode_subscription",
    "encode_subscription",
    "peek_subscription_versions",
    "subscription_to_wire",
    "subscription_from_wire",
    "task_extras",
]

MESSAGE = "SubscriptionInfo"


@dataclass(frozen=True, slots=True)
class DecodedSubscription:
    """A decode with everything a debugger wants: the model, the raw wire view, the bytes consumed and
    the trailing bytes Kafka would ignore."""

    info: SubscriptionInfo
    wire: object | None  # the wire model, None for a version probe
    consumed: int
    trailing: int


_TWO_INTS = struct.Struct(">ii")


def peek_subscription_versions(data: bytes) -> tuple[int, int]:
    """``(version, latest_supported_version)`` of any SubscriptionInfo without a full parse.

    v1-2 have no second word: their latest supported version is -1 (unknown)."""
    if len(data) >= 8:  # (the usual case: one unpack)
        version, lsv = _TWO_INTS.unpack_from(data)
        return (version, UNKNOWN) if 1 <= version <= 2 else (version, lsv)
    if len(data) < 4:
        raise TruncatedError(f"truncated (need 4, have {len(data)})", message=MESSAGE, offset=0, path="version")
    (version,) = struct.unpack_from(">i", data)
    if 1 <= version <= 2:
        return version, UNKNOWN
    if len(data) < 8:
        raise TruncatedError(
            f"truncated (need 4, have {len(data) - 4})",
            message=MESSAGE,
            version=version,
            offset=4,
            path="latest_supported_version",
        )
    return _TWO_INTS.unpack_from(data)


def _check_probe(version: int, latest: int) -> None:
    """A reader from before 2.0 (newest version 1 or 2) cannot probe: it refuses a newer version as Kafka's
    ``SubscriptionInfo.decode`` did (:mod:`codec.streams.readers`)."""
    if not can_probe(latest):
        raise UnsupportedVersionError(
            f"unable to decode subscription data: version={version} (a reader of version {latest}, Kafka before 2.0, "
            "cannot probe a newer version)",
            message=MESSAGE,
            version=version,
            offset=0,
            path="version",
        )


def decode_subscription(
    data: bytes | bytearray | memoryview,
    *,
    detail: bool = False,
    latest: int = LATEST_SUPPORTED_VERSION,
    max_size: int = DEFAULT_MAX_METADATA_SIZE,
):
    """Decode SubscriptionInfo bytes as Kafka's ``SubscriptionInfo.decode`` does.

    ``latest`` is the reader's newest version (11 for current Kafka): anything above it is a version
    probe. Passing an older release's number models that release's reader (version probing, §5).
    Input above ``max_size`` bytes is refused (:data:`DEFAULT_MAX_METADATA_SIZE`).
    Returns a :class:`SubscriptionInfo`, or a :class:`DecodedSubscription` with ``detail=True``."""
    if type(data) is not bytes:
        data = bytes(data)
    check_size(MESSAGE, data, max_size)
    version, lsv = peek_subscription_versions(data)
    if version > latest or version > LATEST_SUPPORTED_VERSION:
        _check_probe(version, latest)
        info = SubscriptionInfo(version=version, latest_supported_version=lsv, future=True)
        result = DecodedSubscription(info, None, 8, len(data) - 8)
        return result if detail else info
    if version < 1:
        raise UnsupportedVersionError(
            f"version must be between 1 and {LATEST_SUPPORTED_VERSION}; was {version}",
            message=MESSAGE,
            offset=0,
            path="version",
        )
    shaped = _shaped(version)
    if shaped is not None and not detail:  # the native codec: bytes straight to the model
        got = shaped.decode(data, 0)
        if got is not None:
            _check_latest(version, lsv)
            return got[0]
    wire, end = decode_wire(MESSAGE, version, data)
    _check_latest(version, lsv)
    got = shaped.decode(data, 0) if shaped is not None else None
    info = got[0] if got is not None else subscription_from_wire(wire)
    result = DecodedSubscription(info, wire, end, len(data) - end)
    return result if detail else info


def subscription_view(
    data: bytes | bytearray | memoryview,
    *,
    latest: int = LATEST_SUPPORTED_VERSION,
    max_size: int = DEFAULT_MAX_METADATA_SIZE,
) -> tuple[SubscriptionInfo, dict | None, int, int]:
    """What the command line shows of SubscriptionInfo bytes: ``(model, wire view as Kafka's JSON or None for a
    version probe, bytes consumed, trailing bytes)``, decoded and checked as :func:`decode_subscription` does.
    With the native codec both come straight from the bytes (v7-11), without wire objects."""
    if native.active() and type(data) is bytes and 8 <= len(data) <= max_size:
        version, lsv = peek_subscription_versions(data)
        shaped = _shaped(version) if 1 <= version <= min(latest, LATEST_SUPPORTED_VERSION) else None
        got = shaped.decode(data, 0) if shaped is not None else None
        as_json = native.program(MESSAGE, version, "kafka") if got is not None else None
        wire = as_json.decode(data, 0) if as_json is not None else None
        if wire is not None and got is not None:  # (a wire view only where got is)
            _check_latest(version, lsv)
            return got[0], wire[0], got[1], len(data) - got[1]
    from ..wire.builder import to_json

    d = decode_subscription(data, detail=True, latest=latest, max_size=max_size)
    wire = None if d.wire is None else to_json(d.wire, MESSAGE, d.info.version, style="kafka")
    return d.info, wire, d.consumed, d.trailing


#: version -> the native program that decodes it straight to the model (emptied when the schema tables change)
_SHAPED: dict = native.fast_table()


def _shaped(version: int):
    """The native program that decodes ``version`` straight to the model, or None (see
    :mod:`codec.streams.shapes`)."""
    prog = _SHAPED.get(version) if native.ACTIVE[0] else None
    if prog is None:
        shape = shapes.subscription_decode(version)
        prog = native.program(MESSAGE, version, shape=shape) if shape is not None else None
        if prog is not None:
            _SHAPED[version] = prog
    return prog


def _check_latest(version: int, lsv: int) -> None:
    if lsv == UNKNOWN and version > 2 or lsv != UNKNOWN and not 1 <= version <= lsv:
        raise DecodeError(
            f"version must be between 1 and {lsv}; was {version} "
            "(a subscription cannot be newer than its latest supported version)",
            message=MESSAGE,
            version=version,
            offset=4,
            path="latest_supported_version",
        )


def subscription_from_wire(w) -> SubscriptionInfo:
    """The version-independent model of a decoded wire object: the decode shape of its version
    (:func:`codec.streams.shapes.subscription_decode`, the one declaration of the mapping) run by the shapes' Python
    interpreter, as the engine runs it from the bytes (invalid UTF-8 and a repeated client tag key are DecodeErrors
    with their paths, as Kafka's decoder throws)."""
    v = w.version
    shape = shapes.subscription_decode(v)
    if shape is None:
        raise DecodeError(f"no SubscriptionInfo v{v} model", message=MESSAGE, version=v)
    return interpret(shape, MESSAGE, v, w)


def subscription_to_wire(info: SubscriptionInfo, version: int | None = None, *, drop_unrepresentable: bool = False):
    """The wire object for ``info`` at ``version`` (default: ``info.version``).

    By default the conversion is lossless or refuses: a value the version cannot carry raises
    :class:`EncodeError`. ``drop_unrepresentable=True`` does what Kafka's ``SubscriptionInfo`` constructor
    does instead: it silently leaves out what the version lacks (endpoint below v2, uniqueField below v8,
    errorCode below v9, clientTags below v11, offset values below v7). Named topologies below v10 are
    refused either way, as Kafka refuses them. v1-2 have no latestSupportedVersion word: whatever the
    model holds there is not written, and decodes back as -1 (unknown)."""

    v = info.version if version is None else version
    refuse = _check(info, v, drop_unrepresentable)
    shape = shapes.subscription_encode(v)
    assert shape is not None  # (every version version_guard lets through has one)
    # the encode shape (codec.streams.shapes, the one declaration), run in Python
    return interpret_encode(shape, MESSAGE, v, info, *task_extras(info, v, refuse))


def _check(info: SubscriptionInfo, v: int, drop_unrepresentable: bool):
    """What :func:`subscription_to_wire` refuses before it converts anything; returns the version's ``refuse``
    (what :func:`task_extras` calls for an offset sum v1-6 cannot carry)."""
    lsv = info.latest_supported_version
    refuse = version_guard(MESSAGE, v, drop_unrepresentable)
    if v >= 3 and not 1 <= v <= lsv:
        raise EncodeError(
            f"version must be between 1 and {lsv}; was {v}", message=MESSAGE, version=v, path="latest_supported_version"
        )
    sums = info.task_offset_sums
    if v < 10:
        for t in sums:
            if t.topology_name is not None:
                raise EncodeError(
                    "named topologies are not compatible with versions below 10",
                    message=MESSAGE,
                    version=v,
                    path=f"task_offset_sums[{t}]",
                )
    if v < 2 and info.user_endpoint:
        refuse(f"user_endpoint {info.user_endpoint!r}", "user_endpoint")
    if v < 8 and info.unique_field:
        refuse(f"unique_field {info.unique_field}", "unique_field")
    if v < 9 and info.error_code:
        refuse(f"error_code {info.error_code}", "error_code")
    if v < 11 and info.client_tags:
        refuse("client_tags", "client_tags")
    if type(v) is not int:
        raise EncodeError(
            f"int32 field needs an integer, got {type(v).__name__}", message=MESSAGE, version=v, path="version"
        )
    return refuse


def task_extras(info: SubscriptionInfo, v: int, refuse=None) -> tuple:
    """What Kafka arranges of the model's tasks before writing SubscriptionInfo v1-9 (the encode shape's extra
    arguments): v1-6 the running tasks (offset sum -2) and the other stateful ones, v7-9 the tasks grouped by
    subtopology, first seen first, as rows ``[(subtopology, [(partition, offset sum), ...]), ...]``; v10-11 none.
    ``refuse(what, path)``: called for an offset sum v1-6 cannot carry (v1-6 say only running or not)."""
    sums = info.task_offset_sums
    if v <= 6:
        for t, s in sums.items():
            if s not in (LATEST_OFFSET, UNKNOWN_OFFSET_SUM) and refuse is not None:
                refuse(f"offset sum {s} of task {t} (v1-6 carry only running/not running)", f"task_offset_sums[{t}]")
        return [t for t, s in sums.items() if s == LATEST_OFFSET], [t for t, s in sums.items() if s != LATEST_OFFSET]
    if v <= 9:
        groups: dict[int, list] = {}
        for t, s in sums.items():
            if t.topology_name is not None:  # (subscription_to_wire says so first, with the task's path)
                raise EncodeError("named topologies are not compatible with versions below 10", message=MESSAGE)
            g = t.subtopology
            if g in groups:
                groups[g].append((t.partition, s))
            else:
                groups[g] = [(t.partition, s)]
        return (list(groups.items()),)
    return ()


def encode_subscription(
    info: SubscriptionInfo, version: int | None = None, *, drop_unrepresentable: bool = False
) -> bytes:
    """Encode ``info`` at ``version`` (default ``info.version``); see :func:`subscription_to_wire`."""
    v = info.version if version is None else version
    if not drop_unrepresentable and type(v) is int and 7 <= v <= LATEST_SUPPORTED_VERSION:
        # the hot versions: straight from the model to bytes through the encode shape (the one declaration): the
        # native codec's program, else the shape compiled to the fast path's rows; anything the model path would
        # refuse, or anything unusual, takes the path below, which decides and reports
        out = None
        try:
            shape = shapes.subscription_encode(v)
            if shape is not None and type(info.task_offset_sums) is dict:
                extras = task_extras(info, v, _check(info, v, False))
                prog = native.program(MESSAGE, v, shape=shape)
                if prog is not None:
                    out = prog.encode(info, *extras)
                else:
                    out = _row_encoder(v)(compiled_encode(shape, MESSAGE, v)(info, *extras))
        except Exception:  # noqa: BLE001 - refused or unusual: the path below decides and reports
            out = None
        if out is not None:
            return out
    return encode_wire(MESSAGE, v, subscription_to_wire(info, v, drop_unrepresentable=drop_unrepresentable))


def _row_encoder(v: int):
    """The rows encoder of ``v``: the native codec's (None on anything unusual) or the fast path's (raises)."""
    prog = native.program(MESSAGE, v, "rows")
    if prog is not None:
        return prog.encode
    from ..wire.fastpath import row_encoder

    return row_encoder(MESSAGE, v)
