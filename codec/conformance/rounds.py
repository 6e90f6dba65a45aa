"""Generated rebalance rounds: random groups for the ``assign`` op, whose expected assignment a reference assignor
computes (``conformance --generate``). The rounds of ``vectors/rebalance/rounds.jsonl`` are values an adapter could
answer from the installed file; a round drawn from the run's seed is one nobody wrote down, so the leader's passes
on the file's rounds count only beside passes on these (:mod:`codec.conformance.evidence`).

Rounds come in **families**, one per kind of leader the gate holds an implementation to: a family draws a round (a
group as its leader sees it), assigns it with its reference assignor, says whether that assignment is sound, and
compares an implementation's answer with it. Kafka Streams' leader (``RebalanceRound``: members' ConsumerProtocol
subscriptions carrying SubscriptionInfo, a topology, the configs, end-offset sums) is the one family today; another
(a consumer group's client-side assignors, with and without racks; KIP-848's server-side ones) joins with :func:`register`, and every run then draws its rounds too.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field

from ..assignor.leader import Subtopology, Topology
from ..assignor.model import AssignmentConfigs
from ..types import TaskId
from .rebalance import _round, _subscription, check_invariants, round_difference, run_round

__all__ = ["FAMILIES", "RoundCase", "RoundFamily", "register", "round_cells", "take_round"]


@dataclass(frozen=True)
class RoundFamily:
    """One kind of leader's rounds: ``message`` names them in declarations and reports; ``draw`` makes a round (a
    JSON object, without its ``assignments``) from a random source; ``assign`` is the reference assignor (member id
    -> assignment bytes); ``check`` lists what is unsound in an assignment of the round (a draw whose reference
    assignment is unsound is drawn again); ``compare`` gives an answer's first difference from the expected round
    (its ``assignments`` filled in) and the failure's class, or None."""

    message: str
    draw: Callable[[random.Random], dict]
    assign: Callable[[dict], dict[str, bytes]]
    check: Callable[[dict, dict[str, bytes]], list[str]]
    compare: Callable[[dict, dict[str, bytes]], tuple[str, str] | None]
    description: str = field(default="")


FAMILIES: dict[str, RoundFamily] = {}


def register(family: RoundFamily) -> None:
    """Add a family of generated rounds (its ``message`` is its name)."""
    FAMILIES[family.message] = family


def round_cells(messages: list[str] | None = None) -> list[str]:
    """The families a run draws rounds of: every one, or those ``messages`` names."""
    return [m for m in FAMILIES if messages is None or m in messages]


@dataclass(frozen=True)
class RoundCase:
    """One generated round: ``round`` is what the adapter is asked (no assignments), ``expected`` the round with the
    reference's assignments, as a vector round has them."""

    id: str
    message: str
    round: dict
    expected: dict


ATTEMPTS = 8  # draws of a round before it is left out: the reference refuses the draw, or its assignment is unsound


def take_round(seed: int, index: int, message: str, *, tag: str = "generate") -> RoundCase | str:
    """Round ``index`` of family ``message`` in the run with ``seed`` (drawn again up to :data:`ATTEMPTS` times), or
    why no draw would do. ``tag`` keeps the runner's witnesses apart from the run's cases."""
    family = FAMILIES[message]
    why = ""
    for attempt in range(ATTEMPTS):
        rng = random.Random(f"rebalance-codec round {tag} {seed} {message} {index} {attempt}")
        try:
            query = family.draw(rng)
            assignments = family.assign(query)
            problems = family.check(query, assignments)
        except Exception as e:  # noqa: BLE001 - a draw the reference does not assign is drawn again, never used
            why = f"{message}: the reference does not assign the drawn round ({type(e).__name__}: {e})"
            continue
        if problems:
            why = f"{message}: the reference's assignment of the drawn round is unsound ({problems[0]})"
            continue
        rid = f"{'gen' if tag == 'generate' else 'witness'}-{message.lower()}-{index}"
        query = {"id": rid, **{k: v for k, v in query.items() if k != "id"}}
        expected = {
            **query,
            "assignments": [{"memberId": m, "assignment": raw.hex()} for m, raw in sorted(assignments.items())],
        }
        return RoundCase(rid, message, query, expected)
    return why


# --- Kafka Streams' leader ----------------------------------------------------------------------------------


def _draw_streams(rng: random.Random) -> dict:
    """A Kafka Streams group as its leader sees it: 1-3 subtopologies (stateful ones with a changelog), 1-4 clients of
    1-3 threads, a previous assignment the members report (owned partitions, offset sums of the tasks they hold),
    a subscription version most members share (now and then one older member, or a future one that probes), client
    tags where standbys are rack-aware, one of the three assignors."""
    subtopologies = []
    for s in range(rng.randint(1, 3)):
        topics = tuple(f"s{s}-in{i}" for i in range(rng.randint(1, 2)))
        changelog = (f"s{s}-store-changelog",) if rng.random() < 0.6 else ()
        subtopologies.append(Subtopology(s, topics, changelog, rng.randint(1, 6)))
    topology = Topology(tuple(subtopologies))
    source = {s.subtopology: s.source_topics for s in subtopologies}
    tasks = [t for s in subtopologies for t in s.tasks()]
    stateful = [t for s in subtopologies if s.stateful for t in s.tasks()]
    ends = {t: rng.choice((0, 100, 10_000, rng.randint(0, 1_000_000))) for t in stateful}
    tagged = rng.random() < 0.3
    configs = AssignmentConfigs(
        acceptable_recovery_lag=rng.choice((0, 100, 10_000)),
        num_standby_replicas=rng.choice((0, 0, 1, 2)),
        max_warmup_replicas=rng.randint(1, 3),
        probing_rebalance_interval_ms=rng.choice((60_000, 600_000)),
        rack_aware_assignment_tags=("zone",) if tagged else (),
    )
    members = [(c, f"c{c}-t{t}") for c in range(rng.randint(1, 4)) for t in range(rng.randint(1, 3))]
    held: dict[str, list[TaskId]] = {}
    for task in tasks:
        if rng.random() < 0.7:
            held.setdefault(rng.choice(members)[1], []).append(task)
    version = rng.randint(3, 11)
    metadata = {}
    for client, member in members:
        v = version
        if rng.random() < 0.08:
            v = rng.choice((max(3, version - 1), 12))
        mine = held.get(member, [])
        sums = {t: -2 for t in mine if t in ends}
        for t in stateful:
            if t not in sums and rng.random() < 0.3:
                sums[t] = max(0, ends[t] - rng.randint(0, 2 * configs.acceptable_recovery_lag + 1))
        metadata[member] = _subscription(
            v,
            client + 1,
            sums,
            endpoint=f"host-{client}:8080",
            tags={"zone": f"zone-{client % 2}"} if tagged and v >= 11 else None,
            owned=[(topic, t.partition) for t in mine for topic in source[t.subtopology]],
            topics=tuple(topic for s in subtopologies for topic in s.source_topics),
        )
    leader = rng.choice(members)[1]
    drawn = _round("", "a generated round", metadata, topology, configs, ends, leader, rng.randint(0, 2**41), _PROV)
    del drawn["id"], drawn["description"]
    assignor = rng.choice(("high_availability", "high_availability", "high_availability", "sticky", "fallback_prior"))
    if assignor != "high_availability":
        drawn["assignor"] = assignor
    return drawn


_PROV = {"source": "generated", "note": "drawn from the run's seed; assignment by rebalance-codec's assignor core"}

register(
    RoundFamily(
        "RebalanceRound",
        _draw_streams,
        run_round,
        check_invariants,
        round_difference,
        "Kafka Streams' leader: the members' ConsumerProtocol subscriptions carrying SubscriptionInfo in, their "
        "assignments carrying AssignmentInfo out",
    )
)

# --- a consumer group's leader (the client-side assignors; codec.assignor.consumer) --------------------------

from ..assignor.consumer.gate_rounds import (  # noqa: E402 - the family registers after the module's core
    assign_consumer_round,
    check_consumer_round,
    compare_consumer_round,
    draw_consumer_rack_round,
    draw_consumer_round,
)
from ..assignor.consumer.gate_server import (  # noqa: E402
    assign_server_round,
    check_server_round,
    compare_server_round,
    draw_server_round,
)

register(
    RoundFamily(
        "ConsumerRound",
        draw_consumer_round,
        assign_consumer_round,
        check_consumer_round,
        compare_consumer_round,
        "a consumer group's leader: the members' ConsumerProtocol subscriptions (owned partitions, generation) and "
        "the topics' partition counts in, with range, roundrobin, sticky or cooperative-sticky named; their "
        "ConsumerProtocol assignments out, each member's partitions compared with Kafka's",
    )
)
register(
    RoundFamily(
        "ConsumerRackRound",
        draw_consumer_rack_round,
        assign_consumer_round,
        check_consumer_round,
        compare_consumer_round,
        "a consumer group's leader with KIP-881's racks: a ConsumerRound whose members name their racks and whose "
        "metadata names each partition's replica racks (partitionRacks); a client whose assignors do not match racks "
        "declares ConsumerRound only and these are skipped",
    )
)

register(
    RoundFamily(
        "ServerAssignorRound",
        draw_server_round,
        assign_server_round,
        check_server_round,
        compare_server_round,
        "KIP-848's group coordinator: the members' subscribed topic names and current target assignments (by topic "
        "id) and the topics' partition counts and ids in, with uniform or range named; each member's "
        "ConsumerGroupTargetAssignmentMemberValue out, its partitions compared with Kafka's",
    )
)
