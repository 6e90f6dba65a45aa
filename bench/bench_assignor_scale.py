"""Benchmark: the HA assignor (``codec.assignor.assign``) at 50, 500 and 5,000 clients with 10x and 20x
as many tasks (issue #10). The scenario of ``bench_assignor.py`` at every size: the group converged
(actives running, standbys 50 offsets behind; 100 partitions per subtopology, 4 in 5 subtopologies
stateful, one standby, at most 2 warmups), then one empty client joins and the leader assigns.
The 5,000-client cases run a single round (a few seconds each).

Run: ``PYTHONPATH=. python -m pytest bench/bench_assignor_scale.py --benchmark-only``
"""

from __future__ import annotations

import pytest

from codec.assignor import AssignmentConfigs, ClientSpec, GroupDescription, TaskSpec, assign
from codec.types import TaskId, process_id_for_int

END_OFFSET_SUM = 1_000_000
CONFIGS = AssignmentConfigs(num_standby_replicas=1, max_warmup_replicas=2)


def scale_out_group(clients: int, factor: int) -> GroupDescription:
    tasks = [TaskSpec(TaskId(k // 100, k % 100), (k // 100) % 5 != 4) for k in range(clients * factor)]
    ends = {t.task_id: END_OFFSET_SUM for t in tasks if t.stateful}
    seed = GroupDescription(
        tasks,
        tuple(ClientSpec(process_id_for_int(i)) for i in range(1, clients + 1)),
        AssignmentConfigs(acceptable_recovery_lag=2**63 - 1, num_standby_replicas=1),
        ends,
    )
    members = []
    for c in assign(seed).clients:
        sums = {t: -2 for t in c.active if t in ends}
        sums.update({t: END_OFFSET_SUM - 50 for t in c.standby})
        members.append(
            ClientSpec(
                c.process_id, prev_active=frozenset(c.active), prev_standby=frozenset(c.standby), task_offset_sums=sums
            )
        )
    members.append(ClientSpec(process_id_for_int(clients + 1), task_offset_sums={}))
    return GroupDescription(tasks, tuple(members), CONFIGS, ends)


@pytest.mark.parametrize("factor", (10, 20))
@pytest.mark.parametrize("clients", (50, 500, 5000))
def test_assignor_scale(benchmark, clients, factor):
    group = scale_out_group(clients, factor)
    rounds = {50: 10, 500: 3, 5000: 1}[clients]
    benchmark.group = "assignor"
    result = benchmark.pedantic(assign, args=(group,), rounds=rounds, iterations=1)
    tasks = clients * factor
    assert sum(len(c.active) for c in result.clients) == tasks
    benchmark.extra_info.update(
        kind="assignor", clients=clients + 1, tasks=tasks, tasks_per_s=round(tasks / benchmark.stats.stats.min)
    )
