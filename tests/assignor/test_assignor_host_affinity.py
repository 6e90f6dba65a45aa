"""Samza standalone host affinity (seed 002): processors P1, P2 on host H1 and P3, P4 on H3."""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

from codec.assignor import group_tasks_with_host_affinity

HOSTS = {"P1": "H1", "P2": "H1", "P3": "H3", "P4": "H3"}
TASKS = [f"Partition {i}" for i in range(8)]
BEFORE = {"P1": TASKS[0:2], "P2": TASKS[2:4], "P3": TASKS[4:6], "P4": TASKS[6:8]}
PREV = {t: p for p, ts in BEFORE.items() for t in ts}
TASK_LOCALITY = {t: HOSTS[p] for t, p in PREV.items()}


def test_same_processors_keep_their_tasks():
    assert group_tasks_with_host_affinity(TASKS, HOSTS, PREV, TASK_LOCALITY) == BEFORE


def test_dead_processor_tasks_go_to_its_host_first():
    """ "If P1 dies, it is optimal to assign some of the tasks processed by P1 to P2.\""""
    alive = {p: h for p, h in HOSTS.items() if p != "P1"}
    after = group_tasks_with_host_affinity(TASKS, alive, PREV, TASK_LOCALITY)
    for p in ("P2", "P3", "P4"):
        assert set(BEFORE[p]) <= set(after[p]), "survivors keep their own tasks"
    assert set(after["P2"]) & set(BEFORE["P1"]), "some of P1's tasks move to P2 on the same host"
    assert sorted(t for ts in after.values() for t in ts) == sorted(TASKS)


def test_whole_host_gone_falls_back_to_any_processor():
    alive = {"P3": "H3", "P4": "H3"}
    after = group_tasks_with_host_affinity(TASKS, alive, PREV, TASK_LOCALITY)
    assert set(BEFORE["P3"]) <= set(after["P3"]) and set(BEFORE["P4"]) <= set(after["P4"])
    assert len(after["P3"]) == len(after["P4"]) == 4


def test_replacement_processor_on_same_host_gets_the_tasks_of_that_host():
    """A restarted processor (new processor id) on H1 gets the H1 tasks back, not H3's."""
    alive = {"P5": "H1", "P6": "H1", "P3": "H3", "P4": "H3"}
    after = group_tasks_with_host_affinity(TASKS, alive, PREV, TASK_LOCALITY)
    assert set(after["P5"]) | set(after["P6"]) == set(BEFORE["P1"]) | set(BEFORE["P2"])


def test_new_tasks_without_locality_go_anywhere_balanced():
    after = group_tasks_with_host_affinity(TASKS, HOSTS)
    assert sorted(len(ts) for ts in after.values()) == [2, 2, 2, 2]


@settings(max_examples=200, deadline=None, database=None)
@given(
    st.lists(st.text("abc", min_size=1, max_size=3), unique=True, max_size=20),
    st.dictionaries(st.sampled_from(["P1", "P2", "P3", "P4", "P5"]), st.sampled_from(["H1", "H2"]), min_size=1),
    st.data(),
)
def test_every_task_placed_once_within_quota(tasks, processors, data):
    prev = {t: data.draw(st.sampled_from(["P1", "P2", "P3", "P4", "P5"])) for t in tasks}
    locality = {t: data.draw(st.sampled_from(["H1", "H2", "H3"])) for t in tasks}
    after = group_tasks_with_host_affinity(tasks, processors, prev, locality)
    assert set(after) == set(processors)
    placed = [t for ts in after.values() for t in ts]
    assert sorted(placed) == sorted(tasks)
    quota = -(-len(tasks) // len(processors))
    assert all(len(ts) <= quota for ts in after.values())
    for t in tasks:  # a live previous processor with room keeps its task
        if prev[t] in processors and sum(prev[u] == prev[t] for u in tasks) <= quota:
            assert t in after[prev[t]]
