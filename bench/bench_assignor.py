"""Benchmark: 500 clients, 10,000 tasks (8,000 stateful), 1 standby, max 2 warmups; one empty
client joins a balanced group (assignor README: Kafka's Java needs ~34 s per assign()).

Run: ``PYTHONPATH=. python -m pytest bench/bench_assignor.py --benchmark-only``
"""

from __future__ import annotations

from codec.assignor import AssignmentConfigs, ClientSpec, GroupDescription, TaskSpec, assign
from codec.types import TaskId, process_id_for_int

END_OFFSET_SUM = 1_000_000
CONFIGS = AssignmentConfigs(num_standby_replicas=1, max_warmup_replicas=2)


def _tasks() -> list[TaskSpec]:
    # 100 subtopologies x 100 partitions; the first 80 subtopologies are stateful.
    return [TaskSpec(TaskId(s, p), s < 80) for s in range(100) for p in range(100)]


def balanced_group(num_clients: int = 500) -> GroupDescription:
    """The group after ``num_clients`` clients converged: run the HA assignor once with every
    client caught up, then report running actives as -2 and standbys 50 offsets behind."""
    tasks = _tasks()
    ends = {t.task_id: END_OFFSET_SUM for t in tasks if t.stateful}
    seed = GroupDescription(
        tasks,
        tuple(ClientSpec(process_id_for_int(i)) for i in range(1, num_clients + 1)),
        AssignmentConfigs(acceptable_recovery_lag=2**63 - 1, num_standby_replicas=1),
        ends,
    )
    clients = []
    for c in assign(seed).clients:
        sums = {t: -2 for t in c.active if t in ends}
        sums.update({t: END_OFFSET_SUM - 50 for t in c.standby})
        clients.append(
            ClientSpec(
                c.process_id, prev_active=frozenset(c.active), prev_standby=frozenset(c.standby), task_offset_sums=sums
            )
        )
    return GroupDescription(tasks, tuple(clients), CONFIGS, ends)


def scale_out_group() -> GroupDescription:
    group = balanced_group()
    joiner = ClientSpec(process_id_for_int(len(group.clients) + 1), task_offset_sums={})
    return GroupDescription(group.tasks, group.clients + (joiner,), group.configs, group.end_offset_sums)


def test_bench_500_clients_10000_tasks_one_joins(benchmark) -> None:
    group = scale_out_group()
    result = benchmark.pedantic(assign, args=(group,), rounds=3, iterations=1)
    assert sum(len(c.active) for c in result.clients) == 10_000
