"""The causes of a Kafka 4 group's epochs (KIP-848 consumer groups, KIP-1071 streams groups, KIP-932 share groups).

A heartbeat-based group has no generations: its coordinator bumps the **group epoch** whenever the group's
membership or subscriptions or its topics' metadata change, computes a target assignment at that epoch, and each
member's epoch moves to it as the member reaches it. :class:`EpochGroup` decides why each epoch the input shows
(a group metadata record's epoch, or a member epoch the coordinator gave out for the first time) came:

* a member that joined (a heartbeat at member epoch 0, a member metadata record of a member not known before):
  ``member-joined``, or ``static-member-replaced`` when its instance id was another member's;
* a member that left (member epoch -1 or -2: ``member-left``, certain; its records deleted: ``member-left``,
  uncertain, as the records cannot tell a leave from a timeout); a member fenced (FENCED_MEMBER_EPOCH,
  UNKNOWN_MEMBER_ID) or whose heartbeats stopped without leaving: ``session-timeout``;
* a member's subscription (topics, pattern, assignor, rack, topology epoch) changed: ``subscription-changed``;
  the topics' metadata changed: ``metadata-changed``; the coordinator moved: ``coordinator-moved``;
* else ``first-seen`` (no earlier epoch), ``assignment-changed`` (the input shows the target assignment moving and
  nothing else), or ``unknown``.
"""

from __future__ import annotations

from .classic import COORDINATOR_ERRORS, MAX_SINCE
from .collect import Findings, when
from .observe import (
    CoordinatorSeen,
    Deleted,
    EpochBumped,
    ErrorSeen,
    Heartbeat,
    Joined,
    Left,
    MemberFacts,
    MetadataChanged,
    Subscribed,
)
from .vocabulary import (
    ASSIGNMENT_CHANGED,
    COORDINATOR_MOVED,
    FIRST_SEEN,
    LIKELY,
    MEMBER_JOINED,
    MEMBER_LEFT,
    METADATA_CHANGED,
    SESSION_TIMEOUT,
    STATIC_MEMBER_REPLACED,
    SUBSCRIPTION_CHANGED,
    UNCERTAIN,
    UNKNOWN,
    Evidence,
    Rebalance,
)

__all__ = ["EpochGroup", "FENCED"]

FENCED = {110: "FENCED_MEMBER_EPOCH", 25: "UNKNOWN_MEMBER_ID"}
#: a member whose heartbeats stopped this many times its usual interval before an epoch (and at least
#: :data:`MIN_SILENCE` seconds) is taken for gone at that epoch
SILENCE_FACTOR, MIN_SILENCE = 3.0, 2.0
_SUBSCRIPTION_FIELDS = (
    ("topics", "topics"),
    ("regex", "pattern"),
    ("protocols", "assignor"),
    ("topology_epoch", "topology epoch"),
)


class EpochGroup:
    """One Kafka 4 group's state between epochs (see the module docstring)."""

    def __init__(self, group: str, protocol: str, source: str = "capture") -> None:
        self.group = group
        self.protocol = protocol
        self.source = source
        self.epoch: int | None = None
        self.members: dict[str, MemberFacts] = {}
        self.events: list = []
        self.dropped = 0
        self.last_hb: dict[str, float] = {}
        self.last_beat: dict[str, float] = {}  # member -> its last accepted heartbeat (joins aside)
        self.gaps: dict[str, list[float]] = {}  # member -> its last times between heartbeats (at most 8)
        self.coordinator: str | None = None
        self.last_ts: float | None = None

    def _keep(self, obs) -> None:
        if len(self.events) >= MAX_SINCE:
            self.dropped += 1
        else:
            self.events.append(obs)

    def feed(self, obs) -> Rebalance | None:
        ts = getattr(obs, "ts", None)
        if ts is not None:
            self.last_ts = ts if self.last_ts is None else max(self.last_ts, ts)
        if isinstance(obs, Heartbeat):
            if obs.error_code:
                return None
            before = self.last_beat.get(obs.member)
            last = obs.until if obs.until is not None else obs.ts
            gaps = self.gaps.setdefault(obs.member, [])
            if obs.interval is not None:
                gaps.append(obs.interval)
            elif before is not None and obs.ts > before:
                gaps.append(obs.ts - before)
            del gaps[:-8]
            self.last_beat[obs.member] = max(last, before) if before is not None else last
            self.last_hb[obs.member] = max(last, self.last_hb.get(obs.member, last))
        elif isinstance(obs, (Joined, Left, ErrorSeen, Subscribed, MetadataChanged)):
            self._keep(obs)
            if isinstance(obs, Joined) and obs.member and obs.ts is not None:
                self.last_hb[obs.member] = max(self.last_hb.get(obs.member, obs.ts), obs.ts)
        elif isinstance(obs, CoordinatorSeen):
            if self.coordinator is not None and obs.coordinator != self.coordinator:
                self._keep((obs, self.coordinator))
            self.coordinator = obs.coordinator
        elif isinstance(obs, Deleted):
            self.__init__(self.group, self.protocol, self.source)  # type: ignore[misc]
        elif isinstance(obs, EpochBumped):
            return self._bumped(obs)
        return None

    def _bumped(self, e: EpochBumped) -> Rebalance | None:
        if self.epoch is not None and e.epoch <= self.epoch:
            return None
        found = Findings()
        members = dict(self.members)
        joined: dict[str, tuple[MemberFacts, Evidence]] = {}
        left: set[str] = set()
        for obs in self.events:
            if isinstance(obs, tuple):
                moved, before = obs
                found.add(
                    COORDINATOR_MOVED,
                    None,
                    f"the coordinator moved from {before} to {moved.coordinator}",
                    [Evidence(moved.ts, f"the group's requests went to {moved.coordinator}")],
                )
            elif isinstance(obs, Joined) and obs.member:
                facts = obs.facts or members.get(obs.member) or MemberFacts(obs.member)
                if obs.member in members and obs.member not in left:
                    continue  # a member already in, asking again (a client repeats epoch 0 until it gets one)
                joined[obs.member] = (
                    facts,
                    Evidence(obs.ts, f"{facts.label} joined" + (f" at {obs.where}" if obs.where else "")),
                )
                members[obs.member] = facts
                left.discard(obs.member)
            elif isinstance(obs, Subscribed):
                self._subscribed(found, members, joined, left, obs)
            elif isinstance(obs, Left):
                self._left(found, members, obs)
                left.add(obs.member)
                members.pop(obs.member, None)
                joined.pop(obs.member, None)
            elif isinstance(obs, ErrorSeen) and obs.error_code in FENCED and obs.member:
                label = members[obs.member].label if obs.member in members else obs.member
                found.add(
                    SESSION_TIMEOUT,
                    obs.member,
                    f"{label} was fenced ({FENCED[obs.error_code]}): the coordinator no longer knew it at its epoch "
                    "-- its session or rebalance timeout expired, or it sent a stale epoch; the input does not say "
                    "which",
                    [Evidence(obs.ts, f"heartbeat of {label} answered {obs.error_code} {FENCED[obs.error_code]}")],
                    confidence=UNCERTAIN,
                )
                left.add(obs.member)
            elif isinstance(obs, ErrorSeen) and obs.error_code in COORDINATOR_ERRORS:
                name = COORDINATOR_ERRORS[obs.error_code]
                found.add(
                    COORDINATOR_MOVED,
                    None,
                    f"{name} answered a heartbeat",
                    [Evidence(obs.ts, f"{obs.api or 'heartbeat'} error {obs.error_code} {name}")],
                )
            elif isinstance(obs, MetadataChanged):
                found.add(
                    METADATA_CHANGED,
                    None,
                    obs.detail,
                    [Evidence(obs.ts, obs.detail + (f" ({obs.where})" if obs.where else ""))],
                )
        instances = {m.instance_id: mid for mid, m in self.members.items() if m.instance_id}
        for mid, (facts, ev) in joined.items():
            old = instances.get(facts.instance_id) if facts.instance_id else None
            if old is not None and old != mid:
                found.add(
                    STATIC_MEMBER_REPLACED,
                    mid,
                    f"instance {facts.instance_id} came back as {facts.label}, replacing {self.members[old].label}",
                    [ev],
                )
                found.add(STATIC_MEMBER_REPLACED, old, "", [], at=ev.ts)
                found.discard(MEMBER_LEFT, old)  # (its records deleted as it was replaced)
                members.pop(old, None)
            elif (
                self.epoch is not None
                or self.members
                or mid in {j.member for j in self.events if isinstance(j, Joined)}
            ):
                found.add(MEMBER_JOINED, mid, f"{facts.label} joined", [ev])
        self._silent(found, members, e)
        if e.members is not None and self.epoch is not None:
            for mid in sorted(set(self.members) - set(e.members) - left - set(found.members(SESSION_TIMEOUT))):
                label = self.members[mid].label
                found.add(
                    MEMBER_LEFT,
                    mid,
                    f"{label} is not a member at epoch {e.epoch}; the input cannot tell how it went",
                    [Evidence(e.ts, f"epoch {e.epoch} without {label}")],
                    confidence=UNCERTAIN,
                )
            members = {mid: members.get(mid) or MemberFacts(mid) for mid in e.members}
        if not found:
            if self.epoch is None:
                found.add(
                    FIRST_SEEN,
                    None,
                    "no earlier epoch of the group in the input",
                    [Evidence(e.ts, f"epoch {e.epoch}" + (f" at {e.where}" if e.where else ""))],
                )
            elif e.moved:
                found.add(
                    ASSIGNMENT_CHANGED,
                    None,
                    f"the assignments moved {e.moved:,} partitions or tasks from epoch {self.epoch} to {e.epoch} without a membership, subscription or metadata change the input shows",
                    [Evidence(e.ts, f"epoch {e.epoch}: {e.moved:,} moved")],
                    confidence=UNCERTAIN,
                )
            else:
                seen = f"; {self.dropped:,} observations past the {MAX_SINCE:,} kept" if self.dropped else ""
                found.add(
                    UNKNOWN,
                    None,
                    f"epoch {e.epoch} followed {self.epoch} with no membership, subscription, metadata or coordinator change in the input{seen}",
                    [Evidence(e.ts, f"epoch {e.epoch}")],
                    confidence=UNCERTAIN,
                )
        instances = {mid: m.instance_id for mid, m in {**self.members, **members}.items() if m and m.instance_id}
        rebalance = Rebalance(
            self.group,
            self.protocol,
            None,
            e.epoch,
            e.ts,
            tuple(sorted(members)),
            found.causes(),
            self.epoch,
            self.source,
            moved=e.moved,
            instances=instances,
        )
        self.epoch, self.members, self.events, self.dropped = e.epoch, members, [], 0
        for mid in list(self.last_hb):
            if mid not in members:
                del self.last_hb[mid]
                self.gaps.pop(mid, None)
                self.last_beat.pop(mid, None)
        return rebalance

    def _subscribed(self, found: Findings, members: dict, joined: dict, left: set, obs: Subscribed) -> None:
        mid = obs.facts.member_id
        old = members.get(mid)
        if old is None or mid in left:
            ev = Evidence(obs.ts, f"{obs.facts.label}'s member metadata" + (f" at {obs.where}" if obs.where else ""))
            joined[mid] = (obs.facts, ev)
            members[mid] = obs.facts
            left.discard(mid)
            return
        changes = []
        for attr, name in _SUBSCRIPTION_FIELDS:
            a, b = getattr(old, attr), getattr(obs.facts, attr)
            if a is not None and b is not None and a != b:
                show = (
                    (lambda v: ", ".join(sorted(v)) or "(none)")
                    if attr == "topics"
                    else (lambda v: ", ".join(v) if isinstance(v, tuple) else str(v))
                )
                changes.append(f"{name} {show(a)} -> {show(b)}")
        merged = MemberFacts(
            **{
                k: (getattr(obs.facts, k) if getattr(obs.facts, k) is not None else getattr(old, k))
                for k in MemberFacts.__dataclass_fields__
            }
        )
        members[mid] = merged
        if mid in joined:
            joined[mid] = (merged, joined[mid][1])
        elif changes:
            found.add(
                SUBSCRIPTION_CHANGED,
                mid,
                f"{merged.label}: " + "; ".join(changes),
                [Evidence(obs.ts, f"{merged.label} subscribed: " + "; ".join(changes))],
            )

    def _left(self, found: Findings, members: dict, obs: Left) -> None:
        facts = members.get(obs.member)
        label = facts.label if facts is not None else obs.member
        if obs.how == "record":
            found.add(
                MEMBER_LEFT,
                obs.member,
                f"{label} was removed; the records cannot tell a leave from a timeout",
                [Evidence(obs.ts, f"{label}'s member metadata deleted" + (f" at {obs.where}" if obs.where else ""))],
                confidence=UNCERTAIN,
            )
        else:
            what = (
                "left as a static member (member epoch -2)"
                if obs.how == "static-leave"
                else "left (member epoch -1)"
                if obs.how == "heartbeat"
                else "left"
            )
            found.add(
                MEMBER_LEFT,
                obs.member,
                f"{label} {what}" + (f" (reason '{obs.reason}')" if obs.reason else ""),
                [Evidence(obs.ts, f"heartbeat of {label}: {what}")],
            )

    def _silent(self, found: Findings, members: dict, e: EpochBumped) -> None:
        """Members whose heartbeats stopped well before this epoch, without leaving: gone by their session."""
        if e.ts is None:
            return
        for mid in sorted(members):
            last = self.last_hb.get(mid)
            gaps = sorted(self.gaps.get(mid, ()))
            if last is None or not gaps or mid in found.members(SESSION_TIMEOUT):
                continue
            usual = gaps[len(gaps) // 2]  # the median of its last times between heartbeats
            gap = e.ts - last
            if gap > max(SILENCE_FACTOR * usual, MIN_SILENCE):
                label = members[mid].label
                found.add(
                    SESSION_TIMEOUT,
                    mid,
                    f"{label} stopped heartbeating at {when(last)} without leaving (every {usual:.1f} s before; the "
                    "session timeout is the broker's group.*.session.timeout.ms, not on the wire)",
                    [
                        Evidence(last, f"last heartbeat of {label}"),
                        Evidence(e.ts, f"epoch {e.epoch}, {gap:.1f} s later, without a heartbeat of {label}"),
                    ],
                    confidence=LIKELY,
                    at=last,
                )
                del members[mid]
