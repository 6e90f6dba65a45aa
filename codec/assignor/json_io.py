"""JSON group descriptions in and assignment results out (assignor README, issue #6).

Input keys are Kafka's camelCase names; configs default to Kafka's (§8). Only the rack-aware
strategy ``none`` is accepted: the min-cost-flow optimizations are not implemented.
"""

from __future__ import annotations

from typing import Any, Mapping

from codec.cliutil import kafka_int
from codec.types import TaskId, parse_uuid

from .model import AssignmentConfigs, AssignmentError, AssignmentResult, ClientSpec, GroupDescription, TaskSpec

__all__ = ["group_from_json", "result_to_json", "configs_from_json"]

_CONFIG_KEYS = {
    "acceptableRecoveryLag": "acceptable_recovery_lag",
    "maxWarmupReplicas": "max_warmup_replicas",
    "numStandbyReplicas": "num_standby_replicas",
    "probingRebalanceIntervalMs": "probing_rebalance_interval_ms",
    "rackAwareAssignmentTags": "rack_aware_assignment_tags",
}
_IGNORED_CONFIG_KEYS = {"rackAwareAssignmentStrategy", "rackAwareTrafficCost", "rackAwareNonOverlapCost"}
_GROUP_KEYS = {"assignor", "configs", "tasks", "endOffsetSums", "clients", "nowMs"}
_CLIENT_KEYS = {"processId", "capacity", "clientTags", "prevActive", "prevStandby", "taskOffsetSums", "taskLags"}


#: Kafka's types of the configs (StreamsConfig's ConfigDef: INT or LONG).
_CONFIG_TYPES = {
    "acceptableRecoveryLag": "LONG",
    "maxWarmupReplicas": "INT",
    "numStandbyReplicas": "INT",
    "probingRebalanceIntervalMs": "LONG",
}


def _int(value: Any, where: str, kind: str = "LONG") -> int:
    """An integer of Kafka's type ``kind`` (offsets, lags and clocks are longs), or one error naming ``where``."""
    try:
        return kafka_int(value, where, kind)
    except ValueError as e:
        raise AssignmentError(str(e)) from None


def _task(text: Any, where: str) -> TaskId:
    if not isinstance(text, str):
        raise AssignmentError(f'{where}: expected a task id string like "0_1", got {text!r}')
    try:
        return TaskId.parse(text)
    except ValueError as e:
        raise AssignmentError(f"{where}: {e}") from None


def _task_map(m: Any, where: str) -> dict[TaskId, int]:
    if not isinstance(m, Mapping):
        raise AssignmentError(f"{where}: expected an object of task id -> integer")
    return {_task(k, where): _int(v, f"{where}[{k}]") for k, v in m.items()}


def _unknown(obj: Mapping, allowed: set[str], where: str) -> None:
    extra = sorted(set(obj) - allowed)
    if extra:
        raise AssignmentError(f"{where}: unknown key(s) {', '.join(extra)}")


def configs_from_json(raw: Any) -> AssignmentConfigs:
    """The ``configs`` object of a group description, with Kafka's defaults for what it omits."""
    if raw is None:
        return AssignmentConfigs()
    if not isinstance(raw, Mapping):
        raise AssignmentError("configs: expected an object")
    _unknown(raw, set(_CONFIG_KEYS) | _IGNORED_CONFIG_KEYS, "configs")
    strategy = raw.get("rackAwareAssignmentStrategy", "none")
    if strategy != "none":
        raise AssignmentError(f'configs.rackAwareAssignmentStrategy {strategy!r} is not supported (only "none")')
    kwargs: dict[str, Any] = {}
    for key, attr in _CONFIG_KEYS.items():
        if key in raw:
            if key == "rackAwareAssignmentTags":
                tags = raw[key]
                if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
                    raise AssignmentError("configs.rackAwareAssignmentTags: expected a list of strings")
                kwargs[attr] = tuple(tags)
            else:
                kwargs[attr] = _int(raw[key], f"configs.{key}", _CONFIG_TYPES[key])
    return AssignmentConfigs(**kwargs)


def _client(raw: Any, i: int) -> ClientSpec:
    where = f"clients[{i}]"
    if not isinstance(raw, Mapping):
        raise AssignmentError(f"{where}: expected an object")
    _unknown(raw, _CLIENT_KEYS, where)
    try:
        pid = parse_uuid(raw["processId"])
    except KeyError:
        raise AssignmentError(f"{where}.processId: expected a UUID string") from None
    except ValueError as e:
        raise AssignmentError(f"{where}.processId: {e}") from None
    tags = raw.get("clientTags", {})
    if not isinstance(tags, Mapping) or not all(isinstance(k, str) and isinstance(v, str) for k, v in tags.items()):
        raise AssignmentError(f"{where}.clientTags: expected an object of strings")
    lists = {}
    for key in ("prevActive", "prevStandby"):
        value = raw.get(key, [])
        if not isinstance(value, list):
            raise AssignmentError(f"{where}.{key}: expected a list of task ids")
        lists[key] = frozenset(_task(t, f"{where}.{key}") for t in value)
    return ClientSpec(
        process_id=pid,
        capacity=_int(raw.get("capacity", 1), f"{where}.capacity", "INT"),
        client_tags=dict(tags),
        prev_active=lists["prevActive"],
        prev_standby=lists["prevStandby"],
        task_offset_sums=(
            _task_map(raw["taskOffsetSums"], f"{where}.taskOffsetSums") if "taskOffsetSums" in raw else None
        ),
        task_lags=_task_map(raw["taskLags"], f"{where}.taskLags") if "taskLags" in raw else None,
    )


def _tasks(raw: Any) -> tuple[TaskSpec, ...]:
    if not isinstance(raw, list):
        raise AssignmentError("tasks: expected a list")
    out = []
    for i, t in enumerate(raw):
        if not isinstance(t, Mapping):
            raise AssignmentError(f"tasks[{i}]: expected an object")
        _unknown(t, {"subtopology", "partition", "stateful", "topology"}, f"tasks[{i}]")
        stateful = t.get("stateful", False)
        if not isinstance(stateful, bool):
            raise AssignmentError(f"tasks[{i}].stateful: expected true or false")
        out.append(
            TaskSpec(
                TaskId(
                    _int(t.get("subtopology"), f"tasks[{i}].subtopology", "INT"),
                    _int(t.get("partition"), f"tasks[{i}].partition", "INT"),
                    t.get("topology"),
                ),
                stateful,
            )
        )
    return tuple(out)


def group_from_json(doc: Any) -> GroupDescription:
    """Parse a group description (an already decoded JSON value); raises :class:`AssignmentError`."""
    if not isinstance(doc, Mapping):
        raise AssignmentError("group description: expected a JSON object")
    _unknown(doc, _GROUP_KEYS, "group description")
    clients = doc.get("clients")
    if not isinstance(clients, list):
        raise AssignmentError("clients: expected a list")
    return GroupDescription(
        assignor=doc.get("assignor", "high_availability"),
        configs=configs_from_json(doc.get("configs")),
        tasks=_tasks(doc.get("tasks", [])),
        end_offset_sums=_task_map(doc.get("endOffsetSums", {}), "endOffsetSums"),
        clients=tuple(_client(c, i) for i, c in enumerate(clients)),
    )


def result_to_json(result: AssignmentResult) -> dict[str, Any]:
    """``{"probingRebalanceNeeded", "clients": [{"processId", "active", "standby", "warmup"}]}``."""
    return {
        "probingRebalanceNeeded": result.probing_rebalance_needed,
        "clients": [
            {
                "processId": str(c.process_id),
                "active": [str(t) for t in c.active],
                "standby": [str(t) for t in c.standby],
                "warmup": [str(t) for t in c.warmup],
            }
            for c in result.clients
        ],
    }
