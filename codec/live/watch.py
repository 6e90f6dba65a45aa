"""``rebalance-codec watch``: a running cluster's rebalances as they happen, from its ``__consumer_offsets`` topic.

The watcher reads the topic with librdkafka (confluent-kafka, imported here only): it assigns itself every
partition (or ``--partitions``), joins no group and commits nothing. Each record is decoded by the project's codec
into its group's running state (:class:`codec.live.state.Tracker`), and each generation or epoch is told the moment
the record that completes it is read: one line per rebalance (:mod:`codec.live.text`), or with ``--json`` the same
``{"type": "generation", ...}`` records ``capture --json`` writes (and ``{"type": "epoch", ...}`` for Kafka 4's
groups), one per line, flushed at once. Each rebalance told is fed to the loop and storm detectors
(:mod:`codec.causes.detectors`, the ones ``capture`` and the pipeline use): a finding is told on the line after the
rebalance that completed it (``{"type": "finding", ...}`` with ``--json``) and counted in
``rebalance_codec_findings_total``. ``--metrics-port`` serves Prometheus' text format on ``/metrics``
(:mod:`codec.live.metrics`).

As a daemon: a cluster that does not answer (at start-up or later) is one line on stderr, and the watcher retries
with backoff (librdkafka reconnects by itself once it is running) and says when the cluster answers again;
SIGINT and SIGTERM end it cleanly: what is held is told, the metrics are brought up to date, the consumer closes,
exit status 0. A record that cannot be decoded is counted, and the first of each kind is shown with its offset.
"""

from __future__ import annotations

import json
import re
import signal
import sys
import threading
import time
from typing import Any, Callable, TextIO

from ..causes.detectors import Detectors, Finding
from ..errors import InputError
from ..text import dumps, printable
from .config import client_config, parse_partitions, setting
from .metrics import Metrics
from .state import DEFAULT_IDLE_HORIZON, DEFAULT_MAX_GROUPS, DEFAULT_SETTLE, Bad, Notice, Told, Tracker
from .text import line

__all__ = ["INSTALL_HINT", "TOPIC", "register", "run", "Watcher"]

TOPIC = "__consumer_offsets"
INSTALL_HINT = (
    "watch needs the 'live' extra (confluent-kafka, prometheus-client):\n"
    "    pip install 'rebalance-codec[live]'        (from a checkout: pip install -e '.[live]')"
)
BATCH = 1000  # records taken from the client at a time
POLL = 0.25  # seconds a consume call waits for records (how fast a signal is answered)
BACKOFF = (1.0, 30.0)  # seconds between attempts to reach a cluster that does not answer: first, most
_AUTH_CODES = ("_AUTHENTICATION", "SASL_AUTHENTICATION_FAILED", "_SSL")


class Stop:
    """Set by SIGINT or SIGTERM (the handlers are installed by :meth:`install`, restored by :meth:`restore`)."""

    def __init__(self) -> None:
        self.event = threading.Event()
        self.signal: int | None = None
        self._old: dict[int, Any] = {}

    def install(self) -> None:
        if threading.current_thread() is not threading.main_thread():
            return
        for sig in (signal.SIGINT, signal.SIGTERM):
            self._old[sig] = signal.signal(sig, self._handle)

    def _handle(self, signum, frame) -> None:
        self.signal = signum
        self.event.set()

    def restore(self) -> None:
        for sig, old in self._old.items():
            signal.signal(sig, old)
        self._old.clear()

    def wait(self, seconds: float) -> bool:
        """Sleep up to ``seconds``; True when stopped meanwhile."""
        return self.event.wait(seconds)

    def __bool__(self) -> bool:
        return self.event.is_set()


class Watcher:
    """One run of ``watch`` (see the module docstring)."""

    def __init__(self, args, out: TextIO, err: TextIO, ck) -> None:
        self.args, self.out, self.err, self.ck = args, out, err, ck
        only = re.compile(args.group).search if args.group else None
        self.tracker = Tracker(
            only=(lambda g: only(g) is not None) if only else None,
            max_groups=args.max_groups,
            idle_horizon=args.idle_horizon,
            settle=args.settle,
        )
        self.metrics = Metrics(self.tracker)
        self.detectors = Detectors()  # the loop and storm detectors, fed each rebalance told
        self.stop = Stop()
        self.down_since: float | None = None
        self.position: dict[int, int] = {}  # partition -> next offset to read
        self.ends: dict[int, int] = {}  # partition -> end offset, from the client's statistics
        self.told = 0
        self.fatal: str | None = None
        self.auth_said = False
        self.conf_bootstrap = ""
        self.up_seen = False  # the cluster answered since the partitions were assigned
        self.not_up = 0  # statistics in a row without a broker up
        self.reading_since = 0  # when the partitions were assigned (wall time, s; the statistics' "time")
        self.reading = False  # partitions assigned: the statistics say whether the cluster answers
        self.hooks: list[Callable[[Told], None]] = []  # what else each told item goes to (OpenTelemetry spans)
        self.flushes: list[Callable[[], None]] = []

    # -- output -------------------------------------------------------------------------------------------

    def say(self, text: str) -> None:
        self.err.write(f"watch: {text}\n")
        self.err.flush()

    def emit(self, items: list[Told]) -> None:
        if not items:
            return
        for item in items:
            for hook in self.hooks:
                hook(item)
            if isinstance(item, Bad):
                if item.first:
                    self.say(
                        f"{line(item)} (counted in rebalance_codec_decode_errors_total; further records of this "
                        "kind are counted, not shown)"
                    )
                    if self.args.json:
                        self.out.write(dumps(item.json()) + "\n")
                continue
            if isinstance(item, Notice) and item.kind in ("dropped", "deleted"):
                self.metrics.forget(item.group)  # (its series go: their number stays bounded by the groups tracked)
                self.detectors.forget(item.group)
            else:
                self.metrics.told(item)
                self.told += not isinstance(item, Notice)
            self.out.write((dumps(item.json(), default=str) if self.args.json else line(item)) + "\n")
            for f in self.findings(item):
                self.metrics.finding(f.group, f.check)
                self.out.write((dumps(f.json(), default=str) if self.args.json else line(f)) + "\n")
        self.out.flush()

    def findings(self, item: Told) -> list[Finding]:
        """The detectors' findings that a rebalance told completes (:mod:`codec.causes.detectors`). What it moved is
        told by its changes (None when the record before it is not known: a loop is then not claimed)."""
        r = getattr(item, "rebalance", None)
        if r is None:
            return []
        changes = getattr(item, "changes", None)
        if changes is not None and r.moved is None:
            r.moved = sum(len(items) for moves in changes.moved.values() for items in moves.values())
        return self.detectors.feed(r)

    # -- the client's callbacks (run inside consume(), in this thread) ----------------------------------------

    def on_error(self, e) -> None:
        """Fatal errors end the run; authentication failures are said once. Whether the cluster answers is
        read from the statistics (an error reported late would say it is down after it came back)."""
        if e.fatal():
            self.fatal = f"{e.name()}: {e.str()}"
        elif e.name() in _AUTH_CODES and not self.auth_said:
            self.auth_said = True
            self.say(f"the cluster refuses the client: {printable(e.str())}; retrying (check -X sasl.* and ssl.*)")

    def went_down(self, why: str) -> None:
        self.metrics.reachable = 0
        if self.down_since is None:
            self.down_since = time.monotonic()
            self.say(f"the cluster does not answer ({printable(why)}); retrying with backoff")

    def came_back(self) -> None:
        self.metrics.reachable = 1
        if self.down_since is not None:
            self.say(f"the cluster answers again (after {time.monotonic() - self.down_since:,.1f} s); reading on")
            self.down_since = None

    def on_stats(self, text: str) -> None:
        try:
            stats = json.loads(text)
        except ValueError:
            return
        if any(b.get("state") == "UP" for b in (stats.get("brokers") or {}).values()):
            self.not_up = 0
            self.came_back()
        elif self.up_seen and stats.get("time", 0) > self.reading_since:  # (not statistics queued before)
            self.not_up += 1
            if self.not_up >= 2:  # (two in a row: a client between connections is no cluster gone)
                self.went_down(f"no broker connected; bootstrap {self.conf_bootstrap}")
        parts = ((stats.get("topics") or {}).get(self.args.topic) or {}).get("partitions") or {}
        for p, s in parts.items():
            if not p.lstrip("-").isdigit() or int(p) < 0:
                continue
            end = s.get("ls_offset", -1)
            if end is None or end < 0:
                end = s.get("hi_offset", -1)
            if isinstance(end, int) and end >= 0:
                self.ends[int(p)] = end
            nxt = s.get("next_offset", -1)  # (where a partition with no record read yet is: its start)
            if isinstance(nxt, int) and nxt >= 0 and int(p) not in self.position:
                self.position[int(p)] = nxt
        self.update_lag()

    def update_lag(self) -> None:
        if not self.ends:
            return
        lag = 0
        for p, end in self.ends.items():
            if p in self.position:
                lag += max(0, end - self.position[p])
        self.metrics.lag = lag

    # -- connecting -------------------------------------------------------------------------------------------

    def partitions(self, consumer) -> list[int] | None:
        """The topic's partitions to read, once the cluster answers (retrying with backoff); None when stopped."""
        delay = BACKOFF[0]
        while not self.stop:
            why = None
            try:
                md = consumer.list_topics(self.args.topic, timeout=5)
                t = md.topics.get(self.args.topic)
                if t is None or t.error is not None or not t.partitions:
                    why = f"topic {self.args.topic} is not there yet" + (f" ({t.error.str()})" if t and t.error else "")
                else:
                    self.came_back()
                    have = sorted(t.partitions)
                    if self.args.partitions is None:
                        return have
                    missing = [p for p in self.args.partitions if p not in t.partitions]
                    if missing:
                        raise InputError(
                            f"--partitions: {self.args.topic} has partitions 0-{max(have)}; "
                            f"there is no partition {missing[0]}"
                        )
                    return list(self.args.partitions)
            except self.ck.KafkaException as e:
                why = e.args[0].str() if e.args and hasattr(e.args[0], "str") else str(e)
            if self.fatal:
                return None
            if self.down_since is None:
                self.metrics.reachable = 0
                self.down_since = time.monotonic()
                self.say(f"cannot read {self.args.topic} ({printable(why or '')}); retrying with backoff")
            if self.stop.wait(delay):
                return None
            delay = min(delay * 2, BACKOFF[1])
        return None

    # -- the run ------------------------------------------------------------------------------------------------

    def run(self) -> int:
        ck = self.ck
        conf: dict[str, Any] = client_config(self.args.bootstrap_server, self.args.config, self.args.X or [])
        self.conf_bootstrap = conf["bootstrap.servers"]
        if self.args.exit_at_end:
            conf["enable.partition.eof"] = "true"
        conf["error_cb"] = self.on_error
        conf["stats_cb"] = self.on_stats
        port = None
        if self.args.metrics_port is not None:
            port = self.metrics.serve(self.args.metrics_port, self.args.metrics_host)
            self.say(f"metrics on http://{self.args.metrics_host or '0.0.0.0'}:{port}/metrics")
        if self.args.otel:
            from .otel import INSTALL_HINT as OTEL_HINT
            from .otel import span_hook

            spans = span_hook()
            if spans is None:
                self.say(f"--otel: OpenTelemetry is not installed, no spans ({OTEL_HINT})")
            else:
                self.hooks.append(spans[0])
                self.flushes.append(spans[1])
        self.stop.install()
        try:
            consumer = ck.Consumer(conf)
        except (ck.KafkaException, ValueError, TypeError) as e:
            self.metrics.stop()
            self.stop.restore()
            raise InputError(f"the client refused its configuration: {e}") from None
        try:
            return self._run(consumer)
        finally:
            self.emit(self.tracker.flush())
            try:
                consumer.close()
            except RuntimeError:
                pass
            self.metrics.stop()
            for flush in self.flushes:
                flush()
            self.stop.restore()
            self.summary()

    def _run(self, consumer) -> int:
        ck = self.ck
        parts = self.partitions(consumer)
        if parts is None:
            return self._end()
        start = ck.OFFSET_BEGINNING if self.args.start == "beginning" else ck.OFFSET_END
        consumer.assign([ck.TopicPartition(self.args.topic, p, start) for p in parts])
        self.reading = self.up_seen = True  # (the cluster just answered: its metadata)
        self.reading_since = int(time.time())
        self.say(
            f"reading {self.args.topic} partitions {_ranges(parts)} from the "
            f"{'beginning' if self.args.start == 'beginning' else 'end'}"
        )
        pending = set(parts) if self.args.exit_at_end else set()
        if pending:
            for p in parts:
                try:
                    lo, hi = consumer.get_watermark_offsets(ck.TopicPartition(self.args.topic, p), timeout=10)
                except ck.KafkaException:  # (not known now: its end-of-partition event will say)
                    continue
                if hi <= lo or self.args.start != "beginning":
                    pending.discard(p)
        feed, tracker, emit, position = self.tracker.feed, self.tracker, self.emit, self.position
        last_tick = time.monotonic()
        while not self.stop and not self.fatal:
            if self.args.exit_at_end and not pending:
                break
            msgs = consumer.consume(BATCH, POLL)
            for m in msgs:
                err = m.error()
                if err is not None:
                    if err.code() == ck.KafkaError._PARTITION_EOF:
                        pending.discard(m.partition())
                    elif err.fatal():
                        self.fatal = f"{err.name()}: {err.str()}"
                    continue
                p, o = m.partition(), m.offset()
                position[p] = o + 1
                kind, ms = m.timestamp()
                ts = ms / 1000 if kind != ck.TIMESTAMP_NOT_AVAILABLE else None
                emit(feed(m.key(), m.value(), f"partition {p} offset {o}", ts))
            if msgs and self.down_since is not None:
                self.came_back()
            now = time.monotonic()
            if now - last_tick >= POLL:
                last_tick = now
                emit(tracker.tick())
                self.update_lag()
        return self._end()

    def _end(self) -> int:
        if self.fatal:
            self.say(f"error: the client stopped: {printable(self.fatal)}")
            return 1
        return 0

    def summary(self) -> None:
        t = self.tracker
        read, decoded = sum(t.read.values()), sum(t.decoded.values())
        text = (
            f"read {read:,} records ({decoded:,} decoded, {t.bad:,} undecodable"
            + (f", {t.filtered:,} of groups --group leaves out" if self.args.group else "")
            + f"); told {self.told:,} rebalances; {len(t.groups):,} groups tracked"
        )
        if self.stop.signal is not None:
            text = f"stopped by {signal.Signals(self.stop.signal).name}: " + text
        self.say(text)
        if self.args.json:
            summary = {
                "type": "summary",
                "records_read": dict(t.read),
                "records_decoded": dict(t.decoded),
                "decode_errors": t.bad,
                "left_out": t.filtered,
                "told": self.told,
                "groups_tracked": len(t.groups),
                "groups_dropped": dict(t.dropped),
            }
            self.out.write(dumps(summary) + "\n")
            self.out.flush()


def _ranges(parts: list[int]) -> str:
    out, i = [], 0
    while i < len(parts):
        j = i
        while j + 1 < len(parts) and parts[j + 1] == parts[j] + 1:
            j += 1
        out.append(str(parts[i]) if i == j else f"{parts[i]}-{parts[j]}")
        i = j + 1
    return ",".join(out)


def run(args, out: TextIO | None = None, err: TextIO | None = None) -> int:
    """Watch until stopped (SIGINT, SIGTERM; or, with ``--exit-at-end``, the end of the topic as it was at start)."""
    out, err = out or sys.stdout, err or sys.stderr
    try:
        import confluent_kafka
    except ImportError as e:
        err.write(f"error: {e.name or 'confluent_kafka'} is not installed; {INSTALL_HINT}\n")
        return 2
    if args.metrics_port is not None:
        try:
            import prometheus_client  # noqa: F401
        except ImportError as e:
            err.write(f"error: {e.name or 'prometheus_client'} is not installed; {INSTALL_HINT}\n")
            return 2
    return Watcher(args, out, err, confluent_kafka).run()


def _seconds(text: str) -> float:
    from ..cliutil import seconds

    return seconds(text)


def register(subparsers) -> None:
    """Add the ``watch`` subcommand."""
    from ..cliutil import int_range

    p = subparsers.add_parser(
        "watch",
        help="follow a running cluster's __consumer_offsets and tell each rebalance as it happens",
        description="Follow a cluster's __consumer_offsets topic with librdkafka (confluent-kafka): the watcher "
        "assigns itself every partition, joins no group and commits nothing. Each generation of a classic group "
        "and each epoch of a Kafka 4 group is told the moment its record is read: one line per rebalance, or "
        "--json lines (the records capture --json writes). --metrics-port serves Prometheus metrics. SIGINT or "
        "SIGTERM ends it (exit 0). Needs the 'live' extra: pip install 'rebalance-codec[live]'.",
    )
    p.add_argument("--bootstrap-server", metavar="HOST:PORT", help="the cluster (librdkafka's bootstrap.servers)")
    p.add_argument(
        "-X",
        metavar="KEY=VALUE",
        type=setting,
        action="append",
        help="a librdkafka setting, as kcat takes them (repeatable): -X security.protocol=SASL_SSL",
    )
    p.add_argument("--config", metavar="FILE", help="a client properties file (key=value lines); -X wins over it")
    p.add_argument(
        "--from",
        dest="start",
        choices=("beginning", "end"),
        default="end",
        help="end (the default): tell what happens from now on; beginning: replay what the topic holds first",
    )
    p.add_argument("--group", metavar="REGEX", help="only the groups whose id this regular expression finds")
    p.add_argument(
        "--partitions",
        metavar="LIST",
        type=parse_partitions,
        help="read only these partitions (0-24, or 0-9,20-29): split a busy cluster's topic between watchers "
        "(Kafka places a group by the hash of its id, so each group stays with one watcher)",
    )
    p.add_argument("--json", action="store_true", help="JSON lines: each generation and epoch, notices, a summary")
    p.add_argument("--metrics-port", metavar="PORT", type=int_range(0, 65535), help="serve /metrics on this port")
    p.add_argument("--metrics-host", metavar="ADDR", default="", help="the address to serve metrics on (default all)")
    p.add_argument(
        "--max-groups",
        metavar="N",
        type=int_range(1, 10**9),
        default=DEFAULT_MAX_GROUPS,
        help=f"groups tracked at most (default {DEFAULT_MAX_GROUPS:,}); past it the least recently active one "
        "is dropped, and said so",
    )
    p.add_argument(
        "--idle-horizon",
        metavar="S",
        type=_seconds,
        default=DEFAULT_IDLE_HORIZON,
        help=f"drop a group (and say so) after S seconds of record time without a record (default "
        f"{DEFAULT_IDLE_HORIZON:,.0f}, a week)",
    )
    p.add_argument(
        "--settle",
        metavar="S",
        type=_seconds,
        default=DEFAULT_SETTLE,
        help=f"how long a generation or epoch waits for the record that completes it (default {DEFAULT_SETTLE:g})",
    )
    p.add_argument(
        "--otel",
        action="store_true",
        help="one OpenTelemetry span per rebalance, to the process's tracer provider (OTEL_* variables), or OTLP "
        "or stderr where only the SDK is installed",
    )
    p.add_argument("--topic", default=TOPIC, help=f"the topic to read (default {TOPIC}; a mirror of it elsewhere)")
    p.add_argument(
        "--exit-at-end",
        action="store_true",
        help="stop once the topic is read to the end it had at start-up (with --from beginning: a replay)",
    )
    p.set_defaults(func=run)
