"""JSON views of the Connect models.

``kafka`` style is the shape of the ``data``/``decoded`` records of Kafka's vectors (``connect.jsonl``): the
names of Kafka's classes (``url``, ``configOffset``, ``allocation``; ``error``, ``leader``, ``leaderUrl``,
``configOffset``, ``connectorIds``, ``taskIds`` as ``{"connector", "task"}``, and from the v1/v2 reader on
``revokedConnectorIds``, ``revokedTaskIds``, ``delay``), with a null allocation shown as Kafka's empty
assignment. ``native`` style is the project's snake_case view of the same model, with a null allocation as
null. Both lead with ``version``, the header as written (an allocation names its own only where it differs
from the metadata's), which ``encode`` honours; the fields a reader does not read (an allocation, revocations
and the delay for the v0 reader) are left out, as Kafka's classes of that reader do not have them.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..errors import EncodeError
from .assignment import EMPTY_ASSIGNMENT, ConnectAssignment, ConnectorTaskId
from .constants import CONNECT_PROTOCOL_V0, LATEST_VERSION
from .metadata import ConnectMetadata

__all__ = [
    "connect_assignment_json",
    "connect_assignment_from_json",
    "connect_metadata_json",
    "connect_metadata_from_json",
]

_INT16 = (-(1 << 15), (1 << 15) - 1)
_INT32 = (-(1 << 31), (1 << 31) - 1)
_INT64 = (-(1 << 63), (1 << 63) - 1)

# (kafka name, native name) of every field, in Kafka's order
_ASSIGNMENT_KEYS = (
    ("version", "version"),
    ("error", "error"),
    ("leader", "leader"),
    ("leaderUrl", "leader_url"),
    ("configOffset", "config_offset"),
    ("connectorIds", "connectors"),
    ("taskIds", "tasks"),
    ("revokedConnectorIds", "revoked_connectors"),
    ("revokedTaskIds", "revoked_tasks"),
    ("delay", "delay"),
)
_METADATA_KEYS = (
    ("version", "version"),
    ("url", "url"),
    ("configOffset", "config_offset"),
    ("allocation", "allocation"),
)
# Keys of decoded JSON that are views, not fields: the CLI's trailing-bytes report, and the other
# deserializer's reading in Kafka's vectors. Encoding ignores them.
_VIEWS = ("trailing", "readByIncrementalDecoder", "readByEagerDecoder")


def _extended(version: int | None, reader_version: int | None) -> bool:
    r = reader_version if reader_version is not None else version
    return (LATEST_VERSION if r is None else r) != CONNECT_PROTOCOL_V0


def _task(t: ConnectorTaskId) -> dict:
    return {"connector": t.connector, "task": t.task}


def connect_assignment_json(
    info: ConnectAssignment, *, style: str = "kafka", reader_version: int | None = None, with_version: bool = True
) -> dict:
    """The assignment as JSON. ``reader_version`` says which deserializer read it (default: the one its
    header picks): 0 leaves out what ConnectProtocol's ``Assignment`` does not have (revocations, delay)."""
    native = style != "kafka"  # snake_case (``snake``; ``native`` its older name)
    values: dict[str, Any] = {
        "version": info.version,
        "error": info.error,
        "leader": info.leader,
        "leaderUrl": info.leader_url,
        "configOffset": info.config_offset,
        "connectorIds": list(info.connectors),
        "taskIds": [_task(t) for t in info.tasks],
        "revokedConnectorIds": list(info.revoked_connectors),
        "revokedTaskIds": [_task(t) for t in info.revoked_tasks],
        "delay": info.delay,
    }
    extended = _extended(info.version, reader_version)
    out = {}
    for kafka, nat in _ASSIGNMENT_KEYS:
        if kafka == "version" and (not with_version or info.version is None):
            continue
        if not extended and kafka in ("revokedConnectorIds", "revokedTaskIds", "delay"):
            continue
        out[nat if native else kafka] = values[kafka]
    return out


def connect_metadata_json(info: ConnectMetadata, *, style: str = "kafka", reader_version: int | None = None) -> dict:
    """The worker metadata as JSON; the allocation only for the v1/v2 reader (ConnectProtocol's ``WorkerState``
    has none): in ``kafka`` style a null allocation is Kafka's empty assignment, in ``native`` style null."""
    native = style != "kafka"  # snake_case (``snake``; ``native`` its older name)
    out: dict[str, Any] = {}
    if info.version is not None:
        out["version"] = info.version
    out["url"] = info.url
    out["config_offset" if native else "configOffset"] = info.config_offset
    if _extended(info.version, reader_version):
        alloc = info.allocation
        if alloc is None:
            out["allocation"] = (
                None
                if native
                else connect_assignment_json(EMPTY_ASSIGNMENT, style=style, reader_version=1, with_version=False)
            )
        else:  # its own version only when it differs from the metadata's (Kafka writes them equal)
            out["allocation"] = connect_assignment_json(
                alloc, style=style, reader_version=1, with_version=alloc.version != info.version
            )
    return out


# --- from JSON ------------------------------------------------------------------------------------------


def _fail(reason: str, path: str, message: str) -> EncodeError:
    return EncodeError(reason[:300], message=message, path=path)


def _what(v) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    return {int: "an integer", float: "a number", str: "a string", list: "a list", dict: "an object"}.get(
        type(v), type(v).__name__
    )


def _fields(d, keys, message: str, path: str) -> dict[str, Any]:
    """The value's fields by Kafka name, from either spelling; unknown keys and a field given twice are
    errors (a typo would otherwise leave the field at its default)."""
    if not isinstance(d, dict):
        raise _fail(f"needs a JSON object, got {_what(d)}", path, message)
    by_name = {}
    for kafka, nat in keys:
        for k in {kafka, nat}:
            by_name[k] = kafka
    out: dict[str, Any] = {}
    for k, v in d.items():
        if k in _VIEWS:
            continue
        if k not in by_name:
            known = ", ".join(dict.fromkeys(k2 for pair in keys for k2 in pair))
            raise _fail(f"unknown key {k!r} (known: {known})", _join(path, k), message)
        name = by_name[k]
        if name in out:
            raise _fail(f"{name} given twice", _join(path, k), message)
        out[name] = v
    return out


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def _int(v, bounds: tuple[int, int], path: str, message: str) -> int:
    if type(v) is not int:
        raise _fail(f"needs an integer, got {_what(v)}", path, message)
    if not bounds[0] <= v <= bounds[1]:
        raise _fail(f"{v} is out of range [{bounds[0]}, {bounds[1]}]", path, message)
    return v


def _str(v, path: str, message: str) -> str:
    if not isinstance(v, str):
        raise _fail(f"needs a string, got {_what(v)}", path, message)
    return v


def _nullable_str(v, path: str, message: str) -> str | None:
    return None if v is None else _str(v, path, message)


def _strings(v, path: str, message: str) -> tuple[str, ...]:
    if v is None:
        return ()
    if not isinstance(v, list):
        raise _fail(f"needs a list of strings, got {_what(v)}", path, message)
    return tuple(_str(x, f"{path}[{i}]", message) for i, x in enumerate(v))


def _tasks(v, path: str, message: str) -> tuple[ConnectorTaskId, ...]:
    if v is None:
        return ()
    if not isinstance(v, list):
        raise _fail(f"needs a list of {{connector, task}}, got {_what(v)}", path, message)
    out = []
    for i, t in enumerate(v):
        p = f"{path}[{i}]"
        if not isinstance(t, dict) or set(t) != {"connector", "task"}:
            raise _fail(
                f'needs {{"connector": string, "task": integer}}, got {_what(t)}'
                + (f" with keys {sorted(t)}" if isinstance(t, dict) else ""),
                p,
                message,
            )
        out.append(
            ConnectorTaskId(
                _str(t["connector"], f"{p}.connector", message), _int(t["task"], _INT32, f"{p}.task", message)
            )
        )
    return tuple(out)


def _version(v, path: str, message: str) -> int | None:
    if v is None:
        return None
    return _int(v, (0, _INT16[1]), path, message)


def connect_assignment_from_json(d, *, message: str = "ConnectAssignment", path: str = "") -> ConnectAssignment:
    """Read either style, and either of Kafka's ``data`` and ``decoded`` shapes. Missing fields take the
    empty assignment's values (a missing leader is refused by the encoder)."""
    f = _fields(d, _ASSIGNMENT_KEYS, message, path)
    p = {kafka: _join(path, nat) for kafka, nat in _ASSIGNMENT_KEYS}
    return ConnectAssignment(
        version=_version(f.get("version"), p["version"], message),
        error=_int(f.get("error", 0), _INT16, p["error"], message),
        leader=_nullable_str(f.get("leader"), p["leader"], message),
        leader_url=_nullable_str(f.get("leaderUrl"), p["leaderUrl"], message),
        config_offset=_int(f.get("configOffset", -1), _INT64, p["configOffset"], message),
        connectors=_strings(f.get("connectorIds"), p["connectorIds"], message),
        tasks=_tasks(f.get("taskIds"), p["taskIds"], message),
        revoked_connectors=_strings(f.get("revokedConnectorIds"), p["revokedConnectorIds"], message),
        revoked_tasks=_tasks(f.get("revokedTaskIds"), p["revokedTaskIds"], message),
        delay=_int(f.get("delay", 0), _INT32, p["delay"], message),
    )


def connect_metadata_from_json(d) -> ConnectMetadata:
    """Read either style, and either of Kafka's ``data`` and ``decoded`` shapes: the allocation is null,
    ``"EMPTY"`` (Kafka's ``ExtendedAssignment.empty()`` in the vectors' ``data``) or an assignment (Kafka's
    empty assignment, as ``decoded`` shows a null one, is written as null again)."""
    message = "ConnectMetadata"
    f = _fields(d, _METADATA_KEYS, message, "")
    for key, nat in (("url", "url"), ("configOffset", "config_offset")):
        if key not in f:
            raise _fail(f"{key} is required", nat, message)
    alloc = f.get("allocation")
    if alloc is None or alloc == "EMPTY":
        allocation = None
    else:
        allocation = connect_assignment_from_json(alloc, message=message, path="allocation")
        if allocation.is_empty:  # what a null allocation reads as: null again
            allocation = None
    version = _version(f.get("version"), "version", message)
    if allocation is not None and allocation.version is None and version is not None:
        allocation = replace(allocation, version=version)  # written at the metadata's version
    return ConnectMetadata(
        version=version,
        url=_str(f["url"], "url", message),
        config_offset=_int(f["configOffset"], _INT64, "config_offset", message),
        allocation=allocation,
    )
