"""``watch`` feeds each rebalance it tells to the loop and storm detectors (:mod:`codec.causes.detectors`, the
same ones ``capture`` and the pipeline use): each finding is a line after the rebalance that completed it (JSON
with ``--json``) and counted in ``rebalance_codec_findings_total{group,check}``. The records are written by the
example builder at times this test sets, so the expected finding follows from the storm rule (at least 10
rebalances of a group within 60 s: the default thresholds) and the builder's own record of what it played."""

from __future__ import annotations

import argparse
import io
import json

import pytest

from codec.live.examples import ClassicGroup
from codec.live.watch import Watcher


def _watcher(json_out: bool) -> tuple[Watcher, io.StringIO]:
    args = argparse.Namespace(
        group=None, max_groups=1000, idle_horizon=3600.0, settle=2.0, json=json_out, metrics_port=None
    )
    out, err = io.StringIO(), io.StringIO()
    return Watcher(args, out, err, None), out


def _storm(w: Watcher, group: str, n: int, spacing_ms: int) -> list:
    """``n`` generations of ``group``, one member joining each, ``spacing_ms`` apart."""
    g = ClassicGroup(group, {"orders": 12})
    for i in range(n):
        g.ts -= 10_000 - spacing_ms  # (the builder adds 10 s per generation)
        rec, _ = g.join(f"c-{i}")
        w.emit(w.tracker.feed(*rec, f"offset {i}", 1000.0 + i))
    return g.played.steps


def test_a_storm_of_rebalances_is_one_finding_shown_and_counted():
    w, out = _watcher(json_out=True)
    steps = _storm(w, "hot", 12, 1_000)  # 12 generations 1 s apart: the 10th completes a storm
    quiet, _ = _watcher(json_out=True)
    _storm(quiet, "calm", 12, 10_000)  # 10 s apart: at most 7 within any 60 s
    lines = [json.loads(x) for x in out.getvalue().splitlines()]
    generations = [x for x in lines if x["type"] == "generation"]
    assert [x["generation"] for x in generations] == [n for n, _, _ in steps]
    findings = [x for x in lines if x["type"] == "finding"]
    assert [(f["check"], f["group"], f["generation"]) for f in findings] == [("rebalance-storm", "hot", 10)]
    assert [e["what"] for e in findings[0]["evidence"]] == [f"generation {n}" for n in range(1, 11)]
    # the finding's line comes right after the generation that completed it
    assert lines[lines.index(findings[0]) - 1]["generation"] == 10
    assert w.metrics.findings == {("hot", "rebalance-storm"): 1}
    assert quiet.metrics.findings == {}
    pytest.importorskip("prometheus_client")  # (the 'live' extra)
    families = {f.name: f for f in w.metrics.collect()}
    (sample,) = [s for s in families["rebalance_codec_findings"].samples if s.name.endswith("_total")]
    assert sample.labels == {"group": "hot", "check": "rebalance-storm"} and sample.value == 1


def test_a_finding_is_a_text_line_and_a_dropped_group_starts_afresh():
    w, out = _watcher(json_out=False)
    _storm(w, "hot", 10, 1_000)
    (text,) = [x for x in out.getvalue().splitlines() if " finding " in x]
    assert "  hot  finding rebalance-storm (warning): 10 rebalances in 9.0 s (1 to 10;" in text
    w.detectors.forget("hot")
    w.metrics.forget("hot")
    assert w.metrics.findings == {}
