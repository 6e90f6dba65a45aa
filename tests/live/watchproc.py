"""``rebalance-codec watch`` as a subprocess, read line by line as it writes (for the live tests and the bench)."""

from __future__ import annotations

import json
import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


class WatchProcess:
    """``python -m codec watch ARGS`` with its stdout and stderr lines queued as they come (and kept)."""

    def __init__(self, *args: str, env: dict | None = None) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "codec", "watch", *args],
            cwd=ROOT,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            encoding="utf-8",
            env={**os.environ, **(env or {})},
        )
        self.out: queue.Queue[str] = queue.Queue()
        self.err: queue.Queue[str] = queue.Queue()
        self.out_lines: list[str] = []
        self.err_lines: list[str] = []
        self.pumps = []
        for stream, q, kept in (
            (self.proc.stdout, self.out, self.out_lines),
            (self.proc.stderr, self.err, self.err_lines),
        ):
            t = threading.Thread(target=self._pump, args=(stream, q, kept), daemon=True)
            t.start()
            self.pumps.append(t)

    @staticmethod
    def _pump(stream, q, kept) -> None:
        for text in stream:
            kept.append(text.rstrip("\n"))
            q.put(text.rstrip("\n"))
        q.put(None)

    def wait_err(self, pattern: str, timeout: float = 20.0) -> re.Match:
        """The first stderr line (from now) that ``pattern`` finds; an AssertionError after ``timeout`` s."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            try:
                text = self.err.get(timeout=max(left, 0.01))
            except queue.Empty:
                text = ""
            if text is None:
                raise AssertionError(f"watch ended without {pattern!r}: {self.err_lines}")
            m = re.search(pattern, text)
            if m:
                return m
            if left <= 0:
                raise AssertionError(f"no {pattern!r} on stderr in {timeout} s: {self.err_lines}")

    def records(self, n: int, timeout: float = 20.0, types=("generation", "epoch")) -> list[dict]:
        """The next ``n`` JSON lines of ``types`` (others are read past), each with ``_seen`` (monotonic time)."""
        out = []
        deadline = time.monotonic() + timeout
        while len(out) < n:
            left = deadline - time.monotonic()
            try:
                text = self.out.get(timeout=max(left, 0.01))
            except queue.Empty:
                text = ""
            if text is None:
                raise AssertionError(f"watch ended after {len(out)} of {n} records: {self.err_lines}")
            if text:
                rec = json.loads(text)
                if rec.get("type") in types:
                    rec["_seen"] = time.monotonic()
                    out.append(rec)
            elif left <= 0:
                raise AssertionError(f"{len(out)} of {n} records in {timeout} s: {self.err_lines}")
        return out

    def metrics_port(self, timeout: float = 20.0) -> int:
        return int(self.wait_err(r"metrics on http://[^:]+:(\d+)/metrics", timeout).group(1))

    def scrape(self, port: int) -> str:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as r:
            return r.read().decode("utf-8")

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 20.0) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        try:
            return self.proc.wait(timeout)
        finally:
            self.kill()

    def wait(self, timeout: float = 60.0) -> int:
        try:
            return self.proc.wait(timeout)
        finally:
            self.kill()

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)
        for t in self.pumps:  # the last lines read
            t.join(10)
        for stream in (self.proc.stdout, self.proc.stderr):
            if stream is not None:
                stream.close()

    def __enter__(self) -> WatchProcess:
        return self

    def __exit__(self, *exc) -> None:
        self.kill()
