"""The pipeline over the simulator's recorded frames (issue #7's ``frames.jsonl``): a KIP-441
scale-out with real Streams bytes in every JoinGroup/SyncGroup. Expected values are the simulator's
own account of each rebalance (generation, members, versions, warmups), not the pipeline's."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("pyspark", reason="the pipeline tests need the spark extra (pip install -e '.[spark]')")
simulate_mod = pytest.importorskip("codec.simulate", reason="the simulator (issue #7) is not available")

from codec.pipeline.job import Options, run  # noqa: E402
from codec.pipeline.tables import Config  # noqa: E402

from .conftest import read_table  # noqa: E402


def test_simulated_scale_out(spark, tmp_path):
    sc = simulate_mod.load_scenario(simulate_mod.example_path("scale-out"))
    result = simulate_mod.simulate(sc, "ha")
    frames = result.recorder.records
    src = tmp_path / "frames.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in frames))
    out = tmp_path / "out"
    cfg = Config(acceptable_recovery_lag=10000, num_standby_replicas=1, max_warmup_replicas=2)
    summary = run(Options(inputs=[str(src)], out=str(out), quiet=True, config=cfg), spark)

    selected = [f for f in frames if f["api_key"] in (11, 14) or (f["api_key"] == 13 and f["direction"] == "request")]
    assert summary["counts"] == {
        "records_read": len(frames),
        "not_selected": len(frames) - len(selected),
        "records_in": len(selected),
        "decoded": len(selected),
        "quarantined": 0,
    }
    reb = {r["generation"]: r for r in read_table(out, "rebalances")}
    for sim in result.rebalances:
        r = reb[sim["generation"]]
        assert r["protocol"] == "stream"
        assert r["member_count"] == sim["members"]
        assert r["assignment_versions"] == [sim["assignment_version"]]
        assert r["commonly_supported_versions"] == [sim["commonly_supported_version"]]
        if not any(d["next_rebalance_ms"] == 0 for d in r["probing_deadlines"]):
            # no member has actives withheld for cooperative revocation, whose temporary standbys the
            # wire cannot tell from warmups (tables.py): the warmups are exactly the simulator's
            assert r["warmup_replicas"] == sim["warmups"], sim["generation"]
        assert r["leader"] is not None
        if sim["probing_rebalance_needed"]:
            assert r["followup_scheduled"]
    # a correct assignor never breaks these, and the simulator runs Kafka's HA assignor
    bad = {"multiple-active-owners", "active-and-standby", "standby-on-active-client", "too-many-warmups"}
    findings = read_table(out, "findings")
    assert not [f for f in findings if f["check"] in bad]
    # a healthy scale-out: the tasks withheld for cooperative revocation (active nowhere, a temporary standby
    # on their new consumer, which rejoins at once) are handed over in the follow-up, so no error at all
    withheld = [r for r in reb.values() if any(d["next_rebalance_ms"] == 0 for d in r["probing_deadlines"])]
    assert withheld and not [f for f in findings if f["severity"] == "error"]
    # SyncGroup responses name neither group, member nor generation: paired with their requests
    asg = read_table(out, "assignments")
    assert asg and all(a["group"] and a["member"] and a["generation"] is not None for a in asg)
