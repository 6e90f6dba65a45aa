"""Loop and storm detectors over a group's rebalances, each finding with its evidence.

:class:`Detectors` is fed each :class:`~codec.causes.vocabulary.Rebalance` as it completes (the order the engine
gives them, per group) and gives out the :class:`Finding` s it completes, so that a capture, the pipeline and a live
watcher report the same ones:

* ``rebalance-storm`` -- at least ``storm_count`` rebalances of a group within ``storm_window_s`` seconds (a
  warning; once per storm: the detector re-arms after a quiet window);
* ``probing-loop`` -- consecutive rebalances whose main cause is ``follow-up`` or ``streams-probing`` and that moved
  nothing (no partition or task changed owner): ``loop_count`` follow-ups (KAFKA-14382's follow-up loop: a
  follow-up answers a follow-up), or ``probe_count`` in all (KIP-441 probing is expected while warm-ups restore --
  one every ``probing.rebalance.interval.ms`` -- so only a long run of them that moves nothing is a loop);
* ``poll-interval-drops`` -- one member (by its client id, else its member id) dropped ``drop_count`` times for its
  poll interval (cause ``rebalance-timeout``);
* ``missed-sync`` -- a member of a follow-up generation that got no assignment from its SyncGroup (its answer was an
  error, or never came) and so rejoined: "each follow-up rebalance causes some consumers to miss the SyncGroup"
  (KAFKA-14382);
* ``static-member-flapping`` -- one ``group.instance.id`` replaced ``flap_count`` times (cause
  ``static-member-replaced``): a static member restarting or fenced over and over.

The detectors read what the rebalance says: its time (a storm needs times; records without them are not
counted), its causes, ``moved`` (the partitions or tasks it moved, when the input shows them: a loop is not
claimed when it does not) and ``missed_sync`` (set by the inputs that show SyncGroups). State per group is its
last ``storm_count`` times, the current run of loop rebalances and a count per dropped or flapping member, at most
:data:`MAX_TRACKED` of them.
"""

from __future__ import annotations

from collections import OrderedDict, deque
from dataclasses import dataclass, field

from .collect import when
from .vocabulary import FOLLOW_UP, REBALANCE_TIMEOUT, STATIC_MEMBER_REPLACED, STREAMS_PROBING, Evidence, Rebalance

__all__ = ["CHECKS", "Finding", "Detectors", "MAX_TRACKED"]

#: every check, with what it means
CHECKS = {
    "rebalance-storm": "many rebalances of one group in a short time",
    "probing-loop": "consecutive probing or follow-up rebalances that move nothing",
    "poll-interval-drops": "one member dropped again and again for its poll interval (max.poll.interval.ms)",
    "missed-sync": "a member of a follow-up generation got no assignment from its SyncGroup",
    "static-member-flapping": "one group.instance.id replaced again and again",
}
MAX_TRACKED = 4096  # members or instances counted per group (the least recent are forgotten beyond)


@dataclass(frozen=True, slots=True)
class Finding:
    """A detector's finding: the ``check`` (:data:`CHECKS`), its ``severity`` (``warning``), the group, the
    generation or epoch where it fired (``number``; ``protocol`` says which), the members it names, a detail and the
    evidence."""

    check: str
    severity: str
    group: str
    protocol: str
    number: int
    members: tuple[str, ...]
    detail: str
    evidence: tuple[Evidence, ...]

    def json(self) -> dict:
        return {
            "type": "finding",
            "check": self.check,
            "severity": self.severity,
            "group": self.group,
            "protocol": self.protocol,
            "generation" if self.protocol == "classic" else "epoch": self.number,
            "members": list(self.members),
            "detail": self.detail,
            "evidence": [e.json() for e in self.evidence],
        }


@dataclass(slots=True)
class _Group:
    times: deque = field(default_factory=deque)  # (ts, number) of its last rebalances
    storm_until: float | None = None  # a storm reported: no other until the rate falls
    run: list = field(default_factory=list)  # the current run of loop rebalances
    drops: OrderedDict = field(default_factory=OrderedDict)  # member key -> [(ts, number)]
    flaps: OrderedDict = field(default_factory=OrderedDict)  # instance id -> [(ts, number)]


def _bump(counts: OrderedDict, key: str, entry: tuple) -> list:
    seen = counts.pop(key, [])
    seen.append(entry)
    counts[key] = seen
    while len(counts) > MAX_TRACKED:
        counts.popitem(last=False)
    return seen


class Detectors:
    """See the module docstring."""

    def __init__(
        self,
        *,
        storm_count: int = 10,
        storm_window_s: float = 60.0,
        loop_count: int = 3,
        probe_count: int = 10,
        drop_count: int = 2,
        flap_count: int = 2,
    ) -> None:
        self.storm_count, self.storm_window_s = storm_count, storm_window_s
        self.loop_count, self.drop_count, self.flap_count = loop_count, drop_count, flap_count
        self.probe_count = probe_count
        self._groups: OrderedDict[tuple[str, str], _Group] = OrderedDict()

    def feed(self, r: Rebalance, *, labels: dict[str, str] | None = None) -> list[Finding]:
        """One rebalance of a group (after the one before it); the findings it completes. ``labels``: member id ->
        the client id it belongs to, where the input tells (a client's drops are counted across its member ids)."""
        key = (r.group, r.protocol)
        g = self._groups.get(key)
        if g is None:
            g = self._groups[key] = _Group()
        self._groups.move_to_end(key)
        while len(self._groups) > MAX_TRACKED * 16:
            self._groups.popitem(last=False)
        out: list[Finding] = []
        self._storm(g, r, out)
        self._loop(g, r, out)
        self._drops(g, r, out, labels or {})
        self._flaps(g, r, out)
        self._missed(r, out)
        return out

    def forget(self, group: str) -> None:
        """A group no longer followed (a live watcher dropped it, or its tombstone was read): its state goes."""
        for key in [k for k in self._groups if k[0] == group]:
            del self._groups[key]

    def _finding(self, check: str, r: Rebalance, members, detail: str, evidence) -> Finding:
        return Finding(check, "warning", r.group, r.protocol, r.number, tuple(members), detail, tuple(evidence))

    def _storm(self, g: _Group, r: Rebalance, out: list) -> None:
        if r.ts is None:
            return
        g.times.append((r.ts, r.number))
        while g.times and r.ts - g.times[0][0] > self.storm_window_s:
            g.times.popleft()
        if g.storm_until is not None and r.ts > g.storm_until:
            g.storm_until = None
        if len(g.times) >= self.storm_count and g.storm_until is None:
            span = r.ts - g.times[0][0]
            first, last = g.times[0][1], r.number
            out.append(
                self._finding(
                    "rebalance-storm",
                    r,
                    (),
                    f"{len(g.times)} rebalances in {span:.1f} s ({first} to {last}; the threshold is "
                    f"{self.storm_count} in {self.storm_window_s:g} s)",
                    [Evidence(t, f"{'generation' if r.protocol == 'classic' else 'epoch'} {n}") for t, n in g.times],
                )
            )
        if len(g.times) >= self.storm_count:
            g.storm_until = r.ts + self.storm_window_s

    def _loop(self, g: _Group, r: Rebalance, out: list) -> None:
        if r.cause.kind in (STREAMS_PROBING, FOLLOW_UP) and r.moved == 0:
            g.run.append((r.ts, r.number, r.cause.kind))
            follow_ups = sum(k == FOLLOW_UP for _, _, k in g.run)
            fired = follow_ups == self.loop_count and r.cause.kind == FOLLOW_UP
            if fired or len(g.run) == self.probe_count:
                kinds = sorted({k for _, _, k in g.run})
                out.append(
                    self._finding(
                        "probing-loop",
                        r,
                        r.cause.members,
                        f"{len(g.run)} {' and '.join(kinds)} rebalances in a row moved no partition or task "
                        f"(from {g.run[0][1]} to {r.number})",
                        [Evidence(t, f"{n}: {k}, nothing moved") for t, n, k in g.run[-self.probe_count :]],
                    )
                )
        else:
            g.run = []

    def _drops(self, g: _Group, r: Rebalance, out: list, labels: dict[str, str]) -> None:
        for c in r.causes:
            if c.kind != REBALANCE_TIMEOUT:
                continue
            for m in c.members:
                who = labels.get(m) or m
                seen = _bump(g.drops, who, (c.at if c.at is not None else r.ts, r.number))
                if len(seen) == self.drop_count:
                    out.append(
                        self._finding(
                            "poll-interval-drops",
                            r,
                            (m,),
                            f"{who} was dropped {len(seen)} times for its poll interval (max.poll.interval.ms): "
                            "its processing between polls takes longer than that",
                            [Evidence(t, f"dropped for its poll interval ({n})") for t, n in seen],
                        )
                    )

    def _flaps(self, g: _Group, r: Rebalance, out: list) -> None:
        for c in r.causes:
            if c.kind != STATIC_MEMBER_REPLACED or not c.members:
                continue
            instance = next((r.instances[m] for m in c.members if m in r.instances), c.members[0])
            seen = _bump(g.flaps, instance, (c.at if c.at is not None else r.ts, r.number))
            if len(seen) == self.flap_count:
                out.append(
                    self._finding(
                        "static-member-flapping",
                        r,
                        c.members,
                        f"static member {instance} was replaced {len(seen)} times",
                        [Evidence(t, f"replaced ({n})") for t, n in seen],
                    )
                )

    def _missed(self, r: Rebalance, out: list) -> None:
        if r.cause.kind == FOLLOW_UP and r.missed_sync:
            out.append(
                self._finding(
                    "missed-sync",
                    r,
                    r.missed_sync,
                    f"{len(r.missed_sync)} members of this follow-up generation got no assignment from their "
                    "SyncGroup and rejoined (KAFKA-14382)",
                    [Evidence(r.ts, f"{r.number} formed at {when(r.ts)}")],
                )
            )
