"""A bounded runner (issue #27): the adapter it judges cannot bring it down (tests/conformance/hostile_adapter.py).

Before #27, 200,000-character reasons drove the runner to 24 GB and a kill, 100,000 capability ranges cost 22 s
of CPU, an adapter that answered once a start was restarted for hours, its stderr went to an unbounded temp file,
reports replaced /dev/null, symlinks and FIFOs and were created 0600, and U+FFFE made the JUnit XML invalid. The
runs whose memory is measured go through a child process that reports its own peak (VmHWM)."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import tempfile
import threading
import xml.dom.minidom
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from codec.conformance.runner import Capabilities
from tests.conformance.test_runner_protocol import cli
from tests.conftest import ROOT

HOSTILE = ROOT / "tests" / "conformance" / "hostile_adapter.py"
NASTY = "\ufffe\uffff\U0001fffe\ufdd0\u202e\u2066\u200b\ufeff\x1b\x00\x85\u2028"  # none may reach a terminal raw
MIB = 1024


# The runner in a child process that writes its own peak RSS (VmHWM, which exec resets, unlike the rusage of a
# child forked from a large test process) to PEAK_FILE as it exits.
_MEASURED = (
    "import atexit, os, runpy, sys\n"
    "def _peak():\n"
    "    with open('/proc/self/status') as f:\n"
    "        kib = next(int(line.split()[1]) for line in f if line.startswith('VmHWM:'))\n"
    "    with open(os.environ['PEAK_FILE'], 'w') as f:\n"
    "        f.write(str(kib))\n"
    "atexit.register(_peak)\n"
    "sys.argv = ['rebalance-codec', *sys.argv[1:]]\n"
    "runpy.run_module('codec', run_name='__main__', alter_sys=True)\n"
)


def run(*args: str, timeout: float = 300) -> tuple[subprocess.CompletedProcess, int]:
    """``rebalance-codec conformance ARGS`` in a child process: (its result, its peak RSS in KiB)."""
    if not os.path.exists("/proc/self/status"):
        pytest.skip("no /proc here to read a process's peak memory from")
    with tempfile.TemporaryDirectory() as tmp:
        peak = Path(tmp) / "peak"
        p = subprocess.run(
            [sys.executable, "-c", _MEASURED, "conformance", *args],
            capture_output=True,
            text=True,
            cwd=ROOT,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
            env={**os.environ, "PEAK_FILE": str(peak)},
            check=False,
        )
        return p, int(peak.read_text())


def hostile(mode: str) -> str:
    return f"{sys.executable} {HOSTILE} {mode}"


def test_long_texts_are_clipped_and_memory_stays_small(tmp_path):
    """700 vectors whose every answer is a 200,000-character text: the runner before #27 peaked near 1 GB on
    these alone (24 GB on the whole suite); each text is kept clipped, its length said."""
    report, junit = tmp_path / "r.json", tmp_path / "r.xml"
    p, rss = run(
        "--impl",
        hostile("long-texts"),
        "--message",
        "SubscriptionInfo",
        "--generate",
        "50",
        "--json",
        str(report),
        "--junit",
        str(junit),
    )
    assert p.returncode == 1 and "Traceback" not in p.stderr
    assert rss < 256 * MIB, rss
    data = json.loads(report.read_text())
    texts = [r["detail"] for r in data["results"]] + [r["reason"] for r in data["results"]]
    assert max(map(len, texts)) <= 600 and any("(200000 characters)" in t for t in texts)
    assert max(len(line) for line in p.stdout.splitlines()) < 2000
    assert junit.stat().st_size < 4 * 1024 * 1024


def test_a_reply_of_millions_of_objects_is_not_read():
    p, rss = run(
        "--impl", hostile("many-objects"), "--message", "HeartbeatResponse", "--version", "0", "--generate", "20"
    )
    assert rss < 256 * MIB, rss
    # the reply's object, its array of 2,000,000 and its "id": 2,000,003 objects and strings, 1 array
    assert "adapter answered a line of 2000004 objects, arrays and strings (more than 1000000 are not read)" in p.stdout


def test_a_hundred_thousand_capability_ranges(tmp_path):
    p = cli("--impl", hostile("many-ranges"), "--message", "HeartbeatResponse", "--generate", "50")
    assert p.returncode == 0, p.stdout[-2000:]
    said = next(ln for ln in p.stdout.splitlines() if ln.startswith("capabilities: "))
    assert said == "capabilities: decode/encode every message v0,2,4,6,8,10,12,14,... (100000 ranges)"


def test_capabilities_merge_and_cap():
    caps = Capabilities.parse(
        [
            {"op": "decode", "message": "A", "versions": [str(v) for v in range(0, 200_000, 2)]},
            {"op": ["decode"], "message": ["A"], "versions": ["5-7", 11]},
            {"op": "encode", "versions": "3-"},
        ]
    )
    assert caps.covers("decode", "A", 199_998) and not caps.covers("decode", "A", 199_999)
    assert [v for v in range(4, 13) if caps.covers("decode", "A", v)] == [4, 5, 6, 7, 8, 10, 11, 12]
    assert caps.covers("encode", "B", 3) and caps.covers("encode", "B", 10**9) and not caps.covers("encode", "B", 2)
    assert not caps.covers("encode", "B", None) and not caps.covers("decode", "B", 0)
    for bad, why in [
        ([{"op": "decode"}] * 10_001, "10001 entries"),
        ([{"op": "decode", "versions": ["1"] * 200_001}], "too large"),
        ([{"op": "decode", "message": ["m"] * 2_000, "versions": ["1"] * 1_000}], "too large"),
    ]:
        with pytest.raises(ValueError, match=why):
            Capabilities.parse(bad)


def test_an_adapter_that_answers_once_a_start_is_given_up():
    p = cli("--impl", hostile("answer-once"), "--timeout", "1", "--message", "HeartbeatRequest", "--generate", "20")
    assert p.returncode == 1
    assert (
        "the adapter timed out after each of its last 3 starts (the last: adapter did not answer within 1 s)"
        in p.stdout
    )


def test_the_time_limit_ends_a_slow_run():
    p = cli("--impl", hostile("slow"), "--time-limit", "1", "--message", "JoinGroupRequest", "--generate", "0")
    assert p.returncode == 1
    assert "GIVEN UP: the run's time limit of 1 s is spent (--time-limit)" in p.stdout
    assert " not run" in p.stdout.strip().splitlines()[-1]


def test_a_stderr_flood_is_a_ring(tmp_path):
    p, rss = run("--impl", hostile("flood-stderr"), "--message", "HeartbeatResponse", "--generate", "50")
    assert p.returncode == 0, p.stdout[-2000:]
    assert rss < 256 * MIB
    assert not list(tmp_path.iterdir())


def test_noncharacters_in_every_adapter_text(tmp_path):
    """Error messages, reasons, assigned member ids, declared message names and the --impl command itself carry
    noncharacters, bidi overrides, controls: the JUnit parses, and the terminal sees none of them raw."""
    junit, expect = tmp_path / "r.xml", tmp_path / "expect.txt"
    impl = f"{hostile('nasty-texts')} '{NASTY.replace(chr(0), '')}'"  # (no NUL in a command line)
    args = [
        "--impl",
        impl,
        "--message",
        "JoinGroupRequest",
        "--message",
        "SyncGroupRequest",
        "--message",
        "RebalanceRound",
        "--generate",
        "60",
        "--seed",
        "4",
    ]
    p, _ = run(*args, "--write-expect", str(expect))
    assert p.returncode == 1
    expect.write_text(expect.read_text(encoding="utf-8").replace("  # ", f"  # {NASTY} "), encoding="utf-8")
    p, _ = run(*args, "--junit", str(junit), "--expect", str(expect))
    for doc in (xml.dom.minidom.parse(str(junit)), ET.parse(junit)):
        assert doc is not None
    text = junit.read_text(encoding="utf-8")
    assert "\ufffe" not in text and "\\ufffe" in text and "expected-failure" in text
    assert not any(c in p.stdout + p.stderr for c in NASTY)
    assert "\\ufffe" in p.stdout


@pytest.mark.parametrize("kind", ["symlink", "fifo", "devnull"])
def test_a_report_path_that_is_not_a_regular_file_is_written_through(tmp_path, kind):
    target = tmp_path / "target.xml"
    path = tmp_path / "report"
    got: list[bytes] = []
    reader = None
    if kind == "symlink":
        target.write_text("old")
        path.symlink_to(target)
    elif kind == "fifo":
        os.mkfifo(path)
        reader = threading.Thread(target=lambda: got.append(path.read_bytes()))
        reader.start()
    else:
        path = "/dev/null"
        if not os.access(path, os.W_OK):
            pytest.skip("/dev/null is not writable here")
    before = os.lstat(path)
    p = cli("--message", "HeartbeatResponse", "--version", "0", "--generate", "10", "--junit", str(path))
    assert p.returncode == 0, p.stderr
    after = os.lstat(path)
    assert stat.S_IFMT(after.st_mode) == stat.S_IFMT(before.st_mode) and after.st_ino == before.st_ino
    if kind == "symlink":
        assert ET.parse(target).getroot().tag == "testsuites"
    if reader is not None:
        reader.join(30)
        assert ET.fromstring(got[0]).tag == "testsuites"


def test_new_reports_get_the_umasks_mode_and_old_ones_keep_theirs(tmp_path):
    new, old = tmp_path / "new.json", tmp_path / "old.json"
    old.write_text("{}")
    old.chmod(0o640)
    umask = os.umask(0o022)
    try:
        for path in (new, old):
            assert (
                cli(
                    "--message", "HeartbeatResponse", "--version", "0", "--generate", "0", "--json", str(path)
                ).returncode
                == 0
            )
    finally:
        os.umask(umask)
    assert stat.S_IMODE(new.stat().st_mode) == 0o644 and stat.S_IMODE(old.stat().st_mode) == 0o640
    assert json.loads(old.read_text())["results"]


def test_a_report_that_cannot_be_written_is_one_error_line(tmp_path):
    p = cli("--message", "HeartbeatResponse", "--version", "0", "--generate", "0", "--json", str(tmp_path))
    assert p.returncode == 1 and "Traceback" not in p.stderr
    assert p.stderr.startswith(f"error: cannot write the JSON report {tmp_path}: ")
