"""Version negotiation: group protocol selection, API version choice, Streams version probing, Kafka Connect's
``connect.protocol``."""

from .api_versions import GROUP_APIS, ApiChoice, choose_api_versions, header_versions
from .connect import (
    CONNECT_MODES,
    ConnectSelection,
    connect_mode,
    join_group_protocols,
    select_connect_protocol,
    worker_protocols,
)
from .probing import (
    FUTURE_VERSION,
    RELEASES,
    LeaderDecision,
    MemberReaction,
    RoundResult,
    StreamsInstance,
    initial_used_version,
    leader_assign,
    release_latest,
    run_rounds,
)
from .protocol import (
    INCONSISTENT_GROUP_PROTOCOL,
    GroupMember,
    ProtocolSelectionError,
    Selection,
    java_hashmap_order,
    java_string_hash,
    select_protocol,
)

__all__ = [
    "GROUP_APIS",
    "ApiChoice",
    "choose_api_versions",
    "header_versions",
    "FUTURE_VERSION",
    "RELEASES",
    "LeaderDecision",
    "MemberReaction",
    "RoundResult",
    "StreamsInstance",
    "initial_used_version",
    "leader_assign",
    "release_latest",
    "run_rounds",
    "INCONSISTENT_GROUP_PROTOCOL",
    "GroupMember",
    "ProtocolSelectionError",
    "Selection",
    "java_hashmap_order",
    "java_string_hash",
    "select_protocol",
    "CONNECT_MODES",
    "ConnectSelection",
    "connect_mode",
    "join_group_protocols",
    "select_connect_protocol",
    "worker_protocols",
]
