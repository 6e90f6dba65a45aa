"""``watch``'s Prometheus metrics, served on ``/metrics`` in Prometheus' text format with ``prometheus-client``.

Per group (a group's series go away when it is no longer tracked, so their number stays bounded by
``--max-groups``):

* ``rebalance_codec_rebalances_total{group,protocol_type,cause}`` — generations (classic groups) and epochs (Kafka 4
  groups: ``protocol_type`` ``consumer``, ``streams`` or ``share``) told, by cause (``unknown`` when no cause engine
  gave one);
* ``rebalance_codec_group_generation{group}`` — the last told generation or group epoch;
* ``rebalance_codec_group_members{group}`` — its members;
* ``rebalance_codec_partitions_moved_total{group}`` — partitions whose owner changed from one told generation or
  epoch to the next (for a Streams group, its active tasks; for a Connect group, its connectors and tasks);
* ``rebalance_codec_findings_total{group,check}`` — the loop and storm detectors' findings.

The watcher's own health:

* ``rebalance_codec_records_read_total{type}``, ``rebalance_codec_records_decoded_total{type}`` — by record type
  (``OffsetCommit``, ``GroupMetadata``, ``ConsumerGroupMetadata`` ... ``unknown``);
* ``rebalance_codec_decode_errors_total`` — records that could not be decoded;
* ``rebalance_codec_consumer_lag_records`` — how far behind the end of the topic the watcher is (the partitions' end
  offsets as last fetched, less the next offset to read; -1 until known);
* ``rebalance_codec_groups_tracked``, ``rebalance_codec_groups_dropped_total{reason}`` (``idle``, ``over-cap``);
* ``rebalance_codec_cluster_reachable`` — 1 while the cluster answers, 0 while it does not.

Everything is read from the watcher's own counts when Prometheus scrapes (a collector, not per-record metric
objects): counting a record costs the watcher nothing more.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any, Iterator

from ..capture.story import Generation
from .state import Epoch, Told, Tracker

if TYPE_CHECKING:
    from prometheus_client import CollectorRegistry

__all__ = ["Metrics", "MOVED_KINDS", "moved"]

#: the holdings counted as moved, for ``rebalance_codec_partitions_moved_total``
MOVED_KINDS = ("partitions", "active tasks", "connectors", "tasks")


def moved(item: Generation | Epoch) -> int:
    """Partitions (or active tasks, connectors and tasks) whose owner changed, against the one told before."""
    if item.changes is None:
        return 0
    moves = item.changes.moved
    kinds = [k for k in MOVED_KINDS if k != "partitions"] if "active tasks" in moves else MOVED_KINDS
    return sum(len(items) for kind in kinds for items in moves.get(kind, {}).values())


def _cause_kind(item) -> str:
    """The main cause's kind (``unknown`` when the item has none)."""
    r = getattr(item, "rebalance", None)
    return "unknown" if r is None else r.cause.kind


class Metrics:
    """The counts behind the metrics (kept whether or not they are served), and the collector that serves them."""

    def __init__(self, tracker: Tracker) -> None:
        self.tracker = tracker
        self.rebalances: Counter[tuple[str, str, str]] = Counter()
        self.moved: Counter[str] = Counter()
        self.findings: Counter[tuple[str, str]] = Counter()
        self.generation: dict[str, int] = {}
        self.members: dict[str, int] = {}
        self.lag: int = -1
        self.reachable: int = 1
        self.server: Any = None
        self.thread: Any = None

    def told(self, item: Told) -> None:
        """Count what the tracker told."""
        if isinstance(item, Generation):
            if item.generation is None:
                return
            self.rebalances[(item.group, item.protocol_type or "", _cause_kind(item))] += 1
            self.generation[item.group] = item.generation
            self.members[item.group] = len(item.members)
            self.moved[item.group] += moved(item)
        elif isinstance(item, Epoch):
            self.rebalances[(item.group, item.protocol, _cause_kind(item))] += 1
            self.generation[item.group] = item.epoch
            self.members[item.group] = len(item.members)
            self.moved[item.group] += moved(item)

    def finding(self, group: str, check: str) -> None:
        self.findings[(group, check)] += 1

    def forget(self, group: str) -> None:
        """A group no longer tracked: its series go."""
        for key in [k for k in self.rebalances if k[0] == group]:
            del self.rebalances[key]
        for key2 in [k for k in self.findings if k[0] == group]:
            del self.findings[key2]
        self.moved.pop(group, None)
        self.generation.pop(group, None)
        self.members.pop(group, None)

    # -- exposition ---------------------------------------------------------------------------------------

    def collect(self) -> Iterator:
        """The metric families, for prometheus-client's registry (called on each scrape, in its thread)."""
        from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily

        t = self.tracker
        c = CounterMetricFamily(
            "rebalance_codec_rebalances",
            "Generations (classic groups) and epochs (Kafka 4 groups) told, by cause",
            labels=["group", "protocol_type", "cause"],
        )
        for (group, ptype, cause), n in list(self.rebalances.items()):
            c.add_metric([group, ptype, cause], n)
        yield c
        g = GaugeMetricFamily(
            "rebalance_codec_group_generation", "The last told generation or group epoch", labels=["group"]
        )
        for group, n in list(self.generation.items()):
            g.add_metric([group], n)
        yield g
        g = GaugeMetricFamily("rebalance_codec_group_members", "Members of the last told generation", labels=["group"])
        for group, n in list(self.members.items()):
            g.add_metric([group], n)
        yield g
        c = CounterMetricFamily(
            "rebalance_codec_partitions_moved",
            "Partitions (Streams: active tasks) whose owner changed between told generations",
            labels=["group"],
        )
        for group, n in list(self.moved.items()):
            c.add_metric([group], n)
        yield c
        c = CounterMetricFamily(
            "rebalance_codec_findings", "Findings of the loop and storm detectors", labels=["group", "check"]
        )
        for (group, check), n in list(self.findings.items()):
            c.add_metric([group, check], n)
        yield c
        for name, helptext, counts in (
            ("rebalance_codec_records_read", "__consumer_offsets records read, by record type", t.read),
            ("rebalance_codec_records_decoded", "__consumer_offsets records decoded, by record type", t.decoded),
        ):
            c = CounterMetricFamily(name, helptext, labels=["type"])
            for rtype, n in list(counts.items()):
                c.add_metric([rtype], n)
            yield c
        yield CounterMetricFamily("rebalance_codec_decode_errors", "Records that could not be decoded", value=t.bad)
        yield GaugeMetricFamily(
            "rebalance_codec_consumer_lag_records",
            "Records between the watcher's position and the end of the topic (-1: not known yet)",
            value=self.lag,
        )
        yield GaugeMetricFamily("rebalance_codec_groups_tracked", "Groups tracked", value=len(t.groups))
        c = CounterMetricFamily(
            "rebalance_codec_groups_dropped", "Groups no longer tracked, by reason", labels=["reason"]
        )
        for reason, n in list(t.dropped.items()):
            c.add_metric([reason], n)
        yield c
        yield GaugeMetricFamily(
            "rebalance_codec_cluster_reachable",
            "1 while the cluster answers, 0 while it does not",
            value=self.reachable,
        )

    def registry(self) -> CollectorRegistry:
        from prometheus_client import CollectorRegistry

        reg = CollectorRegistry(auto_describe=False)
        reg.register(self)  # type: ignore[arg-type]  # (a collector: it has collect())
        return reg

    def serve(self, port: int, host: str = "") -> int:
        """Serve ``/metrics`` on ``host:port`` (a thread); the port bound (``port`` 0: one the system chose)."""
        from prometheus_client import start_http_server

        server, self.thread = start_http_server(port, addr=host or "0.0.0.0", registry=self.registry())
        self.server = server
        return int(server.server_address[1])

    def text(self) -> str:
        """The metrics in Prometheus' text format, as a scrape would read them now."""
        from prometheus_client import generate_latest

        return generate_latest(self.registry()).decode("utf-8")

    def stop(self) -> None:
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()
            self.server = None
