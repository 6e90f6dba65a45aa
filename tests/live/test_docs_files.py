"""The Grafana dashboard and the Prometheus alert rules shipped with the "Watch a cluster" page ask only for what
``watch`` serves: every ``rebalance_codec_*`` series they name is one a scrape of the watcher's ``/metrics`` has
(prometheus-client's parser reads the exposition), with the labels they use."""

from __future__ import annotations

import json
import re

import pytest

pytest.importorskip("prometheus_client")

from prometheus_client.parser import text_string_to_metric_families

from codec.live.examples import ClassicGroup
from codec.live.metrics import Metrics
from codec.live.state import Tracker
from tests.conftest import ROOT

FILES = ROOT / "docs" / "getting-started" / "watch"
NAME = re.compile(r"\b(rebalance_codec_[a-z_]+)\b")
LABELS = re.compile(r"\b(?:by|without) \(([a-z_, ]+)\)|\{([a-z_]+)=")


def _served() -> dict[str, set[str]]:
    """Series name -> its label names, from a scrape of a watcher that told a generation."""
    t = Tracker()
    m = Metrics(t)
    for item in t.feed(*ClassicGroup("g", {"t": 2}).join("c")[0], "offset 0", 1.0):
        m.told(item)
    m.finding("g", "storm")  # (a finding's series, as the detectors add them)
    out: dict[str, set[str]] = {}
    for family in text_string_to_metric_families(m.text()):
        for s in family.samples:
            out.setdefault(s.name, set()).update(s.labels)
        out.setdefault(family.name, set())
    return out


def _exprs() -> list[tuple[str, str]]:
    dash = json.loads((FILES / "grafana-dashboard.json").read_text(encoding="utf-8"))
    out = [("dashboard", t["expr"]) for p in dash["panels"] for t in p["targets"]]
    out += [("dashboard", v["definition"]) for v in dash["templating"]["list"] if "definition" in v]
    yaml = pytest.importorskip("yaml")  # (PyYAML: myst-parser's, the docs extra)
    rules = yaml.safe_load((FILES / "prometheus-rules.yml").read_text(encoding="utf-8"))
    for group in rules["groups"]:
        for rule in group["rules"]:
            assert set(rule) <= {"alert", "expr", "for", "labels", "annotations"}, rule
            out.append(("rules", rule["expr"]))
    return out


def test_the_dashboard_and_the_rules_name_only_what_watch_serves():
    served = _served()
    exprs = [(w, e) for w, e in _exprs() if e]
    assert len([1 for w, _ in exprs if w == "dashboard"]) >= 10 and len([1 for w, _ in exprs if w == "rules"]) >= 7
    seen = set()
    for where, expr in exprs:
        names = NAME.findall(expr)
        assert names, (where, expr)
        for name in names:
            assert name in served, (where, name)
            seen.add(name)
            for m in LABELS.finditer(expr):
                used = {x.strip() for x in (m.group(1) or m.group(2)).split(",")}
                assert used <= served[name] | {"le"} or len(names) > 1, (where, name, used)
    families = {n.removesuffix("_total") for n in served}
    assert (
        {"rebalance_codec_rebalances", "rebalance_codec_partitions_moved", "rebalance_codec_consumer_lag_records"}
        <= {n.removesuffix("_total") for n in seen}
        <= families
    )


def test_the_rules_select_only_causes_and_checks_watch_tells():
    """``watch`` reads ``__consumer_offsets``, which holds no LeaveGroup and no heartbeat: a member gone between two
    generations is ``member-left`` there, never ``session-timeout`` or ``rebalance-timeout`` (a rule selecting those
    would never fire). Every cause a rule selects is one watch tells of the example groups' records; every check, a
    detector's."""
    from codec.causes.detectors import CHECKS
    from codec.live.examples import example_cluster

    records, _ = example_cluster(streams_members=4, consumer_groups=2, commits_per_generation=0)
    t = Tracker()
    kinds = set()
    for i, (key, value) in enumerate(records):
        for item in [*t.feed(key, value, f"offset {i}", 1_767_225_600.0 + i), *t.tick()]:
            r = getattr(item, "rebalance", None)
            if r is not None:
                kinds.add(r.cause.kind)  # (the label rebalance_codec_rebalances_total counts by)
    exprs = " ".join(e for _, e in _exprs())
    causes = set(re.findall(r'cause="([a-z-]+)"', exprs))
    assert causes and causes <= kinds, (causes, kinds)
    assert set(re.findall(r'check="([a-z-]+)"', exprs)) <= set(CHECKS)
