"""``rebalance-codec capture --json`` against tshark's Kafka dissector on the same 200 MB capture.

The capture is ``bench_capture_story.py``'s (80 connections of Fetch/Produce traffic and a 16-member group
rebalancing every 20 MB, one segment in 2,000 lost). tshark reads it with its Kafka dissector and prints the
group APIs' frames as JSON (``-Y 'kafka.api_key == 11 || ... == 14' -T json``): what a user would run to get
the same frames out. Before anything is timed both must find the same number of group frames. Each run is a
whole command, its output thrown away, its wall time and peak RSS its own; the two interleave in a shuffled
order (``bench/harness.py``). tshark is a peer for measurement only (``apt-get install tshark``).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import harness
from bench_capture_story import write_capture

ROOT = Path(__file__).resolve().parents[1]
GROUP_FILTER = " || ".join(f"kafka.api_key == {k}" for k in (11, 12, 13, 14))


def _tshark_version() -> str:
    out = subprocess.run(["tshark", "--version"], capture_output=True, text=True, check=True).stdout
    return out.splitlines()[0]


def _counts(path: Path) -> tuple[int, int]:
    ours = subprocess.run(
        [sys.executable, "-m", "codec", "capture", "--json", str(path)],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    ).stdout.splitlines()
    summary = json.loads(ours[-1])
    theirs = subprocess.run(
        ["tshark", "-r", str(path), "-Y", GROUP_FILTER, "-T", "fields", "-e", "frame.number"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    return summary["group_frames"], len(theirs)


def run(args) -> None:
    if shutil.which("tshark") is None:
        sys.exit("tshark is not installed (apt-get install tshark): it is the peer of this comparison")
    with tempfile.TemporaryDirectory(prefix="bench-capture-") as tmp:
        path = Path(tmp) / "story.pcap"
        write_capture(path, args.megabytes)
        ours_n, theirs_n = _counts(path)
        if ours_n != theirs_n:
            raise AssertionError(f"capture --json finds {ours_n} group frames, tshark {theirs_n}")
        mb = path.stat().st_size / 1e6
        tshark_cmd = ["tshark", "-r", str(path), "-Y", GROUP_FILTER, "-T", "json"]
        c = harness.Comparison(
            "capture",
            f"capture --json, {mb:,.0f} MB",
            "read",
            {
                "ours": lambda: harness.run_process(
                    [sys.executable, "-m", "codec", "capture", "--json", str(path)], cwd=tmp
                ),
                "tshark": lambda: harness.run_process(tshark_cmd, cwd=tmp),
            },
            targets={"tshark": 0.5},
            unit="s per run",
            meta={
                "megabytes": mb,
                "group_frames": ours_n,
                "tshark": _tshark_version(),
                "tshark_command": f"`tshark -r FILE -Y '{GROUP_FILTER}' -T json` ({_tshark_version()})",
                "what": f"{mb:,.0f} MB, {ours_n:,} group frames among Fetch and Produce traffic (bench_capture_story.py)",
            },
        )
        rec = harness.measure(c, repeats=max(3, min(args.repeats, 5)), process=True)
        r = rec["ratios"]["tshark"]
        print(
            f"capture: ours {rec['times']['ours']['median']:.2f} s, tshark {rec['times']['tshark']['median']:.2f} s: "
            f"{1 / r['median']:.2f}× tshark's speed"
        )
        harness.save("capture", [rec], {"repeats": rec["repeats"], "peers": {"tshark": _tshark_version()}})
