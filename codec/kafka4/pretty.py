"""Readable views of Kafka 4's group RPCs and records (``--format pretty``).

A Streams heartbeat is shown the way a SubscriptionInfo/AssignmentInfo is (:mod:`codec.streams.pretty`): the member,
its endpoint and client tags, its tasks as ``subtopology_partition`` by kind (active, standby, warm-up),
its task offsets with the lag to the end offsets, and the topology's subtopologies with their topics; a
consumer or share heartbeat shows the member, epoch, subscription and partitions (a share member reports none:
it never revokes), a share group's Describe response each member's partitions and which partitions two or more
members share (by how many: who is each member's line). Every other message is the schema-driven tree of
:func:`codec.group.pretty.pretty_body`. Wire strings go through :func:`codec.text.printable`, so no name can add a
line or drive the terminal. A name the wire writes once is shown once: tasks by subtopology and partitions by
topic, as ranges (``0: 0-19999``), so the view stays proportional to the message (:mod:`codec.pretty`). Unknown
tagged fields, wherever they are in the message, are listed after the view with their field path.
"""

from __future__ import annotations

from ..pretty import grouped_ranges, pad
from ..text import printable
from ..wire.builder import uuid_to_kafka
from ..wire.pretty import pretty_body, pretty_record, unknown_tag_lines
from ..wire.registry import error_name
from ..wire.schema import load_message

__all__ = ["describe_epoch", "describe_error", "pretty_message", "pretty_record"]

#: StreamsGroupHeartbeatResponse.Status codes (StreamsGroupHeartbeatResponse.Status in Kafka's clients; 5 since 4.2, 6
#: since 4.4 for v1 clients).
STREAMS_STATUS = {
    0: "STALE_TOPOLOGY",
    1: "MISSING_SOURCE_TOPICS",
    2: "INCORRECTLY_PARTITIONED_TOPICS",
    3: "MISSING_INTERNAL_TOPICS",
    4: "SHUTDOWN_APPLICATION",
    5: "ASSIGNMENT_DELAYED",
    6: "MISSING_CLIENT_TAGS",
}


def describe_error(code: int) -> str:
    return f"{code} {error_name(code) or '(unrecognized)'}"


def describe_epoch(epoch: int) -> str:
    return {0: "0 (join)", -1: "-1 (leave)", -2: "-2 (static member leaving, will rejoin)"}.get(epoch, str(epoch))


def _q(s) -> str:
    return "null" if s is None else '"' + printable(s).replace('"', '\\"') + '"'


def _rows(rows: list[tuple[str, str]], indent: str = "  ") -> list[str]:
    w = pad(k for k, _ in rows)
    return [f"{indent}{k.ljust(w)}  {v}" for k, v in rows]


def _unchanged(v, shown: str) -> str:
    return "(unchanged since the last heartbeat: null)" if v is None else shown


def _task_lines(title: str, task_ids, indent: str = "  ") -> list[str]:
    """A TaskIds array: the tasks by subtopology, partitions as ranges (``0: 0-2; 1: 5``)."""
    if task_ids is None:
        return [f"{indent}{title}: (unchanged since the last heartbeat: null)"]
    pairs = {(t.subtopology_id, p) for t in task_ids for p in t.partitions}
    return [f"{indent}{title} ({len(pairs)}):", f"{indent}  " + (grouped_ranges(pairs) or "(none)")]


def _endpoint(e) -> str:
    return "null" if e is None else f"{printable(e.host)}:{e.port}"


def _topology_lines(topology, indent: str = "  ") -> list[str]:
    if topology is None:
        return [f"{indent}topology: (not sent: only a joining member sends it)"]
    subs = topology.subtopologies or ()
    lines = [f"{indent}topology epoch {topology.epoch}, {len(subs)} subtopologies:"]
    for s in subs:
        lines.append(f"{indent}  {printable(s.subtopology_id)}")
        rows = [("source topics", ", ".join(printable(t) for t in s.source_topics) or "(none)")]
        if getattr(s, "source_topic_regex", None):
            rows.append(("source regex", ", ".join(printable(t) for t in s.source_topic_regex)))
        if s.repartition_sink_topics:
            rows.append(("repartition sinks", ", ".join(printable(t) for t in s.repartition_sink_topics)))
        for what, infos in (
            ("repartition sources", s.repartition_source_topics),
            ("changelogs", s.state_changelog_topics),
        ):
            if infos:
                rows.append(
                    (
                        what,
                        ", ".join(
                            f"{printable(i.name)} ({i.partitions} partitions, rf {i.replication_factor})" for i in infos
                        ),
                    )
                )
        for g in getattr(s, "copartition_groups", None) or ():
            shown = (
                f"source {list(g.source_topics)}, regex {list(g.source_topic_regex)}, "
                f"repartition {list(g.repartition_source_topics)} (indexes)"
            )
            rows.append(("copartitioned", shown))
        lines += _rows(rows, indent + "    ")
    return lines


def _offset_lines(offsets, end_offsets, indent: str = "  ") -> list[str]:
    """Task offsets with their lag to the end offsets, as a SubscriptionInfo's task offset sums are shown."""
    if offsets is None and end_offsets is None:
        return [f"{indent}task offsets: (unchanged since the last heartbeat: null)"]
    ends = {(o.subtopology_id, o.partition): o.offset for o in end_offsets or ()}
    rows = []
    for o in offsets or ():
        end = ends.get((o.subtopology_id, o.partition))
        lag = "" if end is None else f"  end {end}  lag {end - o.offset}"
        rows.append((f"{printable(o.subtopology_id)}_{o.partition}", f"offset {o.offset}{lag}"))
    seen = {(o.subtopology_id, o.partition) for o in offsets or ()}
    for (sub, p), end in ends.items():
        if (sub, p) not in seen:
            rows.append((f"{printable(sub)}_{p}", f"end {end}  (no offset sent)"))
    lines = [f"{indent}task offsets ({len(rows)}):"]
    return lines + (_rows(rows, indent + "  ") if rows else [f"{indent}  (none)"])


def _streams_request(m, version: int, size: int | None) -> str:
    head = f"StreamsGroupHeartbeatRequest v{version}" + (f"  {size} bytes" if size is not None else "")
    lines = [head]
    lines += _rows(
        [
            ("group", _q(m.group_id)),
            ("member", _q(m.member_id)),
            ("member epoch", describe_epoch(m.member_epoch)),
            ("endpoint epoch", str(m.endpoint_information_epoch)),
            ("instance id", _q(m.instance_id)),
            ("rack", _q(m.rack_id)),
            ("rebalance timeout", "-1 (unchanged)" if m.rebalance_timeout_ms == -1 else f"{m.rebalance_timeout_ms} ms"),
            ("process id", _unchanged(m.process_id, _q(m.process_id))),
            ("endpoint", _unchanged(m.user_endpoint, _endpoint(m.user_endpoint))),
            (
                "client tags",
                _unchanged(
                    m.client_tags,
                    ", ".join(f"{printable(t.key)}={printable(t.value)}" for t in m.client_tags or ()) or "(none)",
                ),
            ),
            ("shutdown application", "yes" if m.shutdown_application else "no"),
        ]
    )
    lines += _topology_lines(m.topology)
    for title, field in (
        ("active tasks", m.active_tasks),
        ("standby tasks", m.standby_tasks),
        ("warm-up tasks", m.warmup_tasks),
    ):
        lines += _task_lines(title, field)
    lines += _offset_lines(m.task_offsets, m.task_end_offsets)
    return "\n".join(lines)


def _recovery_lag(m, version: int) -> str:
    """v0's int32 AcceptableRecoveryLagLegacy; v1's int64 AcceptableRecoveryLag, -1 when the broker has none."""
    if version < 1:
        return str(m.acceptable_recovery_lag_legacy)
    lag = m.acceptable_recovery_lag
    return "-1 (not configured by the broker)" if lag == -1 else str(lag)


def _streams_response(m, version: int, size: int | None) -> str:
    head = f"StreamsGroupHeartbeatResponse v{version}" + (f"  {size} bytes" if size is not None else "")
    lines = [head]
    lines += _rows(
        [
            ("error", describe_error(m.error_code) + (f": {_q(m.error_message)}" if m.error_message else "")),
            ("member", _q(m.member_id)),
            ("member epoch", describe_epoch(m.member_epoch)),
            ("heartbeat interval", f"{m.heartbeat_interval_ms} ms"),
            ("throttle", f"{m.throttle_time_ms} ms"),
            ("acceptable recovery lag", _recovery_lag(m, version)),
            ("task offset interval", f"{m.task_offset_interval_ms} ms"),
            ("endpoint epoch", str(m.endpoint_information_epoch)),
            *(
                [("topology description required", str(m.topology_description_required).lower())]
                if version >= 1
                else []
            ),
            (
                "status",
                "null"
                if m.status is None
                else ", ".join(
                    f"{STREAMS_STATUS.get(s.status_code, s.status_code)}: {_q(s.status_detail)}" for s in m.status
                )
                or "(none)",
            ),
        ]
    )
    for title, field in (
        ("active tasks", m.active_tasks),
        ("standby tasks", m.standby_tasks),
        ("warm-up tasks", m.warmup_tasks),
    ):
        lines += _task_lines(title, field)
    if m.partitions_by_user_endpoint is None:
        lines.append("  partitions by endpoint: (unchanged: null)")
    else:
        lines.append(f"  partitions by endpoint ({len(m.partitions_by_user_endpoint)}):")
        for e in m.partitions_by_user_endpoint:
            lines.append(
                f"    {_endpoint(e.user_endpoint)}  active {_endpoint_partitions(e.active_partitions)}"
                f"  standby {_endpoint_partitions(e.standby_partitions)}"
            )
    return "\n".join(lines)


def _endpoint_partitions(tps) -> str:
    return grouped_ranges((tp.topic, p) for tp in tps for p in tp.partitions) or "(none)"


def _topic_partitions(tps) -> str:
    if tps is None:
        return "(unchanged since the last heartbeat: null)"
    return ", ".join(f"{uuid_to_kafka(t.topic_id)}:{list(t.partitions)}" for t in tps) or "(none)"


def _consumer_request(m, version: int, size: int | None) -> str:
    head = f"ConsumerGroupHeartbeatRequest v{version}" + (f"  {size} bytes" if size is not None else "")
    rows = [
        ("group", _q(m.group_id)),
        ("member", _q(m.member_id)),
        ("member epoch", describe_epoch(m.member_epoch)),
        ("instance id", _q(m.instance_id)),
        ("rack", _q(m.rack_id)),
        ("rebalance timeout", "-1 (unchanged)" if m.rebalance_timeout_ms == -1 else f"{m.rebalance_timeout_ms} ms"),
        (
            "subscribed topics",
            _unchanged(
                m.subscribed_topic_names, ", ".join(printable(t) for t in m.subscribed_topic_names or ()) or "(none)"
            ),
        ),
    ]
    if version >= 1:
        rows.append(("subscribed regex", _q(m.subscribed_topic_regex)))
    rows += [("server assignor", _q(m.server_assignor)), ("owned partitions", _topic_partitions(m.topic_partitions))]
    return "\n".join([head] + _rows(rows))


def _consumer_response(m, version: int, size: int | None) -> str:
    head = f"ConsumerGroupHeartbeatResponse v{version}" + (f"  {size} bytes" if size is not None else "")
    rows = [
        ("error", describe_error(m.error_code) + (f": {_q(m.error_message)}" if m.error_message else "")),
        ("member", _q(m.member_id)),
        ("member epoch", describe_epoch(m.member_epoch)),
        ("heartbeat interval", f"{m.heartbeat_interval_ms} ms"),
        ("throttle", f"{m.throttle_time_ms} ms"),
        (
            "assignment",
            "(unchanged: null)" if m.assignment is None else _topic_partitions(m.assignment.topic_partitions),
        ),
    ]
    return "\n".join([head] + _rows(rows))


def _share_request(m, version: int, size: int | None) -> str:
    head = f"ShareGroupHeartbeatRequest v{version}" + (f"  {size} bytes" if size is not None else "")
    rows = [
        ("group", _q(m.group_id)),
        ("member", _q(m.member_id)),
        ("member epoch", describe_epoch(m.member_epoch)),
        ("rack", _unchanged(m.rack_id, _q(m.rack_id))),
    ]
    topics = m.subscribed_topic_names
    rows.append(("subscribed topics", _unchanged(topics, ", ".join(printable(t) for t in topics or ()) or "(none)")))
    return "\n".join([head] + _rows(rows))


def _share_response(m, version: int, size: int | None) -> str:
    return _consumer_response(m, version, size).replace(
        "ConsumerGroupHeartbeatResponse", "ShareGroupHeartbeatResponse", 1
    )


def _share_describe(m, version: int, size: int | None) -> str:
    """Each described share group: its epochs and assignor, each member's subscription and partitions, and the
    partitions two or more members hold (a share group lets several members consume one partition)."""
    head = f"ShareGroupDescribeResponse v{version}" + (f"  {size} bytes" if size is not None else "")
    lines = [head, f"  throttle {m.throttle_time_ms} ms"]
    for g in m.groups:
        lines.append(
            f"  group {_q(g.group_id)}  {describe_error(g.error_code)}"
            + (f": {_q(g.error_message)}" if g.error_message else "")
        )
        lines += _rows(
            [
                ("state", _q(g.group_state)),
                ("group epoch", str(g.group_epoch)),
                ("assignment epoch", str(g.assignment_epoch)),
                ("assignor", _q(g.assignor_name)),
            ],
            "    ",
        )
        holders: dict[tuple[str, int], int] = {}
        for mem in g.members:
            parts = {(t.topic_name, p) for t in mem.assignment.topic_partitions for p in t.partitions}
            for part in parts:
                holders[part] = holders.get(part, 0) + 1
            lines.append(
                f"    member {_q(mem.member_id)}  epoch {mem.member_epoch}  client {_q(mem.client_id)} "
                f"{_q(mem.client_host)}  rack {_q(mem.rack_id)}"
            )
            subscribed = ", ".join(printable(t) for t in mem.subscribed_topic_names)
            lines.append(f"      subscribed {subscribed or '(none)'}")
            lines.append("      partitions " + (grouped_ranges(parts) or "(none)"))
        by_count: dict[int, list[tuple[str, int]]] = {}
        for part, n in holders.items():
            if n > 1:
                by_count.setdefault(n, []).append(part)
        shared = " | ".join(f"{grouped_ranges(parts)} by {n} members" for n, parts in sorted(by_count.items()))
        lines.append(f"    shared partitions {shared or '(none)'}")
    return "\n".join(lines)


_VIEWS = {
    "StreamsGroupHeartbeatRequest": _streams_request,
    "StreamsGroupHeartbeatResponse": _streams_response,
    "ConsumerGroupHeartbeatRequest": _consumer_request,
    "ConsumerGroupHeartbeatResponse": _consumer_response,
    "ShareGroupHeartbeatRequest": _share_request,
    "ShareGroupHeartbeatResponse": _share_response,
    "ShareGroupDescribeResponse": _share_describe,
}


def pretty_message(name: str, version: int, model, *, size: int | None = None, trailing: int = 0) -> str:
    view = _VIEWS.get(name)
    text = view(model, version, size) if view else pretty_body(name, version, model)
    if view:  # the tree of pretty_body shows them in place
        text += "".join(f"\n  {line}" for line in unknown_tag_lines(model, load_message(name).root, ""))
    if trailing:
        text += f"\n  note: {trailing} trailing bytes ignored (as Kafka ignores them)"
    return text
