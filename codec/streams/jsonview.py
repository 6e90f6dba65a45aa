"""JSON views of the Streams models.

``kafka`` style is the shape of the ``data``/``decoded`` records in Kafka's vectors (camelCase, TaskIds as
``{subtopology, partition, topologyName}``, UUIDs as strings, ``wire`` = the raw field view of that
version). ``native`` style is the project's own snake_case view, with task ids printed as Kafka prints
them (``1_2``, ``name__1_2``).
"""

from __future__ import annotations

import uuid

from ..errors import EncodeError
from ..types import HostInfo, TaskId, TopicPartition, parse_uuid
from ..wire.builder import to_json
from .constants import LATEST_OFFSET, LATEST_SUPPORTED_VERSION, NO_REBALANCE, UNKNOWN, UNKNOWN_OFFSET_SUM
from .subscription import SubscriptionInfo

# The package, for the AssignmentInfo of two annotations (loaded on first use: a subscription's decode does not
# import codec.streams.assignment; the annotations are strings that only documentation tools evaluate).
from .. import streams as _streams

TYPE_CHECKING = False  # (not typing.TYPE_CHECKING: importing typing costs a decode call's start-up)

if TYPE_CHECKING:
    from typing import Any

__all__ = ["subscription_json", "subscription_from_json", "assignment_json", "assignment_from_json"]


def _task_k(t: TaskId) -> dict:
    return {"subtopology": t.subtopology, "partition": t.partition, "topologyName": t.topology_name}


def _tp_k(p: TopicPartition) -> dict:
    return {"topic": p.topic, "partition": p.partition}


def _tags(tags: dict) -> dict:
    """The client tags in key order. A key is never null under Kafka's table (``ClientTag.key`` is not nullable);
    a table that lets one through (a mutant of ``vectors mutate``) has it shown first, not a crash of the view
    that a caller would take for the decoder's refusal."""
    return dict(sorted(tags.items(), key=lambda kv: (kv[0] is not None, kv[0] or "")))


def subscription_json(
    info: SubscriptionInfo, wire=None, *, style: str = "kafka", wire_json: dict | None = None
) -> dict:
    """The model as JSON (see the module docstring); in ``kafka`` style with the wire view of that version:
    ``wire_json`` when the caller has it already (Kafka's JSON of the wire object), else ``to_json(wire)``."""
    if style != "kafka":  # snake_case (``snake``; ``native`` its older name)
        out: dict[str, Any] = {
            "version": info.version,
            "latest_supported_version": info.latest_supported_version,
            "process_id": str(info.process_id),
            "user_endpoint": info.user_endpoint,
            "task_offset_sums": {str(t): s for t, s in sorted(info.task_offset_sums.items())},
            "unique_field": info.unique_field,
            "error_code": info.error_code,
            "client_tags": _tags(info.client_tags),
        }
        if info.is_version_probe:
            out["version_probe"] = True
        return out
    out = {
        "version": info.version,
        "latestSupportedVersion": info.latest_supported_version,
        "processId": str(info.process_id),
        "userEndPoint": info.user_endpoint,
        "prevTasks": [_task_k(t) for t in sorted(info.prev_tasks)],
        "standbyTasks": [_task_k(t) for t in sorted(info.standby_tasks)],
        "taskOffsetSums": [{"taskId": _task_k(t), "offsetSum": s} for t, s in sorted(info.task_offset_sums.items())],
        "errorCode": info.error_code,
        "clientTags": _tags(info.client_tags),
        "uniqueField": info.unique_field,
    }
    if info.is_version_probe:
        out["futureVersion"] = True
    elif wire_json is not None:
        out["wire"] = wire_json
    elif wire is not None:
        out["wire"] = to_json(wire, "SubscriptionInfo", info.version, style="kafka")
    return out


def _get(d: dict, *keys, default=None):
    for k in keys:
        if k in d:
            return d[k]
    return default


def _int(v, path: str) -> int:
    """A JSON integer: ``true``, ``1.0`` and ``"1"`` are not integers (Kafka's JSON never writes them)."""
    if type(v) is not int:
        raise EncodeError(f"needs an integer, got {v!r}"[:200], path=path)
    return v


def _int_field(d: dict, *keys, default: int, path: str) -> int:
    v = _get(d, *keys)
    return default if v is None else _int(v, path)


def _list_field(d: dict, *keys, path: str) -> list:
    v = _get(d, *keys)
    if v is None:
        return []
    if not isinstance(v, list):
        raise EncodeError(f"needs a list, got {v!r}"[:200], path=path)
    return v


def _task_from(obj, path: str) -> TaskId:
    if isinstance(obj, str):
        try:
            return TaskId.parse(obj)
        except ValueError as e:
            raise EncodeError(str(e), path=path) from None
    if not isinstance(obj, dict):
        raise EncodeError(f"expected a task id, got {obj!r}", path=path)
    try:
        return TaskId(int(obj["subtopology"]), int(obj["partition"]), _get(obj, "topologyName", "topology_name"))
    except (KeyError, TypeError, ValueError):
        raise EncodeError(f"expected {{subtopology, partition, topologyName}}, got {obj!r}", path=path) from None


def _uuid(text, path: str) -> uuid.UUID:
    try:
        return parse_uuid(text) if text is not None else uuid.UUID(int=0)
    except (ValueError, AttributeError, TypeError):
        raise EncodeError(f"not a UUID: {text!r}", path=path) from None


def subscription_from_json(d: dict) -> SubscriptionInfo:
    """Read either style, and either of Kafka's ``data`` and ``decoded`` shapes. ``taskOffsetSums`` is the
    source of truth; the derived views (``prevTasks``, ``standbyTasks``, ``futureVersion``, ``wire``) are
    used only when it is absent, as Kafka's own constructor does."""
    if not isinstance(d, dict):
        raise EncodeError("a SubscriptionInfo must be a JSON object")
    version = _get(d, "version")
    if type(version) is not int:
        raise EncodeError("missing integer 'version'", path="version")
    raw_sums = _get(d, "taskOffsetSums", "task_offset_sums")
    sums: dict[TaskId, int] = {}
    if isinstance(raw_sums, dict):
        for k, v in raw_sums.items():
            sums[_task_from(k, f"task_offset_sums[{k}]")] = _int(v, f"task_offset_sums[{k}]")
    elif isinstance(raw_sums, list):
        for i, e in enumerate(raw_sums):
            if not isinstance(e, dict):
                raise EncodeError("expected {taskId, offsetSum}", path=f"task_offset_sums[{i}]")
            t = _task_from(_get(e, "taskId", "task_id"), f"task_offset_sums[{i}]")
            if t in sums:  # Kafka's model is a map: one offset sum per task
                raise EncodeError(f"task {t} appears twice", path=f"task_offset_sums[{i}]")
            sums[t] = _int(_get(e, "offsetSum", "offset_sum"), f"task_offset_sums[{i}].offset_sum")
    elif raw_sums is not None:
        raise EncodeError(f"needs a list or an object, got {raw_sums!r}"[:200], path="task_offset_sums")
    else:
        for i, t in enumerate(_list_field(d, "prevTasks", "prev_tasks", path="prev_tasks")):
            sums[_task_from(t, f"prev_tasks[{i}]")] = LATEST_OFFSET
        for i, t in enumerate(_list_field(d, "standbyTasks", "standby_tasks", path="standby_tasks")):
            sums[_task_from(t, f"standby_tasks[{i}]")] = UNKNOWN_OFFSET_SUM
    tags = _get(d, "clientTags", "client_tags", default={}) or {}
    if isinstance(tags, list):
        try:
            tags = {t["key"]: t["value"] for t in tags}
        except (KeyError, TypeError):
            raise EncodeError("expected client tags as [{key, value}]", path="client_tags") from None
    if not isinstance(tags, dict) or not all(isinstance(x, str) for kv in tags.items() for x in kv):
        raise EncodeError("expected client tags as {key: value} strings", path="client_tags")
    endpoint = _get(d, "userEndPoint", "user_endpoint")
    if endpoint is not None and not isinstance(endpoint, str):
        raise EncodeError(f"needs a string, got {endpoint!r}"[:200], path="user_endpoint")
    lsv = _int_field(
        d,
        "latestSupportedVersion",
        "latest_supported_version",
        default=UNKNOWN if version <= 2 else LATEST_SUPPORTED_VERSION,
        path="latest_supported_version",
    )
    return SubscriptionInfo(
        version=version,
        latest_supported_version=lsv,
        process_id=_uuid(_get(d, "processId", "process_id"), "process_id"),
        user_endpoint=endpoint or None,
        task_offset_sums=sums,
        unique_field=_int_field(d, "uniqueField", "unique_field", default=0, path="unique_field"),
        error_code=_int_field(d, "errorCode", "error_code", default=0, path="error_code"),
        client_tags=dict(tags),
    )


def _hosts_json(m) -> list[dict]:
    return [{"host": h.host, "port": h.port, "partitions": [_tp_k(p) for p in ps]} for h, ps in m.items()]


def assignment_json(info: _streams.AssignmentInfo, *, style: str = "kafka") -> dict:
    c = info.canonical()
    if style != "kafka":  # snake_case (``snake``; ``native`` its older name)
        return {
            "version": info.version,
            "commonly_supported_version": info.commonly_supported_version,
            "active_tasks": [str(t) for t in info.active_tasks],
            "standby_tasks": {str(t): [_tp_k(p) for p in ps] for t, ps in c.standby_tasks.items()},
            "partitions_by_host": _hosts_json(c.partitions_by_host),
            "standby_partitions_by_host": _hosts_json(c.standby_partitions_by_host),
            "error_code": info.error_code,
            "next_rebalance_ms": info.next_rebalance_ms,
        }
    return {
        "version": info.version,
        "commonlySupportedVersion": info.commonly_supported_version,
        "activeTasks": [_task_k(t) for t in info.active_tasks],
        "standbyTasks": [
            {"taskId": _task_k(t), "partitions": [_tp_k(p) for p in ps]} for t, ps in c.standby_tasks.items()
        ],
        "partitionsByHost": _hosts_json(c.partitions_by_host),
        "standbyPartitionsByHost": _hosts_json(c.standby_partitions_by_host),
        "errCode": info.error_code,
        "nextRebalanceMs": info.next_rebalance_ms,
    }


def _parts(items, path) -> tuple[TopicPartition, ...]:
    try:
        return tuple(TopicPartition(p["topic"], int(p["partition"])) for p in items or ())
    except (KeyError, TypeError, ValueError):
        raise EncodeError("expected partitions as [{topic, partition}]", path=path) from None


def _hosts(items, path) -> dict[HostInfo, tuple[TopicPartition, ...]]:
    if items is not None and not isinstance(items, list):
        raise EncodeError(f"needs a list, got {items!r}"[:200], path=path)
    out = {}
    for i, h in enumerate(items or ()):
        try:
            host = HostInfo(h["host"], _int(h["port"], f"{path}[{i}].port"))
            parts = _parts(h.get("partitions"), f"{path}[{i}].partitions")
        except (KeyError, TypeError, AttributeError):
            raise EncodeError("expected hosts as [{host, port, partitions}]", path=f"{path}[{i}]") from None
        if host in out:  # Kafka's model is a map: a host appears once
            raise EncodeError(f"host {host.host}:{host.port} appears twice", path=f"{path}[{i}]")
        out[host] = parts
    return out


def assignment_from_json(d: dict) -> _streams.AssignmentInfo:
    from .assignment import AssignmentInfo  # (here: a subscription's decode does not load this module)

    """Read either style (Kafka's ``data``/``decoded`` shape or the native one)."""
    if not isinstance(d, dict):
        raise EncodeError("an AssignmentInfo must be a JSON object")
    version = _get(d, "version")
    if type(version) is not int:
        raise EncodeError("missing integer 'version'", path="version")
    standby_raw = _get(d, "standbyTasks", "standby_tasks", default=[]) or []
    if not isinstance(standby_raw, (dict, list)):
        raise EncodeError(f"needs a list, got {standby_raw!r}"[:200], path="standby_tasks")
    if isinstance(standby_raw, dict):
        standby = {
            _task_from(k, f"standby_tasks[{k}]"): _parts(v, f"standby_tasks[{k}]") for k, v in standby_raw.items()
        }
    else:
        standby = {
            _task_from(_get(e, "taskId", "task_id"), f"standby_tasks[{i}]"): _parts(
                e.get("partitions"), f"standby_tasks[{i}]"
            )
            for i, e in enumerate(standby_raw)
        }
    return AssignmentInfo(
        version=version,
        commonly_supported_version=_int_field(
            d,
            "commonlySupportedVersion",
            "commonly_supported_version",
            default=UNKNOWN if version <= 2 else LATEST_SUPPORTED_VERSION,
            path="commonly_supported_version",
        ),
        active_tasks=tuple(
            _task_from(t, f"active_tasks[{i}]")
            for i, t in enumerate(_list_field(d, "activeTasks", "active_tasks", path="active_tasks"))
        ),
        standby_tasks=standby,
        partitions_by_host=_hosts(_get(d, "partitionsByHost", "partitions_by_host"), "partitions_by_host"),
        standby_partitions_by_host=_hosts(
            _get(d, "standbyPartitionsByHost", "standby_partitions_by_host"), "standby_partitions_by_host"
        ),
        error_code=_int_field(d, "errCode", "error_code", default=0, path="error_code"),
        next_rebalance_ms=_int_field(
            d, "nextRebalanceMs", "next_rebalance_ms", default=NO_REBALANCE, path="next_rebalance_ms"
        ),
    )
