"""``capture --follow``: a pcap or pcapng stream read as it grows, each generation told the moment it completes.

The input is ``-`` (standard input: ``tcpdump -U -w - port 9092 | rebalance-codec capture --follow -``) or a file
still being written (read on as it grows, like ``tail -f``, until SIGINT or SIGTERM). The capture reading layer
(:func:`codec.capture.scan.kafka_frames`) is driven over a :class:`FollowStream`, whose reads return the bytes that
have arrived instead of waiting for a full buffer, so each packet is read the moment it is written; the capture
story (:mod:`codec.capture.story`) decodes each group frame as it comes. This module decides when a generation is
complete, and tells it then with its cause (:mod:`codec.causes`, fed the frames' observations in the order they
come):

* a classic generation once every member the leader's JoinGroup response named has its SyncGroup response (the
  generation's assignment is known), or the next generation forms, or ``settle`` seconds after its first SyncGroup
  response, or the stream ends;
* an epoch of a KIP-848 consumer, KIP-1071 streams or KIP-932 share group when the coordinator first gives a member
  that member epoch (the group's epoch moved), with the members known then and what each was given.

Between them the text lines say what the wire shows and ``__consumer_offsets`` never records: a member leaving
(LeaveGroup, its KIP-800 reason), heartbeats answered with an error (a rebalance in progress, an unknown member: a
session that expired), joins refused; and an admin's questions, each DescribeGroups and OffsetFetch response told the
moment it is read (the group's members with their decoded metadata and assignment, its committed offsets;
:mod:`codec.capture.storyadmin`), as ``capture`` tells them at the end. ``--json`` writes what ``capture --json``
writes (each group frame, each generation, each heartbeat group, each described group and committed offsets, the
summary), each generation as soon as it is complete.

Memory: what the story keeps of a generation is dropped once the next one is told; the rest is bounded as the
story's is (pending requests, heartbeat observations).
"""

from __future__ import annotations

import dataclasses
import os
import select
import time
from typing import Any, Callable, TextIO

from ..capture.heartbeat import HEARTBEAT_APIS, PROTOCOLS as HB_PROTOCOLS
from ..capture.pcapfile import CAPTURE_MAGICS
from ..capture.scan import kafka_frames
from ..capture.story import GROUP_APIS, CaptureSummary, GroupFrame, _Story
from ..capture.metadata import METADATA
from ..capture.heartbeat import DESCRIBE_APIS, TOPOLOGY_UPDATE_APIS
from ..capture.storyadmin import ADMIN_APIS, CommittedOffsets, DescribedGroup
from ..causes import (
    CLASSIC,
    Assigned,
    CauseEngine,
    CoordinatorSeen,
    EpochBumped,
    ErrorSeen,
    Formed,
    Heartbeat,
    Joined,
    Left,
    MemberFacts,
    Subscribed,
)
from ..causes.facts import assignment_facts, subscription_facts
from ..errors import InputError
from ..sniff import SNIFF, looks_like
from ..source import open_source, sniff
from ..text import printable
from .state import Epoch, EpochMember, LiveGeneration, Notice, _changes, _generation_snap, _owners, _Snap
from .text import when

__all__ = ["FollowStream", "Follower", "POLL"]

POLL = 0.2  # seconds between looks at a stream with nothing new (and at the stop flag)
_TOLD_ERRORS = {14, 15, 16, 22, 25, 82, 110}  # answers that say something about membership or the coordinator


class FollowStream:
    """A binary stream for the capture readers that follows its source: ``read(n)`` returns as soon as some bytes
    have arrived (at most ``n``), waiting for them; at the end of a pipe, or once ``stopped()`` says so, it
    returns ``b""``. A regular file is read on as it grows (its end is only an end once stopped)."""

    def __init__(self, fd: int, stopped: Callable[[], bool], *, follow_file: bool) -> None:
        self.fd, self.stopped, self.follow_file = fd, stopped, follow_file
        self._peeked = b""
        self.read_bytes = 0
        self.on_idle: Callable[[], None] | None = None  # called while waiting for bytes, every POLL seconds

    def _wait(self, n: int) -> bytes:
        while True:
            if self.stopped():
                return b""
            if not self.follow_file:
                ready, _, _ = select.select([self.fd], [], [], POLL)
                if not ready:
                    if self.on_idle is not None:
                        self.on_idle()
                    continue
            data = os.read(self.fd, n)
            if data or not self.follow_file:
                return data
            if self.on_idle is not None:
                self.on_idle()
            time.sleep(POLL)  # a file at its end for now: it may grow

    def read(self, size: int = -1, /) -> bytes:
        n = size if size is not None and size > 0 else 1 << 16
        if self._peeked:
            data, self._peeked = self._peeked[:n], self._peeked[n:]
            return data
        data = self._wait(n)
        self.read_bytes += len(data)
        return data

    def peek(self, size: int = 1, /) -> bytes:
        if not self._peeked:
            self._peeked = self._wait(max(size, 1 << 16))
            self.read_bytes += len(self._peeked)
        return self._peeked

    def tell(self) -> int:
        return self.read_bytes - len(self._peeked)

    def seek(self, offset: int, whence: int = 0, /) -> int:  # (peek is there: the readers never seek)
        raise OSError("a followed stream cannot seek")


@dataclasses.dataclass(slots=True)
class _Pending:
    """A classic generation formed and not yet told: who the leader's JoinGroup response named, who has synced."""

    number: int
    expected: set[str] | None = None
    synced: set[str] = dataclasses.field(default_factory=set)
    first_sync: float | None = None  # wall time


@dataclasses.dataclass(slots=True)
class _Classic:
    pending: dict[int, _Pending] = dataclasses.field(default_factory=dict)
    told: int | None = None
    snap: _Snap | None = None


@dataclasses.dataclass(slots=True)
class _Hb:
    protocol: str
    epoch: int = 0
    members: dict[str, EpochMember] = dataclasses.field(default_factory=dict)
    snap: _Snap | None = None


class Follower:
    """Capture records in (:meth:`feed`), what completed out: group frames (``--json``), generations, epochs, and
    the notices of what the wire shows between them."""

    def __init__(self, summary: CaptureSummary, group: str | None, *, settle: float = 2.0, clock=time.monotonic):
        self.story = _Story(summary, group)
        self.summary, self.only, self.settle, self.clock = summary, group, settle, clock
        self.engine = CauseEngine(source="capture")
        self.classic: dict[str, _Classic] = {}
        self.hb: dict[str, _Hb] = {}
        self.hb_requests: dict[tuple[int, int], dict] = {}  # (connection, correlation id) -> the request's body
        self.told = 0

    # -- frames in ----------------------------------------------------------------------------------------

    def feed(self, event) -> list[Any]:
        gf = self.story.feed(event)
        if self.story.admin.told:  # a DescribeGroups or OffsetFetch response: told as it comes, as capture tells it
            told, self.story.admin.told = self.story.admin.told, []
            return [a for a in told if self.only is None or a.group == self.only]
        if gf is None:
            return []
        out: list[Any] = [gf]
        if gf.error is not None or gf.group is None:
            return out
        if gf.api_key in HEARTBEAT_APIS:
            out += self._heartbeat(gf)
        elif gf.api_key in GROUP_APIS and gf.frame is not None:
            out += self._classic(gf)
        return out

    def _who(self, group: str, member: str | None) -> str:
        """A member for a notice: its id, with its client id when a request of the capture named it."""
        g = self.story.groups.get(group)
        client = g.clients.get(member) if g is not None and member else None
        return f"{member} ({client})" if client else str(member)

    def _feed(self, obs) -> Any:
        try:
            return self.engine.feed(obs)
        except ValueError:  # (an observation the engine refuses is no cause: the frame is told all the same)
            return None

    def _classic(self, gf: GroupFrame) -> list[Any]:
        out: list[Any] = []
        assert gf.group is not None and gf.frame is not None  # (feed() passes decoded frames of a group)
        group, body, ts = gf.group, gf.frame.body, gf.ts
        c = self.classic.setdefault(group, _Classic())
        where = f"frame at {ts:.6f}"
        if gf.direction == "request":
            if gf.api_key == 11:
                reason = getattr(body, "reason", None)
                self._feed(Joined(ts, group, CLASSIC, body.member_id or None, reason=reason, where=where))
            elif gf.api_key == 13:
                members = [(m.member_id, m.group_instance_id, getattr(m, "reason", None)) for m in body.members or ()]
                members = members or [(body.member_id, None, None)]
                for mid, iid, reason in members:
                    self._feed(Left(ts, group, CLASSIC, mid, reason=reason, instance_id=iid, where=where))
                    why = f" (reason: {printable(reason)})" if reason else ""
                    out.append(Notice("left", group, f"member {self._who(group, mid)} sent LeaveGroup{why}", where, ts))
            return out
        self._feed(CoordinatorSeen(ts, group, CLASSIC, gf.broker, where))
        code = gf.error_code or 0
        if code in _TOLD_ERRORS:
            api = GROUP_APIS[gf.api_key]
            self._feed(ErrorSeen(ts, group, CLASSIC, gf.member, code, api, where))
        if gf.api_key == 12 and gf.member:
            self._feed(Heartbeat(ts, group, CLASSIC, gf.member, code, where))
            if code:
                out.append(
                    Notice("heartbeat", group, f"member {gf.member}'s heartbeat answered {_err(code)}", where, ts)
                )
        elif gf.api_key == 11:
            if code:
                out.append(Notice("join", group, f"a JoinGroup answered {_err(code)}", where, ts))
                return out
            n = body.generation_id
            self._feed(Joined(ts, group, CLASSIC, body.member_id, new=True, where=where))
            for older in [k for k in c.pending if k < n]:
                out += self._tell(group, c, older)
            p = c.pending.setdefault(n, _Pending(n))
            if body.members:  # the leader's answer names every member
                p.expected = {m.member_id for m in body.members}
        elif gf.api_key == 14 and not code and gf.generation is not None and gf.member:
            synced = c.pending.get(gf.generation)
            if synced is not None:
                p = synced
                p.synced.add(gf.member)
                p.first_sync = p.first_sync if p.first_sync is not None else self.clock()
                if p.expected is not None and p.expected <= p.synced:
                    out += self._tell(group, c, gf.generation)
        return out

    def _tell(self, group: str, c: _Classic, number: int) -> list[Any]:
        """Generation ``number`` of ``group``, told: as the story holds it, with its changes and its cause."""
        c.pending.pop(number, None)
        g = self.story.groups.get(group)
        gen = g.generations.get(number) if g is not None else None
        if g is None or gen is None or (c.told is not None and number <= c.told):
            return []
        live = LiveGeneration(**{f.name: getattr(gen, f.name) for f in dataclasses.fields(gen)})
        live.members = dict(sorted(gen.members.items(), key=lambda kv: (kv[1].label, kv[0])))
        for m in live.members.values():
            m.client_id = m.client_id or g.clients.get(m.member_id)
        members = tuple(
            subscription_facts(m.member_id, m.subscription, instance_id=m.group_instance_id, client_id=m.client_id)
            for m in live.members.values()
        )
        ts = gen.formed_ts if gen.formed_ts is not None else gen.first_ts
        live.rebalance = self._feed(
            Formed(
                ts, group, number, members, True, gen.leader, gen.protocol_type, gen.protocol, f"generation {number}"
            )
        )
        for m in live.members.values():
            facts = assignment_facts(m.assignment)
            if facts is not None:
                self._feed(Assigned(ts, group, number, m.member_id, facts))
        snap = _generation_snap(live)
        live.changes = _changes(c.snap, snap)
        c.told, c.snap = number, snap
        for old in [k for k in g.generations if k < number]:  # (told: the story need not keep it)
            del g.generations[old]
        self.told += 1
        return [live]

    # -- heartbeat-based groups ---------------------------------------------------------------------------------

    def _heartbeat(self, gf: GroupFrame) -> list[Any]:
        msg = gf.message or {}
        body = msg.get("body") or {}
        group, ts, where = gf.group, gf.ts, f"frame at {gf.ts:.6f}"
        assert group is not None
        protocol = HB_PROTOCOLS[gf.api_key]
        h = self.hb.setdefault(group, _Hb(protocol))
        if gf.direction == "request":
            self.hb_requests[(gf.conn, gf.correlation_id)] = {**body, "clientId": msg.get("header", {}).get("clientId")}
            while len(self.hb_requests) > 65536:
                del self.hb_requests[next(iter(self.hb_requests))]
            member, epoch = body.get("memberId") or None, body.get("memberEpoch")
            if epoch == 0:
                self._feed(Joined(ts, group, protocol, member, where=where))
            elif epoch in (-1, -2) and member:
                how = "heartbeat" if epoch == -1 else "static-leave"
                self._feed(Left(ts, group, protocol, member, how, where=where))
                h.members.pop(member, None)
                return [Notice("left", group, f"member {member} left (member epoch {epoch})", where, ts)]
            return []
        req = self.hb_requests.pop((gf.conn, gf.correlation_id), {})
        member, code = body.get("memberId") or req.get("memberId"), body.get("errorCode") or 0
        if code:
            self._feed(ErrorSeen(ts, group, protocol, member, code, "heartbeat", where))
            return [Notice("heartbeat", group, f"member {member}'s heartbeat answered {_err(code)}", where, ts)]
        if not member:
            return []
        m = h.members.get(member) or EpochMember(member)
        h.members[member] = m
        m.client_id = req.get("clientId") or m.client_id
        if req.get("subscribedTopicNames") is not None:
            m.subscribed_topics = tuple(req["subscribedTopicNames"])
            facts = MemberFacts(member, client_id=m.client_id, topics=frozenset(m.subscribed_topics))
            self._feed(Subscribed(ts, group, protocol, facts, where))
        self._feed(Heartbeat(ts, group, protocol, member, 0, where))
        a = body.get("assignment")
        if isinstance(a, dict):
            m.target = {"partitions": frozenset(_partitions(a, self.story.hb.topic_names))}
        epoch = body.get("memberEpoch")
        if not isinstance(epoch, int) or epoch <= h.epoch:
            return []
        h.epoch = epoch
        members = {mid: dataclasses.replace(x, target=dict(x.target)) for mid, x in h.members.items()}
        snap = _Snap(
            epoch, {mid: x.label for mid, x in members.items()}, _owners({x.label: x.target for x in members.values()})
        )
        changes = _changes(h.snap, snap)
        h.snap = snap
        r = self._feed(EpochBumped(ts, group, protocol, epoch, tuple(members), where=where))
        self.told += 1
        return [Epoch(group, protocol, epoch, epoch, where, ts, members, changes, "capture", r)]

    # -- settling ---------------------------------------------------------------------------------------------

    def tick(self) -> list[Any]:
        """Generations whose first SyncGroup response is ``settle`` seconds old, told."""
        out: list[Any] = []
        now = self.clock()
        for group, c in self.classic.items():
            for n, p in sorted(c.pending.items()):
                if p.first_sync is not None and now - p.first_sync >= self.settle:
                    out += self._tell(group, c, n)
        return out

    def finish(self) -> list[Any]:
        """At the end of the stream: every generation formed and not told, then the heartbeat groups' stories."""
        out: list[Any] = []
        for group, c in self.classic.items():
            for n in sorted(c.pending):
                out += self._tell(group, c, n)
        self.summary.generations = self.told
        for hg in self.story.hb.finish({}):
            if self.only is None or hg.group == self.only:
                self.summary.heartbeat_groups += 1
                out.append(hg)
        return out


def _err(code: int) -> str:
    from ..capture.events import error_name

    return error_name(code)


def _partitions(assignment: dict, names: dict[str, str]) -> set:
    from ..capture.heartbeat import kafka_uuid

    out: set[tuple[str, int]] = set()
    for t in assignment.get("topicPartitions") or ():
        tid = kafka_uuid(t.get("topicId"))
        out.update((names.get(tid, tid), p) for p in t.get("partitions") or ())
    return out


def follow(
    source: str,
    *,
    ports: set[int],
    group: str | None,
    emit: Callable[[list[Any]], None],
    stopped: Callable[[], bool],
    summary: CaptureSummary,
    settle: float = 2.0,
    max_hole_bytes: int,
    max_hole_seconds: float,
) -> None:
    """Read ``source`` (``-`` for standard input) as it grows, handing what completes to ``emit`` as it does. The
    input is opened and its first bytes told by :mod:`codec.source`, as ``capture`` does: a gzip stream is read
    decompressed, and what is no pcap or pcapng stream is an :class:`~codec.errors.InputError` saying what it looks
    like."""
    with open_source(source, reads="capture --follow reads one pcap or pcapng stream (- for stdin)") as opened:
        raw = FollowStream(opened.fd, stopped, follow_file=opened.regular and source != "-")
        sniffed = sniff(raw, 4, buffered=False)
        if sniffed.head[:4] not in CAPTURE_MAGICS and sniffed.gzip_error is None and not stopped():
            head = sniffed.stream.peek(SNIFF) if sniffed.head else b""
            raise InputError(
                f"{opened.name}: not a pcap or pcapng stream, which capture --follow reads: it looks like "
                f"{looks_like(head, complete=False)}" + (", gzipped" if sniffed.gzipped else "")
            )
        f = Follower(summary, group, settle=settle)
        raw.on_idle = lambda: emit(f.tick())
        last = time.monotonic()
        events = kafka_frames(
            sniffed.stream,
            ports=ports,
            api_keys={*GROUP_APIS, *HEARTBEAT_APIS, *DESCRIBE_APIS, *TOPOLOGY_UPDATE_APIS, METADATA, *ADMIN_APIS},
            stats=summary.stats,
            max_buffer=max_hole_bytes,
            max_wait=max_hole_seconds,
            follow=True,
        )
        for event in events:
            emit(f.feed(event))
            now = time.monotonic()
            if now - last >= POLL:
                last = now
                emit(f.tick())
        emit(f.finish())


def line(item: Any, out: TextIO | None = None) -> str | None:
    """The text line of a followed item; None for what the text view leaves out (group frames)."""
    from ..capture.heartbeat import HeartbeatGroup
    from .text import line as told_line

    if isinstance(item, GroupFrame):
        return None
    if isinstance(item, HeartbeatGroup):
        return f"{when(item.last_ts)}  {printable(item.group)}  {item.protocol} group: {len(item.members):,} members"
    if isinstance(item, (DescribedGroup, CommittedOffsets)):  # the story's lines, the first one as a followed line
        from ..capture.storytext import render_admin

        first, _, rest = render_admin(item).partition("\n")
        what = first.split("  ", 2)[-1]  # (past "described  <date time>")
        head = f"{when(item.ts)}  {printable(item.group or '?')}  {what}"
        return head + ("\n" + rest if rest else "")
    return told_line(item)


def run_follow(
    args,
    out: TextIO,
    err: TextIO,
    *,
    json_line: Callable[[Any, CaptureSummary], str],
    unreadable: Callable[[CaptureSummary, Any, TextIO], int],
) -> int:
    """``capture --follow FILE`` (``-``: standard input): see the module docstring. Exit status 0 when the stream
    ended or SIGINT/SIGTERM stopped it; 1 when it could not be read to its end (as ``capture`` says).
    ``json_line`` and ``unreadable`` are ``capture``'s own: a JSON line as it writes one, its last error line."""
    import signal
    import threading

    from ..capture.storytext import render_summary
    from ..text import dumps
    from pathlib import Path

    stop = threading.Event()
    old = {}
    if threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGINT, signal.SIGTERM):
            old[sig] = signal.signal(sig, lambda *_: stop.set())
    summary = CaptureSummary()

    def emit(items: list[Any]) -> None:
        for item in items:
            if args.json:
                if not isinstance(item, Notice):  # (the JSON has the frames they come from)
                    out.write(json_line(item, summary) + "\n")
            else:
                text = line(item)
                if text is not None:
                    out.write(text + "\n")
        if items:
            out.flush()

    try:
        follow(
            args.file,
            ports=set(args.port or {9092}),
            group=args.group,
            emit=emit,
            stopped=stop.is_set,
            summary=summary,
            settle=args.settle,
            max_hole_bytes=args.max_hole_bytes,
            max_hole_seconds=args.max_hole_seconds,
        )
    finally:
        for sig, handler in old.items():
            signal.signal(sig, handler)
    if args.json:
        out.write(dumps(summary.json()) + "\n")
    else:
        out.write(render_summary(summary, "pcap", "stdin" if args.file == "-" else Path(args.file).name) + "\n")
    out.flush()
    return unreadable(summary, "stdin" if args.file == "-" else args.file, err)
