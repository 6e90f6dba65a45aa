"""bench/README.md's conformance section is what ``bench/bench_conformance.py`` makes of
``bench/results/conformance.json``, and that file meets issue #27's bar (the default gate run, generated cases
included, within 2x of the baseline's CPU). The bench itself is never run here: its figures come from a quiet
machine."""

from __future__ import annotations

import importlib.util
import json

from tests.conftest import ROOT


def _bench():
    spec = importlib.util.spec_from_file_location("bench_conformance", ROOT / "bench" / "bench_conformance.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_readme_section_is_the_results_file():
    bench = _bench()
    results = json.loads(bench.RESULTS.read_text(encoding="utf-8"))
    doc = bench.README.read_text(encoding="utf-8")
    section = doc.split(bench.START, 1)[1].split(bench.END, 1)[0].strip("\n")
    assert section == bench.render(results)
    assert results["ratios"]["A/B"]["cpu"] < 2
    assert {r["last"] for r in results["runs"].values()} == {results["runs"]["B"]["last"]}  # the same vectors passed
