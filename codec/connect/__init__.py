"""Kafka Connect's group protocol: a worker's JoinGroup metadata and its SyncGroup assignment, versions 0-2
(``ConnectProtocol``, protocol ``default``; ``IncrementalCooperativeConnectProtocol``, ``compatible`` and
``sessioned``), read as Kafka's two deserializers read them."""

from .assignment import (
    EMPTY_ASSIGNMENT,
    ConnectAssignment,
    ConnectorTaskId,
    DecodedConnectAssignment,
    connect_assignment_from_wire,
    connect_assignment_to_wire,
    decode_connect_assignment,
    encode_connect_assignment,
)
from .common import java_hash_set_order
from .constants import (
    COMPATIBILITY_PROTOCOLS,
    CONNECT_PROTOCOL_V0,
    CONNECT_PROTOCOL_V1,
    CONNECT_PROTOCOL_V2,
    CONNECTOR_TASK,
    LATEST_VERSION,
    PROTOCOL_NAMES,
    PROTOCOL_TYPE,
    ConnectError,
    protocol_name,
    protocol_version,
)
from .jsonview import (
    connect_assignment_from_json,
    connect_assignment_json,
    connect_metadata_from_json,
    connect_metadata_json,
)
from .metadata import ConnectMetadata, DecodedConnectMetadata, decode_connect_metadata, encode_connect_metadata

__all__ = [
    "ConnectMetadata",
    "DecodedConnectMetadata",
    "decode_connect_metadata",
    "encode_connect_metadata",
    "ConnectAssignment",
    "DecodedConnectAssignment",
    "ConnectorTaskId",
    "EMPTY_ASSIGNMENT",
    "decode_connect_assignment",
    "encode_connect_assignment",
    "connect_assignment_to_wire",
    "connect_assignment_from_wire",
    "connect_metadata_json",
    "connect_metadata_from_json",
    "connect_assignment_json",
    "connect_assignment_from_json",
    "java_hash_set_order",
    "ConnectError",
    "CONNECT_PROTOCOL_V0",
    "CONNECT_PROTOCOL_V1",
    "CONNECT_PROTOCOL_V2",
    "LATEST_VERSION",
    "CONNECTOR_TASK",
    "PROTOCOL_TYPE",
    "PROTOCOL_NAMES",
    "COMPATIBILITY_PROTOCOLS",
    "protocol_name",
    "protocol_version",
]
