"""The rules that settle the causes of a classic group's generation, when it forms, from what
:class:`codec.causes.classic.ClassicGroup` kept (the previous generation, and what happened since it formed):

* since the previous generation, what the input shows done -- a new member's JoinGroup (``member-joined``, or
  ``static-member-replaced`` when its ``group.instance.id`` was another member's), a LeaveGroup (``member-left``;
  ``rebalance-timeout`` when its KIP-800 reason says the poll interval expired), FENCED_INSTANCE_ID, NOT_COORDINATOR
  and a change of coordinator (``coordinator-moved``), a rejoin's KIP-800 reason (``metadata-changed``,
  ``subscription-changed``, ``follow-up``);
* against the previous generation: members missing from the new one without a LeaveGroup (``rebalance-timeout``
  when they heartbeated through the rebalance without rejoining, ``session-timeout`` when their heartbeats
  stopped, ``member-left`` with confidence ``uncertain`` when the input shows no heartbeat of them), members whose
  subscription changed, the previous assignments' requests (a Streams follow-up, probing deadline or version
  probe, a Connect revocation or delay, a cooperative revocation), the previous leader rejoining first;
* else ``first-seen`` (no earlier generation in the input) or ``unknown`` with what was seen.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..wire.error_codes import ERROR_NAMES
from .collect import Findings, when
from .observe import (
    AssignmentFacts,
    CoordinatorSeen,
    ErrorSeen,
    Formed,
    Joined,
    Left,
    MemberFacts,
)
from .vocabulary import (
    COORDINATOR_MOVED,
    FIRST_SEEN,
    FOLLOW_UP,
    LEADER_REJOINED,
    LIKELY,
    MEMBER_JOINED,
    MEMBER_LEFT,
    METADATA_CHANGED,
    REBALANCE_TIMEOUT,
    SESSION_TIMEOUT,
    STATIC_MEMBER_REPLACED,
    STREAMS_PROBING,
    STREAMS_VERSION_PROBING,
    SUBSCRIPTION_CHANGED,
    UNCERTAIN,
    UNKNOWN,
    Evidence,
)

__all__ = ["ClassicRules", "Since", "reason_kind", "MAX_SINCE", "COORDINATOR_ERRORS", "NO_REBALANCE"]

MAX_SINCE = 4096  # observations kept between two generations (the rest are counted)
#: a member gone sooner than this share of its session timeout after its last heartbeat did not time out
SESSION_SLACK = 0.9
NO_REBALANCE = 2**63 - 1  # AssignmentInfo.nextRebalanceMs when none is scheduled (Long.MAX_VALUE)
EARLIEST_PROBEABLE_VERSION = 3
#: errors that say the coordinator moved or is not (yet) serving the group
COORDINATOR_ERRORS = {c: ERROR_NAMES[c] for c in (14, 15, 16)}  # LOAD_IN_PROGRESS, NOT_AVAILABLE, NOT_COORDINATOR
FENCED_INSTANCE_ID = 82
REBALANCE_IN_PROGRESS = 27
STREAMS_ERRORS = {
    1: "INCOMPLETE_SOURCE_TOPIC_METADATA",
    2: "VERSION_PROBING",
    3: "ASSIGNMENT_ERROR",
    4: "SHUTDOWN_REQUESTED",
}

# KIP-800 reasons (JoinGroup v8+, LeaveGroup v5+) as Kafka's clients write them (AbstractCoordinator,
# ConsumerCoordinator, StreamThread), by the cause they name; the first match wins.
_REASONS: tuple[tuple[re.Pattern, str], ...] = (
    (re.compile(r"poll (timeout|interval)|max\.poll", re.I), REBALANCE_TIMEOUT),
    (re.compile(r"version probing|metadata (up|down)grade", re.I), STREAMS_VERSION_PROBING),
    (re.compile(r"metadata", re.I), METADATA_CHANGED),
    (re.compile(r"subscription", re.I), SUBSCRIPTION_CHANGED),
    (re.compile(r"revoke|nextRebalance 0|partitions revoked", re.I), FOLLOW_UP),
    (re.compile(r"follow-?up rebalance scheduled|probing rebalance", re.I), STREAMS_PROBING),
)
# reasons that say a member rejoins because a rebalance is already under way, or as a step of joining
_CONSEQUENCES = re.compile(
    r"already rebalancing|group is rebalancing|rebalance failed|re-?join with the (given )?member.?id|"
    r"RebalanceInProgress|encountered [A-Z_]+ from|unknown member id|pro-actively leaving",
    re.I,
)


def reason_kind(reason: str | None) -> str | None:
    """The cause kind a KIP-800 reason names, None when it names none (or says the member only follows a
    rebalance already under way)."""
    if not reason or _CONSEQUENCES.search(reason):
        return None
    for pattern, kind in _REASONS:
        if pattern.search(reason):
            return kind
    return None


@dataclass(slots=True)
class Since:
    """What happened since the previous generation formed."""

    joins: list[Joined] = field(default_factory=list)
    leaves: list[Left] = field(default_factory=list)
    errors: list[ErrorSeen] = field(default_factory=list)
    moved: list[tuple[CoordinatorSeen, str]] = field(default_factory=list)
    rip: dict[str, list[float]] = field(default_factory=dict)  # member -> first and last REBALANCE_IN_PROGRESS answer
    dropped: int = 0
    carried: int = 0  # the first ``carried`` leaves were sent before the previous generation formed (_pending)

    def count(self) -> int:
        return len(self.joins) + len(self.leaves) + len(self.errors) + len(self.moved)


def _label(member: str, facts: MemberFacts | None) -> str:
    return facts.label if facts is not None else member


class ClassicRules:
    """The rules (each ``_..._rule(s)`` adds what it finds to a :class:`Findings`), over the state a
    :class:`~codec.causes.classic.ClassicGroup` keeps between generations."""

    group: str
    source: str
    generation: int | None
    members: dict[str, MemberFacts]
    complete: bool
    leader: str | None
    formed_ts: float | None
    assign: dict[str, tuple[AssignmentFacts, float | None]]
    owners_before: dict | None
    since: Since
    last_hb: dict[str, float]
    visible: set[str]

    def _owners(self) -> dict | None:
        """Item -> member of the previous generation, when every member's assignment is known."""
        if not self.complete or not self.members or set(self.members) - set(self.assign):
            return None
        if any(facts.items is None for facts, _ in self.assign.values()):
            return None
        owners = {}
        for mid, (facts, _) in self.assign.items():
            for item in facts.items or ():
                owners[item] = mid
        return owners

    def _since_rules(self, found: Findings, f: Formed, now: dict[str, MemberFacts]) -> None:
        s = self.since
        prev = self.members if self.generation is not None else {}
        fresh: dict[str, Joined] = {}  # member -> its first JoinGroup since (a new member's)
        for j in s.joins:
            if j.member and j.member in now and j.member not in prev and (self.generation is not None or j.new):
                fresh.setdefault(j.member, j)
        instances = {m.instance_id: mid for mid, m in prev.items() if m.instance_id}
        for j in s.joins:  # (the JoinGroups of members that were replaced since, in order)
            iid = j.facts.instance_id if j.facts is not None else None
            if iid and j.member and j.member not in fresh:
                instances.setdefault(iid, j.member)
        for mid, j in fresh.items():
            facts = now[mid]
            label = facts.label
            ev = [Evidence(j.ts, f"JoinGroup from {label}" + (f" (reason '{j.reason}')" if j.reason else ""))]
            old = instances.get(facts.instance_id) if facts.instance_id else None
            if old is not None and old != mid:
                found.add(
                    STATIC_MEMBER_REPLACED,
                    mid,
                    f"instance {facts.instance_id} came back as {label}, replacing {_label(old, prev.get(old))}",
                    ev,
                )
                found.add(STATIC_MEMBER_REPLACED, old, "", [], at=j.ts)
            else:
                found.add(MEMBER_JOINED, mid, f"{label} joined", ev)
        for lv in s.leaves:
            if lv.member in now:
                continue
            label = _label(lv.member, prev.get(lv.member))
            said = f" (reason '{lv.reason}')" if lv.reason else ""
            if lv.how == "record":
                found.add(
                    MEMBER_LEFT,
                    lv.member,
                    f"{label} was removed; the records cannot tell a LeaveGroup from a timeout",
                    [Evidence(lv.ts, f"{label}'s records deleted" + (f" at {lv.where}" if lv.where else ""))],
                    confidence=UNCERTAIN,
                )
            elif reason_kind(lv.reason) == REBALANCE_TIMEOUT:
                found.add(
                    REBALANCE_TIMEOUT,
                    lv.member,
                    f"{label} left: its poll interval (max.poll.interval.ms) expired",
                    [Evidence(lv.ts, f"LeaveGroup from {label}{said}")],
                )
            elif lv.rejoined is not None and not lv.reason and lv.how == "leave-group":
                found.add(
                    REBALANCE_TIMEOUT,
                    lv.member,
                    f"{label} left and its client joined again at {when(lv.rejoined)} without closing its connection: "
                    "a client leaves on its own when its poll interval (max.poll.interval.ms) expires",
                    [
                        Evidence(lv.ts, f"LeaveGroup from {label}, no reason given"),
                        Evidence(lv.rejoined, "JoinGroup from the same connection"),
                    ],
                    confidence=LIKELY,
                    at=lv.ts,
                )
            else:
                what = "static member left" if lv.how == "static-leave" else "left"
                found.add(
                    MEMBER_LEFT, lv.member, f"{label} {what}{said}", [Evidence(lv.ts, f"LeaveGroup from {label}{said}")]
                )
        moves = [
            (e.ts, f"{e.api or 'response'} error {e.error_code} {COORDINATOR_ERRORS[e.error_code]}")
            for e in s.errors
            if e.error_code in COORDINATOR_ERRORS
        ]
        moves += [(o.ts, f"the group's requests went to {o.coordinator} (before: {before})") for o, before in s.moved]
        self._coordinator_rule(found, moves, prev, fresh)
        for e in s.errors:
            if e.error_code == FENCED_INSTANCE_ID and e.member:
                label = _label(e.member, prev.get(e.member))
                found.add(
                    STATIC_MEMBER_REPLACED,
                    e.member,
                    f"{label} was fenced: another member took its group.instance.id",
                    [Evidence(e.ts, f"{e.api or 'response'} to {label}: 82 FENCED_INSTANCE_ID")],
                )
        for j in s.joins:  # an existing member's reason
            if not j.member or j.member not in prev or j.member in fresh:
                continue
            kind = reason_kind(j.reason)
            if kind is None or kind == REBALANCE_TIMEOUT:
                continue
            label = _label(j.member, prev.get(j.member))
            if kind == STREAMS_PROBING and self._probing_deadline(j.member) is None:
                kind = FOLLOW_UP if self._immediate(j.member) else STREAMS_PROBING
            found.add(
                kind,
                j.member,
                f"{label} rejoined: '{j.reason}'",
                [Evidence(j.ts, f"JoinGroup from {label} (reason '{j.reason}')")],
            )

    def _coordinator_rule(self, found: Findings, moves: list, prev: dict, fresh: dict) -> None:
        """The coordinator moved (``moves``: when, and what showed it), and an existing member rejoined after it
        before anything else set a rebalance off (no new member, no leave, no one told of a rebalance): the move is
        a cause. A move the group rode out (its members carried on with the new coordinator) is none."""
        timed = [m for m in moves if m[0] is not None]
        if not moves:
            return
        if not timed:  # (no times: the move is all the input shows)
            found.add(COORDINATOR_MOVED, None, "the coordinator moved", [Evidence(None, w) for _, w in moves])
            return
        first = min(t for t, _ in timed)
        s = self.since
        others = [j.ts for j in fresh.values() if j.ts is not None] + [lv.ts for lv in s.leaves if lv.ts is not None]
        others += [r[0] for r in s.rip.values()]
        rejoin = min((j.ts for j in s.joins if j.member in prev and j.ts is not None and j.ts >= first), default=None)
        if rejoin is None or any(t <= rejoin for t in others):
            return
        found.add(
            COORDINATOR_MOVED,
            None,
            "the coordinator moved and the members rejoined with the new one",
            [Evidence(t, w) for t, w in sorted(timed)] + [Evidence(rejoin, "first rejoin after the move")],
            at=first,
        )

    def _membership_rules(self, found: Findings, f: Formed, now: dict[str, MemberFacts]) -> None:
        """Members of the previous generation missing from this one, for which no LeaveGroup was seen."""
        if not f.complete:
            return
        s = self.since
        accounted = {lv.member for lv in s.leaves} | found.members(STATIC_MEMBER_REPLACED)
        rejoined = {j.member for j in s.joins if j.member}
        for mid in sorted(set(self.members) - set(now) - accounted):
            facts = self.members[mid]
            label = facts.label
            rip = s.rip.get(mid)
            last = self.last_hb.get(mid)
            if rip is not None and mid not in rejoined:
                timeout = (
                    f"its rebalance timeout {facts.rebalance_timeout_ms:,} ms"
                    if facts.rebalance_timeout_ms
                    else "its rebalance timeout"
                )
                found.add(
                    REBALANCE_TIMEOUT,
                    mid,
                    f"{label} kept heartbeating but did not rejoin within {timeout} (max.poll.interval.ms): dropped",
                    [
                        Evidence(rip[0], f"heartbeat of {label} answered 27 REBALANCE_IN_PROGRESS"),
                        Evidence(f.ts, f"generation {f.generation} formed without {label}, which sent no JoinGroup"),
                    ],
                    confidence=LIKELY,
                    at=f.ts,
                )
            elif mid in self.visible and last is not None:
                gap = None if f.ts is None else f.ts - last
                session = facts.session_timeout_ms
                ev = [
                    Evidence(last, f"last heartbeat of {label} answered"),
                    Evidence(f.ts, f"generation {f.generation} formed without {label}; no LeaveGroup"),
                ]
                if session is not None and gap is not None and gap * 1000 < session * SESSION_SLACK:
                    found.add(
                        MEMBER_LEFT,
                        mid,
                        f"{label} is gone {gap:.1f} s after its last heartbeat, sooner than its session timeout "
                        f"{session:,} ms: a LeaveGroup the input does not hold?",
                        ev,
                        confidence=UNCERTAIN,
                        at=f.ts,
                    )
                else:
                    said = f"{session:,} ms" if session is not None else "not in the input"
                    found.add(
                        SESSION_TIMEOUT,
                        mid,
                        f"{label} stopped heartbeating at {when(last)} without leaving (session timeout {said})",
                        ev,
                        confidence=LIKELY,
                        at=last + session / 1000 if session is not None else f.ts,
                    )
            else:
                what = "heartbeats" if self.source == "capture" else "heartbeats (records hold none)"
                found.add(
                    MEMBER_LEFT,
                    mid,
                    f"{label} is not in generation {f.generation}; the input shows no LeaveGroup and no {what} of it, "
                    "so it cannot tell a LeaveGroup from a session or rebalance timeout",
                    [Evidence(f.ts, f"generation {f.generation} formed without {label}")],
                    confidence=UNCERTAIN,
                    at=self.formed_ts if f.ts is None else None,
                )

    def _newcomer_rules(self, found: Findings, f: Formed, now: dict[str, MemberFacts]) -> None:
        """Members new to this generation whose JoinGroup the input does not hold (the previous one was complete)."""
        if not self.complete:
            return
        for mid in sorted(
            set(now) - set(self.members) - found.members(MEMBER_JOINED) - found.members(STATIC_MEMBER_REPLACED)
        ):
            facts = now[mid]
            old = next(
                (o for o, m in self.members.items() if facts.instance_id and m.instance_id == facts.instance_id),
                None,
            )
            if old is not None:
                found.add(
                    STATIC_MEMBER_REPLACED,
                    mid,
                    f"instance {facts.instance_id} came back as {facts.label}, replacing {self.members[old].label}",
                    [Evidence(f.ts, f"generation {f.generation} holds {facts.label}")],
                    at=self.formed_ts if f.ts is None else None,
                )
                found.add(STATIC_MEMBER_REPLACED, old, "", [])
            else:
                found.add(
                    MEMBER_JOINED,
                    mid,
                    f"{facts.label} joined",
                    [
                        Evidence(
                            f.ts,
                            f"generation {f.generation} holds {facts.label}, new since generation {self.generation}",
                        )
                    ],
                )

    def _subscription_rules(self, found: Findings, now: dict[str, MemberFacts]) -> None:
        joins = {j.member: j for j in self.since.joins if j.member}
        for mid in sorted(set(now) & set(self.members)):
            a, b = self.members[mid], now[mid]
            changes = []
            if a.topics is not None and b.topics is not None and a.topics != b.topics:
                changes.append(f"topics {_names(a.topics)} -> {_names(b.topics)}")
            if a.regex != b.regex and a.regex is not None and b.regex is not None:
                changes.append(f"pattern {a.regex} -> {b.regex}")
            if a.protocols and b.protocols and a.protocols != b.protocols:
                changes.append(f"offered {', '.join(a.protocols)} -> {', '.join(b.protocols)}")
            if changes:
                j = joins.get(mid)
                found.add(
                    SUBSCRIPTION_CHANGED,
                    mid,
                    f"{b.label}: " + "; ".join(changes),
                    [Evidence(j.ts if j else None, f"JoinGroup from {b.label}: " + "; ".join(changes))],
                )

    def _immediate(self, member: str) -> bool:
        got = self.assign.get(member)
        return got is not None and got[0].next_rebalance_ms == 0

    def _probing_deadline(self, member: str) -> float | None:
        got = self.assign.get(member)
        if got is None or got[0].next_rebalance_ms in (None, 0, NO_REBALANCE):
            return None
        n = got[0].next_rebalance_ms
        return n / 1000.0 if n is not None and 0 < n < NO_REBALANCE else None

    def _assignment_rules(self, found: Findings, f: Formed, now: dict[str, MemberFacts]) -> None:
        """What the previous generation's assignments asked of the members still in the group."""
        rejoined: dict[str, float] = {}
        for j in self.since.joins:
            if j.member and j.ts is not None:
                rejoined[j.member] = min(rejoined.get(j.member, j.ts), j.ts)
        for mid in sorted(self.assign):
            if mid not in now and mid not in rejoined:
                continue  # (gone: what it was asked to do is no cause)
            first_join = rejoined.get(mid, f.ts)
            facts, ts = self.assign[mid]
            label = _label(mid, self.members.get(mid))
            sub = self.members.get(mid)
            used = sub.streams_version if sub is not None else None
            g = self.generation
            v, csv = facts.streams_version, facts.streams_common
            if facts.error_code == 2 or (
                v is not None
                and used is not None
                and v >= EARLIEST_PROBEABLE_VERSION
                and (v < used or (csv or 0) > used)
            ):
                what = (
                    f"assignment v{v} for a v{used} subscription"
                    if v is not None and used is not None and v < used
                    else f"commonly supported v{csv} above its v{used}"
                    if csv is not None and used is not None and csv > used
                    else "AssignmentInfo error code 2 VERSION_PROBING"
                )
                found.add(
                    STREAMS_VERSION_PROBING,
                    mid,
                    f"{label} got an {what} in generation {g}: it rejoins to change its metadata version",
                    [Evidence(ts, f"generation {g}'s AssignmentInfo for {label}: {what}")],
                )
            elif facts.error_code:
                name = STREAMS_ERRORS.get(facts.error_code, "unknown")
                found.add(
                    FOLLOW_UP,
                    mid,
                    f"{label}'s AssignmentInfo in generation {g} carried error code {facts.error_code} {name}",
                    [
                        Evidence(
                            ts, f"generation {g}'s AssignmentInfo for {label}: error code {facts.error_code} {name}"
                        )
                    ],
                )
            if facts.next_rebalance_ms == 0:
                found.add(
                    FOLLOW_UP,
                    mid,
                    f"generation {g} told {label} to rejoin at once (next_rebalance_ms 0)",
                    [Evidence(ts, f"generation {g}'s AssignmentInfo for {label}: next rebalance 0 (now)")],
                )
            deadline = self._probing_deadline(mid)
            if deadline is not None and first_join is not None and first_join >= deadline - 1.0:
                found.add(
                    STREAMS_PROBING,
                    mid,
                    f"generation {g}'s probing deadline for {label} ({when(deadline)}) elapsed",
                    [
                        Evidence(
                            ts, f"generation {g}'s AssignmentInfo for {label}: next rebalance at {when(deadline)}"
                        ),
                        Evidence(first_join, f"{label} rejoined after the deadline"),
                    ],
                    at=deadline,
                )
            if facts.connect_revoked:
                found.add(
                    FOLLOW_UP,
                    mid,
                    f"generation {g} revoked {facts.connect_revoked} connectors and tasks from {label}: it rejoins at once",
                    [Evidence(ts, f"generation {g}'s Connect assignment for {label}: {facts.connect_revoked} revoked")],
                )
            if facts.connect_delay:
                at = None if ts is None else ts + facts.connect_delay / 1000
                found.add(
                    FOLLOW_UP,
                    mid,
                    f"generation {g} scheduled a rebalance in {facts.connect_delay:,} ms (Connect's scheduled.rebalance.max.delay.ms)",
                    [
                        Evidence(
                            ts, f"generation {g}'s Connect assignment for {label}: delay {facts.connect_delay:,} ms"
                        )
                    ],
                    at=at,
                )
            if facts.connect_error:
                found.add(
                    FOLLOW_UP,
                    mid,
                    f"{label}'s Connect assignment in generation {g} carried error {facts.connect_error}",
                    [Evidence(ts, f"generation {g}'s Connect assignment for {label}: error {facts.connect_error}")],
                )
        owners_now = self._owners()
        taken: dict[str, int] = {}
        for mid, (facts, _) in self.assign.items():  # what its subscription said it owned, not assigned back
            owned = self.members[mid].owned if mid in self.members else None
            if owned and facts.items is not None and (mid in now or mid in rejoined):
                gone = owned - facts.items
                if gone:
                    taken[mid] = len(gone)
        if owners_now is not None and self.owners_before is not None:  # (subscriptions without owned partitions)
            for item, mid in self.owners_before.items():
                if (
                    mid in self.members
                    and item not in owners_now
                    and mid not in taken
                    and (mid in now or mid in rejoined)
                ):
                    taken[mid] = taken.get(mid, 0) + 1
        for mid, n in sorted(taken.items()):
            label = self.members[mid].label
            ts = self.assign[mid][1]
            found.add(
                FOLLOW_UP,
                mid,
                f"generation {self.generation} revoked {n} partitions {label} owned (a cooperative revocation: it "
                "rejoins at once)",
                [
                    Evidence(
                        ts,
                        f"generation {self.generation}'s assignment for {label}: {n} of the partitions it owned revoked",
                    )
                ],
            )

    def _first_rejoin_rule(self, found: Findings, f: Formed, now: dict[str, MemberFacts]) -> None:
        """The previous leader (or a member) rejoining first, before anyone was told of a rebalance."""
        if found:
            return
        rejoins = sorted(
            (j for j in self.since.joins if j.member in self.members and j.ts is not None), key=lambda j: j.ts or 0.0
        )
        if not rejoins:
            return
        first = rejoins[0]
        told = min((r[0] for r in self.since.rip.values()), default=None)
        if told is not None and first.ts is not None and told < first.ts:
            return
        label = self.members[first.member].label if first.member in self.members else str(first.member)
        said = f" (reason '{first.reason}')" if first.reason else ""
        failed = next(
            (e for e in self.since.errors if e.member == first.member and e.api == "SyncGroup" and e.ts is not None),
            None,
        )
        if failed is not None and first.ts is not None and failed.ts is not None and failed.ts <= first.ts:
            code = failed.error_code
            what = "an answer the input cannot read" if code is None else f"error {code} {ERROR_NAMES.get(code, '?')}"
            found.add(
                UNKNOWN,
                first.member,
                f"{label} rejoined after its SyncGroup of generation {self.generation} failed ({what}): a member "
                "that gets no assignment joins again",
                [
                    Evidence(failed.ts, f"SyncGroup answer to {label}: {what}"),
                    Evidence(first.ts, f"JoinGroup from {label}"),
                ],
                confidence=UNCERTAIN,
            )
            return
        if first.member == self.leader:
            found.add(
                LEADER_REJOINED,
                first.member,
                f"the leader {label} rejoined first{said}: a leader rejoins when its topics' metadata changes",
                [
                    Evidence(
                        first.ts, f"JoinGroup from the leader {label}{said}, before any member was told of a rebalance"
                    )
                ],
                confidence=LIKELY,
            )
        else:
            found.add(
                UNKNOWN,
                first.member,
                f"{label} rejoined first{said}, before any member was told of a rebalance, for no reason the input shows",
                [Evidence(first.ts, f"JoinGroup from {label}{said}")],
                confidence=UNCERTAIN,
            )

    def _fallback(self, found: Findings, f: Formed) -> None:
        s = self.since
        if self.generation is None:
            seen = []
            if s.joins:
                seen.append("its members rejoined with the member ids they had")
            if s.rip:
                seen.append("heartbeats answered REBALANCE_IN_PROGRESS")
            found.add(
                FIRST_SEEN,
                None,
                "no earlier generation of the group in the input" + (f" ({'; '.join(seen)})" if seen else ""),
                [Evidence(f.ts, f"generation {f.generation} formed")],
            )
            return
        seen = []
        told = min((r[0] for r in s.rip.values()), default=None)
        if told is not None:
            seen.append(f"heartbeats answered REBALANCE_IN_PROGRESS from {when(told)}")
        if s.joins:
            seen.append(f"{len({j.member for j in s.joins})} members rejoined")
        if s.dropped:
            seen.append(f"{s.dropped:,} observations past the {MAX_SINCE:,} kept")
        if not f.complete:
            seen.append("the leader's JoinGroup response (the member list) is not in the input")
        found.add(
            UNKNOWN,
            None,
            "no membership, subscription, assignment or coordinator change in the input"
            + (f"; {'; '.join(seen)}" if seen else ""),
            [Evidence(told if told is not None else f.ts, seen[0] if seen else f"generation {f.generation} formed")],
            confidence=UNCERTAIN,
        )


def _names(topics: frozenset[str]) -> str:
    shown = sorted(topics)
    return ", ".join(shown[:6]) + (f", ... ({len(shown)} in all)" if len(shown) > 6 else "") if shown else "(none)"
