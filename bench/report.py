"""The tables of ``bench/README.md`` and ``README.md``, generated from the results files, never typed:

* ``bench/results/results.json`` (``bench/run.py``, the one harness of every side-by-side figure: paired,
  interleaved, ratios per repeat) -> the codec, Kafka 4, target, start-up, capture, pipeline and claims
  sections of ``bench/README.md`` and the speed lines of ``README.md``;
* ``bench/results/latest.json`` (``pytest bench --benchmark-only``: the absolute timings of the assignor, the
  simulator and the 1 GB capture) -> the results section;
* ``bench/results/convergence.json`` (``bench/bench_convergence.py``, which rewrites its own sections) -> the
  convergence table and README.md's fast-assignor block.

``python bench/report.py`` rewrites the first two kinds (``bench/run.py`` does it after measuring);
``tests/test_bench_readme.py`` holds the documents to the files.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results" / "results.json"
LATEST = HERE / "results" / "latest.json"
CONVERGENCE = HERE / "results" / "convergence.json"
README = HERE / "README.md"
PROJECT_README = HERE.parent / "README.md"
START, END = "<!-- results:start -->", "<!-- results:end -->"

#: generated sections of bench/README.md: name -> renderer of results.json
SECTIONS = (
    "codec",
    "kafka4",
    "targets",
    "startup",
    "capture",
    "pipeline",
    "watch",
    "claims",
    "alternatives",
    "fastpath",
)
SPEED_START, SPEED_END = "<!-- speed:start -->", "<!-- speed:end -->"
#: the "Watch a cluster" page states watch's figures, generated here too (between these markers)
WATCH_DOC = HERE.parent / "docs" / "getting-started" / "watch-a-cluster.md"
WATCH_START, WATCH_END = "<!-- watch-figures:start -->", "<!-- watch-figures:end -->"


def markers(name: str) -> tuple[str, str]:
    return f"<!-- {name}:start -->", f"<!-- {name}:end -->"


# --- figures -------------------------------------------------------------------------------------------------


def _us(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    us = seconds * 1e6
    return f"{us:,.0f}" if us >= 100 else f"{us:.1f}" if us >= 10 else f"{us:.2f}"


def _r(stats: dict | None) -> str:
    """A ratio's median and its range over the repeats."""
    if not stats:
        return "-"
    return f"{stats['median']:.2f} ({stats['min']:.2f}–{stats['max']:.2f})"


def _ratio_of(rec: dict, a: str, b: str) -> dict | None:
    """a ÷ b of one comparison: the recorded per-repeat ratio when a is ours, else from the per-repeat times
    of both (the same repeats: the sides ran interleaved)."""
    if a == rec["ours"]:
        return rec["ratios"].get(b)
    ra, rb = rec["ratios"].get(a), rec["ratios"].get(b)
    if ra is None or rb is None:
        return None
    per = [y / x for x, y in zip(ra["per_repeat"], rb["per_repeat"])]  # (ours/a)/(ours/b) inverted: a/b
    return {"median": _median_of(per), "min": min(per), "max": max(per), "per_repeat": per}


def _median_of(xs: list[float]) -> float:
    xs = sorted(xs)
    n = len(xs)
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def _head(sec: dict, what: str) -> str:
    m = sec.get("machine", {})
    peers = sec.get("peers") or {}
    load = m.get("load_at_start")
    return (
        f"{what}: run {sec.get('when', '?')} on {m.get('cpu', '?')} ({m.get('cores', '?')} cores, load "
        f"{load:.1f} at the start), Python {m.get('python', '?')}"
        + (", " + ", ".join(f"{k} {v or 'not installed'}" for k, v in peers.items()) if peers else "")
        + (f"; {sec['repeats']} paired repeats each" if sec.get("repeats") else "")
        + "."
    )


def _later(sec: dict) -> str:
    """What the header says of rows a later partial run measured (``run.py --only``): each run once, with its
    rows' mark."""
    runs: dict[str, dict] = {}
    for r in sec.get("comparisons", []):
        if r.get("run"):
            runs.setdefault(json.dumps(r["run"], sort_keys=True), r["run"])
    notes = []
    for i, run in enumerate(runs.values()):
        m = run.get("machine", {})
        notes.append(
            f" Rows marked {'‡' * (i + 1)} were measured alone, later: {run.get('when', '?')} on {m.get('cpu', '?')} "
            f"(load {m.get('load_at_start', 0):.1f} at the start), {run.get('repeats', '?')} paired repeats."
        )
    return "".join(notes)


def _mark(sec: dict, r: dict) -> str:
    """A row's label, with the mark of the later run that measured it (see :func:`_later`)."""
    if not r.get("run"):
        return r["label"]
    runs: list[str] = []
    for x in sec.get("comparisons", []):
        key = json.dumps(x["run"], sort_keys=True) if x.get("run") else None
        if key is not None and key not in runs:
            runs.append(key)
    return f"{r['label']} {'‡' * (runs.index(json.dumps(r['run'], sort_keys=True)) + 1)}"


def _records(results: dict, section: str) -> list[dict]:
    return results.get("sections", {}).get(section, {}).get("comparisons", [])


def codec_table(results: dict) -> str:
    sec = results.get("sections", {}).get("codec")
    if not sec:
        return "(not measured yet: `python bench/run.py codec`)"
    lines = [
        _head(sec, "Codec") + " Times are medians; ratios are medians of the per-repeat ratios with their "
        "range; below 1, the first is faster." + _later(sec),
        "",
        "| message (payload) | op | bytes | ours µs | ours ÷ floor | ours ÷ kio | ours ÷ kafka-python "
        "| python µs | python ÷ floor | python ÷ kio | python ÷ kafka-python |",
        "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|",
    ]
    for r in sec["comparisons"]:
        t = r["times"]
        lines.append(
            f"| {_mark(sec, r)} | {r['op']} | {r['meta'].get('bytes', 0):,} | {_us(t['ours']['median'])} "
            f"| {_r(r['ratios'].get('floor'))} | {_r(r['ratios'].get('kio'))} "
            f"| {_r(r['ratios'].get('kafka-python'))} | {_us(t.get('python', {}).get('median'))} "
            f"| {_r(_ratio_of(r, 'python', 'floor'))} | {_r(_ratio_of(r, 'python', 'kio'))} "
            f"| {_r(_ratio_of(r, 'python', 'kafka-python'))} |"
        )
    return "\n".join(lines)


def kafka4_table(results: dict) -> str:
    sec = results.get("sections", {}).get("kafka4")
    if not sec:
        return "(not measured yet: `python bench/run.py kafka4`)"
    lines = [
        _head(sec, "Kafka 4") + " `decode → Kafka JSON` is `codec.kafka4.decode`, `decode_model` the wire "
        "model, `encode` `encode_model`; kio's side is its native reader (entities) and its writer." + _later(sec),
        "",
        "| message (payload) | op | bytes | ours µs | ours ÷ kio | python µs | python ÷ kio |",
        "|---|---|--:|--:|--:|--:|--:|",
    ]
    for r in sec["comparisons"]:
        t = r["times"]
        lines.append(
            f"| {_mark(sec, r)} | {r['op']} | {r['meta'].get('bytes', 0):,} | {_us(t['ours']['median'])} "
            f"| {_r(r['ratios'].get('kio'))} | {_us(t.get('python', {}).get('median'))} "
            f"| {_r(_ratio_of(r, 'python', 'kio'))} |"
        )
    return "\n".join(lines)


# --- the issue's bars ----------------------------------------------------------------------------------------

#: (section, kinds, ops, side, bar, words)
BARS = (
    ("codec", ("group",), ("decode",), "kio", "Decode ≤ 1.0× kio, group messages and ConsumerProtocol"),
    (
        "codec",
        ("streams",),
        ("decode",),
        "floor",
        "Decode ≤ 1.0× the plain-value floor, SubscriptionInfo and AssignmentInfo v7 and v11",
    ),
    ("kafka4", ("kafka4",), ("decode → Kafka JSON",), "kio", "Kafka 4 `decode` to Kafka JSON ≤ 1.5× kio"),
    ("kafka4", ("kafka4",), ("decode_model",), "kio", "Kafka 4 `decode_model` ≤ 1.0× kio"),
    ("codec", ("group", "streams"), ("encode",), "floor", "Every encode ≤ 1.0× the plain-value floor"),
    ("kafka4", ("kafka4",), ("encode",), "kio", "Kafka 4 `encode_model` ≤ 1.0× kio (no floor: kio's writer)"),
)


def bar_lines(results: dict) -> list[str]:
    out = []
    for section, kinds, ops, side, words in BARS:
        recs = [
            r
            for r in _records(results, section)
            if r["meta"].get("kind") in kinds and r["op"] in ops and side in r["ratios"]
        ]
        if not recs:
            continue
        limit = recs[0]["targets"].get(side)
        med = [(r["ratios"][side]["median"], r) for r in recs]
        met = [x for x, _ in med if x <= limit]
        worst, wr = max(med, key=lambda m: m[0])
        best = min(x for x, _ in med)
        verdict = "met" if len(met) == len(med) else "NOT met"
        line = (
            f"* **{words}: {verdict}** in {len(met)} of {len(med)} (medians {best:.2f}–{worst:.2f}; "
            f"worst: {wr['label']} {wr['op']} {_r(wr['ratios'][side])})"
        )
        missed = [f"{r['label']} {r['op']} {x:.2f}" for x, r in med if x > limit]
        out.append(line + (f"; missed: {', '.join(missed)}." if missed else "."))
    return out


def _process(results: dict, section: str) -> dict | None:
    recs = _records(results, section)
    return recs[0] if recs else None


def startup_text(results: dict) -> str:
    r = _process(results, "startup")
    if r is None:
        return "(not measured yet: `python bench/run.py startup`)"
    sec = results["sections"]["startup"]
    t = r["times"]
    return "\n".join(
        [
            _head(sec, "Start-up") + f" {r['meta']['what']}.",
            "",
            "| command | wall ms (median, min–max) |",
            "|---|--:|",
            f"| `python -c pass` | {t['python -c pass']['median'] * 1e3:.1f} ({t['python -c pass']['min'] * 1e3:.1f}–"
            f"{t['python -c pass']['max'] * 1e3:.1f}) |",
            f"| `{r['meta']['command']}` | {t['ours']['median'] * 1e3:.1f} ({t['ours']['min'] * 1e3:.1f}–"
            f"{t['ours']['max'] * 1e3:.1f}) |",
            "",
            f"Ratio (per repeat): {_r(r['ratios']['python -c pass'])}× `python -c pass` (target ≤ 3×).",
        ]
    )


def capture_text(results: dict) -> str:
    r = _process(results, "capture")
    if r is None:
        return "(not measured yet: `python bench/run.py capture`)"
    sec = results["sections"]["capture"]
    ex = r.get("extra", {})
    mb = r["meta"]["megabytes"]
    rows = []
    for side, words in (("ours", "`rebalance-codec capture --json`"), ("tshark", r["meta"]["tshark_command"])):
        t = r["times"][side]
        rss = ex.get(side, {}).get("max_rss_kb")
        rows.append(
            f"| {words} | {t['median']:.2f} ({t['min']:.2f}–{t['max']:.2f}) | {mb / t['median']:.0f} "
            f"| {rss['median'] / 1024:.0f} |"
            if rss
            else f"| {words} | {t['median']:.2f} | {mb / t['median']:.0f} | - |"
        )
    ratio = r["ratios"]["tshark"]
    speed = {k: 1 / ratio[k] for k in ("median", "min", "max")}
    return "\n".join(
        [
            _head(sec, "Capture") + f" The capture: {r['meta']['what']}.",
            "",
            "| command | seconds (median, min–max) | MB/s | peak RSS MiB |",
            "|---|--:|--:|--:|",
            *rows,
            "",
            f"Speed against tshark (per repeat): {speed['median']:.2f}× ({speed['max']:.2f}–{speed['min']:.2f}) "
            f"(target ≥ 2×); both found the same {r['meta']['group_frames']:,} group frames.",
        ]
    )


def pipeline_text(results: dict) -> str:
    r = _process(results, "pipeline")
    if r is None:
        return "(not measured yet: `python bench/run.py pipeline`)"
    sec = results["sections"]["pipeline"]
    t = r["times"]
    rate = {k: r["meta"]["records"] / t[k]["median"] for k in t}
    extra = r.get("extra", {})

    def part(side: str, key: str) -> str:  # CPU µs per record of one part of the process tree (median)
        x = extra.get(side, {}).get(key)
        return f"{x['median']:.1f}" if x else "-"

    return "\n".join(
        [
            _head(sec, "Pipeline") + f" {r['meta']['what']}.",
            "",
            "| codec | CPU seconds (median, min–max) | records per CPU-second | JVM µs per record | Python workers µs "
            "per record |",
            "|---|--:|--:|--:|--:|",
            *[
                f"| {side} | {t[side]['median']:.1f} ({t[side]['min']:.1f}–{t[side]['max']:.1f}) | {rate[side]:,.0f} | "
                f"{part(side, 'jvm_us')} | {part(side, 'workers_us')} |"
                for side in t
            ],
            "",
            _pipeline_ratios(r) + _pipeline_parts(extra),
        ]
    )


def _speedup(r: dict, side: str) -> str:
    """ours' records per CPU-second ÷ ``side``'s, per repeat: median (min–max)."""
    x = r["ratios"][side]
    return f"{1 / x['median']:.2f}× ({1 / x['max']:.2f}–{1 / x['min']:.2f})"


def _pipeline_ratios(r: dict) -> str:
    issue = r["meta"].get("issue_side")
    if issue not in r["ratios"]:  # (a run before the issue-time side was measured)
        return f"Records per CPU-second, native ÷ pure Python (per repeat): {_speedup(r, 'python')} (target ≥ 2×)."
    return (
        f"Records per CPU-second against the pipeline of {issue} — the issue's \"today's\", its job and its "
        f"pure-Python codec — (per repeat): {_speedup(r, issue)} (target ≥ 2×). Against the pure-Python codec on "
        f"today's job, the codec's own share: {_speedup(r, 'python')}."
    )


def _pipeline_parts(extra: dict) -> str:
    """What the split of the CPU time says about the ratio: the JVM's part is the codec-independent floor."""
    try:
        jvm = {s: extra[s]["jvm_us"]["median"] for s in ("native", "python")}
        workers = {s: extra[s]["workers_us"]["median"] for s in ("native", "python")}
    except KeyError:
        return ""
    return (
        f" The Python workers alone: {workers['python'] / workers['native']:.2f}× (their µs per record, pure "
        f"Python ÷ native); the JVM's part ({jvm['native']:.1f} and {jvm['python']:.1f} µs per record) is "
        f"the same work with either codec, so with it fixed the whole can reach at most "
        f"{(jvm['native'] + workers['python']) / jvm['native']:.1f}× (native workers costing nothing)."
    )


def targets_text(results: dict) -> str:
    lines = bar_lines(results)
    for section, words, fn in (
        ("startup", "Start-up", _startup_bar),
        ("capture", "Capture", _capture_bar),
        ("pipeline", "Pipeline", _pipeline_bar),
    ):
        r = _process(results, section)
        if r is not None:
            lines.append(fn(r))
    return "\n".join(lines) if lines else "(nothing measured yet)"


def _startup_bar(r: dict) -> str:
    x = r["ratios"]["python -c pass"]
    return (
        f"* **`rebalance-codec decode` of one record ≤ 3× `python -c pass`: {'met' if x['median'] <= 3 else 'NOT met'}** "
        f"({_r(x)})."
    )


def _capture_bar(r: dict) -> str:
    x = r["ratios"]["tshark"]
    return (
        f"* **`capture --json` ≥ 2× tshark's speed: {'met' if 1 / x['median'] >= 2 else 'NOT met'}** "
        f"({1 / x['median']:.2f}×, range {1 / x['max']:.2f}–{1 / x['min']:.2f})."
    )


def _pipeline_bar(r: dict) -> str:
    issue = r["meta"].get("issue_side")
    side = issue if issue in r["ratios"] else "python"
    x = r["ratios"][side]
    against = f"the pipeline of {issue}" if side == issue else "the pure-Python codec"
    return (
        f"* **Pipeline records per CPU-second ≥ 2× those of {against}: {'met' if 1 / x['median'] >= 2 else 'NOT met'}** "
        f"({_speedup(r, side)}; against the pure-Python codec on today's job {_speedup(r, 'python')})."
    )


# --- the issue's claims, reproduced or corrected ------------------------------------------------------------


def _find(results: dict, section: str, label_part: str, op: str) -> dict | None:
    return next((r for r in _records(results, section) if label_part in r["label"] and r["op"] == op), None)


def _span(recs: list[dict], a: str, b: str) -> str:
    vals = [x["median"] for x in (_ratio_of(r, a, b) for r in recs if r) if x]
    if not vals:
        return "-"
    lo, hi = min(vals), max(vals)
    return f"{lo:.2f}" if abs(hi - lo) < 0.005 else f"{lo:.2f}–{hi:.2f}"


def _convergence_claims(conv: dict) -> list[tuple[str, str, str, str]]:
    """The issue's assignor figures against ``bench_convergence.py``'s results (interleaved scenario by scenario
    since issue #28, its 500 × 10,000 timings in interleaved pairs): no codec in them."""
    ha, fast = conv["assignors"]["high_availability"], conv["assignors"]["high_availability_fast"]
    scale = conv["scale_500x10000"]
    no_codec = "(assignors: no codec)"
    return [
        (
            "assign() on 500 × 10,000, one joining, `high_availability` / `high_availability_fast` (README: 0.89 / "
            "0.48 s)",
            "0.24 / 0.14 s",
            f"{scale['high_availability']['median']:.2f} / {scale['high_availability_fast']['median']:.2f} s",
            no_codec,
        ),
        (
            "convergence, assign() seconds over all scenarios, fast ÷ HA (README: 0.53)",
            "0.73",
            f"{fast['seconds'] / ha['seconds']:.2f}",
            no_codec,
        ),
        (
            "convergence, assign() seconds on scale-out, fast ÷ HA (README: 0.67)",
            "1.06",
            f"{fast['kinds']['scale_out']['seconds'] / ha['kinds']['scale_out']['seconds']:.2f}",
            no_codec,
        ),
    ]


def claims_text(results: dict, convergence: dict | None = None) -> str:
    """Issue #29's "Why", line by line: what the issue measured (typed: it is the issue's), what the harness
    measures now for the same pair (generated; the assignors' lines from ``convergence.json``)."""
    if convergence is None:
        convergence = json.loads(CONVERGENCE.read_text(encoding="utf-8"))
    g = lambda part, op="decode": _find(results, "codec", part, op)  # noqa: E731
    big = [g("JoinGroupResponse v5"), g("SyncGroupRequest v3")]
    cp = [g("ConsumerProtocolSubscription"), g("ConsumerProtocolAssignment")]
    k4 = [r for r in _records(results, "kafka4") if r["op"] == "decode → Kafka JSON"]
    k4m = [r for r in _records(results, "kafka4") if r["op"] == "decode_model"]
    enc = [r for r in _records(results, "codec") if r["op"] == "encode" and r["meta"].get("kind") == "group"]
    rows = [
        (
            "group messages decode, 100 members (JoinGroupResponse v5, SyncGroupRequest v3), pure-Python ÷ kio",
            "4.1–4.8",
            _span(big, "python", "kio"),
            _span(big, "ours", "kio"),
        ),
        (
            "ConsumerProtocol Subscription/Assignment v3 decode, pure-Python ÷ kio",
            "4.2–6.5",
            _span(cp, "python", "kio"),
            _span(cp, "ours", "kio"),
        ),
        (
            "SyncGroupResponse v3 decode ÷ kafka-python's `Cls.decode(b, version=v)`",
            "1.11",
            _span([g("SyncGroupResponse v3")], "python", "kafka-python"),
            _span([g("SyncGroupResponse v3")], "ours", "kafka-python"),
        ),
        (
            "SubscriptionInfo v11 / AssignmentInfo v7 decode ÷ the plain-value floor",
            "3.75 / 2.13",
            f"{_span([g('SubscriptionInfo v11')], 'python', 'floor')} / {_span([g('AssignmentInfo v7')], 'python', 'floor')}",
            f"{_span([g('SubscriptionInfo v11')], 'ours', 'floor')} / {_span([g('AssignmentInfo v7')], 'ours', 'floor')}",
        ),
        (
            "Kafka 4 `codec.kafka4.decode` → Kafka JSON ÷ kio",
            "11–58",
            _span(k4, "python", "kio"),
            _span(k4, "ours", "kio"),
        ),
        ("Kafka 4 `decode_model` ÷ kio", "2.2–6.1", _span(k4m, "python", "kio"), _span(k4m, "ours", "kio")),
        (
            "encode, every group message, ÷ kio / ÷ kafka-python",
            "0.26–0.58 / 0.28–0.75",
            f"{_span(enc, 'python', 'kio')} / {_span(enc, 'python', 'kafka-python')}",
            f"{_span(enc, 'ours', 'kio')} / {_span(enc, 'ours', 'kafka-python')}",
        ),
        (
            "decode of large group messages, pure-Python ÷ the plain-value floor (README: the hand-written codec "
            "is the practical limit)",
            "1.4–2.0",
            _span(big, "python", "floor"),
            _span(big, "ours", "floor"),
        ),
        (
            "SyncGroupResponse v3 / v5 decode, pure-Python ÷ kafka-python (README: 0.94 / 0.92, met)",
            "1.12 / 1.02",
            f"{_span([g('SyncGroupResponse v3')], 'python', 'kafka-python')} / "
            f"{_span([g('SyncGroupResponse v5')], 'python', 'kafka-python')}",
            f"{_span([g('SyncGroupResponse v3')], 'ours', 'kafka-python')} / "
            f"{_span([g('SyncGroupResponse v5')], 'ours', 'kafka-python')}",
        ),
        (
            "AssignmentInfo v7 encode ÷ the hand-written codec (README: 1.22); here ÷ the plain-value floor",
            "1.39",
            _span([g("AssignmentInfo v7", "encode")], "python", "floor"),
            _span([g("AssignmentInfo v7", "encode")], "ours", "floor"),
        ),
    ]
    cap, start = _process(results, "capture"), _process(results, "startup")
    if cap is not None:
        rows.append(
            (
                "`capture --json` ÷ tshark, time (200 MB)",
                "0.84",
                f"{_r(cap['ratios']['tshark'])}",
                "(same run: the native codec is active)",
            )
        )
    if start is not None:
        rows.append(
            (
                "`rebalance-codec decode` of one record ÷ `python -c pass`",
                "10",
                f"{_r(start['ratios']['python -c pass'])}",
                "(same run)",
            )
        )
    rows += _convergence_claims(convergence)
    out = ["| the issue's figure | issue | pure-Python codec now | native codec now |", "|---|--:|--:|--:|"]
    out += [f"| {a} | {b} | {c} | {d} |" for a, b, c, d in rows]
    return "\n".join(out)


def speed_lines(results: dict) -> str:
    """README.md's few lines: the headline ratios, generated."""
    lines = []
    grp = [r for r in _records(results, "codec") if r["meta"].get("kind") == "group" and r["op"] == "decode"]
    st = [r for r in _records(results, "codec") if r["meta"].get("kind") == "streams" and r["op"] == "decode"]
    k4 = [r for r in _records(results, "kafka4") if r["op"] == "decode → Kafka JSON"]
    if grp:
        lines.append(
            f"* decode, group messages and ConsumerProtocol: {_span(grp, 'ours', 'kio')}× kio's time "
            f"(kio's reader is native code; the pure-Python codec: {_span(grp, 'python', 'kio')}×)"
        )
    if st:
        lines.append(
            f"* decode, SubscriptionInfo/AssignmentInfo to the models: {_span(st, 'ours', 'floor')}× a "
            "hand-written `struct` decoder that returns plain tuples and dicts"
        )
    if k4:
        lines.append(f"* Kafka 4's RPCs to Kafka's JSON: {_span(k4, 'ours', 'kio')}× kio's time to its objects")
    cap, start = _process(results, "capture"), _process(results, "startup")
    if cap is not None:
        lines.append(
            f"* `capture --json` of 200 MB: {1 / cap['ratios']['tshark']['median']:.1f}× tshark's speed, "
            f"{cap['extra']['ours']['max_rss_kb']['median'] / 1024:.0f} MiB"
        )
    if start is not None:
        lines.append(
            f"* `rebalance-codec decode` of one record: {start['ratios']['python -c pass']['median']:.1f}× "
            "`python -c pass`"
        )
    return "\n".join(lines) + ("\n\n(`bench/README.md`: how, and every figure)" if lines else "(not measured yet)")


def alternatives_text(results: dict) -> str:
    recs = _records(results, "alternatives")
    if not recs:
        return "(not measured yet: `python bench/run.py alternatives`, with Cython installed)"
    sec = results["sections"]["alternatives"]
    b = recs[0]["meta"]
    lines = [
        _head(sec, "Alternatives"),
        "",
        "| build | C lines | seconds |",
        "|---|--:|--:|",
        f"| Cython over the generated Python: {b['functions']} functions ({b['message']}, every version, decode "
        f"and encode) | {b['c_lines']:,} | {b['cython_seconds']:.1f} + {b['cc_seconds']:.1f} (cc -O2) |",
        f"| the engine: every message of `schemas/` ({b['messages']} files), every version and mode | "
        f"{b['engine_c_lines']:,} | {b['engine_cc_seconds']:.1f} (cc -O2) |",
        "",
        "| work | engine µs | Cython µs | generated Python µs | engine ÷ Cython | engine ÷ generated Python |",
        "|---|--:|--:|--:|--:|--:|",
    ]
    for r in recs:
        t = r["times"]
        lines.append(
            f"| {r['label']} {r['op']} | {_us(t['engine']['median'])} | {_us(t['Cython']['median'])} "
            f"| {_us(t['generated Python']['median'])} | {_r(r['ratios']['Cython'])} "
            f"| {_r(r['ratios']['generated Python'])} |"
        )
    return "\n".join(lines)


def watch_text(results: dict) -> str:
    """bench/README.md's section of ``bench/watch_bench.py``'s figures."""
    r = _process(results, "watch")
    if r is None:
        return "(not measured yet: `python bench/run.py watch`)"
    sec = results["sections"]["watch"]
    n, t, mem = r["meta"]["records"], r["times"], r["memory"]
    rss = {k: v["max_rss_kb"]["median"] / 1024 for k, v in r.get("extra", {}).items()}
    return "\n".join(
        [
            _head(sec, "Watch") + f" {r['meta']['what']}.",
            "",
            "| reader | CPU seconds (median, min–max) | records per CPU-second | peak RSS MiB |",
            "|---|--:|--:|--:|",
            *[
                f"| {'`rebalance-codec watch`' if side == 'ours' else 'plain confluent-kafka consume loop'} | "
                f"{t[side]['median']:.2f} ({t[side]['min']:.2f}–{t[side]['max']:.2f}) | "
                f"{n / t[side]['median']:,.0f} | {rss.get(side, 0):,.0f} |"
                for side in t
            ],
            "",
            f"Records per CPU-second, watch ÷ the consume loop (per repeat): {_watch_ratio(r)}. "
            + _watch_memory(mem)
            + _watch_breakdown(r.get("breakdown")),
        ]
    )


def _watch_ratio(r: dict) -> str:
    x = r["ratios"]["consume loop"]  # watch's CPU ÷ the loop's; its rate ÷ the loop's is the inverse
    return f"{1 / x['median']:.2f} ({1 / x['max']:.2f}–{1 / x['min']:.2f})"


def _watch_memory(mem: dict) -> str:
    return (
        f"Memory per tracked group: {mem['consumer_group_bytes'] / 1024:,.1f} KiB for a consumer group of 3 members "
        f"and 12 partitions ({mem['consumer_groups']:,} tracked), {mem['streams_app_bytes'] / 1024:,.0f} KiB for the "
        "Streams application (its members' identities, who owns each partition and task, the cause engine's state)."
    )


def _watch_breakdown(b: dict | None) -> str:
    """Where the decoding time goes (the tracker in-process, by kind of record)."""
    if not b:
        return ""
    total = sum(x["cpu_seconds"] for x in b.values())
    parts = [
        f"{name} {x['cpu_seconds'] / total:.0%} ({x['records']:,} records, "
        f"{x['cpu_seconds'] / x['records'] * 1e6:,.0f} µs each)"
        for name, x in sorted(b.items(), key=lambda kv: -kv[1]["cpu_seconds"])
    ]
    return f" Where the decoding goes (the tracker alone, in-process, {total:.2f} CPU s): " + "; ".join(parts) + "."


def watch_lines(results: dict) -> str:
    """The "Watch a cluster" page's figures."""
    r = _process(results, "watch")
    if r is None:
        return "(not measured yet: `python bench/run.py watch`)"
    n, t = r["meta"]["records"], r["times"]
    return (
        f"On {r['meta']['what']}: `watch` decodes {n / t['ours']['median']:,.0f} records per CPU-second, "
        f"{_watch_ratio(r)}× the rate of a plain confluent-kafka consume loop that only reads them (the floor). "
        + _watch_memory(r["memory"])
        + " (`bench/README.md`: how, and every figure)"
    )


def fastpath_text(results: dict) -> str:
    """The pure-Python codec with and without its generated fast path, beside the engine (``fastpath_bench.py``)."""
    sec = results.get("sections", {}).get("fastpath")
    if not sec:
        return "(not measured yet: `python bench/run.py fastpath`)"
    recs = sec["comparisons"]
    gain = [r["ratios"]["construct"]["median"] for r in recs]
    engine = [r["ratios"]["engine"]["median"] for r in recs]
    lines = [
        _head(sec, "Fast path") + " Ratios are medians of the per-repeat ratios with their range." + _later(sec),
        "",
        f"Over the {len(recs)} codec comparisons, the fast path takes {min(gain):.2f}–{max(gain):.2f}× the construct "
        f"reference's time (median {_median_of(gain):.2f}: the pure-Python codec is {1 / _median_of(gain):.1f}× "
        f"faster with it), and {min(engine):.1f}–{max(engine):.1f}× the engine's (median {_median_of(engine):.1f}).",
        "",
        "| message (payload) | op | fast path µs | ÷ construct alone | ÷ engine |",
        "|---|---|--:|--:|--:|",
    ]
    for r in recs:
        lines.append(
            f"| {_mark(sec, r)} | {r['op']} | {_us(r['times']['ours']['median'])} | {_r(r['ratios']['construct'])} "
            f"| {_r(r['ratios']['engine'])} |"
        )
    return "\n".join(lines)


RENDER = {
    "watch": watch_text,
    "codec": codec_table,
    "kafka4": kafka4_table,
    "targets": targets_text,
    "startup": startup_text,
    "capture": capture_text,
    "pipeline": pipeline_text,
    "claims": claims_text,
    "alternatives": alternatives_text,
    "fastpath": fastpath_text,
}


# --- pytest-benchmark's absolute timings (latest.json) --------------------------------------------------------


def other_table(latest: dict) -> str:
    lines = ["| benchmark | rounds | min s | mean s | figures |", "|---|--:|--:|--:|---|"]
    n = 0
    for b in latest["benchmarks"]:
        extra = b.get("extra") or {}
        figures = ", ".join(
            f"{k} {v:,.1f}" if isinstance(v, float) else f"{k} {v}" for k, v in extra.items() if k != "kind"
        )
        lines.append(f"| {b['name']} | {b['rounds']} | {b['min']:.3f} | {b['mean']:.3f} | {figures or '-'} |")
        n += 1
    return "\n".join(lines) if n else "(none ran)"


def render(latest: dict) -> str:
    m = latest.get("machine", {})
    head = (
        f"Run {latest.get('when', '?')} on {m.get('cpu', '?')} ({m.get('cores', '?')} cores), "
        f"{m.get('python', '?')} on {m.get('system', '?')}; times are the minimum and mean over rounds."
    )
    return "\n".join([head, "", other_table(latest)])


def section(doc: str, start: str = START, end: str = END) -> str:
    """The generated text between two markers of ``doc``."""
    return doc[doc.index(start) + len(start) : doc.index(end)].strip("\n")


def replace(doc: str, start: str, end: str, body: str) -> str:
    a, b = doc.index(start) + len(start), doc.index(end)
    return doc[:a] + "\n" + body + "\n" + doc[b:]


def write_tables(results_path: Path = RESULTS, latest_path: Path = LATEST) -> None:
    """Rewrite every generated section of bench/README.md and README.md's speed lines."""
    results = json.loads(results_path.read_text(encoding="utf-8")) if results_path.is_file() else {"sections": {}}
    doc = README.read_text(encoding="utf-8")
    for name in SECTIONS:
        doc = replace(doc, *markers(name), RENDER[name](results))
    if latest_path.is_file():
        doc = replace(doc, START, END, render(json.loads(latest_path.read_text(encoding="utf-8"))))
    README.write_text(doc, encoding="utf-8")
    project = PROJECT_README.read_text(encoding="utf-8")
    PROJECT_README.write_text(replace(project, SPEED_START, SPEED_END, speed_lines(results)), encoding="utf-8")
    if WATCH_DOC.is_file():
        page = WATCH_DOC.read_text(encoding="utf-8")
        WATCH_DOC.write_text(replace(page, WATCH_START, WATCH_END, watch_lines(results)), encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    write_tables()
    print(f"rewrote the generated sections of {README} and {PROJECT_README}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
