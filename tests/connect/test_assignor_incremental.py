"""Connect's incremental cooperative assignor (``compatible``/``sessioned``; Kafka's
``IncrementalCooperativeAssignor`` at 1eb7644) over successive rounds: the scenarios of Kafka's
``IncrementalCooperativeAssignorTest``, with every assignment worked out by hand from the rules below (Kafka's
test checks only counts; these check which worker gets, keeps and gives up which connector and task).

The rules, per round (the leader's state carries ``previous`` — what it handed out last round, less what it
revoked, plus lost work it still holds back — the last round's revocations, the scheduled rebalance and its
delay, the candidate workers, and whether the last round revoked for balance):

R1  active = what the members' allocations hold; if last round's revocation is still running somewhere, previous
    := active. deleted = previous - configured; duplicated = held by two or more members; lost = previous -
    active - deleted; created = configured - previous - active (sorted).
R2  every member is asked to stop its deleted and duplicated items (all holders of a duplicate).
R3  lost work: nothing lost and no balancing revocation last round -> no delay. Else, with no scheduled
    rebalance and no member missing since last round -> hand the lost work out as new. Else (delay > 0
    configured): if the scheduled rebalance is due, give it round-robin to the candidate workers (connectors
    from the first candidate, then tasks from the first again) or, without candidates, hand it out as new,
    and clear the delay; if not due, remember members that are empty as candidates and set delay = time left
    (a new schedule: the full ``scheduled.rebalance.max.delay.ms``).
R4  only with no delay running: balance connectors and tasks separately. With n workers and N configured
    items, fair is N//n each and N%n workers may hold one more; balanced already when exactly N%n workers hold
    N//n+1 and the others N//n. Else visit members in the leader's (Java HashMap) order: a worker above
    N//n keeps N//n+1 if extras remain to give (it takes one), else N//n, and gives up its first items (in its
    allocation's order). Revoking two rounds in a row waits instead: delay = 40^k ms (k = successive revoking
    rounds: 40, 1600, 64000, then the max), capped at the max delay.
R5  new work (created, then lost handed out as new) goes to the least loaded worker, ties by member id, a
    pass at a time; connectors first, then tasks, each counted separately.

Java HashMap order of the member ids used here (capacity 16; bucket = (h ^ (h >>> 16)) & 15 with h =
String.hashCode): "workerN" for N = 1..9 has h = 1525161074 + N; h >>> 16 = 23272, whose low four bits are
8; h & 15 = (2 + N) & 15. Bucket = ((2 + N) & 15) ^ 8: worker1 11, worker2 12, worker3 13, worker4 14,
worker5 15, worker6 0. So worker1..worker5 are visited in number order, and worker6 before all of them.
``test_java_facts`` re-derives these numbers with a String.hashCode written here.

The test group applies each assignment as Kafka's test does: a worker's next allocation is what it kept (in
its order) followed by what it was newly given. Connectors are connector1..3 with 4 tasks each; "1-2" is
task 2 of connector1.
"""

from __future__ import annotations

import pytest

from codec.connect import (
    ConnectAssignment,
    ConnectMetadata,
    ConnectorTaskId,
    decode_connect_assignment,
    encode_connect_assignment,
    encode_connect_metadata,
)
from codec.assignor.connect import (
    ConnectWorker,
    IncrementalAssignorState,
    apply_assignment,
    assign_connect,
    assign_incremental,
)

MAX = 300_000


def ts(text: str) -> tuple[ConnectorTaskId, ...]:
    """ "1-0 2-3" -> (connector1 task 0, connector2 task 3)."""
    out = []
    for word in text.split():
        c, t = word.split("-")
        out.append(ConnectorTaskId(f"connector{c}", int(t)))
    return tuple(out)


def cs(text: str) -> tuple[str, ...]:
    """ "1 3" -> (connector1, connector3)."""
    return tuple(f"connector{c}" for c in text.split())


def java_hash(s: str) -> int:
    h = 0
    for ch in s:  # the names here are ASCII: one UTF-16 unit each
        h = (31 * h + ord(ch)) & 0xFFFFFFFF
    return h


class Group:
    """A Connect group driven round by round: members with their allocations, the leader's assignor state."""

    def __init__(self, connectors: dict[str, int], *, max_delay: int = MAX, protocol: str = "sessioned"):
        self.connectors = dict(connectors)
        self.max_delay = max_delay
        self.protocol = protocol
        self.held: dict[str, tuple[list[str], list[ConnectorTaskId]]] = {}
        self.state: IncrementalAssignorState | None = None
        self.now = 1_000
        self.leader: str | None = None

    def join(self, *members: str, connectors=(), tasks=()):
        for m in members:
            assert m not in self.held
            self.held[m] = (list(connectors), list(tasks))

    def leave(self, *members: str):
        for m in members:
            del self.held[m]

    def workers(self):
        return [
            ConnectWorker(
                m,
                f"http://{m}:8083",
                7,
                ConnectAssignment(
                    version=2, leader="L", leader_url="u", config_offset=7, connectors=tuple(c), tasks=tuple(t)
                ),
            )
            for m, (c, t) in self.held.items()
        ]

    def rebalance(self, *, apply: bool = True, **kw):
        leader = self.leader if self.leader in self.held else next(iter(self.held))
        result = assign_incremental(
            leader,
            self.workers(),
            self.connectors,
            now=self.now,
            state=self.state,
            protocol=self.protocol,
            max_delay=self.max_delay,
            **kw,
        )
        self.state = result.state
        assert set(result.assignments) == set(self.held)
        if apply:
            for m, a in result.assignments.items():
                c, t = self.held[m]
                kept_c = [x for x in c if x not in a.revoked_connectors]
                kept_t = [x for x in t if x not in a.revoked_tasks]
                self.held[m] = (kept_c + list(a.connectors), kept_t + list(a.tasks))
                # the leader's own view of what the worker now runs
                assert set(result.running[m][0]) == set(self.held[m][0])
                assert set(result.running[m][1]) == set(self.held[m][1])
        return result

    def counts(self):
        return (sorted(len(c) for c, _ in self.held.values()), sorted(len(t) for _, t in self.held.values()))

    def complete(self):
        """Every configured connector and task runs exactly once."""
        running_c = [x for c, _ in self.held.values() for x in c]
        running_t = [x for _, t in self.held.values() for x in t]
        assert sorted(running_c) == sorted(self.connectors)
        want = [ConnectorTaskId(c, i) for c, n in self.connectors.items() for i in range(n)]
        assert sorted(running_t, key=ConnectorTaskId.sort_key) == sorted(want, key=ConnectorTaskId.sort_key)


def got(result, member, connectors="", tasks="", revoked_connectors="", revoked_tasks="", delay=0):
    a = result.assignments[member]
    assert (a.connectors, a.tasks, a.revoked_connectors, a.revoked_tasks, a.delay) == (
        cs(connectors),
        ts(tasks),
        cs(revoked_connectors),
        ts(revoked_tasks),
        delay,
    ), member


def nothing(result, delay=0):
    for m, a in result.assignments.items():
        assert (a.connectors, a.tasks, a.revoked_connectors, a.revoked_tasks, a.delay) == ((), (), (), (), delay), m


def two_connectors():
    return {"connector1": 4, "connector2": 4}


def test_java_facts():
    """The HashMap buckets quoted in the module docstring, and the ConnectorTaskId buckets used below."""
    for n in range(1, 7):
        h = java_hash(f"worker{n}")
        assert h == 1525161074 + n and h >> 16 == 23272
    assert [(java_hash(f"worker{n}") ^ (java_hash(f"worker{n}") >> 16)) & 15 for n in range(1, 7)] == [
        11,
        12,
        13,
        14,
        15,
        0,
    ]


def test_first_round_round_robin_and_assignment_fields():
    """R5 on two empty workers: connector1 -> worker1, connector2 -> worker2 (ties by id); the tasks alternate
    from worker1: 1-0 w1, 1-1 w2, 1-2 w1, 1-3 w2, 2-0 w1, ... Every assignment is v2 (sessioned) from leader
    worker1 with worker1's URL and the highest config offset, delay 0, nothing revoked."""
    g = Group(two_connectors())
    g.join("worker1", "worker2")
    r = g.rebalance()
    got(r, "worker1", "1", "1-0 1-2 2-0 2-2")
    got(r, "worker2", "2", "1-1 1-3 2-1 2-3")
    a = r.assignments["worker2"]
    assert (a.version, a.error, a.leader, a.leader_url, a.config_offset) == (2, 0, "worker1", "http://worker1:8083", 7)
    assert r.state.previous_members == {"worker1", "worker2"}
    g.complete()
    nothing(g.rebalance())  # a second round with nothing changed moves nothing


def test_worker_joins_revoke_then_assign():
    """Kafka's testTaskAssignmentWhenWorkerJoins.
    Round 1: worker1 alone gets everything: connector1, connector2; 1-0..1-3, 2-0..2-3.
    Round 2: worker2 joins empty. R4: connectors fair 2//2 = 1, no extras: worker1 (2) gives up its first:
    connector1; tasks fair 4: worker1 (8) gives up its first four: 1-0..1-3. Nothing new to give out yet
    (they are revoked, not free). No delay.
    Round 3: the revoked items are free: created = connector1, 1-0..1-3 (not in the leader's previous view,
    not running). Last round revoked, but R4 finds nothing above fair share, so no backoff. R5: connector1 ->
    worker2 (0 connectors vs 1), four tasks -> worker2 (0 vs 4).
    Round 4: balanced; nothing moves."""
    g = Group(two_connectors())
    g.join("worker1")
    r = g.rebalance()
    got(r, "worker1", "1 2", "1-0 1-1 1-2 1-3 2-0 2-1 2-2 2-3")
    g.join("worker2")
    r = g.rebalance()
    got(r, "worker1", revoked_connectors="1", revoked_tasks="1-0 1-1 1-2 1-3")
    got(r, "worker2")
    assert r.running == {"worker1": (cs("2"), ts("2-0 2-1 2-2 2-3")), "worker2": ((), ())}
    r = g.rebalance()
    got(r, "worker1")
    got(r, "worker2", "1", "1-0 1-1 1-2 1-3")
    g.complete()
    assert g.counts() == ([1, 1], [4, 4])
    g.now += 10_000
    nothing(g.rebalance())


def test_worker_bounces_within_the_delay_and_gets_its_work_back():
    """Kafka's testTaskAssignmentWhenWorkerBounces (Design II).
    Round 1 (t=1000): as in test_first_round: worker1 connector1, 1-0 1-2 2-0 2-2; worker2 the rest.
    Round 2 (t=1000): worker2 is gone. lost = connector2, 1-1 1-3 2-1 2-3. A member is missing and there is no
    schedule: delay = max 300000, scheduled at 301000; nothing moves; every assignment carries the delay.
    Round 3 (t=151000): still lost, not due: delay = 301000 - 151000 = 150000, same schedule.
    Round 4 (t=226000): worker2 is back, empty: it becomes a candidate. Not due: delay 75000. Nothing moves.
    Round 5 (t=301000): due. Lost work round-robin over the candidates [worker2]: all of it back to worker2,
    in sorted order; delay cleared. R4: 1/1 connectors and 4/4 tasks are balanced."""
    g = Group(two_connectors())
    g.join("worker1", "worker2")
    g.rebalance()
    g.leave("worker2")
    r = g.rebalance()
    nothing(r, delay=300_000)
    assert r.state.scheduled_rebalance == 301_000
    assert r.state.previous_tasks == set(ts("1-0 1-1 1-2 1-3 2-0 2-1 2-2 2-3"))  # the lost work is held
    g.now = 151_000
    nothing(g.rebalance(), delay=150_000)
    g.now = 226_000
    g.join("worker2")
    r = g.rebalance()
    nothing(r, delay=75_000)
    assert r.state.candidate_workers == ("worker2",)
    g.now = 301_000
    r = g.rebalance()
    got(r, "worker1")
    got(r, "worker2", "2", "1-1 1-3 2-1 2-3")
    assert r.state.scheduled_rebalance == 0 and r.state.candidate_workers == ()
    g.complete()


def test_worker_leaves_for_longer_than_the_delay():
    """Kafka's testTaskAssignmentWhenWorkerLeavesPermanently.
    Rounds 1-3 as in the bounce: delays 300000 (t=1000) and 150000 (t=151000).
    Round 4 (t=301001): due, no candidates: the lost work is handed out as new (R5) — all to worker1, the only
    worker: connector2; 1-1 1-3 2-1 2-3. Delay 0."""
    g = Group(two_connectors())
    g.join("worker1", "worker2")
    g.rebalance()
    g.leave("worker2")
    nothing(g.rebalance(), delay=300_000)
    g.now = 151_000
    nothing(g.rebalance(), delay=150_000)
    g.now = 301_001
    r = g.rebalance()
    got(r, "worker1", "2", "1-1 1-3 2-1 2-3")
    g.complete()
    assert r.state.delay == 0 and r.state.scheduled_rebalance == 0


def test_lost_work_goes_round_robin_to_the_candidates_then_balance():
    """Kafka's testLostAssignmentHandlingWithMoreThanOneCandidates, as whole rounds.
    Round 1 (t=1000): worker1 connector1, 1-0 1-2 2-0 2-2; worker2 connector2, 1-1 1-3 2-1 2-3.
    Round 2 (t=1000): worker2 leaves and a new worker3 joins empty in the same round. lost = worker2's work;
    worker3 is empty: candidates [worker3]; delay 300000. worker3 is given nothing (lost work is held back,
    and no balancing runs while a delay does).
    Round 3 (t=151000): worker2 returns empty. Empty members in HashMap order: worker2 (bucket 12), worker3
    (13); worker3 is already a candidate, so candidates = [worker3, worker2]. Delay 150000.
    Round 4 (t=301000): due. Connectors from the first candidate: connector2 -> worker3. Tasks from the first
    candidate again: 1-1 -> worker3, 1-3 -> worker2, 2-1 -> worker3, 2-3 -> worker2. Delay cleared.
    R4: connectors N=2, n=3: fair 0, 2 extras; holding 1 (w1), 0 (w2), 1 (w3): balanced. Tasks N=8: fair 2, 2
    extras; holding w1 4, w2 2, w3 2: not balanced. HashMap order worker1 first: above 2, takes an extra
    (keeps 3), gives up its first: 1-0. No revocation last round: revoke now.
    Round 5: 1-0 is free (created). Last round revoked; R4: w1 3, w2 3, w3 2 -> w1 and w2 each take an extra
    and keep 3: no revocation, so no backoff. R5: 1-0 -> least loaded: worker2 and worker3 hold 2 each, and
    worker2 sorts first by id."""
    g = Group(two_connectors())
    g.join("worker1", "worker2")
    g.rebalance()
    g.leave("worker2")
    g.join("worker3")
    r = g.rebalance()
    nothing(r, delay=300_000)
    assert r.state.candidate_workers == ("worker3",)
    g.now = 151_000
    g.join("worker2")
    r = g.rebalance()
    nothing(r, delay=150_000)
    assert r.state.candidate_workers == ("worker3", "worker2")
    g.now = 301_000
    r = g.rebalance()
    got(r, "worker1", revoked_tasks="1-0")
    got(r, "worker2", "", "1-3 2-3")
    got(r, "worker3", "2", "1-1 2-1")
    r = g.rebalance()
    got(r, "worker1")
    got(r, "worker2", "", "1-0")
    got(r, "worker3")
    g.complete()
    assert g.counts() == ([0, 1, 1], [2, 3, 3])


def test_successive_revoking_rounds_back_off():
    """Kafka's testAssignmentsWhenWorkersJoinAfterRevocations (Design III), three connectors of 4 tasks.
    Round 1 (t=1000): worker1 gets all: connector1..3, 1-0..3-3.
    Round 2: worker2 joins. Connectors N=3, n=2: fair 1, one extra: worker1 (3) takes the extra, keeps 2,
    gives up connector1. Tasks N=12: fair 6: worker1 gives up its first six: 1-0 1-1 1-2 1-3 2-0 2-1.
    Round 3: worker3 joins. created = connector1, 1-0..1-3, 2-0, 2-1. R4: connectors fair 1: worker1 (2)
    would give up connector2; tasks fair 4: worker1 (6) would give up 2-2 2-3 — but last round revoked too:
    the first successive revoking round waits 40 ms (delay 40, scheduled t=1040), revoking nothing. R5:
    connector1 -> worker2 (tie 0/0 with worker3, by id); tasks alternate worker2, worker3: 1-0 w2, 1-1 w3,
    1-2 w2, 1-3 w3, 2-0 w2, 2-1 w3. All assignments carry delay 40.
    Round 4 (t=1040): worker4 joins. The schedule is due (nothing lost, no candidates): cleared, and the
    backoff flag reset, so balancing revokes now. Connectors N=3, n=4: fair 0, 3 extras: worker1 (2) takes an
    extra, keeps 1, gives up connector2; worker2 (1) takes one, keeps it. Tasks N=12: fair 3, no extra:
    worker1 (6: 2-2 2-3 3-0 3-1 3-2 3-3) gives up 2-2 2-3 3-0; worker2 (3), worker3 (3) keep theirs.
    Round 5 (t=1040): worker5 joins. created = connector2, 2-2 2-3 3-0. R4: connectors fair 0, 3 extras:
    w1 1, w2 1 take extras, fine. Tasks fair 2, 2 extras: w1 (3) and w2 (3) take them; worker3 (3) would give
    up 1-1. Successive revoking round number 2: delay 1600 (scheduled 2640), no revocation. R5: connector2 ->
    worker3 (0 connectors, first by id of w3 w4 w5); tasks to the 0-task workers: 2-2 w4, 2-3 w5, 3-0 w4.
    Round 6 (t=2640): worker6 joins (HashMap bucket 0: visited first). Due: cleared, revoke now. Connectors
    fair 0, 3 extras: w1, w2, w3 hold 1 each, balanced. Tasks N=12, n=6: fair 2, no extra: visiting w6 (0),
    w1 (3: 3-1 3-2 3-3) gives up 3-1, w2 (3: 1-0 1-2 2-0) gives up 1-0, w3 (3: 1-1 1-3 2-1) gives up 1-1,
    w4 (2), w5 (1) keep.
    Round 7: created 1-0 1-1 3-1. No balancing revocation (none above 2), backoff reset. R5 sorts by tasks
    then id: worker6 (0), worker5 (1), worker1..4 (2). 1-0 -> worker6 (now 1); worker6 and worker5 tie at 1,
    worker6 ahead in that order: 1-1 -> worker6 (2); 3-1 -> worker5 (2). Everyone runs 2 tasks."""
    g = Group({"connector1": 4, "connector2": 4, "connector3": 4})
    g.join("worker1")
    g.rebalance()
    g.join("worker2")
    r = g.rebalance()
    got(r, "worker1", revoked_connectors="1", revoked_tasks="1-0 1-1 1-2 1-3 2-0 2-1")
    got(r, "worker2")
    g.join("worker3")
    r = g.rebalance()
    got(r, "worker1", delay=40)
    got(r, "worker2", "1", "1-0 1-2 2-0", delay=40)
    got(r, "worker3", "", "1-1 1-3 2-1", delay=40)
    assert r.state.scheduled_rebalance == 1_040 and r.state.successive_revoking_rebalances == 1
    g.now = 1_040
    g.join("worker4")
    r = g.rebalance()
    got(r, "worker1", revoked_connectors="2", revoked_tasks="2-2 2-3 3-0")
    for m in ("worker2", "worker3", "worker4"):
        got(r, m)
    assert g.counts() == ([0, 0, 1, 1], [0, 3, 3, 3])
    g.join("worker5")
    r = g.rebalance()
    got(r, "worker1", delay=1_600)
    got(r, "worker2", delay=1_600)
    got(r, "worker3", "2", delay=1_600)
    got(r, "worker4", "", "2-2 3-0", delay=1_600)
    got(r, "worker5", "", "2-3", delay=1_600)
    assert g.counts() == ([0, 0, 1, 1, 1], [1, 2, 3, 3, 3])
    g.now = 2_640
    g.join("worker6")
    r = g.rebalance()
    got(r, "worker1", revoked_tasks="3-1")
    got(r, "worker2", revoked_tasks="1-0")
    got(r, "worker3", revoked_tasks="1-1")
    for m in ("worker4", "worker5", "worker6"):
        got(r, m)
    r = g.rebalance()
    got(r, "worker6", "", "1-0 1-1")
    got(r, "worker5", "", "3-1")
    g.complete()
    assert g.counts() == ([0, 0, 0, 1, 1, 1], [2] * 6)
    assert r.state.successive_revoking_rebalances == 0 and not r.state.revoked_in_previous


def test_no_backoff_when_the_max_delay_is_zero():
    """Kafka's testImmediateRevocationsWhenMaxDelayIs0: with scheduled.rebalance.max.delay.ms = 0 the backoff
    is 0, so a second revoking round in a row revokes at once.
    Rounds 1-2 as in the backoff test (worker1 gives up connector1, 1-0..2-1 to make room for worker2).
    Round 3: worker3 joins. worker1 (connector2 connector3; 2-2 2-3 3-0..3-3) gives up connector2 and 2-2 2-3
    at once (fair 1 and 4), delay 0; the free work from round 2 goes out: connector1 -> worker2; tasks 1-0 w2,
    1-1 w3, 1-2 w2, 1-3 w3, 2-0 w2, 2-1 w3 (w1 holds 4 after its revocation, the others 0).
    Round 4: connector2 -> worker3 (w3 has 0 connectors); 2-2 -> w2, 2-3 -> w3 (both at 3, w1 at 4)."""
    g = Group({"connector1": 4, "connector2": 4, "connector3": 4}, max_delay=0)
    g.join("worker1")
    g.rebalance()
    g.join("worker2")
    g.rebalance()
    g.join("worker3")
    r = g.rebalance()
    got(r, "worker1", revoked_connectors="2", revoked_tasks="2-2 2-3")
    got(r, "worker2", "1", "1-0 1-2 2-0")
    got(r, "worker3", "", "1-1 1-3 2-1")
    r = g.rebalance()
    got(r, "worker1")
    got(r, "worker2", "", "2-2")
    got(r, "worker3", "2", "2-3")
    g.complete()
    assert g.counts() == ([1, 1, 1], [4, 4, 4])


def test_max_delay_zero_reassigns_lost_work_at_once():
    """Kafka's testScheduledDelayIsDisabled: worker2 leaves; with the delay off its work goes to worker1 in
    the same round: connector2; 1-1 1-3 2-1 2-3; delay 0."""
    g = Group(two_connectors(), max_delay=0)
    g.join("worker1", "worker2")
    g.rebalance()
    g.leave("worker2")
    got(g.rebalance(), "worker1", "2", "1-1 1-3 2-1 2-3")
    g.complete()


def test_duplicated_assignments_are_revoked_from_every_holder():
    """Kafka's testTaskAssignmentWhenTasksDuplicatedInWorkerAssignment.
    Round 1: worker1 runs everything.
    Round 2: worker2 joins claiming connector1 and 1-0..1-3 (say, a zombie's view). Those run twice: R2 asks
    both to stop them. worker1's revoked tasks come in the order of Java's HashSet of its eight tasks (16
    buckets; bucket of ConnectorTaskId = spread(31 * h(connector) + task) & 15: 1-0 -> 2, 1-1 -> 3, 1-2 -> 0,
    1-3 -> 1, see test_revoked_order_is_java_hash_set_order): 1-2, 1-3, 1-0, 1-1; worker2's the same. After
    that worker1 holds connector2 and 4 tasks, worker2 nothing; R4 finds no one above fair share (1 and 4).
    Nothing is created (the duplicates are still running); nothing assigned.
    Round 3: the duplicates are free (not in the leader's view, not running): created -> worker2 (fewest).
    Round 4: nothing moves."""
    g = Group(two_connectors())
    g.join("worker1")
    g.rebalance()
    g.join("worker2", connectors=cs("1"), tasks=ts("1-0 1-1 1-2 1-3"))
    r = g.rebalance()
    got(r, "worker1", revoked_connectors="1", revoked_tasks="1-2 1-3 1-0 1-1")
    got(r, "worker2", revoked_connectors="1", revoked_tasks="1-2 1-3 1-0 1-1")
    r = g.rebalance()
    got(r, "worker1")
    got(r, "worker2", "1", "1-0 1-1 1-2 1-3")
    g.complete()
    nothing(g.rebalance())


def test_duplicated_and_deleted_at_once():
    """Kafka's testDuplicatedAssignmentHandleWhenTheDuplicatedAssignmentsDeleted: connector1 is deleted while
    worker2 joins claiming it. It is both deleted (in the leader's view, no longer configured) and duplicated:
    both stop it. worker1 keeps connector2 and its 4 tasks; R4 with N=1 connector and 4 tasks over 2 workers:
    fair 0 connectors + 1 extra — worker1 (1) takes it; tasks fair 2: worker1 (4) gives up 2-0 2-1. Revoked
    order for worker1: deleted first (connector1; 1-2 1-3 1-0 1-1 by HashSet order), then the balancing ones.
    Round 3: 2-0 2-1 free -> worker2."""
    g = Group(two_connectors())
    g.join("worker1")
    g.rebalance()
    del g.connectors["connector1"]
    g.join("worker2", connectors=cs("1"), tasks=ts("1-0 1-1 1-2 1-3"))
    r = g.rebalance()
    got(r, "worker1", revoked_connectors="1", revoked_tasks="1-2 1-3 1-0 1-1 2-0 2-1")
    got(r, "worker2", revoked_connectors="1", revoked_tasks="1-2 1-3 1-0 1-1")
    r = g.rebalance()
    got(r, "worker2", "", "2-0 2-1")
    got(r, "worker1")
    g.complete()
    nothing(g.rebalance())


def test_deleted_connector_is_revoked():
    """Kafka's testTaskAssignmentWhenConnectorsAreDeleted. Round 1 over two workers: connector1 -> w1,
    connector2 -> w2, connector3 -> w1; tasks alternate from w1: w1 1-0 1-2 2-0 2-2 3-0 3-2, w2 the odd
    ones. Round 2: connector3 removed: deleted = connector3, 3-0..3-3; each holder stops its part, tasks in
    HashSet order (3-0 -> bucket 4, 3-1 -> 5, 3-2 -> 2, 3-3 -> 3): w1 3-2 3-0, w2 3-3 3-1. Left: 1/1, 4/4."""
    g = Group({"connector1": 4, "connector2": 4, "connector3": 4})
    g.join("worker1", "worker2")
    r = g.rebalance()
    got(r, "worker1", "1 3", "1-0 1-2 2-0 2-2 3-0 3-2")
    got(r, "worker2", "2", "1-1 1-3 2-1 2-3 3-1 3-3")
    del g.connectors["connector3"]
    r = g.rebalance()
    got(r, "worker1", revoked_connectors="3", revoked_tasks="3-2 3-0")
    got(r, "worker2", revoked_tasks="3-3 3-1")
    g.complete()
    assert r.state.previous_connectors == set(cs("1 2"))


def test_revoked_order_is_java_hash_set_order():
    """The buckets quoted above: h("connector1") = -775645820, h("connector3") = -775645818 (String.hashCode);
    a ConnectorTaskId's hash is 31 * h(connector) + task."""

    def bucket(c, t):
        h = (31 * java_hash(c) + t) & 0xFFFFFFFF
        return (h ^ (h >> 16)) & 15

    assert java_hash("connector1") - (1 << 32) == -775645820
    assert [bucket("connector1", t) for t in range(4)] == [2, 3, 0, 1]
    assert [bucket("connector3", t) for t in range(4)] == [4, 5, 2, 3]


def test_members_are_visited_in_java_hashmap_order():
    """Who takes the spare share follows Java's HashMap order of member ids, not their sort order: worker6
    (bucket 0) comes before worker1 (bucket 11). A fresh leader; connector1 has 4 tasks; worker1 runs
    connector1, 1-0 1-1; worker6 runs 1-2 1-3; worker2 joins empty. Connectors N=1, n=3: one worker may hold
    1 — balanced. Tasks N=4, n=3: fair 1, one extra. Visiting worker6 first: 2 tasks, takes the extra, keeps
    both; worker1: 2 tasks, no extra left, keeps 1 and gives up its first, 1-0 (sorted order would have made
    worker6 give up 1-2). Next round 1-0 goes to worker2 (0 tasks)."""
    g = Group({"connector1": 4})
    g.join("worker1", connectors=cs("1"), tasks=ts("1-0 1-1"))
    g.join("worker6", tasks=ts("1-2 1-3"))
    g.join("worker2")
    r = g.rebalance()
    got(r, "worker1", revoked_tasks="1-0")
    got(r, "worker6")
    got(r, "worker2")
    r = g.rebalance()
    got(r, "worker2", "", "1-0")
    g.complete()


def test_leader_bounces_new_leader_starts_clean():
    """Kafka's testTaskAssignmentWhenLeaderBounces.
    Round 1: three empty workers. Connectors: connector1 -> w1, connector2 -> w2. Tasks round the three by
    id: 1-0 w1, 1-1 w2, 1-2 w3, 1-3 w1, 2-0 w2, 2-1 w3, 2-2 w1, 2-3 w2.
    Round 2: the leader worker1 leaves; worker2 leads with no state. Its view comes only from the members'
    allocations: no lost work (no previous view), so worker1's work is simply created and given out now,
    without delay: connector1 -> worker3 (0 vs 1 connectors); tasks 1-0 1-3 2-2: w3 (2) gets 1-0, then w3 and
    w2 tie at 3 and w3 is first in the initial order (2 < 3): 1-3 -> w3, 2-2 -> w2.
    Round 3: worker1 returns as a follower: a new empty worker. Connectors N=2, n=3: balanced (1, 1, 0). Tasks
    fair 2, 2 extras: HashMap order w1 (0), w2 (4: 1-1 2-0 2-3 2-2) takes an extra, keeps 3, gives up 1-1;
    w3 (4: 1-2 2-1 1-0 1-3) takes the other, gives up 1-2.
    Round 4: 1-1 1-2 free; w1 holds 3 and 3 with extras, nothing to revoke; both -> worker1."""
    g = Group(two_connectors())
    g.join("worker1", "worker2", "worker3")
    r = g.rebalance()
    got(r, "worker1", "1", "1-0 1-3 2-2")
    got(r, "worker2", "2", "1-1 2-0 2-3")
    got(r, "worker3", "", "1-2 2-1")
    g.leave("worker1")
    g.state = None
    g.leader = "worker2"
    r = g.rebalance()
    got(r, "worker2", "", "2-2")
    got(r, "worker3", "1", "1-0 1-3")
    assert r.assignments["worker3"].leader == "worker2"
    g.complete()
    g.join("worker1")
    r = g.rebalance()
    got(r, "worker1")
    got(r, "worker2", revoked_tasks="1-1")
    got(r, "worker3", revoked_tasks="1-2")
    r = g.rebalance()
    got(r, "worker1", "", "1-1 1-2")
    got(r, "worker2")
    got(r, "worker3")
    g.complete()
    assert g.counts() == ([0, 1, 1], [2, 3, 3])


def test_leader_leaves_but_the_old_leader_would_have_waited():
    """Contrast (Kafka's testTaskAssignmentWhenLeaderLeavesPermanently vs a follower leaving): the same
    departure with the old leader's state kept (a follower, worker3, leaves) holds the work back (delay
    300000); a new leader with a clean state gives it out at once (previous test)."""
    g = Group(two_connectors())
    g.join("worker1", "worker2", "worker3")
    g.rebalance()
    g.leave("worker3")
    nothing(g.rebalance(), delay=300_000)


def test_first_assignment_never_arrived():
    """Kafka's testTaskAssignmentWhenFirstAssignmentAttemptFails: round 1's assignment is computed but not
    delivered (members still hold nothing). Round 2: the leader's view says everything was handed out, so
    all of it is lost — but no member left and no rebalance is scheduled (R3): handed out again as new, the
    same way as in round 1, with no delay."""
    g = Group(two_connectors())
    g.join("worker1", "worker2")
    first = g.rebalance(apply=False)
    r = g.rebalance()
    assert r.assignments == first.assignments
    got(r, "worker1", "1", "1-0 1-2 2-0 2-2")
    g.complete()


def test_generation_mismatch_forgets_the_leaders_view():
    """When the leader's last completed generation is not the generation of its remembered round, it drops its
    view of the previous assignment (Kafka clears ``previousAssignment``). worker2 leaves: with the view kept,
    its work is lost and held back (delay 300000); with the view dropped, nothing is lost: the work is simply
    created and goes to worker1 at once."""
    g = Group(two_connectors())
    g.join("worker1", "worker2")
    g.rebalance(generation_id=10)
    saved = g.state
    g.leave("worker2")
    nothing(g.rebalance(generation_id=11, last_completed_generation_id=10), delay=300_000)
    g.state = saved
    g.join("worker2")
    g.leave("worker2")
    r = g.rebalance(generation_id=12, last_completed_generation_id=9)
    got(r, "worker1", "2", "1-1 1-3 2-1 2-3")
    assert r.state.previous_generation_id == 12


def test_allocation_order_from_metadata_bytes_picks_what_is_revoked():
    """The leader reads each member's allocation from its metadata bytes, and a worker gives up its *first*
    items in that order. worker1's allocation, written without Java order, groups connector2 first (its
    connectors are listed connector2, connector1), so its connectors read back as connector2, connector1 and
    its tasks as 2-0..2-3 then 1-0..1-3. worker2 joins empty: worker1 gives up connector2 and 2-0..2-3."""
    alloc = ConnectAssignment(
        version=1,
        leader="worker1",
        leader_url="u",
        config_offset=3,
        connectors=cs("2 1"),
        tasks=ts("1-0 1-1 1-2 1-3 2-0 2-1 2-2 2-3"),
    )
    raw1 = encode_connect_metadata(ConnectMetadata(version=1, url="http://w1", config_offset=3, allocation=alloc))
    raw2 = encode_connect_metadata(ConnectMetadata(version=2, url="http://w2", config_offset=3))
    workers = [ConnectWorker.from_metadata("worker1", raw1), ConnectWorker.from_metadata("worker2", raw2)]
    assert workers[0].tasks == ts("2-0 2-1 2-2 2-3 1-0 1-1 1-2 1-3")
    r = assign_connect("compatible", "worker1", workers, two_connectors(), now=5)
    got(r, "worker1", revoked_connectors="2", revoked_tasks="2-0 2-1 2-2 2-3")
    got(r, "worker2")
    assert {a.version for a in r.assignments.values()} == {1}


def test_assignments_round_trip_through_the_codec():
    """Every assignment of a scenario with assignments, revocations and delays encodes (v1 and v2, Kafka's Java
    order or not) and decodes back: the same fields, connectors as a set with Java order, tasks as a set
    (the writer groups them under their connectors)."""
    g = Group(two_connectors(), protocol="compatible")
    g.join("worker1")
    seen = []
    seen += g.rebalance().assignments.values()
    g.join("worker2", "worker3")
    seen += g.rebalance().assignments.values()
    seen += g.rebalance().assignments.values()
    g.leave("worker3")
    seen += g.rebalance().assignments.values()
    assert any(a.revoked_tasks for a in seen) and any(a.delay for a in seen) and any(a.tasks for a in seen)
    for a in seen:
        assert a.version == 1
        for java_order in (False, True):
            back = decode_connect_assignment(encode_connect_assignment(a, java_order=java_order))
            assert (back.version, back.error, back.leader, back.leader_url, back.config_offset, back.delay) == (
                a.version,
                a.error,
                a.leader,
                a.leader_url,
                a.config_offset,
                a.delay,
            )
            assert (back.connectors == a.connectors) if not java_order else (set(back.connectors) == set(a.connectors))
            assert back.revoked_connectors == a.revoked_connectors
            for x, y in ((back.tasks, a.tasks), (back.revoked_tasks, a.revoked_tasks)):
                assert len(x) == len(y) and set(x) == set(y)
        v2 = decode_connect_assignment(encode_connect_assignment(a, version=2))
        assert v2.version == 2 and set(v2.tasks) == set(a.tasks)


def test_apply_assignment_is_what_the_worker_sends_next():
    """WorkerCoordinator.onJoinComplete: incremental — the newly assigned first, then what it kept; eager — the
    assignment as received."""
    before = ConnectAssignment(
        version=2, leader="L", leader_url="u", config_offset=1, connectors=cs("1 2"), tasks=ts("1-0 2-0")
    )
    got_now = ConnectAssignment(
        version=2,
        leader="L",
        leader_url="u",
        config_offset=2,
        connectors=cs("3"),
        tasks=ts("3-0"),
        revoked_connectors=cs("1"),
        revoked_tasks=ts("2-0"),
        delay=5,
    )
    after = apply_assignment(before, got_now)
    assert (after.connectors, after.tasks, after.config_offset, after.delay) == (cs("3 2"), ts("3-0 1-0"), 2, 5)
    eager = ConnectAssignment(version=0, leader="L", leader_url="u", config_offset=2, connectors=cs("3"))
    assert apply_assignment(before, eager) == eager
    assert apply_assignment(None, got_now) == got_now


def test_config_mismatch_keeps_the_state():
    g = Group(two_connectors())
    g.join("worker1", "worker2")
    g.rebalance()
    before = g.state
    workers = g.workers()
    workers[1] = ConnectWorker("worker2", "http://worker2:8083", 99, workers[1].assignment)
    r = assign_incremental("worker1", workers, g.connectors, now=2_000, state=before, leader_fresh_offset=50)
    assert r.error == 1 and r.state == before
    assert {(a.error, a.config_offset, a.version, a.connectors, a.tasks) for a in r.assignments.values()} == {
        (1, 99, 2, (), ())
    }


def test_bad_protocol_and_delay():
    with pytest.raises(ValueError):
        assign_incremental("a", [ConnectWorker("a")], {}, now=0, protocol="default")
    with pytest.raises(ValueError):
        assign_incremental("a", [ConnectWorker("a")], {}, now=0, max_delay=-1)


@pytest.mark.parametrize("mismatch", [False, True])
def test_revocation_that_never_arrived_is_reapplied(mismatch):
    """Kafka's testTaskAssignmentWhenSubsequentAssignmentAttemptFails (and ...FailsOutsideTheAssignor with a
    generation mismatch: the leader drops its view, and the unapplied revocation puts it back the same way).
    Round 1: worker1 connector1, 1-0 1-2 2-0 2-2; worker2 connector2, 1-1 1-3 2-1 2-3.
    Round 2: worker3 joins. Connectors N=2, n=3: 1, 1, 0 is balanced. Tasks fair 2, 2 extras: worker1 (4)
    takes one, keeps 3, gives up 1-0; worker2 likewise gives up 1-1. The assignment is never delivered.
    Round 3: members still run everything. The revocation did not take effect (1-0 still runs): the leader's
    view := what runs (so nothing is lost or created, also when the view was dropped for the mismatch). R4
    wants the same revocations, but the last round revoked: backoff, delay 40, nothing moves.
    Round 4 (40 ms later): due; revoke 1-0 from worker1 and 1-1 from worker2 now.
    Round 5: 1-0 1-1 free -> worker3 (0 tasks against 3 and 3)."""
    g = Group(two_connectors())
    g.join("worker1", "worker2")
    g.rebalance()
    g.join("worker3")
    r = g.rebalance(apply=False)
    got(r, "worker1", revoked_tasks="1-0")
    got(r, "worker2", revoked_tasks="1-1")
    kw = {}
    if mismatch:
        kw = dict(
            generation_id=g.state.previous_generation_id + 1,
            last_completed_generation_id=g.state.previous_generation_id - 1,
        )
    r = g.rebalance(**kw)
    nothing(r, delay=40)
    g.now += 40
    r = g.rebalance()
    got(r, "worker1", revoked_tasks="1-0")
    got(r, "worker2", revoked_tasks="1-1")
    got(r, "worker3")
    r = g.rebalance()
    got(r, "worker3", "", "1-0 1-1")
    g.complete()
    assert g.counts() == ([0, 1, 1], [2, 3, 3])


def test_encoded_bytes_by_hand():
    """One worker "w" (URL "u", config offset 7), one connector "c" with one task, protocol sessioned. Kafka's
    v2 assignment bytes: int16 header 2; error int16 0; leader "w" and leader URL "u" (int16 length + UTF-8);
    config offset int64 7; one connector group: "c" with task ids [-1 (the connector), 0]; no revoked groups;
    delay int32 0. With compatible the header is 1 and the rest the same (Kafka writes the v1 layout for
    both)."""
    workers = [ConnectWorker("w", "u", 7)]
    body = "000000017700017500000000000000070000000100016300000002ffffffff000000000000000000000000"
    r2 = assign_incremental("w", workers, {"c": 1}, now=0)
    assert r2.encoded() == {"w": bytes.fromhex("0002" + body)}
    r1 = assign_connect("compatible", "w", workers, {"c": 1})
    assert r1.encoded(java_order=False) == {"w": bytes.fromhex("0001" + body)}
    # eager (v0): header 0 and no revoked groups or delay
    r0 = assign_connect("default", "w", workers, {"c": 1})
    assert r0.encoded() == {"w": bytes.fromhex("0000" + body[:-16])}


def test_state_json_round_trip():
    """The state after a delayed round (lost work held, a candidate, a schedule) goes to JSON and back equal,
    and a round run from the JSON copy gives the same result as from the original."""
    g = Group(two_connectors())
    g.join("worker1", "worker2")
    g.rebalance()
    g.leave("worker2")
    g.join("worker3")
    r = g.rebalance()
    state = r.state
    js = state.to_json()
    assert js["candidateWorkers"] == ["worker3"] and js["delay"] == 300_000
    assert js["previousTasks"][0] == {"connector": "connector1", "task": 0}
    assert IncrementalAssignorState.from_json(js) == state
    import json

    assert IncrementalAssignorState.from_json(json.loads(json.dumps(js))) == state
    g.now = 400_000
    a = assign_incremental("worker1", g.workers(), g.connectors, now=g.now, state=state)
    b = assign_incremental(
        "worker1", g.workers(), g.connectors, now=g.now, state=IncrementalAssignorState.from_json(js)
    )
    assert a == b
    assert IncrementalAssignorState.from_json({}) == IncrementalAssignorState()
    for bad in (
        {"delay": "1"},
        {"nope": 1},
        {"previousTasks": [{"connector": "c"}]},
        {"revokedInPrevious": 1},
        {"previousConnectors": [1]},
        [],
    ):
        with pytest.raises(ValueError):
            IncrementalAssignorState.from_json(bad)


def test_worker_joining_while_the_backoff_runs():
    """Kafka's testWorkerJoiningDuringDelayedRebalance; rounds 1-3 as in test_successive_revoking_rounds_back_off
    (after round 3, t=1000: worker1 connector2 connector3, 2-2 2-3 3-0..3-3; worker2 connector1, 1-0 1-2 2-0;
    worker3 1-1 1-3 2-1; delay 40, scheduled 1040, the backoff flag still set).
    Round 4 (t=1020): worker4 joins. Nothing lost, but the flag is set, so R3 runs: not due; worker4 is empty
    and becomes a candidate; delay = 1040 - 1020 = 20. A delay runs: no balancing, and the flag is cleared.
    Nothing moves; all carry delay 20.
    Round 5 (t=1040): worker5 joins. Nothing lost and the flag clear: the delay is dropped (candidates too),
    and balancing revokes now. Connectors N=3, n=5: fair 0, 3 extras: worker1 (2) takes one, gives up
    connector2; worker2 (1) takes one. Tasks fair 2, 2 extras: worker1 (6) takes one, keeps 3, gives up
    2-2 2-3 3-0; worker2 (3) takes the other; worker3 (3) keeps 2, gives up 1-1.
    Round 6: created connector2, 1-1 2-2 2-3 3-0; nobody above share-with-extras: no revocation. connector2 ->
    worker3 (0 connectors, first by id among w3 w4 w5). Tasks: worker4, worker5 hold 0: 1-1 w4, 2-2 w5, 2-3 w4,
    3-0 w5."""
    g = Group({"connector1": 4, "connector2": 4, "connector3": 4})
    g.join("worker1")
    g.rebalance()
    g.join("worker2")
    g.rebalance()
    g.join("worker3")
    assert g.rebalance().state.delay == 40
    g.now = 1_020
    g.join("worker4")
    r = g.rebalance()
    nothing(r, delay=20)
    assert r.state.candidate_workers == ("worker4",) and not r.state.revoked_in_previous
    g.now = 1_040
    g.join("worker5")
    r = g.rebalance()
    got(r, "worker1", revoked_connectors="2", revoked_tasks="2-2 2-3 3-0")
    got(r, "worker2")
    got(r, "worker3", revoked_tasks="1-1")
    assert r.state.candidate_workers == () and r.state.scheduled_rebalance == 0
    r = g.rebalance()
    got(r, "worker3", "2")
    got(r, "worker4", "", "1-1 2-3")
    got(r, "worker5", "", "2-2 3-0")
    got(r, "worker1")
    got(r, "worker2")
    g.complete()
    assert g.counts() == ([0, 0, 1, 1, 1], [2, 2, 2, 3, 3])


def test_backoff_with_a_max_delay_of_one_ms():
    """Kafka's testSuccessiveRevocationsWhenMaxDelayIsEqualToExpBackOffInitialInterval: max delay 1 ms. The
    backoff's initial interval is min(1, 1) = 1 and no growth fits under the max: the successive revoking
    round waits 1 ms (nothing revoked), while the work freed in round 2 is given out as in the 300 s case."""
    g = Group({"connector1": 4, "connector2": 4, "connector3": 4}, max_delay=1)
    g.join("worker1")
    g.rebalance()
    g.join("worker2")
    g.rebalance()
    g.join("worker3")
    r = g.rebalance()
    got(r, "worker1", delay=1)
    got(r, "worker2", "1", "1-0 1-2 2-0", delay=1)
    got(r, "worker3", "", "1-1 1-3 2-1", delay=1)


def test_lost_work_given_to_a_candidate_can_be_revoked_in_the_same_round():
    """A quirk of Kafka's order of steps, kept: on expiry the candidates receive the lost work *before* the
    balancing revocations are computed, so a candidate can be told, in one assignment, to start some lost
    tasks and to stop one it never ran. The next round finds that task lost (the leader keeps lost work in
    its view) with no member missing, and hands it out at once.
    Round 1 (t=1000): worker1, worker2, worker3; connector1 with 6 tasks. connector1 -> worker1; tasks round
    the three from worker1 (all 0): 1-0 w1, 1-1 w2, 1-2 w3, 1-3 w1, 1-4 w2, 1-5 w3.
    Round 2: worker2 and worker3 leave, worker4 joins empty: lost 1-1 1-2 1-4 1-5; candidates [worker4];
    delay 300000.
    Round 3 (t=301000): due. All four lost tasks go to worker4 (the only candidate), in sorted order. Then
    R4: tasks N=6, n=2, fair 3, no extra; HashMap order worker1 (2 tasks), worker4 (4): worker4 keeps 3 and
    gives up its first, 1-1. So worker4 starts 1-2 1-4 1-5 and is asked to stop 1-1.
    Round 4: 1-1 runs nowhere: lost; nobody left since last round: handed out as new to the least loaded,
    worker1 (2 tasks)."""
    g = Group({"connector1": 6})
    g.join("worker1", "worker2", "worker3")
    r = g.rebalance()
    got(r, "worker1", "1", "1-0 1-3")
    got(r, "worker2", "", "1-1 1-4")
    got(r, "worker3", "", "1-2 1-5")
    g.leave("worker2", "worker3")
    g.join("worker4")
    nothing(g.rebalance(), delay=300_000)
    g.now = 301_000
    r = g.rebalance()
    got(r, "worker1")
    got(r, "worker4", "", "1-2 1-4 1-5", revoked_tasks="1-1")
    r = g.rebalance()
    got(r, "worker1", "", "1-1")
    got(r, "worker4")
    g.complete()
