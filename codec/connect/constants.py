"""Kafka Connect group-protocol constants (``ConnectProtocol``, ``IncrementalCooperativeConnectProtocol``,
``ConnectProtocolCompatibility`` at Kafka 1eb7644)."""

from __future__ import annotations

from enum import IntEnum

__all__ = [
    "CONNECT_PROTOCOL_V0",
    "CONNECT_PROTOCOL_V1",
    "CONNECT_PROTOCOL_V2",
    "LATEST_VERSION",
    "CONNECTOR_TASK",
    "PROTOCOL_TYPE",
    "PROTOCOL_NAMES",
    "PROTOCOL_VERSIONS",
    "COMPATIBILITY_PROTOCOLS",
    "ConnectError",
    "protocol_version",
    "protocol_name",
    "reader_name",
    "MAX_TASKS",
    "MAX_NAME_CHARS",
]

CONNECT_PROTOCOL_V0 = 0  # ConnectProtocol, group protocol "default" (eager rebalancing)
CONNECT_PROTOCOL_V1 = 1  # IncrementalCooperativeConnectProtocol, "compatible" (KIP-415, Kafka 2.3)
CONNECT_PROTOCOL_V2 = 2  # IncrementalCooperativeConnectProtocol, "sessioned" (KIP-507, Kafka 2.4)
LATEST_VERSION = CONNECT_PROTOCOL_V2

#: The task id that stands for the connector itself in a connector's group of task ids.
CONNECTOR_TASK = -1

#: The most tasks a Connect group may have in one ``assign --connect`` round or one ``simulate`` scenario,
#: and the most characters of names its assignments may repeat: a connector's name once for each of its tasks,
#: the leader's id and URL once for each worker (``codec.budget``: one clear error line beyond, so that a
#: short input cannot ask for a huge output).
MAX_TASKS, MAX_NAME_CHARS = 10_000, 512 * 1024

#: JoinGroup's protocol type of a Connect group.
PROTOCOL_TYPE = "connect"

#: Protocol version -> the JoinGroup protocol name that carries it (``ConnectProtocolCompatibility.protocol()``).
PROTOCOL_NAMES = {CONNECT_PROTOCOL_V0: "default", CONNECT_PROTOCOL_V1: "compatible", CONNECT_PROTOCOL_V2: "sessioned"}
PROTOCOL_VERSIONS = {name: v for v, name in PROTOCOL_NAMES.items()}

#: ``connect.protocol`` -> the protocols a worker sends in its JoinGroup, most preferred first
#: (``metadataRequest`` of ConnectProtocol and IncrementalCooperativeConnectProtocol).
COMPATIBILITY_PROTOCOLS = {
    "eager": ("default",),
    "compatible": ("compatible", "default"),
    "sessioned": ("sessioned", "compatible", "default"),
}


class ConnectError(IntEnum):
    """``ConnectProtocol.Assignment`` error codes."""

    NO_ERROR = 0
    """The assignment applies."""
    CONFIG_MISMATCH = 1
    """The leader could not reconcile the workers' config offsets: the worker reads to the end of the config
    topic and rejoins."""


def protocol_version(name: str) -> int:
    """The version of a JoinGroup protocol name (``ConnectProtocolCompatibility.fromProtocol``, ignoring case)."""
    for v, n in PROTOCOL_NAMES.items():
        if n.lower() == str(name).lower():
            return v
    raise ValueError(f"not a Connect protocol: {name!r} (known: {', '.join(PROTOCOL_NAMES.values())})")


def protocol_name(version: int) -> str | None:
    """The JoinGroup protocol name of a version, or None for a version no Kafka release writes."""
    return PROTOCOL_NAMES.get(version)


def reader_name(reader_version: int) -> str:
    """Which of Kafka's deserializers a reader of that version is."""
    if reader_version == CONNECT_PROTOCOL_V0:
        return "ConnectProtocol"
    return "IncrementalCooperativeConnectProtocol"
