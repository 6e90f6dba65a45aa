"""Kafka Streams version probing and rolling upgrades, over real SubscriptionInfo/AssignmentInfo bytes.

The rules are those of ``StreamsPartitionAssignor`` (wire-facts §5, error codes §4), parameterized by each
instance's newest metadata version, so that one model covers every release:

Leader (newest version ``L``): ``minReceived = minSupported = L``; every subscription lowers
``minReceived`` by its version and ``minSupported`` by its latest supported version (-1 for v1/2); one
newer than ``L`` is a *future* member (only its two version words are read). A future member with
``minReceived >= 3`` makes a version-probing rebalance (nothing special on the wire); with
``minReceived < 3`` the leader fails with ASSIGNMENT_ERROR (3), sent at ``L`` to everyone. Otherwise every
consumer gets ``AssignmentInfo(version=minReceived, commonlySupportedVersion=minSupported)``.

Member (newest version ``M``, used version ``U``), on a clean assignment: a version above ``U`` or a
common version above ``M`` is an error; if the version is at least 3 and the common version is above
``U`` it upgrades to it, or if the version is below ``U`` it moves to the common version; either way it
rejoins at once. Below version 3 nothing changes: that is why an upgrade from before 2.0 takes two bounces.

Modelling choices, stated: releases before 2.4 are run with these (2.4+) rules (in 2.0-2.3 the second
assignment word was the leader's own latest version and members set code 2 locally, §1/§4); a leader from
before 2.0 (newest version 1 or 2) cannot read a newer subscription at all (``SubscriptionInfo.decode`` throws:
:mod:`codec.streams.readers`, the one reader model) and fails the round; a leader that can probe but whose
AssignmentInfo has no error code (v3) fails it too where the rules above call for ASSIGNMENT_ERROR; a leader of
version 2 assigns at the lowest version received, as 0.10.2.2, 0.11.0.3, 1.0.2 and 1.1.1 do
(``StreamPartitionAssignor.assign``: ``new AssignmentInfo(minUserMetadataVersion, ...)``; the earlier releases of
those lines always wrote v2, which a 0.10.0 member cannot read); a *future* version (12+) is written as the v11
layout under a newer version word, which is all a current reader looks at.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field, replace

from ..errors import DecodeError, UnsupportedVersionError
from ..streams import (
    EARLIEST_PROBEABLE_VERSION,
    LATEST_SUPPORTED_VERSION,
    AssignmentInfo,
    SubscriptionInfo,
    decode_assignment,
    decode_subscription,
    encode_assignment,
    encode_subscription,
    peek_subscription_versions,
)
from ..streams.constants import UNKNOWN
from ..wire.registry import latest_by_release

__all__ = [
    "RELEASES",
    "release_latest",
    "initial_used_version",
    "StreamsInstance",
    "RoundResult",
    "LeaderDecision",
    "MemberReaction",
    "leader_assign",
    "run_rounds",
    "FUTURE_VERSION",
]

FUTURE_VERSION = LATEST_SUPPORTED_VERSION + 1

#: The newest metadata version of each Kafka Streams release (SubscriptionInfo.json's history and release range,
#: through :func:`codec.wire.registry.latest_by_release`; wire-facts §1), and the future release's.
RELEASES: dict[str, int] = {**latest_by_release("SubscriptionInfo"), "future": FUTURE_VERSION}
# StreamsConfig's upgrade.from values by what they do: releases writing only v1, only v2 (metadata before version
# probing), the eager releases since probing (v3-v4), and the later ones through 3.8 (the last value 4.0 takes)
_UPGRADE_FROM_V1 = {r for r, v in RELEASES.items() if v == 1}
_UPGRADE_FROM_V2 = {r for r, v in RELEASES.items() if v == 2}
_UPGRADE_FROM_EAGER = {r for r, v in RELEASES.items() if v in (3, 4)}
_UPGRADE_FROM_NO_EFFECT = {
    r for r, v in RELEASES.items() if 5 <= v <= LATEST_SUPPORTED_VERSION and tuple(map(int, r.split("."))) <= (3, 8)
}


def release_latest(release: str) -> int:
    try:
        return RELEASES[release]
    except KeyError:
        raise ValueError(f"unknown Kafka Streams release {release!r}; known: {', '.join(RELEASES)}") from None


def initial_used_version(latest: int, upgrade_from: str | None) -> tuple[int, str]:
    """(first metadata version used, rebalance protocol) for an instance with ``upgrade.from`` (§5)."""
    if upgrade_from is None:
        return latest, "COOPERATIVE" if latest >= 5 else "EAGER"
    if upgrade_from in _UPGRADE_FROM_V1:
        return min(1, latest), "EAGER"
    if upgrade_from in _UPGRADE_FROM_V2:
        return min(2, latest), "EAGER"
    if upgrade_from in _UPGRADE_FROM_EAGER:
        return latest, "EAGER"
    if upgrade_from in _UPGRADE_FROM_NO_EFFECT:
        return latest, "COOPERATIVE" if latest >= 5 else "EAGER"
    raise ValueError(f"upgrade.from {upgrade_from!r} is rejected by config validation")


def _encode_subscription_at(info: SubscriptionInfo, version: int) -> bytes:
    if version <= LATEST_SUPPORTED_VERSION:
        return encode_subscription(info, version)
    body = encode_subscription(replace(info, version=LATEST_SUPPORTED_VERSION), LATEST_SUPPORTED_VERSION)
    return version.to_bytes(4, "big") + info.latest_supported_version.to_bytes(4, "big") + body[8:]


def _encode_assignment_at(info: AssignmentInfo, version: int) -> bytes:
    if version <= LATEST_SUPPORTED_VERSION:
        return encode_assignment(info, version)
    body = encode_assignment(replace(info, version=LATEST_SUPPORTED_VERSION))
    return version.to_bytes(4, "big") + body[4:]


def _decode_assignment_as(data: bytes, latest: int) -> AssignmentInfo:
    version = int.from_bytes(data[:4], "big", signed=True)
    if latest > LATEST_SUPPORTED_VERSION and LATEST_SUPPORTED_VERSION < version <= latest:
        info = decode_assignment(LATEST_SUPPORTED_VERSION.to_bytes(4, "big") + data[4:])
        return replace(info, version=version)
    return decode_assignment(data, latest=latest)


@dataclass
class StreamsInstance:
    """One Kafka Streams instance (one consumer) in the negotiation model."""

    name: str
    latest: int  # the newest metadata version its release speaks
    used: int  # usedSubscriptionMetadataVersion
    release: str | None = None
    upgrade_from: str | None = None
    failed: str | None = None
    process_id: uuid.UUID = field(default_factory=uuid.uuid4)

    @classmethod
    def of_release(cls, name: str, release: str, upgrade_from: str | None = None, **kw) -> "StreamsInstance":
        latest = release_latest(release)
        used, _ = initial_used_version(latest, upgrade_from)
        return cls(name, latest, used, release, upgrade_from, **kw)

    @classmethod
    def of_version(cls, name: str, version: int, **kw) -> "StreamsInstance":
        return cls(name, version, version, **kw)

    def subscription(self) -> bytes:
        """The SubscriptionInfo bytes this instance sends: its used version, its latest as the second word."""
        info = SubscriptionInfo(
            version=self.used,
            latest_supported_version=self.latest if self.used >= 3 else UNKNOWN,
            process_id=self.process_id,
        )
        return _encode_subscription_at(info, self.used)

    def on_assignment(self, data: bytes) -> "MemberReaction":
        """Apply the leader's AssignmentInfo bytes as ``onAssignment`` does; return what happened."""
        before = self.used
        try:
            info = _decode_assignment_as(data, self.latest)
        except DecodeError as e:
            self.failed = f"cannot decode the assignment: {e}"
            return MemberReaction(self.name, None, None, before, before, False, self.failed)
        received, csv = info.version, info.commonly_supported_version
        if info.error_code:
            self.failed = f"error code {info.error_code}" + (" (ASSIGNMENT_ERROR)" if info.error_code == 3 else "")
            return MemberReaction(self.name, received, csv, before, before, False, self.failed)
        if received > self.used:
            self.failed = f"received assignment v{received} above the used v{self.used}"
        elif csv > self.latest:
            self.failed = f"commonly supported v{csv} above this release's v{self.latest}"
        if self.failed:
            return MemberReaction(self.name, received, csv, before, before, False, self.failed)
        rejoin = False
        if received >= EARLIEST_PROBEABLE_VERSION:
            if csv > self.used:
                self.used, rejoin = csv, True  # the upgrade at the end of a rolling bounce
            elif received < self.used:
                self.used, rejoin = csv, True  # down to what the group supports
        return MemberReaction(self.name, received, csv, before, self.used, rejoin, None)


@dataclass(frozen=True)
class LeaderDecision:
    min_received: int
    min_supported: int
    future_members: tuple[str, ...]
    probing: bool
    error: str | None
    assignment_version: int
    assignment_csv: int


@dataclass(frozen=True)
class MemberReaction:
    member: str
    received_version: int | None
    received_csv: int | None
    used_before: int
    used_after: int
    rejoin: bool
    failure: str | None


@dataclass(frozen=True)
class RoundResult:
    """One rebalance: the versions on the wire, the leader's decision, and every member's reaction."""

    number: int
    leader: str
    subscriptions: dict[str, tuple[int, int]]  # member -> (version, latest supported) as sent
    subscription_bytes: dict[str, bytes]
    decision: LeaderDecision
    assignment_bytes: dict[str, bytes]
    reactions: tuple[MemberReaction, ...]

    @property
    def rejoin_requested(self) -> bool:
        return any(r.rejoin for r in self.reactions)


def leader_assign(leader: StreamsInstance, subscriptions: dict[str, bytes]) -> tuple[LeaderDecision, dict[str, bytes]]:
    """The leader's version logic over the members' SubscriptionInfo bytes (§5)."""
    L = leader.latest
    min_received = min_supported = L
    future: list[str] = []
    unreadable: list[str] = []
    for name, data in subscriptions.items():
        version, lsv = peek_subscription_versions(data)
        try:  # read as the leader's release reads it (codec.streams.readers): in full, a probe, or not at all
            # (a future leader reads a future version up to its own, which the codec has no layout for)
            probe = False if LATEST_SUPPORTED_VERSION < version <= L else decode_subscription(data, latest=L).future
        except UnsupportedVersionError:  # a reader from before 2.0 meeting a newer version
            unreadable.append(name)
            continue
        if probe:
            future.append(name)  # only the two version words are read
        else:
            min_received = min(min_received, version)
        if lsv < min_supported:
            min_supported = lsv
    error = None
    if unreadable:
        error = (
            f"a v{L} leader (Kafka before 2.0) cannot read the subscription of {', '.join(unreadable)}: "
            "SubscriptionInfo.decode throws TaskAssignmentException on a newer version (no version probing)"
        )
    elif future and min_received < EARLIEST_PROBEABLE_VERSION:
        error = (
            f"future member(s) {', '.join(future)} and a v{min_received} member: no version probing below v3 "
            "(TaskAssignmentException -> ASSIGNMENT_ERROR)"
        )
    if error is not None:
        if L < 4:  # AssignmentInfo below v4 cannot carry an error code: the release fails the round
            decision = LeaderDecision(
                min_received,
                min_supported,
                tuple(future),
                False,
                error if unreadable else error + f"; a v{L} leader cannot even send the error",
                L,
                L,
            )
            return decision, {name: b"" for name in subscriptions}
        info = AssignmentInfo(version=L, commonly_supported_version=L, error_code=3)
        data = _encode_assignment_at(info, L)
        return LeaderDecision(min_received, min_supported, tuple(future), False, error, L, L), {
            name: data for name in subscriptions
        }
    info = AssignmentInfo(version=min_received, commonly_supported_version=min_supported)
    data = _encode_assignment_at(info, min_received)
    decision = LeaderDecision(
        min_received, min_supported, tuple(future), bool(future), None, min_received, min_supported
    )
    return decision, {name: data for name in subscriptions}


def run_rounds(
    members: list[StreamsInstance], leader_name: str, *, first_round: int = 1, max_rounds: int = 10
) -> list[RoundResult]:
    """Rebalance until nobody asks to rejoin (or a member fails, or ``max_rounds``)."""
    by_name = {m.name: m for m in members}
    leader = by_name[leader_name]
    rounds: list[RoundResult] = []
    for n in range(first_round, first_round + max_rounds):
        live = [m for m in members if not m.failed]
        subs = {m.name: m.subscription() for m in live}
        versions = {name: _peek(data) for name, data in subs.items()}
        decision, assignments = leader_assign(leader, subs)
        reactions = []
        for m in live:
            data = assignments[m.name]
            if not data:
                m.failed = decision.error
                reactions.append(MemberReaction(m.name, None, None, m.used, m.used, False, decision.error))
            else:
                reactions.append(m.on_assignment(data))
        result = RoundResult(n, leader_name, versions, subs, decision, assignments, tuple(reactions))
        rounds.append(result)
        if not result.rejoin_requested or any(r.failure for r in reactions):
            break
    return rounds


def _peek(data: bytes) -> tuple[int, int]:
    version = int.from_bytes(data[:4], "big", signed=True)
    lsv = int.from_bytes(data[4:8], "big", signed=True) if version >= 3 else UNKNOWN
    return version, lsv
