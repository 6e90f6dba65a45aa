"""The conformance gate and the adapter as a process (issue #38): an adapter started through a wrapper (``sh run.sh``,
``npm start``) is stopped with everything it started, and nothing of the install is imported or read once an
adapter runs (one that can write there could otherwise change the gate mid-run).

Every expectation is a property of the processes and files themselves (``/proc``, the interpreter's audit
events), not of the runner's output."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.conformance.test_runner_protocol import cli
from tests.conftest import ROOT

# An adapter that writes its pid to a file beside it when it starts, answers its first request and hangs on the next
# (so each start ends in a timeout), behind a shell script that does not exec it: the shell is the runner's child.
HANGS_ON_SECOND = """\
import json, os, sys, time
open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "pids", str(os.getpid())), "w").close()
for n, line in enumerate(sys.stdin):
    if n:
        time.sleep(3600)
    print(json.dumps({"id": json.loads(line).get("id"), "unsupported": "answers once"}), flush=True)
"""
# An adapter that answers honestly, but first starts a child of its own that outlives it (a daemon, a watcher).
LEAVES_A_CHILD = """\
import os, subprocess, sys
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)"])
open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "pids", str(child.pid)), "w").close()
from codec.conformance.adapter import main
sys.exit(main())
"""


def _running(pid: int) -> bool:
    """Whether ``pid`` is a process that still runs (a zombie waiting for its parent to reap it has ended)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, IndexError):
        return False
    return state not in ("Z", "X")


def _wrapped(tmp_path: Path, body: str) -> tuple[str, Path]:
    (tmp_path / "pids").mkdir()
    (tmp_path / "adapter.py").write_text(body, encoding="utf-8")
    (tmp_path / "run.sh").write_text(f"{sys.executable} {tmp_path / 'adapter.py'}\n", encoding="utf-8")
    return f"sh {tmp_path / 'run.sh'}", tmp_path / "pids"


def _left_running(pids: Path) -> list[int]:
    started = [int(p.name) for p in pids.iterdir()]
    running = [pid for pid in started if _running(pid)]
    for pid in running:  # the processes this test started, ended so that a failure leaves nothing behind
        os.kill(pid, signal.SIGKILL)
    return running


def test_an_adapter_behind_a_wrapper_is_killed_with_it_on_a_timeout(tmp_path):
    """``sh run.sh`` killed on each timeout left its adapter running: 3 live ones after this run."""
    command, pids = _wrapped(tmp_path, HANGS_ON_SECOND)
    p = cli("--impl", command, "--timeout", "1", "--message", "HeartbeatRequest", "--generate", "20")
    assert p.returncode == 1
    assert "did not answer within 1 s" in p.stdout
    assert len(list(pids.iterdir())) >= 3  # started again after each timeout, until given up
    assert _left_running(pids) == []


def test_a_child_the_adapter_leaves_behind_is_stopped_with_it(tmp_path):
    command, pids = _wrapped(tmp_path, LEAVES_A_CHILD)
    p = cli("--impl", command, "--message", "HeartbeatResponse", "--version", "0")
    assert p.returncode == 0, p.stdout[-2000:]
    assert len(list(pids.iterdir())) == 2  # one start for the writing part, one for the reading part
    assert _left_running(pids) == []


# Runs the CLI in this interpreter with an audit hook: every file opened under the given folders after the first
# child process starts, and every module of codec first imported after it.
AUDITED_RUN = textwrap.dedent(
    """\
    import contextlib, io, json, os, subprocess, sys
    roots = [os.path.realpath(p) for p in json.loads(sys.argv[1])]
    state = {"started": False, "opened": set(), "modules": set()}

    def hook(event, args):
        if state["started"] and event == "open" and isinstance(args[0], str):
            path = os.path.realpath(args[0])
            if any(path.startswith(root + os.sep) for root in roots):
                state["opened"].add(path)

    sys.addaudithook(hook)
    real = subprocess.Popen.__init__

    def init(self, *a, **k):
        if not state["started"]:
            state["started"], state["modules"] = True, set(sys.modules)
        real(self, *a, **k)

    subprocess.Popen.__init__ = init
    from codec.cli import main

    with contextlib.redirect_stdout(io.StringIO()):
        status = main(["conformance", *sys.argv[2:]])
    later = sorted(m for m in set(sys.modules) - state["modules"] if m == "codec" or m.startswith("codec."))
    print(json.dumps({"status": status, "started": state["started"], "modules": later,
                      "opened": sorted(state["opened"])}))
    """
)


@pytest.mark.parametrize(
    "args",
    [
        ["--seed", "3", "--expect", str(ROOT / "vectors" / "adapters" / "kafka-python" / "expect.txt")],
        ["--cross-version", "--seed", "3"],
        ["--seed", "4", str(ROOT / "vectors" / "handcrafted-subscription-info.jsonl"), "--generate", "50"],
    ],
    ids=["whole-run", "cross-version", "files"],
)
def test_nothing_of_the_install_is_imported_or_read_once_the_adapter_runs(tmp_path, args):
    """A whole run with the reference adapter (vectors, generated cases, rounds, witnesses, reports): the gate
    imported its leader, its kinds and 27 modules in all, and read every schema and the rounds file, after the
    adapter had started."""
    import codec

    script = tmp_path / "audited.py"
    script.write_text(AUDITED_RUN, encoding="utf-8")
    package = Path(codec.__file__).parent
    roots = [str(package), str(ROOT / "schemas"), str(ROOT / "vectors")]
    adapter = f"{sys.executable} -m codec.conformance.adapter"
    report = ["--json", str(tmp_path / "r.json"), "--junit", str(tmp_path / "r.xml")]
    p = subprocess.run(
        [sys.executable, str(script), json.dumps(roots), "--impl", adapter, *args, *report],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=tmp_path,
    )
    assert p.returncode == 0, p.stderr[-3000:]
    out = json.loads(p.stdout.strip().splitlines()[-1])
    assert out["started"] and out["status"] in (0, 1)
    assert out["modules"] == [] and out["opened"] == []
