"""The ``assign`` subcommand: JSON group description(s) in, assignment(s) out.

``assign [--lines] [--format json|table] [INPUT]`` reads INPUT (a path; ``-`` or absent means
stdin). With ``--lines`` every input line is one group and every output line one result, or
``{"error": {...}}`` for a group that cannot be assigned; the exit status is 1 if any failed.
``--from-join-group`` and ``--emit-bytes`` run the leader over real bytes (:mod:`codec.assignor.wire_io`).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, TextIO

from .engine import assign
from .json_io import group_from_json, result_to_json
from .. import text as _text
from ..cliutil import int_range, loads
from ..errors import CodecError, InputError, os_error_text, read_whole, stdin_bytes
from .consumer.model import CONSUMER_ASSIGNORS
from .model import ASSIGNOR_NAMES, AssignmentError, AssignmentResult
from .wire_io import assign_description_over_bytes, assign_join_group

_dumps = _text.dumps

__all__ = ["register", "run", "render_table"]


def register(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``assign`` subcommand to an ``argparse`` subparsers object."""
    p = subparsers.add_parser(
        "assign",
        help="run a Kafka Streams task assignor on a JSON group description",
        description="Assign the tasks of a JSON group description (high_availability, high_availability_fast, "
        "sticky or fallback_prior) and print the result as JSON or as a per-client table.",
    )
    p.add_argument("input", nargs="?", default="-", metavar="INPUT", help="group description file ('-' = stdin)")
    p.add_argument("--lines", action="store_true", help="one group per input line, one result per output line")
    p.add_argument("--format", choices=("json", "table"), default="json", help="output format (default json)")
    p.add_argument(
        "--from-join-group",
        dest="from_join_group",
        metavar="BODY",
        help="the leader's JoinGroup response body (hex, or @path to raw bytes) instead of a JSON group; "
        "INPUT is then the topology file",
    )
    p.add_argument(
        "--join-version",
        dest="join_version",
        type=int_range(0, (1 << 15) - 1),
        default=9,
        help="the JoinGroup response version of --from-join-group (default 9)",
    )
    p.add_argument(
        "--connect",
        action="store_true",
        help="INPUT is a Kafka Connect group round (protocol, leader, connectors, workers, now, state): "
        "Connect's eager or incremental cooperative assignor (codec.assignor.connect_json)",
    )
    p.add_argument(
        "--share",
        action="store_true",
        help="INPUT is a KIP-932 share group (topics, members with subscriptions and current assignments): "
        "Kafka's SimpleAssignor as the group coordinator runs it (codec.assignor.share)",
    )
    p.add_argument(
        "--consumer",
        metavar="ASSIGNOR",
        choices=(*CONSUMER_ASSIGNORS, "auto"),
        help="INPUT is a plain consumer group (topics, members with subscriptions, owned partitions, generations, "
        "racks): Kafka's range, roundrobin, sticky or cooperative-sticky (client side) or KIP-848's uniform or "
        "server-range (codec.assignor.consumer); with --from-join-group or --check, INPUT is the leader's metadata "
        "({topics, partitionRacks}) and auto takes the assignor the group chose",
    )
    p.add_argument(
        "--check",
        metavar="CAPTURE",
        help="with --consumer: for every generation of this pcap/pcapng, compare the leader's SyncGroup assignment "
        "with the named assignor's and say where they differ (one JSON line a generation; exit 1 if any differs)",
    )
    p.add_argument(
        "--assignor",
        choices=ASSIGNOR_NAMES,
        help='run this assignor whatever the input\'s "assignor" says (e.g. high_availability_fast)',
    )
    p.add_argument(
        "--emit-bytes",
        dest="emit_bytes",
        action="store_true",
        help="add each member's SyncGroup assignment bytes (ConsumerProtocol assignment, hex)",
    )
    p.set_defaults(func=run)
    return p


def short_ids(ids: list[str], minimum: int = 4) -> list[str]:
    """The shortest unique suffixes of the process ids (at least ``minimum`` characters), as column
    labels: ``...0001`` rather than ``00000000-0000-0000-0000-000000000001``."""
    for n in range(minimum, max((len(i) for i in ids), default=0) + 1):
        tails = [i[-n:] for i in ids]
        if len(set(tails)) == len(tails):
            return [("..." if n < len(i) else "") + t for i, t in zip(ids, tails)]
    return list(ids)


def render_table(result: AssignmentResult) -> str:
    """A per-client table of active / standby / warmup tasks, laid out like KIP-441's examples
    (instances as columns, task roles as rows)."""
    headers = [""] + short_ids([str(c.process_id) for c in result.clients])
    rows = [
        ["active"] + [", ".join(map(str, c.active)) for c in result.clients],
        ["standby"] + [", ".join(map(str, c.standby)) for c in result.clients],
        ["warmup"] + [", ".join(map(str, c.warmup)) for c in result.clients],
    ]
    widths = [max(len(r[i]) for r in [headers] + rows) for i in range(len(headers))]

    def line(cells: list[str]) -> str:
        return " | ".join(cell.ljust(w) for cell, w in zip(cells, widths)).rstrip()

    out = [line(headers), "-|-".join("-" * w for w in widths)]
    out += [line(r) for r in rows]
    out.append(f"probing rebalance needed: {'yes' if result.probing_rebalance_needed else 'no'}")
    return "\n".join(out)


def _error(kind: str, message: str, line: int | None = None) -> dict[str, Any]:
    err: dict[str, Any] = {"type": kind, "message": message}
    if line is not None:
        err["line"] = line
    return {"error": err}


def _one(text: str, fmt: str, line: int | None, args: argparse.Namespace | None = None) -> tuple[str, bool]:
    sep = (",", ":") if line is not None else (", ", ": ")
    try:
        doc = loads(text)
        if args is not None and getattr(args, "consumer", None):
            return _dumps(_consumer(doc, args), separators=sep), True
        if args is not None and getattr(args, "share", False):
            from .share import assign_share, share_group_from_json, share_result_to_json

            spec, names = share_group_from_json(doc)
            return _dumps(share_result_to_json(assign_share(spec), names), separators=sep), True
        if (
            args is not None
            and getattr(args, "assignor", None)
            and isinstance(doc, dict)
            and not getattr(args, "connect", False)
        ):
            doc = {**doc, "assignor": args.assignor}
        if args is not None and getattr(args, "connect", False):
            from .connect_json import run_connect_group_json

            if getattr(args, "from_join_group", None):
                doc = _connect_round_from_join_group(_read_bytes(args.from_join_group), args.join_version, doc)
            return _dumps(run_connect_group_json(doc, include_bytes=args.emit_bytes), separators=sep), True
        if args is not None and getattr(args, "from_join_group", None):
            out = assign_join_group(
                _read_bytes(args.from_join_group), args.join_version, doc, emit_bytes=args.emit_bytes
            )
            return _dumps(out, separators=sep), True
        if args is not None and getattr(args, "emit_bytes", False):
            return _dumps(assign_description_over_bytes(doc), separators=sep), True
        result = assign(group_from_json(doc))
    except json.JSONDecodeError as e:
        return _dumps(_error("invalid_json", str(e), line)), False
    except RecursionError:
        return _dumps(_error("invalid_json", "the input nests too deeply", line)), False
    except (AssignmentError, CodecError) as e:
        return _dumps(_error("invalid_group", str(e), line)), False
    except (KeyError, TypeError, ValueError, AttributeError, IndexError, OverflowError) as e:
        # a description of the wrong shape (a string for a number, a number out of range, ...): the input's fault
        what = f"missing {e.args[0]!r}" if isinstance(e, KeyError) and e.args else f"{e} ({type(e).__name__})"
        return _dumps(_error("invalid_group", what, line)), False
    if fmt == "table":
        return render_table(result), True
    return _dumps(result_to_json(result), separators=sep), True


def _consumer(doc, args: argparse.Namespace) -> dict:
    """``--consumer``: a JSON group (or, with --from-join-group, the metadata beside the leader's JoinGroup bytes)."""
    from .consumer import assign_consumer, consumer_group_from_json, consumer_result_to_json
    from .consumer.wire import assign_join_group_consumer, assignment_bytes

    if getattr(args, "from_join_group", None):
        body = _read_bytes(args.from_join_group)
        return assign_join_group_consumer(body, args.join_version, doc, args.consumer, emit_bytes=args.emit_bytes)
    if args.consumer == "auto":
        raise AssignmentError("--consumer auto needs --from-join-group or --check (the group's chosen protocol)")
    group, name = consumer_group_from_json(doc, args.consumer)
    result = assign_consumer(group, name)
    out = consumer_result_to_json(result)
    if args.emit_bytes:
        out["syncGroup"] = {m: assignment_bytes(tps).hex() for m, tps in result.members.items()}
    return out


def _check(args: argparse.Namespace, stdout: TextIO) -> int:
    """``--consumer A --check CAPTURE [INPUT]``: one verdict line per generation."""
    from .consumer.wire import check_capture

    try:
        doc = loads(read_whole(args.input).decode("utf-8")) if args.input != "-" else {}
    except OSError as e:
        print(_dumps(_error("io", os_error_text(e))), file=stdout)
        return 1
    except (InputError, UnicodeDecodeError, json.JSONDecodeError) as e:
        print(_dumps(_error("invalid_json", str(e))), file=stdout)
        return 1
    differs = False
    try:
        for verdict in check_capture(args.check, doc, args.consumer):
            differs |= verdict.get("matches") is False
            print(_dumps(verdict, separators=(",", ":")), file=stdout)
    except OSError as e:
        print(_dumps(_error("io", os_error_text(e))), file=stdout)
        return 1
    except (AssignmentError, CodecError) as e:
        print(_dumps(_error("invalid_group", str(e))), file=stdout)
        return 1
    return 1 if differs else 0


def _connect_round_from_join_group(body: bytes, version: int, doc) -> dict:
    """A Connect round from the leader's JoinGroup response: its members' metadata bytes are the workers, its
    leader and protocol the round's (unless ``doc`` names them); ``doc`` gives the rest (connectors, now,
    state, the delay)."""
    from ..group import decode_message

    if not isinstance(doc, dict) or "workers" in doc:
        raise AssignmentError(
            "with --from-join-group, INPUT is the round without 'workers' (they come from the JoinGroup response)"
        )
    resp = decode_message("JoinGroupResponse", version, body).value
    if not resp.members:
        raise AssignmentError("this JoinGroup response has no members: only the leader's carries them")
    workers = [{"memberId": m.member_id, "metadata": bytes(m.metadata or b"").hex()} for m in resp.members]
    out = {"leader": resp.leader or resp.member_id, **doc, "workers": workers}
    if "protocol" not in doc and resp.protocol_name:
        out["protocol"] = resp.protocol_name
    if "generationId" not in doc:
        out["generationId"] = resp.generation_id
    return out


def _read_bytes(arg: str) -> bytes:
    if arg.startswith("@"):
        return read_whole(arg[1:])
    try:
        return bytes.fromhex("".join(arg.split()))
    except ValueError:
        raise AssignmentError("--from-join-group: expected hex or @path") from None


def run(args: argparse.Namespace, stdout: TextIO | None = None, stdin: TextIO | None = None) -> int:
    """Execute the parsed ``assign`` command; returns the exit status. With ``--lines``, exactly one output
    line per input line (split at LF alone): a blank line or a line that is not UTF-8 gets its error line."""
    stdout = stdout or sys.stdout
    if getattr(args, "check", None):
        if not getattr(args, "consumer", None):
            print(_dumps(_error("usage", "--check needs --consumer ASSIGNOR (or auto)")), file=stdout)
            return 2
        return _check(args, stdout)
    try:
        if args.input == "-":
            raw = (
                stdin.read().encode("utf-8", "surrogateescape")
                if stdin is not None
                else read_whole(stdin_bytes(), "stdin")
            )
        else:
            raw = read_whole(args.input)
    except OSError as e:
        print(_dumps(_error("io", os_error_text(e))), file=stdout)
        return 1
    except InputError as e:
        print(_dumps(_error("io", str(e))), file=stdout)
        return 1
    if not args.lines:
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            print(_dumps(_error("invalid_json", f"input is not UTF-8 at byte {e.start}")), file=stdout)
            return 1
        out, ok = _one(text, args.format, None, args)
        print(out, file=stdout)
        return 0 if ok else 1
    failed = False
    lines = raw.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    for n, line in enumerate(lines, start=1):
        if line.endswith(b"\r"):
            line = line[:-1]
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError as e:
            out, ok = _dumps(_error("invalid_json", f"line is not UTF-8 at byte {e.start}", n)), False
        else:
            if not text.strip():
                out, ok = _dumps(_error("invalid_json", "empty line", n)), False
            else:
                out, ok = _one(text, args.format, n, args)
        failed |= not ok
        print(out if args.format != "table" else out.replace("\n", " / "), file=stdout)
    return 1 if failed else 0
