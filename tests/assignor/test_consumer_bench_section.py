"""bench/README.md's consumer-assignors section is what bench_consumer_assignors.py renders of its results file,
and the results file's Java side says how it was measured."""

from __future__ import annotations

import importlib.util
import json

from tests.conftest import ROOT


def test_the_section_is_generated_from_the_results():
    spec = importlib.util.spec_from_file_location("bench_consumer", ROOT / "bench" / "bench_consumer_assignors.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    results = json.loads((ROOT / "bench" / "results" / "consumer_assignors.json").read_text(encoding="utf-8"))
    doc = (ROOT / "bench" / "README.md").read_text(encoding="utf-8")
    section = doc.split(module.START, 1)[1].split(module.END, 1)[0].strip("\n")
    assert section == module.render(results)
    assert len(results["cases"]) == 12 and results["members"] == 1000 and results["partitions"] == 10_000
    assert "by hand" in results["java"]["how"] and len(results["java"]["cases"]) == 12
