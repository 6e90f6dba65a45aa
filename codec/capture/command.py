"""``rebalance-codec capture FILE``: the rebalance story of a capture or of ``__consumer_offsets`` records.

Input (detected from the bytes, gzipped or not): a pcap/pcapng file (by its magic), a log segment of
``__consumer_offsets`` (a file named ``*.log``, or whose first batch has magic 2), else a text dump of
its records (see :func:`codec.capture.offsets.read_text`). Output: per group, each generation and, for a
group that rebalances through heartbeats (KIP-848, KIP-1071), its member epochs, in the layout of
:mod:`codec.capture.storytext`, then a summary of the input; ``--json`` gives JSON lines instead (see
:func:`run`). On a terminal, stderr shows how far through the file the reading is.

``--max-hole-bytes`` and ``--max-hole-seconds`` bound how long TCP reassembly waits for a segment that
is missing (a retransmission may still fill the hole): while at most that many bytes have arrived behind
the hole and for at most that many seconds of capture time. Memory grows with the first (per direction of
each open connection). A hole given up costs the frames it cuts or holds; the summary counts them (lost
frames) and, when the hole's bytes were captured later after all, states the limits that would have kept
them. Wire strings are written with :func:`codec.text.printable` in the text story and
:func:`codec.text.dumps` in JSON, so any Java string (lone surrogates included) comes out, and no name can
start a line or send a terminal control sequence.

The first line of the text output is true to what follows: a group's story, or why none is told (no group
traffic; group frames decoded but no generation, such as requests never answered; frames the capture's snap
length cut to their headers; connections not taken for Kafka), and, wherever the reader guessed which side of
a connection is the broker (only its requests were captured), it says so and names the ``--port`` that
settles it (:func:`codec.capture.judgement.caveats`).

Damaged input is reported, never raised: bad packets, records and frames are problems in the summary. When
the file cannot be read to its end (a pcap cut inside a packet, a truncated or corrupt gzip stream, a
segment cut inside a batch), the story of what was read is still written, the summary names the damage
(problem ``bad file``), one ``error:`` line on stderr says so, and the exit status is 1. A file whose gzip
stream cannot even be started is taken for what its name says (``.pcap``/``.pcapng``, ``.log``, else a text
dump), and reported the same way.
"""

from __future__ import annotations

import argparse
import io
import re
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Callable, Iterator, TextIO

from ..budget import BUDGETS, OverBudget, json_text
from ..cliutil import int_range, seconds
from ..errors import MAX_WHOLE_INPUT, read_whole
from ..sniff import SNIFF
from ..source import open_source, sniff
from ..text import dumps, printable
from .bytestream import ByteStream
from .heartbeat import HeartbeatGroup
from .storyadmin import CommittedOffsets, DescribedGroup
from .inputs import input_kind, what_it_is
from .judgement import caveats, cut_frames_text
from .offsets import read_segment, read_text
from .story import (
    API_NAMES,
    BYTES_PER_TOLD,
    TOLD_FLOOR,
    CaptureSummary,
    Generation,
    GroupFrame,
    capture_story,
    offsets_story,
)
from .storymodel import MetadataFrame
from .storytext import render_admin, render_generation, render_heartbeat_group, render_summary
from .tcp import DEFAULT_MAX_BUFFER, DEFAULT_MAX_WAIT

__all__ = ["register", "run", "detect", "ProgressReader", "byte_count", "seconds"]


class ProgressReader(io.RawIOBase):
    """A file read through, reporting on ``out`` (at most every ``every`` seconds) how many of its
    ``total`` bytes have been read (of a pipe, whose size is not known: how many); silent when ``out`` is None."""

    def __init__(self, f: ByteStream, total: int | None, out: TextIO | None, every: float = 0.5) -> None:
        self._f, self.total, self.out, self.every = f, total, out, every
        self.done = 0
        self._last = 0.0

    def readable(self) -> bool:
        return True

    def readinto(self, buf) -> int:
        data = self._f.read(len(buf))
        n = len(data)
        buf[:n] = data
        self.done += n
        now = time.monotonic()
        if self.out is not None and now - self._last >= self.every:
            self._last = now
            if self.total is None:
                self.out.write(f"\rreading {self.done / 1e6:,.1f} MB")
            else:
                pct = 100 * self.done / self.total if self.total else 100
                self.out.write(f"\rreading {self.done / 1e6:,.1f} of {self.total / 1e6:,.1f} MB ({pct:.0f}%)")
            self.out.flush()
        return n

    def clear(self) -> None:
        if self.out is not None and self._last:
            self.out.write("\r\033[K")
            self.out.flush()


def detect(path: Path | str) -> str:
    """``pcap``, ``segment``, ``text`` or ``hex``, from the (decompressed) first bytes (:mod:`codec.capture.inputs`);
    an input that is none of them (a Parquet file, a README, a directory) is an ``InputError`` saying what it looks
    like."""
    with open_source(str(path), reads=_ONE_FILE) as source:
        return input_kind(sniff(source.raw(), SNIFF), source.name)


_ONE_FILE = "capture reads one file (- for stdin)"


_UNITS = {
    "": 1,
    "k": 1 << 10,
    "kb": 1000,
    "kib": 1 << 10,
    "m": 1 << 20,
    "mb": 1000**2,
    "mib": 1 << 20,
    "g": 1 << 30,
    "gb": 1000**3,
    "gib": 1 << 30,
}
_BYTES = re.compile(r"\s*([0-9][0-9_]{0,30})\s*([a-z]*)\s*")


def byte_count(text: str) -> int:
    """A byte count for an option: ``1048576``, ``512K``/``512KiB``, ``16M``/``16MiB``, ``1G``/``1GiB``
    (binary), or ``16MB``/``1GB`` (decimal)."""
    m = _BYTES.fullmatch(text.lower())
    if m is None or m.group(2) not in _UNITS:
        raise argparse.ArgumentTypeError(f"not a byte count: {text!r} (examples: 1048576, 16M, 1GiB)")
    return int(m.group(1).replace("_", "")) * _UNITS[m.group(2)]


def _stories(
    kind: str, f: ByteStream, args, summary: CaptureSummary, size: int | Callable[[], int]
) -> Iterator[GroupFrame | MetadataFrame | Generation | HeartbeatGroup | DescribedGroup | CommittedOffsets]:
    """The story of the input (``size``: its bytes, or a function of the bytes read so far, for the story's
    budget)."""
    if kind in ("pcap", "hex"):
        return capture_story(
            f,
            ports=args.port or {9092},
            group=args.group,
            summary=summary,
            max_hole_bytes=_or(getattr(args, "max_hole_bytes", None), DEFAULT_MAX_BUFFER),
            max_hole_seconds=_or(getattr(args, "max_hole_seconds", None), DEFAULT_MAX_WAIT),
            metadata=bool(getattr(args, "json", False)),  # (the pipeline reads the topics' partition counts)
        )
    told = (lambda: TOLD_FLOOR + size() // BYTES_PER_TOLD) if callable(size) else TOLD_FLOOR + size // BYTES_PER_TOLD
    if kind == "segment":
        return offsets_story(read_segment(f), group=args.group, summary=summary, max_told=told)
    text = io.TextIOWrapper(f, encoding="utf-8", errors="replace")  # type: ignore[type-var]
    return offsets_story(read_text(text), group=args.group, summary=summary, max_told=told)


def _hex(stream: ByteStream, name: str) -> tuple[io.BytesIO, str]:
    """The capture that hex text holds (:mod:`codec.capture.hexcapture`), and the note saying what it was read as."""
    from ..errors import DecodeError
    from .hexcapture import hex_capture

    raw = read_whole(stream, name, MAX_WHOLE_INPUT)
    try:
        data, note = hex_capture(raw.decode("utf-8", "replace"))
    except DecodeError as e:
        raise DecodeError(f"{printable(name)}: {e}") from None
    return io.BytesIO(data), note


def _or(value, default):
    return default if value is None else value


def run(args, out: TextIO | None = None, err: TextIO | None = None) -> int:
    """Print the story of ``args.file``. ``--json``: one line per group frame (``"type": "frame"``), one
    per generation (``"type": "generation"``, written when the generation is over: a newer-but-one
    generation of its group began, or the input ended) and one per heartbeat-based group (``"type":
    "heartbeat-group"``, at the end), one per Metadata response (``"type": "metadata"``: its bytes, for the
    pipeline's partition counts), then one ``"type": "summary"`` line. Exit
    status 0; 1 when the file could not be opened, or could not be read to its end (the story of what was
    read is written all the same, and one ``error:`` line on ``err`` says where reading stopped)."""
    out, err = out or sys.stdout, err or sys.stderr  # (looked up now: a caller may have replaced them)
    if getattr(args, "follow", False):  # the command line's capture is codec.live.capturecmd's, which follows
        raise ValueError("capture --follow is run by codec.live.capturecmd.run")
    summary = CaptureSummary()
    by_group: dict[str, list[Generation | HeartbeatGroup | DescribedGroup | CommittedOffsets]] = {}
    told: Counter = Counter()  # group frames decoded: (API key, version, direction)
    with open_source(args.file, reads=_ONE_FILE) as source:
        progress = ProgressReader(source.raw(), source.size, err if err.isatty() else None)
        sniffed = sniff(progress, SNIFF)
        kind = input_kind(sniffed, source.name)
        stream, note = (sniffed.stream, None) if kind != "hex" else _hex(sniffed.stream, source.name)
        size = source.size if source.size is not None else (lambda: progress.done)
        if note is not None:
            err.write(f"note: {note}\n")
        for item in _stories(kind, stream, args, summary, size):
            if args.json:
                out.write(_json_line(item, summary) + "\n")
            elif isinstance(item, (Generation, HeartbeatGroup, DescribedGroup, CommittedOffsets)):
                by_group.setdefault(item.group if item.group is not None else "(not named)", []).append(item)
            elif isinstance(item, GroupFrame):
                told[(item.api_key, item.api_version, item.direction)] += 1
        progress.clear()
    looks = what_it_is(sniffed) if kind == "text" else None
    if args.json:
        out.write(dumps(summary.json()) + "\n")
        return _unreadable(summary, source.name, err, looks)
    notes = caveats(summary.stats) if kind in ("pcap", "hex") else []
    if by_group and notes:
        out.write(f"note: {'; '.join(notes)}\n\n")
    for group in sorted(by_group):
        items = by_group[group]
        gens = [g for g in items if isinstance(g, Generation)]
        hb = [g for g in items if isinstance(g, HeartbeatGroup)]
        admin: list[DescribedGroup | CommittedOffsets] = [
            g for g in items if isinstance(g, (DescribedGroup, CommittedOffsets))
        ]
        what = [f"{sum(g.generation is not None for g in gens)} generations"] if gens or not (hb or admin) else []
        what += [f"{g.protocol} group: {len(g.members)} members" for g in hb]
        for cls, noun in ((DescribedGroup, "described"), (CommittedOffsets, "offsets fetched")):
            n = sum(isinstance(g, cls) for g in admin)
            what += [f"{noun} {n} time{'' if n == 1 else 's'}"] if n else []
        out.write(f"group {printable(group)}  ({', '.join(what)}, {kind} input)\n\n")
        out.writelines([render_generation(g) + "\n\n" for g in gens] + [render_heartbeat_group(g) + "\n\n" for g in hb])
        out.writelines(render_admin(g) + "\n\n" for g in admin)
    if not by_group:
        out.write(_nothing_told(args.group, summary, told, notes) + "\n\n")
    out.write(render_summary(summary, kind, source.label) + "\n")
    return _unreadable(summary, source.name, err, looks)


def _nothing_told(group: str | None, summary: CaptureSummary, told: Counter, notes: list[str]) -> str:
    """The line said when no group's story is told: none in the input, none of ``--group``'s, or group frames
    from which no story could be told (requests never answered; frames the snap length cut to their headers),
    and what the reader guessed (``notes``)."""
    others = sorted(summary.other_groups, key=str)
    tail = "".join(f"; {n}" for n in notes)
    if group is not None and others:
        names = ["(frames naming no group)" if g is None else printable(str(g)) for g in others[:10]]
        shown = ", ".join(names) + (", ..." if len(others) > 10 else "")
        noun = "group" if len(others) == 1 else "groups"
        return (
            f"no traffic of group {printable(repr(group))} (--group); the input has {len(others):,} other {noun}: "
            f"{shown}{tail}"
        )
    st = summary.stats
    if told:
        kinds = ", ".join(
            f"{API_NAMES.get(k, f'api {k}')} v{v} {d}s x{n:,}" if n != 1 else f"{API_NAMES.get(k, f'api {k}')} v{v} {d}"
            for (k, v, d), n in sorted(told.items())
        )
        why = (
            "none of the requests was answered (no response captured)"
            if all(d == "request" for (_, _, d) in told)
            else "no generation could be placed"
        )
        return f"no generation told: {sum(told.values()):,} group frames decoded ({kinds}); {why}{tail}"
    if st.cut_frames:
        return (
            f"no group frame decoded: the capture's snap length cut {st.cut_frames:,} frames to their headers "
            f"({cut_frames_text(st, API_NAMES)}); capture with a larger snap length (tcpdump -s 0){tail}"
        )
    if st.cut_packets:
        tail = (
            f"; the capture's snap length cut {st.cut_packets:,} packets (at most {st.snap_length:,} bytes kept of "
            f"each): capture with a larger one (tcpdump -s 0){tail}"
        )
    if not summary.kafka_frames and st.not_kafka_count:
        return (
            f"no Kafka traffic found: {st.not_kafka_count:,} connection{'' if st.not_kafka_count == 1 else 's'} read "
            f"and not taken for Kafka (see the summary); --port P reads a connection with port P as Kafka{tail}"
        )
    return f"no consumer group traffic found{tail}"


def _json_line(item, summary: CaptureSummary) -> str:
    """One JSON line. A frame's decoded layers in Kafka's JSON can repeat a name its bytes write once (a topic
    for each of its partitions): past the frame's output budget (``codec.budget``) the line carries the frame
    without them, ``frame_omitted`` saying why (and the summary counts it)."""
    value = item.json()
    if not isinstance(item, GroupFrame):
        return dumps(value, default=str)
    try:
        return json_text(
            value, BUDGETS["capture"].output(item.size), default=str, what=f"the JSON of this {item.size:,}-byte frame"
        )
    except OverBudget as e:
        value.pop("frame", None)
        value["frame_omitted"] = e.reason
        summary.problem("frames shown without their JSON", f"frame at {item.ts:.6f}", "output budget", e.reason)
        return dumps(value, default=str)


def _unreadable(summary: CaptureSummary, path: Path | str, err: TextIO, looks: str | None = None) -> int:
    """1, with one line on ``err``, when the input could not be read to its end (problem ``bad file``), or when
    nothing in it could be read: every record a bad one (``looks``: what the input looks like), every packet
    unreadable (the summary says why)."""
    st = summary.stats
    bad = summary.counts.get("bad records", 0)
    if summary.counts.get("bad file"):
        first = summary.problems["bad file"][0]
        line = f"cannot be read to its end: {printable(first.reason)} (the output covers what was read before)"
    elif summary.records and bad == summary.records:
        line = f"none of its {bad:,} lines is a __consumer_offsets record (the summary says why)" + (
            f": it looks like {looks}" if looks else ""
        )
    elif st.packets and st.bad_packets == st.packets:
        line = f"none of its {st.packets:,} packets could be read as TCP/IP (the summary says why)"
    else:
        return 0
    out = sys.stdout if err is sys.stderr else None
    if out is not None:
        out.flush()
    err.write(f"error: {printable(str(path))}: {line}\n")
    return 1


def register(subparsers) -> None:
    """Add the ``capture`` subcommand."""
    p = subparsers.add_parser(
        "capture",
        help="the rebalance story of a pcap or of __consumer_offsets records",
        description="Per group, each generation: who joined with what, the protocol and "
        "leader, what each member was assigned, heartbeats and leaves, what "
        "changed; for a group that rebalances through heartbeats (KIP-848 "
        "consumer groups, KIP-1071 streams groups) each member's epochs, the "
        "assignments it was given and reached, what was revoked, leaves, "
        "fencing and errors; then a summary of the input, with every problem met (bad "
        "packets, records and frames, gaps, unframed bytes). Exit status 1 when "
        "FILE cannot be read to its end (cut short, a truncated or corrupt gzip "
        "stream): the story of what was read is written all the same; and when "
        "nothing in it is what capture reads (a README, a directory, a Parquet "
        "file): one line says what it looks like instead.",
    )
    p.add_argument(
        "file",
        metavar="FILE",
        help="pcap/pcapng, a __consumer_offsets log segment or a text dump of its records, or hex of packets or "
        "Kafka frames (tshark -x, -T fields -e tcp.payload, Wireshark's hex dump); gzipped or not (told from the "
        "bytes); - for stdin (a pipe: tcpdump -U -w - | rebalance-codec capture -)",
    )
    p.add_argument("--json", action="store_true", help="JSON lines: each group frame, each generation, a summary")
    p.add_argument("--group", metavar="G", help="only this group")
    p.add_argument(
        "--port",
        metavar="P",
        type=int_range(0, 65535),
        action="append",
        help="a broker port (repeatable; default 9092, and ports whose connections proved Kafka: their "
        "responses answer their requests). Settles a connection the reader would otherwise judge or guess",
    )
    p.add_argument(
        "--max-hole-bytes",
        metavar="N",
        type=byte_count,
        default=DEFAULT_MAX_BUFFER,
        help="TCP reassembly: give a missing segment up once more than N bytes of its direction "
        f"wait behind it (default {DEFAULT_MAX_BUFFER:,} = 1MiB; suffixes K, M, G; memory grows "
        "with N per direction of each connection). Frames lost with a hole given up are "
        "counted in the summary (lost frames)",
    )
    p.add_argument(
        "--max-hole-seconds",
        metavar="S",
        type=seconds,
        default=DEFAULT_MAX_WAIT,
        help="TCP reassembly: give a missing segment up once the bytes behind it have waited more "
        f"than S seconds of capture time (default {DEFAULT_MAX_WAIT:g})",
    )
    p.add_argument(
        "--follow",
        action="store_true",
        help="read a pcap/pcapng stream as it grows (FILE - for stdin: tcpdump -U -w - port 9092 | ...), telling "
        "each generation with its cause the moment it completes; until the stream ends or SIGINT/SIGTERM",
    )
    p.add_argument(
        "--settle",
        metavar="S",
        type=seconds,
        default=2.0,
        help="--follow: tell a generation S seconds after its first SyncGroup answer when some member's answer "
        "is not seen (default 2)",
    )
    p.set_defaults(func=run)
