"""Benchmark: the 100-instance, 2,000-task scale-out (bundled scenario ``scale-out-100``) under KIP-441
high availability: 90 instances with one standby per task, 10 more join; every JoinGroup/SyncGroup goes
through the codec as bytes (frames encoded and decoded, not kept). Issue #7 asks for under a minute on
one laptop core.

Run: ``PYTHONPATH=. python -m pytest bench/bench_simulate.py --benchmark-only``
"""

from __future__ import annotations

from codec.simulate import example_path, load_scenario, simulate


def test_scale_out_100_instances_2000_tasks(benchmark):
    scenario = load_scenario(example_path("scale-out-100"))
    result = benchmark.pedantic(simulate, args=(scenario, "ha"), kwargs={"keep_frames": False}, rounds=1, iterations=1)
    m = result.metrics
    benchmark.extra_info.update(
        {k: m[k] for k in ("rebalances", "time_to_balanced_s", "unavailable_task_s", "frames", "coordinator_bytes")}
    )
    assert m["all_active_tasks_processing"] and m["lagging_restore_task_s"] == 0
    assert benchmark.stats.stats.max < 60
