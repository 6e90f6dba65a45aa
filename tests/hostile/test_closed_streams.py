"""The installed console script started with stdout or stdin closed (``>&-``, ``<&-``), which Python gives it as
``sys.stdout``/``sys.stdin`` None: ``kinds >&-`` and ``demo >&-`` exited 0 having written nothing anywhere, and
``capture``, ``encode`` and ``decode`` on stdin ended in "unexpected AttributeError" (the bug line). Now one
error line saying which stream is closed, exit 1."""

from __future__ import annotations

import os
import subprocess

import pytest

from tests.conftest import ROOT

pytestmark = pytest.mark.wheel

PCAP = str(ROOT / "codec" / "examples" / "kip848-group.pcap")


def _run_closed(installed, tmp_path, args: list[str], fd: int) -> subprocess.CompletedProcess:
    """The script with file descriptor ``fd`` closed (after the pipes are in place, before it starts)."""
    return subprocess.run(
        [str(installed), *args], capture_output=True, preexec_fn=lambda: os.close(fd), cwd=tmp_path, timeout=60
    )


@pytest.mark.parametrize("args", [["kinds"], ["demo"], ["capture", PCAP]])
def test_a_closed_stdout_is_one_error_line(installed, tmp_path, args):
    p = _run_closed(installed, tmp_path, args, 1)
    assert p.returncode == 1 and p.stderr == b"error: stdout is closed: nothing could be written\n", p.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["encode", "--kind", "subscription-info"],
        ["decode", "--kind", "assignment-info"],
        ["decode", "--kind", "assignment-info", "--lines"],
    ],
)
def test_a_closed_stdin_is_one_error_line(installed, tmp_path, args):
    p = _run_closed(installed, tmp_path, args, 0)
    assert p.returncode == 1 and p.stdout == b"", p.stdout
    assert p.stderr == b"error: stdin is closed: give the input as an argument, or as @path\n", p.stderr
