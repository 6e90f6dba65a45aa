"""Properties of Connect's incremental cooperative assignor over random histories (joins, departures,
bounces, connectors added and removed, time passing), checked after every round the way Kafka's test
harness checks them (``assertNoRedundantAssignments``), and at the end of a quiet spell:

* nothing is newly given to two workers, nor to a worker while another still runs it;
* a worker is only asked to stop what it runs — or, Kafka's quirk, lost work it is handed in the same round
  (candidates receive it before the balancing revocations are worked out), which then runs nowhere;
* when the leader leaves, the next one starts with no state (Kafka's new leader);
* the leader's ``running`` view is what each worker holds after applying its assignment;
* while a scheduled rebalance runs every assignment carries its remaining delay, never above the maximum;
* once the membership and the configuration stay the same and the delays have run out, a few rounds bring
  every configured connector and task to exactly one worker, balanced (connectors and tasks separately, at
  most one apart), after which a round changes nothing.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from .test_assignor_incremental import Group

MAX = 1_000

events = st.lists(
    st.one_of(
        st.tuples(st.just("join"), st.integers(0, 7)),
        st.tuples(st.just("leave"), st.integers(0, 7)),
        st.tuples(st.just("wait"), st.integers(0, 2 * MAX)),
        st.tuples(st.just("add"), st.integers(0, 5), st.integers(0, 6)),
        st.tuples(st.just("remove"), st.integers(0, 5)),
    ),
    max_size=14,
)


def check_round(g: Group, before: dict, result) -> None:
    new_c = [c for a in result.assignments.values() for c in a.connectors]
    new_t = [t for a in result.assignments.values() for t in a.tasks]
    assert len(new_c) == len(set(new_c)) and len(new_t) == len(set(new_t))
    running_before_c = {c for cs_, _ in before.values() for c in cs_}
    running_before_t = {t for _, ts_ in before.values() for t in ts_}
    for m, a in result.assignments.items():
        held_c, held_t = before[m]
        for x in set(a.revoked_connectors) - set(held_c):
            assert x not in running_before_c and x not in new_c
            assert all(x not in c for c, _ in result.running.values())
        for x in set(a.revoked_tasks) - set(held_t):
            assert x not in running_before_t and x not in new_t
            assert all(x not in t for _, t in result.running.values())
        others_c = {c for o, (cs_, _) in before.items() if o != m for c in cs_}
        others_t = {t for o, (_, ts_) in before.items() if o != m for t in ts_}
        assert not set(a.connectors) & (others_c | set(held_c))
        assert not set(a.tasks) & (others_t | set(held_t))
        assert 0 <= a.delay <= MAX
        assert a.delay == result.state.delay


def balanced(g: Group) -> bool:
    c = [len(x) for x, _ in g.held.values()]
    t = [len(x) for _, x in g.held.values()]
    return max(c) - min(c) <= 1 and max(t) - min(t) <= 1


@settings(deadline=None)
@given(events, st.sampled_from(["compatible", "sessioned"]), st.sampled_from([0, MAX]))
def test_histories(history, protocol, max_delay):
    g = Group({"c0": 2, "c1": 3}, max_delay=max_delay, protocol=protocol)
    g.join("w0")
    g.leader = "w0"

    def rebalance():
        before = {m: (list(c), list(t)) for m, (c, t) in g.held.items()}
        result = g.rebalance()  # applies, and checks `running` against what the workers now hold
        check_round(g, before, result)
        return result

    rebalance()
    for ev in history:
        kind = ev[0]
        if kind == "join" and f"w{ev[1]}" not in g.held:
            g.join(f"w{ev[1]}")
        elif kind == "leave" and f"w{ev[1]}" in g.held and len(g.held) > 1:
            g.leave(f"w{ev[1]}")
            if g.leader not in g.held:  # a new leader starts with no memory
                g.leader, g.state = next(iter(g.held)), None
        elif kind == "wait":
            g.now += ev[1]
        elif kind == "add" and f"c{ev[1]}" not in g.connectors:
            g.connectors[f"c{ev[1]}"] = ev[2]
        elif kind == "remove":
            g.connectors.pop(f"c{ev[1]}", None)
        rebalance()
    # a quiet spell: same members, same connectors, time passing beyond every delay
    for _ in range(8):
        g.now += MAX + 1
        rebalance()
    g.complete()
    assert balanced(g)
    last = rebalance()
    assert all(
        not (a.connectors or a.tasks or a.revoked_connectors or a.revoked_tasks) for a in last.assignments.values()
    )
