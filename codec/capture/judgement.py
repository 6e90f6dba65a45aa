"""What the capture reader judged, in words: for the summary of ``rebalance-codec capture`` and its first line.

The reader (:mod:`codec.capture.scan`) counts in :class:`~codec.capture.scan.CaptureStats` what it could not
read plainly: packets the capture's snap length cut (and the frames cut with them, of which only the header
was read), RSTs it ignored as outside their connection's window, connections it took for Kafka on a guess
(only their requests were captured) and connections it read and did not take. :func:`reader_lines` says so in
the summary's layout, :func:`reader_json` in its JSON, and :func:`caveats` in the words the first line of the
output adds: wherever the reader guessed, it names ``--port``, which settles it.
"""

from __future__ import annotations

from ..text import printable
from .kafka import Judged
from .scan import CaptureStats

__all__ = ["reader_lines", "reader_json", "caveats", "cut_frames_text", "SHOWN"]

SHOWN = 5  # connections named per kind in the text (the JSON has the first MAX_JUDGED)
_I = "  "


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def _end(e: tuple[str, int]) -> str:
    return printable(f"{e[0]}:{e[1]}")


def _judged(j: Judged, arrow: str = "->") -> str:
    return f"connection #{j.conn} {_end(j.client)} {arrow} {_end(j.server)}"


def cut_frames_text(stats: CaptureStats, names: dict[int, str]) -> str:
    """The frames the snap length cut, by API and direction: ``JoinGroup v5 request x2, ...``."""
    parts = [
        f"{names.get(k, f'api {k}') if k is not None else 'unknown API'}{f' v{v}' if v is not None else ''} {d} x{n:,}"
        for (k, v, d), n in sorted(stats.cut_apis.items(), key=lambda kv: (kv[0][0] is None, repr(kv[0])))
    ]
    return ", ".join(parts)


def _ports(stats: CaptureStats) -> str:
    ports = sorted({j.server[1] for j in stats.guessed} | {j.server[1] for j in stats.not_kafka})
    return ", ".join(f"--port {p}" for p in ports[:SHOWN])


def reader_lines(stats: CaptureStats, names: dict[int, str]) -> list[str]:
    """The summary's lines about the reader's judgement (none when it had nothing to judge)."""
    lines: list[str] = []
    if stats.cut_packets:
        lines.append(
            f"{_I}snap length    {stats.cut_packets:,} packets cut by the capture's snap length (at most "
            f"{stats.snap_length:,} bytes kept of each): {stats.snap_gap_bytes:,} bytes of the streams not captured"
            + (
                f"; {stats.cut_frames:,} frames cut, only their headers read ({cut_frames_text(stats, names)})"
                if stats.cut_frames
                else ""
            )
            + "; capture with a larger snap length (tcpdump -s 0) to read them"
        )
    if stats.ignored_resets:
        conn, flow, off = stats.ignored_reset_samples[0]
        where = f"{-off:,} bytes before the next byte expected" if off < 0 else f"{off:,} bytes past the window"
        lines.append(
            f"{_I}resets ignored {_plural(stats.ignored_resets, 'RST')} outside the receiver's window, as TCP ignores "
            f"them (first: connection #{conn} from {printable(f'{flow.src}:{flow.sport}')}, {where}); the "
            "connection went on"
        )
    if stats.guessed_count:
        lines.append(
            f"{_I}guessed        {_plural(stats.guessed_count, 'connection')} taken for Kafka from its requests alone "
            f"({_ports(stats)} names the broker's port and settles it)"
        )
        lines += [f"{_I * 2}{_judged(j)}: {printable(j.why)}" for j in stats.guessed[:SHOWN]]
    if stats.not_kafka_count:
        lines.append(
            f"{_I}not Kafka      {_plural(stats.not_kafka_count, 'connection')} read and not taken for Kafka "
            f"({stats.ignored_bytes:,} bytes; --port P reads a connection with port P as Kafka)"
        )
        lines += [f"{_I * 2}{_judged(j, '<->')}: {printable(j.why)}" for j in stats.not_kafka[:SHOWN]]
    return lines


def _judged_json(j: Judged) -> dict:
    return {"connection": j.conn, "client": _end(j.client), "server": _end(j.server), "why": j.why}


def reader_json(stats: CaptureStats) -> dict:
    """The reader's judgement as JSON (the summary's ``reader`` object)."""
    return {
        "snap_length": {
            "cut_packets": stats.cut_packets,
            "kept_bytes": stats.snap_length,
            "gaps": stats.snap_gaps,
            "gap_bytes": stats.snap_gap_bytes,
            "cut_frames": stats.cut_frames,
            "cut_frames_by_api": [
                {"api_key": k, "api_version": v, "direction": d, "frames": n}
                for (k, v, d), n in sorted(stats.cut_apis.items(), key=lambda kv: (kv[0][0] is None, repr(kv[0])))
            ],
        },
        "ignored_resets": stats.ignored_resets,
        "guessed": {"count": stats.guessed_count, "first": [_judged_json(j) for j in stats.guessed]},
        "not_kafka": {"count": stats.not_kafka_count, "first": [_judged_json(j) for j in stats.not_kafka]},
    }


def caveats(stats: CaptureStats) -> list[str]:
    """What the first line of the output must add for the rest to be read right: guesses (naming ``--port``)."""
    out = []
    if stats.guessed_count:
        first = stats.guessed[0]
        out.append(
            f"{_judged(first)}"
            + (f" and {stats.guessed_count - 1:,} more" if stats.guessed_count > 1 else "")
            + f" taken for Kafka on a guess, from its requests alone ({_ports(stats)} settles it)"
        )
    return out
