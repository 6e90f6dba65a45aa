"""A Connect group as JSON for the assignors (:mod:`codec.assignor.connect`), and a round's result as JSON: the
shapes a command-line ``assign`` and a simulator can pass around, one round at a time.

Input (keys in Kafka's camelCase; only ``connectors`` and ``workers`` are required)::

    {"protocol": "sessioned",                 # default | compatible | sessioned, or 0 | 1 | 2
     "leader": "w1",                          # default: the first worker
     "connectors": {"c1": 4, "c2": 2},        # name -> task count (the leader's config snapshot)
     "workers": [                             # in the JoinGroup response's order
        {"memberId": "w1", "url": "http://w1:8083", "configOffset": 7,
         "allocation": {"connectorIds": ["c1"], "taskIds": [{"connector": "c1", "task": 0}]}},
        {"memberId": "w2", "metadata": "0002..."}],   # or the JoinGroup metadata bytes as hex
     "now": 1000,                             # the leader's clock, ms
     "scheduledRebalanceMaxDelayMs": 300000,
     "state": null,                           # the previous round's "state"; null: a leader with no memory
     "generationId": 5, "lastCompletedGenerationId": 4, "leaderFreshOffset": 7}   # optional

A worker's ``allocation`` takes either JSON style of a Connect assignment (as ``decode --kind
connect-assignment`` prints it); null or missing is Kafka's empty assignment.

Output: ``protocol``, ``leader``, ``configOffset``, ``error``, ``delay``, ``assignments`` (member -> the
assignment in Kafka's JSON style), ``running`` (member -> ``connectorIds``/``taskIds`` the leader counts it
running afterwards), ``state`` (for the next round; null from the eager assignor) and, when asked, ``bytes``
(member -> the SyncGroup assignment as hex, Kafka's bytes).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..connect.assignment import ConnectorTaskId
from .connect import (
    DEFAULT_MAX_DELAY_MS,
    ConnectAssignResult,
    ConnectWorker,
    IncrementalAssignorState,
    assign_connect,
)
from ..cliutil import kafka_int
from ..connect.constants import MAX_NAME_CHARS, MAX_TASKS, PROTOCOL_VERSIONS
from ..connect.jsonview import connect_assignment_from_json, connect_assignment_json
from ..connect.metadata import decode_connect_metadata

__all__ = ["connect_group_from_json", "connect_result_json", "run_connect_group_json"]

_KEYS = {
    "protocol",
    "leader",
    "connectors",
    "workers",
    "now",
    "scheduledRebalanceMaxDelayMs",
    "state",
    "generationId",
    "lastCompletedGenerationId",
    "leaderFreshOffset",
}
_WORKER_KEYS = {"memberId", "url", "configOffset", "allocation", "metadata"}


def _int(obj: Mapping, key: str, default=None, *, kind: str = "INT", minimum: int | None = None, where: str = ""):
    """An integer of the group JSON, of Kafka's type for it (``INT``, ``LONG``): one ValueError naming the key."""
    v = obj.get(key, default)
    if v is None and default is None:
        return None
    return kafka_int(v, f"{where}{key}", kind, minimum)


def connect_group_from_json(obj: Any) -> dict[str, Any]:
    """The keyword arguments of :func:`codec.assignor.connect.assign_connect` (with ``protocol``, ``leader``,
    ``workers``, ``connectors``) from the JSON above; a ValueError names the key at fault (an
    :class:`~codec.errors.CodecError` the allocation or metadata at fault)."""
    if not isinstance(obj, Mapping):
        raise ValueError("a Connect group must be a JSON object")
    for k in obj:
        if k not in _KEYS:
            raise ValueError(f"unknown key {k!r} (known: {', '.join(sorted(_KEYS))})")
    protocol = obj.get("protocol", "sessioned")
    if isinstance(protocol, str):
        if protocol.lower() not in PROTOCOL_VERSIONS:
            raise ValueError(f"protocol must be one of {', '.join(PROTOCOL_VERSIONS)}, not {protocol!r}")
        protocol = PROTOCOL_VERSIONS[protocol.lower()]
    elif isinstance(protocol, bool) or protocol not in (0, 1, 2):
        raise ValueError(f"protocol must be default, compatible, sessioned or 0-2, not {protocol!r}")
    connectors = obj.get("connectors")
    if not isinstance(connectors, Mapping):
        raise ValueError("connectors must be an object: connector name -> task count")
    for name, count in connectors.items():
        if isinstance(count, bool) or not isinstance(count, int) or not 0 <= count <= MAX_TASKS:
            raise ValueError(f"connectors.{name} must be a task count (an integer 0..{MAX_TASKS}), not {count!r}"[:300])
    if sum(connectors.values()) > MAX_TASKS:
        raise ValueError(f"at most {MAX_TASKS:,} tasks in all (codec.connect.constants.MAX_TASKS, as for simulate)")
    raw_workers = obj.get("workers")
    if not isinstance(raw_workers, list) or not raw_workers:
        raise ValueError("workers must be a non-empty list")
    workers = [_worker(w, i) for i, w in enumerate(raw_workers)]
    leader = obj.get("leader", workers[0].member_id)
    if not isinstance(leader, str):
        raise ValueError(f"leader must be a member id, not {leader!r}")
    _names_bound(connectors, workers, leader)
    state = obj.get("state")
    return {
        "protocol": protocol,
        "leader": leader,
        "workers": workers,
        "connectors": dict(connectors),
        "now": _int(obj, "now", 0, kind="LONG"),
        "max_delay": _int(obj, "scheduledRebalanceMaxDelayMs", DEFAULT_MAX_DELAY_MS, minimum=0),
        "state": None if state is None else IncrementalAssignorState.from_json(state),
        "generation_id": _int(obj, "generationId"),
        "last_completed_generation_id": _int(obj, "lastCompletedGenerationId"),
        "leader_fresh_offset": _int(obj, "leaderFreshOffset", kind="LONG"),
    }


def _names_bound(connectors: Mapping[str, int], workers: list[ConnectWorker], leader: str) -> None:
    """The names the round's assignments repeat (a connector's for each of its tasks, the leader's id and URL
    for each worker) at most :data:`MAX_NAME_CHARS` characters in all, so that the output stays bounded."""
    url = next((w.url for w in workers if w.member_id == leader), "")
    repeated = sum(len(c) * n for c, n in connectors.items()) + len(workers) * (len(leader) + len(url or ""))
    if repeated > MAX_NAME_CHARS:
        raise ValueError(
            f"the assignments would repeat {repeated:,} characters of names (each connector's for "
            f"each of its tasks, the leader's id and URL for each worker): at most {MAX_NAME_CHARS:,} "
            "(codec.connect.constants.MAX_NAME_CHARS)"
        )


def _worker(w: Any, i: int) -> ConnectWorker:
    where = f"workers[{i}]."
    if not isinstance(w, Mapping):
        raise ValueError(f"workers[{i}] must be an object")
    for k in w:
        if k not in _WORKER_KEYS:
            raise ValueError(f"{where}{k}: unknown key (known: {', '.join(sorted(_WORKER_KEYS))})")
    member = w.get("memberId")
    if not isinstance(member, str):
        raise ValueError(f"{where}memberId must be a string")
    if "metadata" in w:
        if set(w) - {"memberId", "metadata"}:
            raise ValueError(f"{where}metadata comes alone: url, configOffset and allocation are in its bytes")
        try:
            raw = bytes.fromhex(w["metadata"])
        except (TypeError, ValueError):
            raise ValueError(f"{where}metadata must be hex") from None
        return ConnectWorker.from_metadata(member, decode_connect_metadata(raw, reader_version=1))
    url = w.get("url", "")
    if not isinstance(url, str):
        raise ValueError(f"{where}url must be a string")
    offset = _int(w, "configOffset", 0, kind="LONG", where=where)
    allocation = w.get("allocation")
    assignment = (
        None if allocation is None else connect_assignment_from_json(allocation, path=f"workers[{i}].allocation")
    )
    return ConnectWorker(member, url, offset, assignment)


def _tasks(ts: tuple[ConnectorTaskId, ...]) -> list[dict]:
    return [{"connector": t.connector, "task": t.task} for t in ts]


def connect_result_json(result: ConnectAssignResult, *, include_bytes: bool = False, java_order: bool = True) -> dict:
    """A round's result as JSON (the output above)."""
    out = {
        "protocol": result.protocol,
        "leader": result.leader,
        "configOffset": result.config_offset,
        "error": int(result.error),
        "delay": result.delay,
        "assignments": {m: connect_assignment_json(a, style="kafka") for m, a in result.assignments.items()},
        "running": {m: {"connectorIds": list(c), "taskIds": _tasks(t)} for m, (c, t) in result.running.items()},
        "state": result.state.to_json() if result.state is not None else None,
    }
    if include_bytes:
        out["bytes"] = {m: raw.hex() for m, raw in result.encoded(java_order=java_order).items()}
    return out


def run_connect_group_json(obj: Any, *, include_bytes: bool = False) -> dict:
    """One round from the group JSON to the result JSON."""
    kw = connect_group_from_json(obj)
    protocol, leader, workers, connectors = (kw.pop(k) for k in ("protocol", "leader", "workers", "connectors"))
    return connect_result_json(assign_connect(protocol, leader, workers, connectors, **kw), include_bytes=include_bytes)
