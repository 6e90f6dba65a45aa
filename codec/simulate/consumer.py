"""Plain consumer groups in ``simulate`` (issue #44): one scenario (``"kind": "consumer"``,
:mod:`codec.simulate.consumer_scenario`) run under the classic protocol, eager or cooperative (KIP-429), and under
the consumer group protocol (KIP-848), over real bytes.

The model. The group starts stable at time 0 with the placement the run's assignor gives the running members
from nothing (classic: generation 1, its JoinGroup/SyncGroup recorded; KIP-848: group epoch 1, every member at
epoch 1, each member's first heartbeat a full one -- its subscription, owned partitions and rebalance timeout --
as a Java consumer sends after it reconnects, so that the capture says what every member holds). Then:

* **eager** (:mod:`codec.simulate.consumer_classic`): a member joining, leaving (LeaveGroup), expiring (a crash:
  found ``session_timeout_ms`` later), changing its subscription or rejoining starts a round; every member revokes
  everything it owns when the round starts (``onJoinPrepare``) and the round completes one
  ``heartbeat_interval_ms`` later, when the last member has learnt of it at its heartbeat and rejoined (a crashed
  member the coordinator still counts holds the round until its session ends). The leader runs the scenario's
  ``assignor`` (``range``, ``roundrobin``, ``sticky``, ``cooperative-sticky``) on the subscriptions of its
  JoinGroup response, with owned partitions and generations as Kafka's ``ConsumerCoordinator`` passes them
  (none owned: eager members revoked them all; the sticky assignor's own user data carries its last assignment).
* **cooperative**: the same rounds with ``cooperative-sticky``; members revoke at the start only the partitions of
  topics they no longer subscribe to; the assignor withholds every partition that changes owner, its owner revokes
  it when it reads its assignment and rejoins at once, and a follow-up round gives it out. At the end of a round
  every member first takes what it was given, then gives up what it was not: a partition moved in one step would
  be owned twice at that instant (the ledger's ``double_owned``).
* **kip848** (:mod:`codec.simulate.consumer_kip848`): ConsumerGroupHeartbeat v1 every
  ``consumer_heartbeat_interval_ms`` and at once on joining, leaving, a subscription change and to acknowledge a
  reconciliation; the server-side ``server_assignor`` (``uniform``, ``server-range``); Kafka's per-member
  reconciliation (revocation before assignment, member epochs, unreleased partitions). A crashed member's
  partitions stay held until ``consumer_session_timeout_ms`` after its last heartbeat.

Every frame is encoded and decoded with the codec and recorded (``frames.jsonl`` and a pcap): the classic
JoinGroup/SyncGroup with ConsumerProtocol subscriptions and assignments and the sticky assignors' user data,
LeaveGroup, a crashed member's last two heartbeats; every KIP-848 heartbeat.

Metrics (:mod:`codec.simulate.consumer_ledger`): ``rebalances`` (classic: completed generations; KIP-848: target
assignments computed), ``unavailable_partition_s``, ``max_unavailable``, ``revocations``, ``moves``,
``double_owned``, ``time_to_stable_s`` (from the first event until the last change of who consumes what, if every
partition is consumed at the end), ``coordinator_bytes`` (every response recorded: the classic runs record the
rebalance frames, not steady heartbeats; KIP-848's rebalances ride on its heartbeats, so it counts them all).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .consumer_ledger import CONSUMER_TABLE_COLUMNS
from .consumer_scenario import (
    CONSUMER_PROTOCOLS,
    ConsumerScenario,
    is_consumer_scenario,
    load_consumer_scenario,
    parse_consumer_scenario,
)
from .metrics import format_metrics_table
from .scenario import ScenarioError
from .wire import Recorder

__all__ = [
    "CONSUMER_PROTOCOLS",
    "CONSUMER_TABLE_COLUMNS",
    "ConsumerScenario",
    "ConsumerSimulationResult",
    "format_consumer_table",
    "is_consumer_scenario",
    "load_consumer_scenario",
    "parse_consumer_scenario",
    "simulate_consumer",
]


@dataclass
class ConsumerSimulationResult:
    scenario: str
    protocol: str
    assignor: str
    metrics: dict
    rebalances: list[dict]
    timeline: dict
    notes: list[str]
    recorder: Recorder
    final: dict[str, list[str]]
    assignments: list[dict]
    """What the assignor was given and gave, each time it ran: ``group`` (the :class:`ConsumerGroup` as the leader
    or the coordinator read it) and ``members`` (its result), with the ``generation`` or ``epoch``."""

    def to_json(self) -> dict[str, Any]:
        return {
            "scenario": self.scenario,
            "protocol": self.protocol,
            "kind": "consumer",
            "assignor": self.assignor,
            "metrics": self.metrics,
            "rebalances": self.rebalances,
            "timeline": self.timeline,
            "final": self.final,
            "notes": self.notes,
        }


def simulate_consumer(
    scenario: ConsumerScenario, protocol: str = "cooperative", *, keep_frames: bool = True, run: str = "simulate"
) -> ConsumerSimulationResult:
    """Run a consumer group scenario under ``protocol`` (``eager``, ``cooperative`` or ``kip848``)."""
    from .consumer_classic import ClassicRun
    from .consumer_kip848 import Kip848Run

    if protocol not in CONSUMER_PROTOCOLS:
        raise ScenarioError(f"unknown consumer group protocol {protocol!r} ({', '.join(CONSUMER_PROTOCOLS)})")
    sim: ClassicRun | Kip848Run
    if protocol == "kip848":
        sim = Kip848Run(scenario, protocol, keep_frames=keep_frames, run=run)
    else:
        sim = ClassicRun(scenario, protocol, keep_frames=keep_frames, run=run)
    end = sim.run()
    ledger = sim.ledger
    notes = list(sim.notes) + list(getattr(sim, "violations", []))
    metrics = {
        "protocol": protocol,
        "assignor": sim.assignor,
        "rebalances": len(sim.rebalances),
        **ledger.metrics(),
        "coordinator_bytes": sim.rec.coordinator_bytes,
        "frames": sim.rec.frames,
        "simulated_s": round(end, 3),
    }
    marks = [r["completed_s"] for r in sim.rebalances]
    timeline = ledger.timeline(end, sim.events_json, marks)
    final = {m: sorted(f"{t}-{p}" for t, p in held) for m, held in ledger.held.items()}
    return ConsumerSimulationResult(
        scenario.name,
        protocol,
        sim.assignor,
        metrics,
        sim.rebalances,
        timeline,
        notes,
        sim.rec,
        final,
        sim.assignments,
    )


def format_consumer_table(metrics: list[dict]) -> str:
    return format_metrics_table(metrics, CONSUMER_TABLE_COLUMNS)
