"""The command-line fuzzer's runs (:mod:`codec.fuzz.cli`): the commands it fuzzes, a :class:`Job` (one process run)
and :func:`execute`, which runs one under its time and memory bounds."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "COMMANDS",
    "WEIGHTS",
    "BATCH",
    "DEFAULT_PROGRAM",
    "DEFAULT_MAX_RSS_MB",
    "INPUT_FILE",
    "Job",
    "RunResult",
    "execute",
]

COMMANDS = ("decode", "encode", "assign", "conformance")
#: The share of the inputs each command gets (conformance: one input is one vector the runner checks).
WEIGHTS = {"decode": 0.45, "encode": 0.36, "assign": 0.18, "conformance": 0.01}
#: Input lines per process run.
BATCH = {"decode": 4000, "encode": 4000, "assign": 4000}
#: The CLI under test: this Python running the package, as ``python -m codec`` does.
DEFAULT_PROGRAM = (sys.executable, "-m", "codec")
DEFAULT_MAX_RSS_MB = 600

# Characters str.splitlines (and so many readers) takes for a line break, besides LF.
_BREAKERS = re.compile("[\r\x0b\x0c\x1c-\x1e\x85\u2028\u2029]")
# What a line for people may not hold (conformance's table): C0 but LF, DEL, C1, U+2028/9.
_CONTROL = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029]")
_HEX = re.compile(r"[0-9a-f]*\Z")
_SUMMARY = re.compile(r"(\d+) passed, (\d+) failed, (\d+) skipped(?:, (\d+) not run)?\Z")  # not run: given up
_MATRIX = re.compile(r"(\d+) of (\d+) cells agree with Kafka\Z")
#: The input file of a run that reads a file instead of stdin (``@in`` for decode and encode, ``in`` for assign).
INPUT_FILE = "in"


def _reads_file(args: tuple[str, ...]) -> bool:
    return bool(args) and args[-1] in (INPUT_FILE, "@" + INPUT_FILE)


# --- jobs: one process run each ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Job:
    """One run of the CLI: ``args`` after the program, and ``lines`` on stdin (LF after each, but the last
    when ``final_newline`` is False); ``trailing``: the lines (indices) that are a message the kind accepts with
    bytes after it, which decode must report (docs/explanations/input-policy.md). For ``conformance``: ``vectors``
    is how many vectors the filters select, ``all_fail`` says every reply of the adapter is a failure of the
    protocol, ``reports`` asks for ``--json`` and ``--junit``."""

    command: str
    args: tuple[str, ...]
    lines: tuple[bytes, ...] = ()
    final_newline: bool = True
    vectors: int = 0
    all_fail: bool = False
    reports: bool = False
    trailing: tuple[int, ...] = ()

    @property
    def inputs(self) -> int:
        return self.vectors if self.command == "conformance" else len(self.lines)

    def stdin(self) -> bytes:
        if not self.lines:
            return b""
        body = b"\n".join(self.lines)
        return body + b"\n" if self.final_newline or not self.lines[-1] else body

    def part(self, start: int, stop: int) -> Job:
        """The same run on ``lines[start:stop]`` (ending as this one ends when it takes the last line)."""
        stop = min(stop, len(self.lines))
        return Job(
            self.command,
            self.args,
            self.lines[start:stop],
            self.final_newline or stop < len(self.lines),
            trailing=tuple(i - start for i in self.trailing if start <= i < stop),
        )


# --- running one job --------------------------------------------------------------------------------------


@dataclass
class RunResult:
    status: int | None  # exit status; None when the fuzzer killed the process
    stdout: bytes
    stderr: bytes
    seconds: float
    max_rss_kb: int
    killed: str | None = None  # "timeout" | "memory" | "output"
    json_report: bytes | None = None
    junit_report: bytes | None = None


def _peak_rss_kb(pid: int) -> int:
    """The peak resident memory of the process so far (VmHWM; 0 once it has exited). Not ``ru_maxrss`` of
    wait4: on Linux that starts from the forking parent's memory."""
    try:
        with open(f"/proc/{pid}/status", "rb") as f:
            for line in f:
                if line.startswith(b"VmHWM:"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return 0


def _child_env(unbuffered: bool) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("REBALANCE_CODEC_DEBUG", "PYTHONUNBUFFERED")}
    if unbuffered:
        env["PYTHONUNBUFFERED"] = "1"
    return env


def execute(
    job: Job,
    *,
    program: tuple[str, ...] = DEFAULT_PROGRAM,
    timeout: float | None = None,
    max_rss_mb: int = DEFAULT_MAX_RSS_MB,
    unbuffered: bool = False,
) -> RunResult:
    """Run ``job`` in its own process group (stdin, stdout and stderr are files, so nothing blocks), watching
    its memory and output; the group is killed past ``timeout`` seconds, ``max_rss_mb``, or 64 MB of output
    beyond 64 bytes per input byte."""
    if timeout is None:
        timeout = _timeout(job)
    with tempfile.TemporaryDirectory(prefix="fuzz-cli-") as tmp:
        t = Path(tmp)
        args = list(job.args)
        if job.reports:
            args += ["--json", str(t / "report.json"), "--junit", str(t / "report.xml")]
        (t / INPUT_FILE).write_bytes(job.stdin())  # stdin, and the file of a run that names it
        with open(t / INPUT_FILE, "rb") as fin, open(t / "out", "wb") as fout, open(t / "err", "wb") as ferr:
            start = time.monotonic()
            proc = subprocess.Popen(
                [*program, *args],
                stdin=fin,
                stdout=fout,
                stderr=ferr,
                cwd=tmp,
                env=_child_env(unbuffered),
                start_new_session=True,
            )
            killed = None
            peak = 0
            delay = 0.002
            max_output = 64 * 1024 * 1024 + 64 * len(job.stdin())
            while True:
                pid, status = os.waitpid(proc.pid, os.WNOHANG)
                if pid:
                    break
                peak = max(peak, _peak_rss_kb(proc.pid))
                if peak > max_rss_mb * 1024:
                    killed = "memory"
                elif os.fstat(fout.fileno()).st_size + os.fstat(ferr.fileno()).st_size > max_output:
                    killed = "output"
                elif time.monotonic() - start > timeout:
                    killed = "timeout"
                if killed:
                    _killpg(proc.pid)
                    _, status = os.waitpid(proc.pid, 0)
                    break
                time.sleep(delay)
                delay = min(delay * 1.5, 0.05)
            seconds = time.monotonic() - start
            proc.returncode = os.waitstatus_to_exitcode(status)
            _killpg(proc.pid)  # whatever it left behind (adapters)
        json_report = (t / "report.json").read_bytes() if (t / "report.json").exists() else None
        junit_report = (t / "report.xml").read_bytes() if (t / "report.xml").exists() else None
        return RunResult(
            None if killed else proc.returncode,
            (t / "out").read_bytes(),
            (t / "err").read_bytes(),
            seconds,
            peak,
            killed,
            json_report,
            junit_report,
        )


def _killpg(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _timeout(job: Job) -> float:
    if job.command == "conformance":
        return 60 + 0.1 * job.vectors
    per_line = {"decode": 0.004, "encode": 0.004, "assign": 0.03}[job.command]
    return 20 + per_line * len(job.lines)
