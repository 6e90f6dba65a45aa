"""A command that cannot start names the word it could not find (issue #46: ``--impl "python …"`` where no
``python`` is on PATH said only "No such file or directory"): the adapter of ``conformance``, the driver of
``conformance --behaviour``, the program of ``fuzz --cli``; one line, no scenario run."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

SCRIPT = os.path.join(os.path.dirname(sys.executable), "rebalance-codec")


def _run(args: list[str], tmp_path, path: str | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    if path is not None:
        env["PATH"] = path
    return subprocess.run([SCRIPT, *args], capture_output=True, text=True, cwd=tmp_path, env=env, timeout=120)


@pytest.mark.parametrize(
    "args, flag",
    [
        (["conformance", "--impl", "python-nowhere adapter.py"], "'python-nowhere adapter.py'"),
        (["conformance", "--behaviour", "--client", "python-nowhere driver.py"], "--client 'python-nowhere driver.py'"),
        (
            ["fuzz", "--cli", "--inputs", "1", "--program", "python-nowhere -m codec"],
            "--program 'python-nowhere -m codec'",
        ),
    ],
)
def test_a_word_not_on_path_is_named(tmp_path, args, flag):
    empty = tmp_path / "bin"
    empty.mkdir()
    p = _run(args, tmp_path, path=str(empty))
    assert p.returncode != 0
    assert p.stderr == f"error: cannot start {flag}: 'python-nowhere' is not on PATH (1 folder searched)\n"
    assert p.stdout == ""


def test_a_path_that_is_no_program_is_said(tmp_path):
    (tmp_path / "adapter.py").write_text("print('hi')\n")
    p = _run(["conformance", "--impl", "./adapter.py"], tmp_path)
    assert p.stderr.splitlines()[-1] == (
        "error: cannot start './adapter.py': './adapter.py' is not executable (run it through its interpreter, or "
        "chmod +x it)"
    )
    p = _run(["conformance", "--impl", "./missing.py"], tmp_path)
    assert p.stderr.splitlines()[-1] == "error: cannot start './missing.py': './missing.py' does not exist"
