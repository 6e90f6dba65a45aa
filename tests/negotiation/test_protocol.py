"""Group protocol selection (seed 004) and API version choice."""

from __future__ import annotations

import pytest

from codec.negotiation import (
    INCONSISTENT_GROUP_PROTOCOL,
    GroupMember,
    ProtocolSelectionError,
    choose_api_versions,
    java_hashmap_order,
    java_string_hash,
    select_protocol,
)

RR0, RR1 = "round-robin-0", "round-robin-1"


def test_seed_rolling_upgrade_phases():
    """Seed 004, phases 1-4: (round-robin, 0) until every member supports (round-robin, 1)."""
    old = (RR0,)
    new = (RR1, RR0)
    phases = [
        ([old, old, old], RR0),  # phase 1
        ([new, old, old], RR0),  # phase 2: A upgraded
        ([new, new, old], RR0),  # phase 3: B too; still must be supported by all
        ([new, new, new], RR1),  # phase 4: C upgraded, the group moves on
    ]
    for protocols, expected in phases:
        members = [GroupMember(name, p) for name, p in zip("ABC", protocols)]
        assert select_protocol(members).protocol == expected


def test_majority_vote_among_common_protocols():
    members = [GroupMember("A", ("x", "y")), GroupMember("B", ("y", "x")), GroupMember("C", ("y", "x", "z"))]
    sel = select_protocol(members)
    assert sel.protocol == "y" and sel.votes == {"x": 1, "y": 2} and sel.tie == ()


def test_tie_break_follows_java_hashmap_order():
    # "a".hashCode() = 97 -> bucket 1, "b".hashCode() = 98 -> bucket 2 of a 16-slot table: "a" iterates
    # first and Stream.max keeps the first maximal entry, so "a" wins although the first member voted "b".
    members = [GroupMember("A", ("b", "a")), GroupMember("B", ("a", "b"))]
    sel = select_protocol(members)
    assert sel.protocol == "a" and set(sel.tie) == {"a", "b"}
    # "Aa" and "BB" share a hash (2112): same bucket, so the first voted wins.
    assert java_string_hash("Aa") == java_string_hash("BB") == 2112
    assert select_protocol([GroupMember("A", ("BB", "Aa")), GroupMember("B", ("Aa", "BB"))]).protocol == "BB"
    assert java_hashmap_order(["b", "a"]) == ["a", "b"]


def test_java_string_hash_known_values():
    assert java_string_hash("") == 0
    assert java_string_hash("range") == 108280125  # String.hashCode of "range", computed by hand below
    h = 0
    for ch in "range":
        h = (31 * h + ord(ch)) % 2**32
    assert h == 108280125


@pytest.mark.parametrize(
    "members",
    [
        [GroupMember("A", ("range",)), GroupMember("B", ("roundrobin",))],  # nothing in common
        [GroupMember("A", ("range",)), GroupMember("B", ("range",), protocol_type="connect")],  # type differs
        [GroupMember("A", ("range",)), GroupMember("B", ())],  # empty protocol list
    ],
)
def test_inconsistent_group_protocol(members):
    with pytest.raises(ProtocolSelectionError) as ei:
        select_protocol(members)
    assert ei.value.error_code == INCONSISTENT_GROUP_PROTOCOL == 23


def test_api_version_choice_and_headers():
    client = {11: (0, 9), 14: (0, 5), 12: (0, 4), 13: (0, 5)}
    broker = {11: (0, 5), 14: (0, 5), 12: (0, 3), 13: (3, 5)}
    got = {c.name: c for c in choose_api_versions(client, broker)}
    assert (got["JoinGroup"].version, got["JoinGroup"].request_header, got["JoinGroup"].response_header) == (5, 1, 0)
    assert (got["SyncGroup"].version, got["SyncGroup"].request_header, got["SyncGroup"].response_header) == (5, 2, 1)
    assert (got["Heartbeat"].version, got["Heartbeat"].request_header) == (3, 1)
    assert got["LeaveGroup"].version == 5
    none = choose_api_versions({11: (0, 2)}, {11: (5, 9)}, apis=(11,))[0]
    assert none.version is None and "no common version" in none.explanation
