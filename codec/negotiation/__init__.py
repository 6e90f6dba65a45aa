"""Version negotiation: group protocol selection, API version choice, Streams version probing."""

from .api_versions import GROUP_APIS, ApiChoice, choose_api_versions, header_versions
from .probing import (FUTURE_VERSION, RELEASES, LeaderDecision, MemberReaction, RoundResult, StreamsInstance,
                      initial_used_version, leader_assign, release_latest, run_rounds)
from .protocol import (INCONSISTENT_GROUP_PROTOCOL, GroupMember, ProtocolSelectionError, Selection,
                       java_hashmap_order, java_string_hash, select_protocol)

__all__ = [
    "GROUP_APIS", "ApiChoice", "choose_api_versions", "header_versions", "FUTURE_VERSION", "RELEASES",
    "LeaderDecision", "MemberReaction", "RoundResult", "StreamsInstance", "initial_used_version",
    "leader_assign", "release_latest", "run_rounds", "INCONSISTENT_GROUP_PROTOCOL", "GroupMember",
    "ProtocolSelectionError", "Selection", "java_hashmap_order", "java_string_hash", "select_protocol",
]
