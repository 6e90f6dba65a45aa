"""The causes of a classic group's generations (JoinGroup/SyncGroup: consumers, Kafka Streams, Kafka Connect).

:class:`ClassicGroup` holds what one group's next generation is decided against: the previous generation (its
members, leader and assignments, and the owners of the generation before it), and what happened since it formed
(joins, leaves, heartbeats and their errors, the coordinator). When the next generation forms, the rules of
:mod:`codec.causes.classic_rules` settle its causes.

Memory: one generation's members and assignments (two generations' owners), the observations since it formed (at
most :data:`MAX_SINCE`, the rest counted) and one time per member.
"""

from __future__ import annotations

from .classic_rules import (
    COORDINATOR_ERRORS,
    MAX_SINCE,
    NO_REBALANCE,
    REBALANCE_IN_PROGRESS,
    ClassicRules,
    Since,
    reason_kind,
)
from .collect import Findings
from .observe import AssignmentFacts, Assigned, CoordinatorSeen, ErrorSeen, Formed, Heartbeat, Joined, Left, MemberFacts
from .vocabulary import Rebalance

__all__ = ["ClassicGroup", "MAX_SINCE", "reason_kind", "COORDINATOR_ERRORS", "NO_REBALANCE"]


class ClassicGroup(ClassicRules):
    """One classic group's state between generations (see the module docstring)."""

    def __init__(self, group: str, source: str = "capture") -> None:
        self.group = group
        self.source = source
        self.generation: int | None = None
        self.members: dict[str, MemberFacts] = {}
        self.complete = False
        self.leader: str | None = None
        self.formed_ts: float | None = None
        self.assign: dict[str, tuple[AssignmentFacts, float | None]] = {}
        self.early: dict[int, dict[str, tuple[AssignmentFacts, float | None]]] = {}
        self.owners_before: dict | None = None  # item -> member, in the generation before the previous one
        self.since = Since()
        self.last_hb: dict[str, float] = {}
        self.visible: set[str] = set()  # members whose own heartbeats or SyncGroup answers the input shows
        self.coordinator: str | None = None
        self.last_ts: float | None = None

    # -- feeding --------------------------------------------------------------------------------------

    def _keep(self, n: int = 1) -> bool:
        if self.since.count() + n > MAX_SINCE:
            self.since.dropped += n
            return False
        return True

    def feed(self, obs) -> Rebalance | None:
        ts = getattr(obs, "ts", None)
        if ts is not None:
            self.last_ts = ts if self.last_ts is None else max(self.last_ts, ts)
        if isinstance(obs, Heartbeat):
            self.visible.add(obs.member)
            if obs.error_code == 0:
                self.last_hb[obs.member] = obs.until if obs.until is not None else obs.ts
            elif obs.error_code == REBALANCE_IN_PROGRESS:
                seen = self.since.rip.setdefault(obs.member, [obs.ts, obs.ts])
                seen[0], seen[1] = min(seen[0], obs.ts), max(seen[1], obs.ts)
            elif self._keep():
                self.since.errors.append(
                    ErrorSeen(obs.ts, obs.group, obs.protocol, obs.member, obs.error_code, "Heartbeat", obs.where)
                )
        elif isinstance(obs, Joined):
            if obs.member and obs.ts is not None:
                self.last_hb[obs.member] = max(self.last_hb.get(obs.member, obs.ts), obs.ts)
            if self._keep():
                self.since.joins.append(obs)
        elif isinstance(obs, Left):
            if self._keep():
                self.since.leaves.append(obs)
        elif isinstance(obs, ErrorSeen):
            if self._keep():
                self.since.errors.append(obs)
        elif isinstance(obs, CoordinatorSeen):
            if self.coordinator is not None and obs.coordinator != self.coordinator and self._keep():
                self.since.moved.append((obs, self.coordinator))
            self.coordinator = obs.coordinator
        elif isinstance(obs, Assigned):
            self._assigned(obs)
        elif isinstance(obs, Formed):
            return self._formed(obs)
        return None

    def _assigned(self, obs: Assigned) -> None:
        if obs.answered and obs.ts is not None:
            self.visible.add(obs.member)
            self.last_hb[obs.member] = max(self.last_hb.get(obs.member, obs.ts), obs.ts)
        if self.generation is not None and obs.generation == self.generation:
            self.assign[obs.member] = (obs.facts, obs.ts)
        elif self.generation is None or obs.generation > self.generation:
            self.early.setdefault(obs.generation, {})[obs.member] = (obs.facts, obs.ts)
            while len(self.early) > 2:
                del self.early[min(self.early)]

    # -- settling -------------------------------------------------------------------------------------

    def _formed(self, f: Formed) -> Rebalance | None:
        if self.generation is not None and f.generation <= self.generation:
            if f.generation == self.generation:  # another snapshot of the same generation: what it adds
                merged = {m.member_id: _merged(self.members.get(m.member_id), m) for m in f.members}
                if f.complete:  # the whole group again (a static member replaced without a rebalance, in Kafka)
                    self.members = merged
                else:
                    self.members.update(merged)
                self.complete = self.complete or f.complete
                self.leader = self.leader or f.leader
            return None
        later = [j for j in self.since.joins if j.generation is not None and j.generation > f.generation]
        if later:  # joins that formed a later generation: told with it
            self.since.joins = [j for j in self.since.joins if j.generation is None or j.generation <= f.generation]
        now = {m.member_id: m for m in f.members}
        joined_facts = {j.member: j.facts for j in self.since.joins if j.member and j.facts is not None}
        now = {mid: _merged(joined_facts.get(mid), m) for mid, m in now.items()}
        found = Findings()
        self._since_rules(found, f, now)
        if self.generation is not None:
            self._newcomer_rules(found, f, now)
            self._membership_rules(found, f, now)
            self._subscription_rules(found, now)
            self._assignment_rules(found, f, now)
            self._first_rejoin_rule(found, f, now)
        if not found:
            self._fallback(found, f)
        rebalance = Rebalance(
            self.group,
            "classic",
            f.generation,
            None,
            f.ts,
            tuple(sorted(now)),
            found.causes(),
            self.generation,
            self.source,
            instances={mid: m.instance_id for mid, m in now.items() if m.instance_id},
        )
        pending = self._pending(now)
        self._advance(f, now)
        self.since.joins = later
        self.since.leaves, self.since.carried = pending, len(pending)
        return rebalance

    def _pending(self, now: dict[str, MemberFacts]) -> list[Left]:
        """The LeaveGroups of members still in the generation that just formed, sent after their last JoinGroup:
        the coordinator had not acted on them yet (a client may leave while its JoinGroup waits, and a broker that
        answers a connection's requests in order -- librdkafka's mock does -- forms that generation with it), so
        they are the next generation's to tell. Carried once: a leave whose member is in the next generation too
        is dropped."""
        s = self.since
        last_join: dict[str, float] = {}
        for j in s.joins:
            if j.member and j.ts is not None:
                last_join[j.member] = max(last_join.get(j.member, j.ts), j.ts)
        return [
            lv
            for lv in s.leaves[s.carried :]
            if lv.how == "leave-group"
            and lv.member in now
            and lv.ts is not None
            and lv.ts > last_join.get(lv.member, float("-inf"))
        ]

    def _advance(self, f: Formed, now: dict[str, MemberFacts]) -> None:
        owners = self._owners()
        self.owners_before = owners
        self.generation, self.members, self.complete = f.generation, now, f.complete
        self.leader, self.formed_ts = f.leader, f.ts
        self.assign = self.early.pop(f.generation, {})
        self.early = {g: a for g, a in self.early.items() if g > f.generation}
        self.since = Since()
        keep = set(now)
        self.last_hb = {m: t for m, t in self.last_hb.items() if m in keep}
        if f.ts is not None:
            for m in now:
                self.last_hb[m] = max(self.last_hb.get(m, f.ts), f.ts)
        self.visible &= keep

    def moved(self) -> int | None:
        """The partitions or tasks the current generation moved (items whose owner changed from the generation
        before), when both generations' assignments are whole in the input; else None."""
        now = self._owners()
        if now is None or self.owners_before is None:
            return None
        return sum(1 for item in set(now) | set(self.owners_before) if now.get(item) != self.owners_before.get(item))


def _merged(old: MemberFacts | None, new: MemberFacts) -> MemberFacts:
    """``new``, its unknown fields filled from ``old`` (the same member as seen before)."""
    if old is None:
        return new
    fields = {}
    for name in MemberFacts.__slots__:
        v = getattr(new, name)
        fields[name] = v if v is not None else getattr(old, name)
    return MemberFacts(**fields)
