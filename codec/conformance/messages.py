"""What the conformance runner knows about each message: its CLI kind, and which of its collections are
unordered (Kafka writes them in Java HashMap/HashSet order, so no implementation can be asked to match
their order; vectors/README.md lists them)."""

from __future__ import annotations

from typing import Any, Callable

from .. import text as _text
from ..catalog import kinds

__all__ = ["DATA_MAPS", "MESSAGES", "flatten_layers", "kind_of", "normalize", "first_difference", "short_json"]

# message name (as in the vectors) -> CLI kind: every kind that reads a message, as the kinds' registry lists them
# (codec.catalog: a family's own kinds, then one for each schema message Kafka writes with its generated classes)
MESSAGES: dict[str, str] = {k.message: k.name for k in kinds() if k.message is not None}

# message family -> vector file in vectors/


def kind_of(message: str) -> str:
    try:
        return MESSAGES[message]
    except KeyError:
        raise KeyError(f"unknown message {message!r}; known: {', '.join(MESSAGES)}") from None


def _sorted(items):
    return sorted(items, key=lambda x: _text.dumps(x, sort_keys=True))


def _subscription(v: dict) -> dict:
    v = dict(v)
    for k in ("taskOffsetSums", "prevTasks", "standbyTasks"):
        if isinstance(v.get(k), list):
            v[k] = _sorted(v[k])
    return v


def _assignment(v: dict) -> dict:
    v = dict(v)
    for k in ("standbyTasks", "partitionsByHost", "standbyPartitionsByHost"):
        if isinstance(v.get(k), list):
            v[k] = _sorted(_with_sorted_partitions(e) for e in v[k])
    return v


def _with_sorted_partitions(entry: Any) -> Any:
    """A task's or host's entry with its partitions sorted (none: an empty list); any other shape as it is, for
    the comparison to report (an adapter's reply may hold anything)."""
    if not isinstance(entry, dict):
        return entry
    partitions = entry.get("partitions", [])
    return {**entry, "partitions": _sorted(partitions) if isinstance(partitions, list) else partitions}


def _connect_assignment(v: dict) -> dict:
    """Kafka groups the assigned connectors in HashSet order: compare them as a set, and the tasks as the task
    list of each connector (their order inside a connector is kept; the connectors' order is not). The revoked
    ones keep their order: Kafka's ``revokedAsMap`` groups them in the order given (a ``LinkedHashMap``)."""
    v = dict(v)
    if isinstance(v.get("connectorIds"), list):
        v["connectorIds"] = _sorted(v["connectorIds"])
    if isinstance(v.get("taskIds"), list):
        v["taskIds"] = sorted(v["taskIds"], key=lambda t: _text.dumps(t.get("connector") if isinstance(t, dict) else t))
    return v


def _connect_metadata(v: dict) -> dict:
    v = dict(v)
    if isinstance(v.get("allocation"), dict):
        v["allocation"] = _connect_assignment(v["allocation"])
    return v


def flatten_layers(v: Any) -> Any:
    """A frame's carried layers (``{"layer": ..., "bytes": ..., "value" or "error": ...}``, what the built-in
    codec writes for a bytes field it decoded further) as their bytes, which Kafka's JSON shape has there."""
    if isinstance(v, dict):
        if "layer" in v and "bytes" in v:
            return v["bytes"]
        return {k: flatten_layers(x) for k, x in v.items()}
    if isinstance(v, list):
        return [flatten_layers(x) for x in v]
    return v


_NORMALIZERS: dict[str, Callable[[dict], dict]] = {
    "SubscriptionInfo": _subscription,
    "AssignmentInfo": _assignment,
    "ConnectAssignment": _connect_assignment,
    "ConnectMetadata": _connect_metadata,
    "RequestFrame": flatten_layers,
    "ResponseFrame": flatten_layers,
}


def normalize(message: str, value: Any) -> Any:
    """The value with its unordered collections sorted and, in a frame, carried layers as their bytes
    (identity for messages whose order is fixed)."""
    f = _NORMALIZERS.get(message)
    return f(value) if f and isinstance(value, dict) else value


# Maps whose keys are data, not field names: a flexible struct's unknown tagged fields (tag -> hex) and
# SubscriptionInfo's client tags. They are compared whole, and one ``expected`` does not name is an empty one: a
# reader that adds a tag of its own to every struct has read something that is not in the bytes.
DATA_MAPS = ("_unknownTaggedFields", "clientTags")


def first_difference(expected: Any, actual: Any, path: str = "$") -> str | None:
    """The first place where ``actual`` does not match ``expected`` (fields ``expected`` does not name are
    not compared, except the maps of :data:`DATA_MAPS`, which are compared whole), as ``path: expected X, got
    Y``; None when they match. Numbers are compared with their JSON type: ``1`` is not ``1.0``, nor ``true``."""
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return f"{path}: expected an object, got {short_json(actual)}"
        for k, v in expected.items():
            if k not in actual:
                return f"{path}.{k}: missing (expected {short_json(v)})"
            d = _map_difference(v, actual[k], f"{path}.{k}") if k in DATA_MAPS else None
            d = d or first_difference(v, actual[k], f"{path}.{k}")
            if d:
                return d
        for k in DATA_MAPS:
            if k not in expected and actual.get(k):
                return f"{path}.{k}: expected none, got {short_json(actual[k])}"
        return None
    if isinstance(expected, list):
        if not isinstance(actual, list):
            return f"{path}: expected a list, got {short_json(actual)}"
        for i, (e, a) in enumerate(zip(expected, actual)):
            d = first_difference(e, a, f"{path}[{i}]")
            if d:
                return d
        if len(expected) != len(actual):
            return f"{path}: expected {len(expected)} elements, got {len(actual)}"
        return None
    if isinstance(expected, (int, float)) or isinstance(actual, (int, float)):  # JSON true is not 1, 1.0 is not 1
        same = type(expected) is type(actual) and expected == actual
    else:
        same = expected == actual
    return None if same else f"{path}: expected {short_json(expected)}, got {short_json(actual)}"


def _map_difference(expected: Any, actual: Any, path: str) -> str | None:
    """A key one map of :data:`DATA_MAPS` has and the other has not (their values are compared after)."""
    if not isinstance(expected, dict) or not isinstance(actual, dict):
        return None
    extra = sorted(set(actual) - set(expected))
    return f"{path}.{extra[0]}: not expected (got {short_json(actual[extra[0]])})" if extra else None


def short_json(v: Any) -> str:
    """``v`` as JSON, cut to 80 characters: a value quoted in a message."""
    s = _text.dumps(v)
    return s if len(s) <= 80 else s[:77] + "..."
