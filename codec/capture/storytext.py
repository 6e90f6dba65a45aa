"""The readable layout of a rebalance story (``rebalance-codec capture``), in the spirit of ``git log --stat``.

A generation is a header line (number, protocol, leader, time span), why it formed (its main cause and every
other cause found, each with its confidence and evidence: :mod:`codec.causes`), the changes from the previous
generation, each member (identity and offered protocols; the subscription and assignment through the
ConsumerProtocol and Kafka Streams layers; heartbeats, sync errors, leaving) and the events. A heartbeat-based
group (:func:`render_heartbeat_group`) is its member epochs (each with its causes), then each member with its steps (epoch, time,
what it holds, what was added and revoked, when it reached it; for a streams member its active, standby and
warm-up tasks; for a share member the partitions it shares and with whom), then the events. The summary
gives the input's counts, the frames lost with TCP holes given up at the limits, and the first problems of
each kind.

Every string that came from the input (group, member, client and instance ids, hosts, protocols, topics,
task ids with their topology names, endpoints, client tags, racks, reasons, error messages) goes through
:func:`codec.text.printable`: lone surrogates and control characters are escaped, so the text is always
valid UTF-8 and no name can start a new line or send a terminal control sequence. Times are UTC; one outside
the calendar (years 1-9999; a capture file's timestamps are whatever it holds) is shown as ``epoch+SECONDS s``.

The text stays proportional to the input (``codec.budget``): partitions and tasks are shown by topic or
subtopology with their numbers as ranges (:func:`codec.capture.items.items_text`), and long lists — group
epochs, statuses, a group's events, the items of one line — show their first :data:`codec.pretty.MAX_SHOWN`
(events :data:`SHOWN_EVENTS`) with a count of the rest; ``--json`` has them all.
"""

from __future__ import annotations

import datetime as _dt
import math

from ..causes import Rebalance
from ..kafka4.pretty import STREAMS_STATUS as _STREAMS_STATUS
from ..pretty import MAX_SHOWN, bounded
from ..streams.pretty import describe_epoch_ms, describe_error_code
from ..text import printable as _p
from .heartbeat import HeartbeatGroup, HeartbeatMember, Step, shared_by_count
from ..group.nested import sticky_data
from ..group.sticky import carried_note
from .items import items_text, numbered
from .storyadmin import ADMIN_APIS, CommittedOffsets, DescribedGroup
from .judgement import reader_lines
from .story import (
    API_NAMES,
    CaptureSummary,
    Generation,
    Member,
    assignment_layers,
    error_name,
    holdings,
    partition_items,
    subscription_layers,
)

__all__ = [
    "render_generation",
    "render_heartbeat_group",
    "render_summary",
    "render_admin",
    "cause_lines",
    "finding_lines",
]

SHOWN_PROBLEMS = 5
SHOWN_EVENTS = 200
#: a share member's line names at most this many groups of partitions it shares, and others of each group (every
#: member sharing with every other would otherwise cost members x members names)
_SHOWN_SHARERS = 4
_I = "  "


def _when(ts: float | None, *, date: bool = False) -> str:
    """A capture time (seconds since the epoch), as UTC; a time outside the calendar's years 1-9999 (a
    capture file's timestamps are whatever it holds) as ``epoch+SECONDS s``."""
    if ts is None:
        return "?"
    try:
        t = _dt.datetime.fromtimestamp(ts, tz=_dt.timezone.utc)
    except (OverflowError, OSError, ValueError):
        return f"epoch{ts:+.3f} s" if math.isfinite(ts) else f"epoch{ts:+} s"
    return t.strftime("%Y-%m-%d %H:%M:%S.%f")[:-3] + "Z" if date else t.strftime("%H:%M:%S.%f")[:-3]


def _items(items, limit: int = 12) -> str:
    """Wire strings, escaped, sorted, at most ``limit`` of them shown."""
    items = sorted(_p(str(i)) for i in items)
    shown = ", ".join(items[:limit])
    return (shown + f", ... ({len(items)} in all)") if len(items) > limit else (shown or "(none)")


def _subscription_lines(m: Member, indent: str) -> list[str]:
    v = m.subscription
    if v is None:
        return [f"{indent}subscription  (not captured)"]
    msg, info = subscription_layers(v)
    if msg is None:
        return _undecoded("subscription", v, indent)
    d = msg.data
    parts = [f"topics {_items(d.topics)}"]
    owned = getattr(d, "owned_partitions", None)
    if owned:
        parts.append(f"owned {items_text(partition_items(owned))}")
    if getattr(d, "generation_id", -1) not in (None, -1):
        parts.append(f"generation {d.generation_id}")
    if getattr(d, "rack_id", None) is not None:
        parts.append(f"rack '{_p(d.rack_id)}'")
    lines = [f"{indent}subscription  v{msg.version}: " + "; ".join(parts) + _user_data(d.user_data)]
    if info is not None:
        lsv = info.latest_supported_version
        lines.append(
            f"{indent}{_I}Streams SubscriptionInfo v{info.version} (latest supported "
            f"{'unknown' if lsv == -1 else f'v{lsv}'})  process {_p(str(info.process_id))}  endpoint "
            f"{_p(info.user_endpoint) if info.user_endpoint else '(none)'}"
        )
        sums = sorted(info.task_offset_sums.items())
        lines.append(
            f"{indent}{_I * 2}task offset sums  " + (", ".join(f"{_p(str(t))}={s}" for t, s in sums) or "(none)")
        )
        if info.client_tags:
            lines.append(
                f"{indent}{_I * 2}client tags       "
                + ", ".join(f"{_p(k)}={_p(val)}" for k, val in sorted(info.client_tags.items()))
            )
        if info.version >= 9:
            lines.append(f"{indent}{_I * 2}error code        {describe_error_code(info.error_code)}")
    elif sticky_data(d.user_data) is not None:
        lines += _sticky_lines(sticky_data(d.user_data), indent)
    else:
        lines += _user_error(d.user_data, indent)
    return lines


def _sticky_lines(u, indent: str) -> list[str]:
    """A sticky assignor's user data (:mod:`codec.group.sticky`) in one line, and a note when another protocol
    carried its layout."""
    parts = [] if u.generation is None else [f"generation {u.generation}"]
    if u.assignor == "sticky":
        tps = {item for t, ps in u.partitions for item in numbered(t, ps)}
        parts.append(f"previous {items_text(tps)} ({len(tps)} partitions)")
    if u.trailing:
        parts.append(f"{len(u.trailing)} trailing bytes Kafka does not read")
    lines = [f"{indent}{_I}{u.layer} v{u.version}: " + "; ".join(parts)]
    if u.carried_by:
        lines.append(f"{indent}{_I * 2}note: {carried_note(u)}")
    return lines


def _assignment_lines(m: Member, indent: str) -> list[str]:
    v = m.assignment
    if v is None:
        return [f"{indent}assignment    (not captured)"]
    msg, info = assignment_layers(v)
    if msg is None:
        return _undecoded("assignment", v, indent)
    parts = partition_items(msg.data.assigned_partitions)
    lines = [
        f"{indent}assignment    v{msg.version}: {items_text(parts)} ({len(parts)} partitions)"
        + _user_data(msg.data.user_data)
    ]
    if info is not None:
        csv = info.commonly_supported_version
        lines.append(
            f"{indent}{_I}Streams AssignmentInfo v{info.version} (commonly supported "
            f"{'unknown' if csv == -1 else f'v{csv}'})  error {describe_error_code(info.error_code)}"
        )
        if info.version >= 7:
            lines.append(f"{indent}{_I * 2}next rebalance    {describe_epoch_ms(info.next_rebalance_ms)}")
        lines.append(f"{indent}{_I * 2}active tasks      {_items({str(t) for t in info.active_tasks})}")
        standby = sorted(info.standby_tasks.items())
        lines.append(
            f"{indent}{_I * 2}standby tasks     "
            + (bounded(f"{_p(str(t))} <- {items_text(partition_items(ps))}" for t, ps in standby) or "(none)")
        )
        for title, hosts in (("hosts", info.partitions_by_host), ("standby hosts", info.standby_partitions_by_host)):
            for h, ps in sorted(hosts.items(), key=lambda kv: str(kv[0])):
                lines.append(f"{indent}{_I * 2}{title.ljust(17)} {_p(str(h))}: {items_text(partition_items(ps))}")
    else:
        lines += _user_error(msg.data.user_data, indent)
    return lines


def _user_data(user) -> str:
    if user is None:
        return "; user data null"
    return f"; user data {len(getattr(user, 'raw', user))} bytes"


def _user_error(user, indent: str) -> list[str]:
    err = getattr(user, "error", None)
    return [] if err is None else [f"{indent}{_I}{user.layer}: NOT DECODED ({_p(err.message)})"]


def _undecoded(what: str, v, indent: str) -> list[str]:
    err = getattr(v, "error", None)
    connect = _connect_line(getattr(v, "value", None)) if err is None else None
    if connect:
        return [f"{indent}{what.ljust(13)} {len(v.raw)} bytes: {connect}"]
    why = _p(err.message) if err is not None else "not decoded (protocol type is not consumer)"
    return [f"{indent}{what.ljust(13)} {len(getattr(v, 'raw', v))} bytes: {why}"]


def _connect_line(decoded) -> str | None:
    """Kafka Connect's worker metadata or assignment in one line; None for any other layer."""
    from ..connect import DecodedConnectAssignment, DecodedConnectMetadata

    if isinstance(decoded, DecodedConnectMetadata):
        m = decoded.info
        line = f"Connect worker metadata v{decoded.reader_version} url {_p(m.url)} config offset {m.config_offset}"
        prev = getattr(m, "allocation", None)
        if prev is not None:
            line += f"; previously {len(prev.connectors)} connectors, {len(prev.tasks)} tasks"
        return line
    if isinstance(decoded, DecodedConnectAssignment):
        a = decoded.info
        tasks = ", ".join(_p(f"{t.connector}-{t.task}") for t in a.tasks[:8]) + (" ..." if len(a.tasks) > 8 else "")
        line = (
            f"Connect assignment v{decoded.reader_version} error {a.error}, leader {_p(a.leader or '-')}: "
            f"connectors [{', '.join(_p(c) for c in a.connectors[:8])}{' ...' if len(a.connectors) > 8 else ''}]"
            f", tasks [{tasks}]"
        )
        if a.revoked_connectors or a.revoked_tasks:
            line += f"; revoked {len(a.revoked_connectors)} connectors, {len(a.revoked_tasks)} tasks"
        if a.delay:
            line += f"; scheduled delay {a.delay} ms"
        return line
    return None


def _member_lines(g: Generation, m: Member) -> list[str]:
    tags = [t for t, on in (("leader", m.member_id == g.leader), ("left", m.left)) if on]
    head = f"{_I * 2}{_p(m.label)}" + (f"  [{', '.join(tags)}]" if tags else "")
    facts = []
    if m.group_instance_id:
        facts.append(f"instance {_p(m.group_instance_id)}")
    if m.client_host:
        facts.append(f"host {_p(m.client_host)}")
    if m.protocols:
        facts.append(f"offered {', '.join(_p(x) for x in m.protocols)}")
    lines = [head + (f"  {'; '.join(facts)}" if facts else "")]
    lines += _subscription_lines(m, _I * 3)
    lines += _assignment_lines(m, _I * 3)
    if g.source == "capture":
        errs = ", ".join(f"{n} x {error_name(c)}" for c, n in sorted(m.heartbeat_errors.items()))
        lines.append(f"{_I * 3}heartbeats    {m.heartbeats}" + (f" ({errs})" if errs else ""))
    return lines


def _change_lines(g: Generation) -> list[str]:
    c = g.changes
    if c is None:
        return []
    moved = sum(len(items) for moves in c.moved.values() for items in moves.values())
    lines = [f"{_I}changes from generation {c.previous}: {len(c.joined)} joined, {len(c.left)} left, {moved} moved"]
    lines += [f"{_I * 2}+ {_p(m)}" for m in c.joined] + [f"{_I * 2}- {_p(m)}" for m in c.left]
    for kind, moves in c.moved.items():
        for (a, b), items in moves.items():
            lines.append(
                f"{_I * 2}{kind} {items_text(items)}: {_p(a) if a else '(unassigned)'} -> "
                f"{_p(b) if b else '(unassigned)'}"
            )
    return lines


def render_generation(g: Generation) -> str:
    """One generation as text (see the module docstring)."""
    if g.generation is None:
        head = f"outside any generation  group {_p(g.group)}"
    else:
        proto = "/".join(_p(p) for p in (g.protocol_type, g.protocol) if p) or "protocol unknown"
        leader = g.members[g.leader].label if g.leader in g.members else (g.leader or "unknown")
        head = f"generation {g.generation}  {proto}  leader {_p(leader)}"
    if g.first_ts is not None and g.last_ts is not None:  # (set together)
        head += f"  {_when(g.first_ts, date=True)} .. {_when(g.last_ts)} ({g.last_ts - g.first_ts:.1f} s)"
    elif g.state_timestamp not in (None, -1):
        head += f"  state at {describe_epoch_ms(g.state_timestamp)}"
    lines = [head]
    if g.rebalance is not None:
        lines += cause_lines(g.rebalance, _I)
    lines += finding_lines(g.findings, _I)
    if g.generation is not None and not g.joined:
        lines.append(f"{_I}(its JoinGroup was not captured: members known from later frames only)")
    lines += _change_lines(g)
    if g.members:
        assigned = [h for h in (holdings(m.assignment) for m in g.members.values()) if h is not None]
        kinds = ("connectors", "tasks") if any("connectors" in h for h in assigned) else ("partitions",)
        counts = ", ".join(f"{sum(len(h.get(k, ())) for h in assigned)} {k}" for k in kinds)
        lines.append(f"{_I}members ({len(g.members)}), {counts} assigned:")
        for m in g.members.values():
            lines += _member_lines(g, m)
    if g.events:
        lines.append(f"{_I}events:")
        for e in g.events[:SHOWN_EVENTS]:
            who = _p(e.member) if e.member else "-"
            text = f"{_I * 2}{_when(e.ts) if e.ts is not None else '-'}  {e.kind.ljust(9)} {who}  "
            text += error_name(e.error_code) if e.kind != "deleted" else ""
            lines.append(text + (f"  {_p(e.detail)}" if e.detail else ""))
        lines += _more(len(g.events), SHOWN_EVENTS, "events")
    return "\n".join(lines)


def cause_lines(r: Rebalance, indent: str) -> list[str]:
    """Why a generation or epoch formed: its main cause, then every other cause found, each with its kind, its
    confidence, its detail and its evidence (time and what)."""
    lines = []
    for i, c in enumerate(r.causes):
        title = "cause" if i == 0 else "also "
        lines.append(f"{indent}{title}  {c.kind} ({c.confidence}): {_p(c.detail) if c.detail else '-'}")
        for e in c.evidence:
            lines.append(f"{indent}{_I * 2}{_when(e.ts) if e.ts is not None else '-'}  {_p(e.what)}")
    return lines


def finding_lines(findings, indent: str) -> list[str]:
    """The loop and storm detectors' findings (:mod:`codec.causes.detectors`), each with its evidence."""
    lines = []
    for f in findings:
        lines.append(f"{indent}finding  {f.check} ({f.severity}): {_p(f.detail)}")
        for e in f.evidence[: SHOWN_PROBLEMS * 2]:
            lines.append(f"{indent}{_I * 2}{_when(e.ts) if e.ts is not None else '-'}  {_p(e.what)}")
    return lines


def _more(n: int, shown: int, what: str) -> list[str]:
    return [f"{_I * 2}... ({n - shown:,} more {what}; --json lists them all)"] if n > shown else []


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}" + ("" if n == 1 else "s")


def _lost_lines(s: CaptureSummary) -> list[str]:
    """The frames lost with holes given up at the limits, and the limits that would have kept them."""
    lost = s.lost_frames_json()
    limits = f"--max-hole-bytes {lost['max_hole_bytes']:,}, --max-hole-seconds {lost['max_hole_seconds']:g}"
    if not lost["holes"]:
        return [f"{_I}lost frames    0 (no hole given up at {limits})"]
    lines = [
        f"{_I}lost frames    {lost['count']:,} in {_plural(lost['holes'], 'hole')} given up at {limits}: "
        f"{lost['skipped_bytes']:,} bytes skipped ({lost['hole_bytes']:,} in the holes)"
    ]
    needed = lost["needed"]
    if needed is not None:
        raise_ = []
        if needed["max_hole_bytes"] > lost["max_hole_bytes"]:
            raise_.append(f"--max-hole-bytes {needed['max_hole_bytes']:,}")
        if needed["max_hole_seconds"] > lost["max_hole_seconds"]:
            raise_.append(f"--max-hole-seconds {math.ceil(needed['max_hole_seconds'] * 1000) / 1000:g}")
        lines.append(
            f"{_I * 2}{lost['late_bytes']:,} bytes of the holes were captured later (retransmitted too "
            "late)" + (f": {' and '.join(raise_)} would have kept them" if raise_ else "")
        )
    return lines


def _frames_rest(s: CaptureSummary, left_out: int) -> str:
    """The frames the Kafka frames line has not yet counted (so that its parts add up to its total, issue #46):
    responses whose request the capture does not hold, their API unknown."""
    rest = s.kafka_frames - s.group_frames - left_out - s.stats.cut_frames - sum(s.other_apis.values())
    if rest <= 0:
        return ""
    if rest <= s.unpaired_responses:
        return f", {rest:,} of an unknown API (response{'s' if rest != 1 else ''} without {'their' if rest != 1 else 'its'} request)"
    return f", {rest:,} not told"


def render_summary(s: CaptureSummary, kind: str, name: str) -> str:
    """The summary of the input (see the module docstring)."""
    st = s.stats
    left_out = sum(s.other_groups.values())
    lines = [f"summary of {_p(name)} ({kind})"]
    told_admin = sum(n for (k, _), n in s.other_apis.items() if k in ADMIN_APIS)  # (read for the story)
    if kind in ("pcap", "hex"):
        lines += [
            f"{_I}packets        {st.packets:,} ({st.tcp_segments:,} TCP, {st.non_tcp:,} not TCP, "
            f"{st.bad_packets:,} unreadable)",
            f"{_I}connections    {st.connections:,}",
            f"{_I}Kafka frames   {s.kafka_frames:,}: {s.group_frames:,} group frames decoded, "
            + (f"{left_out:,} of other groups left out (--group), " if left_out else "")
            + (f"{st.cut_frames:,} cut by the snap length, " if st.cut_frames else "")
            + (f"{told_admin:,} DescribeGroups/OffsetFetch read, " if told_admin else "")
            + f"{sum(s.other_apis.values()) - told_admin:,} of other APIs skipped"
            + _frames_rest(s, left_out),
        ]
        if s.other_apis:
            apis = sorted(s.other_apis.items())
            lines.append(
                f"{_I}other APIs     " + ", ".join(f"{k} {API_NAMES.get(k, 'api')} v{v} x{n}" for (k, v), n in apis)
            )
        lines.append(
            f"{_I}gaps           {s.gaps:,} ({st.gap_bytes - st.snap_gap_bytes:,} bytes not captured in time"
            + (f", {st.late_bytes:,} of them captured too late" if st.late_bytes else "")
            + (f"; {st.snap_gap_bytes:,} cut by the snap length)" if st.snap_gaps else ")")
        )
        lines += _lost_lines(s)
        lines += reader_lines(st, API_NAMES)
        if s.unframed:
            lines.append(f"{_I}unframed       " + ", ".join(f"{n:,} bytes {r}" for r, n in sorted(s.unframed.items())))
        if s.unpaired_responses or s.unanswered_requests:
            lines.append(
                f"{_I}unpaired       {s.unpaired_responses:,} responses without request, "
                f"{s.unanswered_requests:,} group requests without response"
            )
    else:
        lines.append(
            f"{_I}records        {s.records:,}"
            + (f" ({left_out:,} of other groups left out: --group)" if left_out else "")
        )
        if s.offset_commits:
            lines.append(
                f"{_I}offset commits " + ", ".join(f"{_p(g)}: {n:,}" for g, n in sorted(s.offset_commits.items()))
            )
    lines.append(f"{_I}generations    {s.generations:,}")
    if s.heartbeat_groups:
        lines.append(f"{_I}heartbeat-based groups {s.heartbeat_groups:,}")
    for k, kept in s.problems.items():
        if k == "gaps":
            continue
        lines.append(f"{_I}{k}: {s.counts[k]:,}")
        for p in kept[:SHOWN_PROBLEMS]:
            # (a decode error's reason begins with the message it names, which is also its what: said once)
            what = "" if p.reason.startswith(f"{p.what} ") or p.reason.startswith(f"{p.what}:") else f"{_p(p.what)}: "
            lines.append(f"{_I * 2}{_p(p.where)}: {what}{_p(p.reason)}")
        if s.counts[k] > SHOWN_PROBLEMS:
            lines.append(f"{_I * 2}...")
    return "\n".join(lines)


# -- heartbeat-based groups (KIP-848, KIP-1071) -----------------------------------------------------------

_PROTOCOL_NAMES = {
    "consumer": ("consumer group", "KIP-848"),
    "streams": ("streams group", "KIP-1071"),
    "share": ("share group", "KIP-932"),
}


def _held(items, kind: str) -> str:
    n = len(items)
    if not n:
        return "(none)"
    return f"{items_text(items)} ({n} {kind if n != 1 else kind[:-1]})"


def _delta(step: Step, kind: str, gone: str = "revoked") -> str:
    """What a step added and took away (``gone``: "revoked", or "dropped" for a share member, which never
    revokes: it just stops consuming a partition)."""
    out = []
    for sign, moved in (("+", step.added.get(kind, ())), ("-", step.revoked.get(kind, ()))):
        if moved:
            word = "added" if sign == "+" else gone
            out.append(f"{word} {items_text(moved)}")
    return ("; " + "; ".join(out)) if out else ""


def _step_lines(step: Step, indent: str, title: str = "epoch", gone: str = "revoked") -> list[str]:
    when = step.where if step.where is not None else _when(step.ts)
    if step.cause == "fenced":
        return [
            f"{indent}fenced  {_p(when)}: gave up " + ", ".join(f"{_held(v, k)}" for k, v in step.revoked.items())
            if step.revoked
            else f"{indent}fenced  {_p(when)}"
        ]
    head = f"{indent}{title} {step.epoch if step.epoch is not None else '?'}  {_p(when)}"
    if step.previous_epoch is not None:
        head += f"  (previous epoch {step.previous_epoch}" + (
            f", state {step.state})" if step.state is not None else ")"
        )
    if step.cause == "described":
        head += "  (as described)"
    if step.repeats:
        head += f"  (and {step.repeats:,} more records saying the same)"
    if step.reached is not None and (step.ts is None or step.reached > step.ts):
        head += f"  reached {_when(step.reached)}"
    kinds = list(step.holdings) or ["partitions"]
    if not step.added and not step.revoked and step.cause in ("assigned", "described") and step.where is None:
        total = ", ".join(_held(step.holdings.get(k, ()), k) for k in kinds)
        return [f"{head}  unchanged: {total}"]
    if len(kinds) == 1:
        k = kinds[0]
        lines = [f"{head}  {_held(step.holdings.get(k, ()), k)}{_delta(step, k, gone)}"]
    else:
        lines = [head] + [
            f"{indent}{_I}{k.ljust(14)} {_held(step.holdings.get(k, ()), k)}{_delta(step, k, gone)}" for k in kinds
        ]
    for k, items in step.pending.items():
        lines.append(f"{indent}{_I}pending revocation of {k}: {items_text(items)}")
    return lines


def _hb_member_lines(g: HeartbeatGroup, m: HeartbeatMember, shares=()) -> list[str]:
    """A heartbeat member's lines; ``shares``: a share member's partitions that others hold too, with them."""
    facts = []
    for label, value in (
        ("instance", m.instance_id),
        ("rack", m.rack_id),
        ("host", m.client_host),
        ("process", m.process_id),
        ("endpoint", m.user_endpoint),
        ("assignor", m.server_assignor),
        ("regex", m.subscribed_regex),
    ):
        if value not in (None, ""):  # records write "" for a field never set
            facts.append(f"{label} {_p(str(value))}")
    if m.subscribed_topics is not None:
        facts.append(f"subscribed {_items(m.subscribed_topics)}")
    if m.client_tags:
        facts.append("tags " + ", ".join(f"{_p(str(k))}={_p(str(v))}" for k, v in sorted(m.client_tags.items())))
    if m.topology_epoch is not None:
        facts.append(f"topology epoch {m.topology_epoch}")
    if m.rebalance_timeout_ms is not None:
        facts.append(f"rebalance timeout {m.rebalance_timeout_ms} ms")
    if m.classic:
        facts.append("classic protocol member")
    tags = [m.left] if m.left else []
    lines = [f"{_I * 2}{_p(m.label)}" + (f"  [{tags[0]}]" if tags else "") + (f"  {'; '.join(facts)}" if facts else "")]
    life = []
    if m.joined is not None:
        life.append(f"joined {_when(m.joined)} at epoch {m.join_epoch}")
    if g.source == "capture":
        errs = ", ".join(f"{n} x {error_name(c)}" for c, n in sorted(m.errors.items()))
        life.append(f"heartbeats {m.heartbeats}" + (f" ({errs})" if errs else ""))
    if m.left is not None and m.left_ts is not None:
        life.append(f"{m.left} {_when(m.left_ts)}")
    if life:
        lines.append(f"{_I * 3}" + "; ".join(life))
    if not m.steps and m.target is None:
        lines.append(f"{_I * 3}no assignment seen")
    for step in m.steps:
        lines += _step_lines(step, _I * 3, gone="dropped" if g.protocol == "share" else "revoked")
    if shares and m.left is None:
        lines.append(
            f"{_I * 3}shares "
            + bounded(
                (f"{items_text(items)} with {bounded(map(_p, others), _SHOWN_SHARERS)}" for items, others in shares),
                _SHOWN_SHARERS,
                sep=" | ",
                what="more groups of partitions",
            )
        )
    if m.target is not None:
        lines += _step_lines(m.target, _I * 3, "target at assignment epoch")
    if m.dropped:
        lines.append(f"{_I * 3}({m.dropped:,} oldest observations dropped)")
    return lines


def render_heartbeat_group(g: HeartbeatGroup) -> str:
    """A heartbeat-based group as text: its epochs, each member's steps (assignment given, when reached,
    what was added and revoked), and its events."""
    what, kip = _PROTOCOL_NAMES.get(g.protocol, (g.protocol, "?"))
    head = f"{what} ({kip} {'heartbeats' if g.source == 'capture' else 'records of __consumer_offsets'})"
    if g.first_ts is not None and g.last_ts is not None:  # (set together)
        head += f"  {_when(g.first_ts, date=True)} .. {_when(g.last_ts)} ({g.last_ts - g.first_ts:.1f} s)"
    lines = [head]
    epochs = g.epochs()
    facts = [f"member epochs {', '.join(map(str, epochs))}" if epochs else "no member epoch seen"]
    if g.group_epochs:
        facts.append(f"group epochs {bounded(map(str, g.group_epochs), what='more')}")
    if g.assignment_epoch is not None:
        facts.append(f"target assignment epoch {g.assignment_epoch}")
    if g.metadata_hash:  # 0: a record of Kafka before 4.1, or a group without topics
        facts.append(f"topic metadata hash {g.metadata_hash & 0xFFFFFFFFFFFFFFFF:016x}")
    if g.validated_topology_epoch is not None and g.validated_topology_epoch >= 0:
        facts.append(f"topics validated for topology epoch {g.validated_topology_epoch}")
    if g.classic_generations:
        facts.append(
            "classic members formed generations " + ", ".join(map(str, g.classic_generations)) + " (told above)"
        )
    if g.deleted:
        facts.append("deleted (tombstone)")
    lines.append(f"{_I}" + "; ".join(facts))
    if g.epoch_causes:
        lines.append(f"{_I}epochs:")
        for r in g.epoch_causes[:SHOWN_EVENTS]:
            lines.append(f"{_I * 2}epoch {r.epoch}  {_when(r.ts) if r.ts is not None else '-'}")
            lines += cause_lines(r, _I * 3)
            lines += finding_lines([f for f in g.findings if f.number == r.epoch], _I * 3)
        lines += _more(len(g.epoch_causes), SHOWN_EVENTS, "epochs")
    if isinstance(g.topology, dict):
        lines.append(f"{_I}topology epoch {g.topology.get('epoch')}: " + _topology(g.topology))
    if g.topology_description is not None:
        lines.append(_topology_description(g.topology_description))
    if g.assignment_configs:
        lines.append(
            f"{_I}last assignment configs: "
            + bounded(
                f"{_p(str(k))}={_p(str(v))}" for k, v in sorted(g.assignment_configs.items(), key=lambda kv: str(kv[0]))
            )
        )
    for code, detail in list(g.status)[:MAX_SHOWN]:
        lines.append(
            f"{_I}status {code} {_STREAMS_STATUS.get(code, 'unknown')}" + (f": {_p(detail)}" if detail else "")
        )
    lines += _more(len(g.status), MAX_SHOWN, "statuses")
    if g.endpoints is not None:
        lines.append(
            f"{_I}partitions by endpoint (endpoint information epoch {g.endpoint_epoch}):"
            + ("" if g.endpoints else " (none)")
        )
        for endpoint, active, standby in g.endpoints:
            lines.append(f"{_I * 2}{_p(endpoint)}  active: {items_text(active)}  standby: {items_text(standby)}")
    if g.state_partitions is not None:
        lines.append(
            f"{_I}share-group state: "
            + (
                " | ".join(f"{state} {items_text(items)}" for state, items in g.state_partitions.items() if items)
                or "(no partition)"
            )
        )
    shares: dict[str, list[tuple[frozenset, list[str]]]] = {}  # member -> (partitions, the others holding them)
    if g.protocol == "share" and g.members:
        shared = g.shared()
        for holders, items in shared:
            for member in holders:
                shares.setdefault(member, []).append((items, [x for x in holders if x != member]))
        lines.append(
            f"{_I}shared partitions at the end: "
            + (" | ".join(f"{items_text(items)} by {n} members" for n, items in shared_by_count(shared)) or "(none)")
        )
    if g.members:
        held = [m.holdings() or {} for m in g.members.values() if m.left is None]
        kinds = sorted({k for h in held for k in h}, key=lambda k: (k != "partitions", k))
        counts = ", ".join(_plural(sum(len(h.get(k, ())) for h in held), k[:-1]) for k in kinds)
        lines.append(f"{_I}members ({len(g.members)})" + (f", {counts} held at the end" if counts else "") + ":")
        for m in g.members.values():
            lines += _hb_member_lines(g, m, shares.get(m.member_id, ()))
    if g.events:
        lines.append(f"{_I}events:")
        for e in g.events[:SHOWN_EVENTS]:
            who = _p(e.member) if e.member else "-"
            text = f"{_I * 2}{_when(e.ts) if e.ts is not None else '-'}  {e.kind.ljust(12)} {who}"
            text += f"  {error_name(e.error_code)}" if e.error_code is not None else ""
            lines.append(text + (f"  {_p(e.detail)}" if e.detail else ""))
        lines += _more(len(g.events), SHOWN_EVENTS, "events")
    return "\n".join(lines)


_DESCRIPTION_STATUS = {
    0: "not requested",
    1: "not stored",
    2: "error",
    3: "available",
}  # StreamsGroupDescribeResponse.json


def _topology_description(d: dict) -> str:
    """A streams group's topology description (KIP-1331) in one line: where it came from, its topology epoch, and
    each subtopology's nodes with the topics they read and write, then the global stores."""
    src = d.get("source")
    head = f"{_I}topology description ({_p(str(src))}"
    if d.get("status") is not None:
        head += f", status {d['status']} {_DESCRIPTION_STATUS.get(d['status'], 'unknown')}"
    if d.get("topology_epoch") is not None:
        head += f", topology epoch {d['topology_epoch']}"
    if d.get("assignor"):
        head += f", assignor {_p(str(d['assignor']))}"
    td = d.get("description")
    if not isinstance(td, dict):
        return head + "): none"
    parts = []
    for sub in td.get("subtopologies") or ():
        nodes = sub.get("nodes") or ()
        reads = sorted({t for n in nodes for t in n.get("sourceTopics") or ()})
        writes = sorted({n["sinkTopic"] for n in nodes if n.get("sinkTopic")})
        text = f"{_p(str(sub.get('subtopologyId')))}: {_plural(len(nodes), 'node')}"
        text += f", reads {_items(reads, 6)}" if reads else ""
        text += f", writes {_items(writes, 6)}" if writes else ""
        parts.append(text)
    stores = len(td.get("globalStores") or ())
    if stores:
        parts.append(_plural(stores, "global store"))
    return head + "): " + ("; ".join(parts) or "(no subtopology)")


def _topology(t: dict) -> str:
    """A streams topology in one line: each subtopology and the topics it reads (source topics, patterns and
    repartition topics)."""
    parts = []
    for sub in t.get("subtopologies") or ():
        reads = [
            *(sub.get("sourceTopics") or ()),
            *(f"/{r}/" for r in sub.get("sourceTopicRegex") or ()),
            *(r.get("name") for r in sub.get("repartitionSourceTopics") or ()),
        ]
        parts.append(f"{_p(str(sub.get('subtopologyId')))} reads {_items(reads, 6)}")
    return "; ".join(parts) or "(no subtopology)"


# -- what an admin's questions told (codec.capture.storyadmin) ------------------------------------------------


def _payload_line(what: str, v, indent: str) -> list[str]:
    """A described member's metadata or assignment, as the generations show subscriptions and assignments."""
    if v is None or isinstance(v, (bytes, bytearray)):
        return [f"{indent}{what.ljust(13)} {'null' if v is None else f'{len(v)} bytes'}"]
    m = Member(member_id="")
    if what == "subscription":
        m.subscription = v
        return _subscription_lines(m, indent)
    m.assignment = v
    return _assignment_lines(m, indent)


def render_admin(item: DescribedGroup | CommittedOffsets) -> str:
    """The text story's lines for one described group or one group's committed offsets."""
    if isinstance(item, DescribedGroup):
        head = (
            f"described  {_when(item.ts, date=True)}  DescribeGroups v{item.version}: state {_p(item.state)}, "
            f"{_p(item.protocol_type or '-')}/{_p(item.protocol or '-')}, {len(item.members)} "
            + ("member" if len(item.members) == 1 else "members")
        )
        if item.error_code:
            head += f"; error {error_name(item.error_code)}"
            if item.error_message:
                head += f" ({_p(item.error_message)})"
        lines = [head]
        for m in item.members:
            facts = [f"client {_p(m.client_id)}", f"host {_p(m.client_host)}"]
            if m.group_instance_id:
                facts.append(f"instance {_p(m.group_instance_id)}")
            lines.append(f"    {_p(m.member_id)}  {'; '.join(facts)}")
            lines += _payload_line("subscription", m.metadata, " " * 6)
            lines += _payload_line("assignment", m.assignment, " " * 6)
        return "\n".join(lines)
    n = len(item.offsets)
    head = f"committed  {_when(item.ts, date=True)}  OffsetFetch v{item.version}: {n} partition{'' if n == 1 else 's'}"
    if item.error_code:
        head += f"; error {error_name(item.error_code)}"
    lines = [head]
    for t, p, o, epoch, md, ec in item.offsets:
        line = f"    {_p(t)}-{p}  " + ("none" if o < 0 else f"offset {o}")
        if epoch is not None and epoch >= 0:
            line += f" (leader epoch {epoch})"
        if md:
            line += f"  metadata {_p(repr(md))}"
        if ec:
            line += f"  error {error_name(ec)}"
        lines.append(line)
    return "\n".join(lines)
