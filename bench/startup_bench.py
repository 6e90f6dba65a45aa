"""Start-up: ``rebalance-codec decode`` of one record, the whole process, against ``python -c pass``.

What a user runs: the wheel is built and installed with plain ``pip`` into a fresh venv (a temporary folder),
and both commands run from another folder with that venv's interpreter, interleaved in a shuffled order
(``bench/harness.py``). The record is the bundled Kafka-written v7 SubscriptionInfo, decoded to JSON.
"""

from __future__ import annotations

import glob
import subprocess
import sys
import tempfile
from pathlib import Path

import harness

ROOT = Path(__file__).resolve().parents[1]
RECORD = ROOT / "codec" / "examples" / "streams-v7-subscription.bin"


def wheel_venv(base: Path) -> Path:
    """A fresh venv with the wheel installed; returns its bin folder."""
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(base / "dist"), str(ROOT)],
        check=True,
        capture_output=True,
    )
    subprocess.run([sys.executable, "-m", "venv", str(base / "venv")], check=True)
    (wheel,) = glob.glob(str(base / "dist" / "rebalance_codec-*.whl"))
    subprocess.run([str(base / "venv" / "bin" / "pip"), "install", "-q", wheel], check=True, capture_output=True)
    return base / "venv" / "bin"


def comparison(bin_dir: Path, cwd: Path) -> harness.Comparison:
    command = ["rebalance-codec", "decode", "--kind", "subscription-info", f"@{RECORD}"]
    version = subprocess.run(
        [str(bin_dir / "rebalance-codec"), "--version"], capture_output=True, text=True, check=True, cwd=cwd
    ).stdout.strip()
    if "native" not in version:
        raise RuntimeError(f"the installed codec is not native: {version}")
    return harness.Comparison(
        "startup",
        "rebalance-codec decode of one SubscriptionInfo",
        "start-up",
        {
            "ours": lambda: harness.run_process([str(bin_dir / command[0]), *command[1:]], cwd=cwd),
            "python -c pass": lambda: harness.run_process([str(bin_dir / "python"), "-c", "pass"], cwd=cwd),
        },
        targets={"python -c pass": 3.0},
        unit="s per run",
        meta={
            "command": "rebalance-codec decode --kind subscription-info @streams-v7-subscription.bin",
            "what": "the wheel installed with plain pip in a fresh venv, both commands run from another folder "
            f"({'; '.join(version.splitlines()[:2])})",
        },
    )  # the release and the codec in use


def run(args) -> None:
    with tempfile.TemporaryDirectory(prefix="bench-startup-") as tmp:
        bin_dir = wheel_venv(Path(tmp))
        c = comparison(bin_dir, Path(tmp))
        rec = harness.measure(c, repeats=max(args.repeats, 21), process=True)
        r = rec["ratios"]["python -c pass"]
        print(
            f"start-up: decode {rec['times']['ours']['median'] * 1e3:.1f} ms, python -c pass "
            f"{rec['times']['python -c pass']['median'] * 1e3:.1f} ms: {r['median']:.2f}× "
            f"({r['min']:.2f}–{r['max']:.2f})"
        )
        harness.save("startup", [rec], {"repeats": rec["repeats"]})
