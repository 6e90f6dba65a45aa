"""Running scenarios: a broker and a driver per scenario, many scenarios at once, each bounded in time.

A driver is started with its environment (the driver contract: vectors/drivers/README.md), in a session of its
own, with no standard input. Its standard output is read without blocking, and drained each time the broker reads
a request: a line the driver wrote before its client sent the request is recorded before that request, so the
order of a callback and a request is the order they happened in. At the end the driver gets SIGTERM (its process
group does), has a few seconds to close its client, and is killed after that.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import time
from dataclasses import dataclass, field
from typing import Any

from .broker import Broker
from .classic import ClassicGroup
from .consumer import ConsumerGroup
from .scenario import Config, Incomplete, Scenario, Verdict, fail, skip
from .trace import Trace

__all__ = ["Driver", "Outcome", "Run", "probe", "run_scenarios"]

MAX_LINE = 64 * 1024  # bytes of one driver line
MAX_LINES = 5000  # lines of one driver
STOP_GRACE = 5.0  # seconds a driver has to close after SIGTERM
ASSIGNORS = {"eager": "range", "cooperative": "cooperative-sticky"}
CAPABILITIES = ("classic", "consumer", "static", "eager", "cooperative")


class Driver:
    """One driver process, its output read into a trace."""

    def __init__(self, argv: list[str], env: dict[str, str], trace: Trace) -> None:
        self.trace = trace
        self.argv = argv
        self._buf = b""
        self._err = b""
        self._count = 0
        self.proc = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            start_new_session=True,
        )
        assert self.proc.stdout is not None and self.proc.stderr is not None
        self._out, self._errfd = self.proc.stdout.fileno(), self.proc.stderr.fileno()
        os.set_blocking(self._out, False)
        os.set_blocking(self._errfd, False)
        loop = asyncio.get_running_loop()
        loop.add_reader(self._out, self.drain)
        loop.add_reader(self._errfd, self._drain_err)
        trace.drains.append(self.drain)
        self.open = True
        self.finished = False

    def drain(self) -> None:
        """Read what the driver has written so far (never blocks)."""
        if not self.open:
            return
        while True:
            try:
                chunk = os.read(self._out, 65536)
            except BlockingIOError:
                return
            except OSError:
                chunk = b""
            if not chunk:
                self._close_reader()
                if self._buf.strip():
                    self._line(self._buf)
                self._buf = b""
                return
            self._buf += chunk
            while b"\n" in self._buf:
                line, self._buf = self._buf.split(b"\n", 1)
                self._line(line)
            if len(self._buf) > MAX_LINE:
                self.trace.note("driver-noise", detail=f"a line longer than {MAX_LINE} bytes, cut")
                self._line(self._buf[:MAX_LINE])
                self._buf = b""

    def _line(self, raw: bytes) -> None:
        self._count += 1
        if self._count > MAX_LINES:
            if self._count == MAX_LINES + 1:
                self.trace.note("driver-noise", detail=f"more than {MAX_LINES} lines: the rest left out")
            return
        text = raw.decode("utf-8", "replace").strip()
        if not text:
            return
        try:
            value = json.loads(text)
        except ValueError:
            self.trace.note("driver-noise", detail=text[:200])
            return
        if not isinstance(value, dict):
            self.trace.note("driver-noise", detail=text[:200])
        elif "supports" in value and self.trace.supports is None:
            got = value["supports"]
            self.trace.supports = {s for s in got if isinstance(s, str)} if isinstance(got, list) else set()
            self.trace.line(value)
        else:
            self.trace.line(value)

    def _drain_err(self) -> None:
        try:
            while True:
                chunk = os.read(self._errfd, 65536)
                if not chunk:
                    asyncio.get_running_loop().remove_reader(self._errfd)
                    return
                self._err = (self._err + chunk)[-16384:]
        except BlockingIOError:
            return
        except OSError:
            asyncio.get_running_loop().remove_reader(self._errfd)

    def _close_reader(self) -> None:
        if self.open:
            self.open = False
            loop = asyncio.get_running_loop()
            loop.remove_reader(self._out)

    def signal(self, sig: int) -> None:
        try:
            os.killpg(self.proc.pid, sig)
        except (ProcessLookupError, PermissionError):
            pass

    async def wait(self, timeout: float) -> int | None:
        deadline = time.monotonic() + timeout
        while self.proc.poll() is None and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        return self.proc.poll()

    async def stop(self, grace: float = STOP_GRACE) -> int | None:
        """SIGTERM, then SIGKILL after ``grace`` seconds; the exit status (None: killed)."""
        if self.proc.poll() is None:
            self.signal(signal.SIGTERM)
            code = await self.wait(grace)
            if code is None:
                self.trace.note("script", detail=f"the driver did not exit within {grace:g} s of SIGTERM: killed")
                self.signal(signal.SIGKILL)
                await self.wait(2)
        self.finish()
        return self.proc.poll()

    def finish(self) -> None:
        """Read the driver's last output and close its pipes (once: their descriptors are reused after)."""
        if self.finished:
            return
        self.finished = True
        self.drain()
        self._close_reader()
        try:
            asyncio.get_running_loop().remove_reader(self._errfd)
        except (ValueError, OSError):
            pass
        self._drain_tail()
        self.trace.stderr = self._err.decode("utf-8", "replace").splitlines()[-20:]
        self.trace.exit = self.proc.poll()
        for f in (self.proc.stdout, self.proc.stderr):
            if f is not None:
                f.close()

    def stderr_tail(self) -> list[str]:
        return self._err.decode("utf-8", "replace").splitlines()[-5:]

    def _drain_tail(self) -> None:
        try:
            while True:
                chunk = os.read(self._errfd, 65536)
                if not chunk:
                    break
                self._err = (self._err + chunk)[-16384:]
        except OSError:
            pass


@dataclass
class Outcome:
    """One scenario's result."""

    scenario: Scenario
    verdict: Verdict
    seconds: float
    trace: Trace | None = None


@dataclass
class Run:
    """One scenario's run: what its script and judge see."""

    scenario: Scenario
    argv: list[str]
    config: Config
    supports: set[str]
    trace: Trace = field(default_factory=Trace)
    group: Any = None
    broker: Broker | None = None
    drivers: list[Driver] = field(default_factory=list)

    @property
    def group_id(self) -> str:
        return f"behaviour-{self.scenario.name}"

    @property
    def instance_id(self) -> str | None:
        return f"{self.scenario.name}-instance" if self.scenario.static else None

    def env(self, **extra: str) -> dict[str, str]:
        s, c = self.scenario, self.config
        assert self.broker is not None
        if s.protocol == "consumer":
            assignor = ""
        elif s.assignor in ASSIGNORS:
            assignor = ASSIGNORS[s.assignor]
        else:
            assignor = "range" if "eager" in self.supports else "cooperative-sticky"
        env = {k: v for k, v in os.environ.items() if not k.startswith("REBALANCE_")}
        env.update(
            REBALANCE_BOOTSTRAP=f"127.0.0.1:{self.broker.port}",
            REBALANCE_GROUP=self.group_id,
            REBALANCE_TOPICS=",".join(s.topics),
            REBALANCE_CLIENT_ID=f"behaviour-{s.name}",
            REBALANCE_PROTOCOL=s.protocol,
            REBALANCE_ASSIGNOR=assignor,
            REBALANCE_SESSION_TIMEOUT_MS=str(c.session_timeout_ms),
            REBALANCE_HEARTBEAT_INTERVAL_MS=str(c.heartbeat_interval_ms),
            REBALANCE_REBALANCE_TIMEOUT_MS=str(c.rebalance_timeout_ms),
        )
        if self.instance_id is not None:
            env["REBALANCE_INSTANCE_ID"] = self.instance_id
        env.update(extra)
        return env

    def start_driver(self) -> Driver:
        d = Driver(self.argv, self.env(), self.trace)
        self.drivers.append(d)
        self.trace.note("script", detail=f"driver {len(self.drivers)} started")
        return d

    @property
    def driver(self) -> Driver:
        return self.drivers[-1]

    async def stop_driver(self) -> int | None:
        self.trace.note("script", detail="SIGTERM to the driver")
        return await self.driver.stop()


def _group_for(run: Run) -> Any:
    s = run.scenario
    if s.group is not None:
        return s.group(run)
    if s.protocol == "consumer":
        return ConsumerGroup(run.trace, run.group_id, s.topics, interval_ms=run.config.consumer_interval_ms)
    return ClassicGroup(run.trace, run.group_id, s.topics)


async def _watched(run: Run) -> None:
    """The scenario's script, cut short when the driver has not connected within the start-up time or exits
    before the script is done with it."""
    play = asyncio.ensure_future(run.scenario.play(run))
    trace, startup = run.trace, run.config.startup
    connected = asyncio.ensure_future(trace.wait_for(lambda: trace.notes_of("connect"), startup))
    done, _ = await asyncio.wait({play, connected}, return_when=asyncio.FIRST_COMPLETED)
    if play in done:
        connected.cancel()
        return play.result()
    if not connected.result():
        play.cancel()
        code = run.driver.proc.poll()
        said = f" (it exited {code})" if code is not None else ""
        tail = " | ".join(run.driver.stderr_tail()[-2:])
        raise Incomplete(
            f"the driver never connected to the broker within {startup:g} s{said}" + (f": {tail}" if tail else "")
        )
    return await play


async def run_one(s: Scenario, argv: list[str], supports: set[str] | None, config: Config) -> Outcome:
    began = time.monotonic()
    if supports is None:
        return Outcome(s, fail('the driver never declared what it supports (no {"supports": [...]} line)'), 0.0)
    missing = sorted(s.needs - supports)
    if missing:
        return Outcome(s, skip(f"the driver does not declare {', '.join(missing)}"), 0.0)
    run = Run(s, argv, config, supports)
    run.group = _group_for(run)
    run.broker = Broker(run.trace, s.topics, run.group)
    await run.broker.start()
    verdict: Verdict | None = None
    try:
        try:
            run.start_driver()
        except OSError as e:
            return Outcome(s, fail(f"the driver cannot be started: {e}"), 0.0, run.trace)
        try:
            await asyncio.wait_for(_watched(run), s.bound)
        except Incomplete as e:
            verdict = fail(str(e))
        except asyncio.TimeoutError:
            from .scenario import last_seen

            verdict = fail(f"the scenario did not finish within its bound of {s.bound:g} s; {last_seen(run.trace)}")
        for d in run.drivers:
            if d.proc.poll() is None:
                await d.stop()
            else:
                d.finish()
    finally:
        for d in run.drivers:
            if d.proc.poll() is None:
                d.signal(signal.SIGKILL)
                await d.wait(2)
        await run.broker.close()
    broken = run.trace.notes_of("broker-error")
    if broken:  # the scripted coordinator's own mistake: the suite's, and said so
        verdict = fail(
            f"the scripted coordinator could not answer (a fault of this suite, not of the client): {broken[0].detail}"
        )
    if verdict is None:
        try:
            verdict = s.judge(run)
        except Exception as e:  # a judge's own mistake is the suite's, and said so
            verdict = fail(f"the judge failed (a fault of this suite): {type(e).__name__}: {e}")
    return Outcome(s, verdict, round(time.monotonic() - began, 2), run.trace)


async def _probe(argv: list[str], config: Config) -> tuple[set[str] | None, str]:
    trace = Trace()
    group = ClassicGroup(trace, "behaviour-probe", {"behaviour-a": 1})
    broker = Broker(trace, {"behaviour-a": 1}, group)
    await broker.start()
    probe_scenario = Scenario("probe", "", "", (), play=lambda r: None, judge=lambda r: fail(""))
    run = Run(probe_scenario, argv, config, set(), trace=trace, group=group, broker=broker)
    try:
        try:
            d = run.start_driver()
        except OSError as e:
            return None, f"the driver cannot be started: {e}"
        await trace.wait_for(lambda: trace.supports is not None or d.proc.poll() is not None, config.startup)
        await d.stop()
    finally:
        await broker.close()
    if trace.supports is None:
        tail = " | ".join(trace.stderr[-3:])
        return None, (
            f"the driver declared nothing within {config.startup:g} s (exit {trace.exit})"
            + (f": {tail}" if tail else "")
        )
    return trace.supports, ""


def probe(argv: list[str], config: Config) -> tuple[set[str] | None, str]:
    """What the driver declares it supports (None and why, when it declares nothing)."""
    return asyncio.run(_probe(argv, config))


def run_scenarios(
    argv: list[str], scenarios: list[Scenario], config: Config, *, jobs: int = 8
) -> tuple[list[Outcome], set[str] | None, str]:
    """Every scenario against the driver ``argv``, ``jobs`` at a time; the outcomes in the scenarios' order, what
    the driver declared, and why it declared nothing."""

    async def main() -> tuple[list[Outcome], set[str] | None, str]:
        supports, why = await _probe(argv, config)
        gate = asyncio.Semaphore(max(1, jobs))

        async def one(s: Scenario) -> Outcome:
            async with gate:
                got = await run_one(s, argv, supports, config)
                if supports is None:
                    got = Outcome(s, fail(why), 0.0)
                return got

        outcomes = await asyncio.gather(*(one(s) for s in scenarios))
        return list(outcomes), supports, why

    return asyncio.run(main())
