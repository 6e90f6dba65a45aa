"""A classic consumer group's findings, generation by generation, from what its leader saw and wrote: the JoinGroup
response's member subscriptions (topics, owned partitions, generation) and the SyncGroup request's assignments
(:class:`codec.assignor.consumer.wire.CapturedGeneration`), with the metadata where it is known.

The checks (Kafka's rules, ``ConsumerCoordinator`` and KIP-429):

* ``partition-owned-twice`` (error): one generation's SyncGroup gives a partition to two members.
* ``partition-unowned`` (error): a partition of a topic some member subscribes to is given to nobody. Under the
  cooperative protocol a partition whose owner at the JoinGroup (its valid claim: the highest generation's, as
  Kafka's assignor resolves claims) loses it is withheld for one generation, to be given out once it is revoked
  (KIP-429): such a partition is no finding. The partitions are the metadata's; without metadata, those the group
  is seen to hold or claim in any generation (a partition nobody ever held is missed, never invented).
* ``eager-move-without-revocation`` (error): under the eager protocol (``range``, ``roundrobin``, ``sticky``) a
  member revokes every partition before it sends JoinGroup (``ConsumerCoordinator.onJoinPrepare``:
  ``onPartitionsRevoked`` for all, then ``assignFromSubscribed(empty)``), so its subscription owns nothing. A member
  whose subscription still lists a partition (``ownedPartitions``) did not revoke it, and when that generation gives
  the partition to another member both consume it until the first one's SyncGroup answer.
* ``cooperative-one-step-move`` (error): under the cooperative protocol (``cooperative-sticky``) a partition that a
  member of the generation still owned — given to it in the generation before (when that one was seen) of a topic
  it still subscribes to, or its valid claim at the JoinGroup — goes to another member in the same generation:
  KIP-429 takes two rebalances, the owner revoking it first and the partition withheld meanwhile. A member whose
  subscription left the topic revoked its partitions before it joined (``ConsumerCoordinator.onJoinPrepare``), so
  those are free at once.
* ``not-the-assignors-assignment`` (warning): the leader's assignment is not the one Kafka's named assignor gives the
  same subscriptions and metadata (``assign --consumer --check``; the differences member by member).

A generation whose JoinGroup response or SyncGroup request was not seen, or whose bytes do not read, has no
findings (the verdict says why it was not checked). A custom protocol name is neither eager nor cooperative here:
its moves are not judged.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from ...errors import CodecError
from .model import TP, AssignmentError, ConsumerMember

__all__ = ["EAGER", "COOPERATIVE", "Generation", "decoded", "generation_findings", "group_findings", "valid_owners"]

#: Kafka's client-side assignors by the rebalance protocol they support (``supportedProtocols``)
EAGER = frozenset({"range", "roundrobin", "sticky"})
COOPERATIVE = frozenset({"cooperative-sticky"})


@dataclass
class Generation:
    """One generation as its leader saw it, decoded: ``members`` from its JoinGroup response (None: not seen, or
    not readable), ``assignment`` from its SyncGroup request (None likewise), ``protocol`` the assignor that ran
    (None: none of Kafka's)."""

    group: str
    generation: int
    protocol: str | None
    members: list[ConsumerMember] | None
    assignment: dict[str, list[TP]] | None


def _tp(tp: TP) -> str:
    return f"{tp[0]}-{tp[1]}"


def _finding(check: str, severity: str, gen: Generation, detail: str, **extra: Any) -> dict[str, Any]:
    return {"check": check, "severity": severity, "group": gen.group, "generation": gen.generation, **extra,
            "detail": detail}  # fmt: skip


def valid_owners(members: Iterable[ConsumerMember]) -> dict[TP, str]:
    """Partition -> the member whose claim Kafka's assignors keep: the claim of the highest generation (a member
    without one counts as generation -1); two claims at that generation keep none (both are invalid,
    ``AbstractStickyAssignor``'s rule)."""
    best: dict[TP, tuple[int, list[str]]] = {}
    for m in members:
        g = -1 if m.generation is None else m.generation
        for tp in m.owned:
            cur = best.get(tp)
            if cur is None or g > cur[0]:
                best[tp] = (g, [m.member_id])
            elif g == cur[0] and m.member_id not in cur[1]:
                cur[1].append(m.member_id)
    return {tp: ids[0] for tp, (_, ids) in best.items() if len(ids) == 1}


def generation_findings(
    gen: Generation,
    *,
    topics: dict[str, int] | None,
    known: set[TP],
    before: dict[str, list[TP]] | None,
    verdict: dict[str, Any] | None = None,
) -> list[dict[str, Any]]:
    """The findings of one generation (its ``protocol``'s rebalance protocol decides the move checks). ``topics``: the metadata's partition counts, or None (then ``known`` partitions are the universe);
    ``before``: the previous generation's assignment when it was seen (generation - 1), else None; ``verdict``:
    :func:`codec.assignor.consumer.wire.check_generation`'s, for ``not-the-assignors-assignment``."""
    if not gen.members or gen.assignment is None:
        return []
    members, actual, protocol = gen.members, gen.assignment, gen.protocol
    out: list[dict[str, Any]] = []
    holder: dict[TP, list[str]] = {}
    for mid, tps in actual.items():
        for tp in tps:
            if mid not in holder.setdefault(tp, []):
                holder[tp].append(mid)
    for tp, ids in sorted(holder.items()):
        if len(ids) > 1:
            out.append(_finding("partition-owned-twice", "error", gen, f"given to {', '.join(ids)}", partition=_tp(tp)))
    claims = valid_owners(members)
    cooperative = protocol in COOPERATIVE
    subscribed = {t for m in members for t in m.topics}
    universe = (
        {(t, p) for t in subscribed for p in range(topics.get(t, 0))}
        if topics is not None
        else {tp for tp in known if tp[0] in subscribed}
    )
    for tp in sorted(universe - set(holder)):
        if cooperative and tp in claims:
            continue  # withheld while its owner revokes it (KIP-429)
        who = f"; {claims[tp]} owned it at the JoinGroup" if tp in claims else ""
        out.append(
            _finding("partition-unowned", "error", gen, f"subscribed but given to nobody{who}", partition=_tp(tp))
        )
    if protocol in EAGER:
        for m in members:
            for tp in m.owned:
                to = [x for x in holder.get(tp, []) if x != m.member_id]
                if to:
                    out.append(
                        _finding(
                            "eager-move-without-revocation",
                            "error",
                            gen,
                            f"{m.member_id} still owned it at the JoinGroup ({protocol} is eager: a member revokes "
                            f"everything before joining) and {', '.join(to)} was given it",
                            partition=_tp(tp),
                            member=m.member_id,
                        )
                    )
    if cooperative:
        owner: dict[TP, tuple[str, str]] = {}
        for tp, mid in claims.items():
            owner[tp] = (mid, "owned it at the JoinGroup")
        subscribed_by = {m.member_id: set(m.topics) for m in members}
        for mid, tps in (before or {}).items():
            for tp in tps:
                # still a member, still subscribed to the topic: it holds the partition until told to revoke it (a
                # topic it left it revoked before joining: ConsumerCoordinator.onJoinPrepare, cooperative)
                if tp[0] in subscribed_by.get(mid, ()):
                    owner.setdefault(tp, (mid, f"was given it in generation {gen.generation - 1}"))
        for tp, (mid, how) in sorted(owner.items()):
            to = [x for x in holder.get(tp, []) if x != mid]
            if to:
                out.append(
                    _finding(
                        "cooperative-one-step-move",
                        "error",
                        gen,
                        f"{mid} {how} and {', '.join(to)} was given it in the same generation (cooperative: the "
                        "owner revokes it first and a later rebalance gives it out)",
                        partition=_tp(tp),
                        member=mid,
                    )
                )
    if verdict is not None and verdict.get("checked") and verdict.get("matches") is False:
        parts = []
        for d in verdict["differences"]:
            bits = [f"{k} {_items(d[k])}" for k in ("missing", "extra") if k in d]
            parts.append(f"{d['memberId']}: {'; '.join(bits)}")
        out.append(
            _finding(
                "not-the-assignors-assignment",
                "warning",
                gen,
                f"not what Kafka's {verdict['assignor']} gives: " + " | ".join(parts),
                assignor=verdict["assignor"],
            )
        )
    return out


def _items(by_topic: dict[str, list[int]]) -> str:
    return ", ".join(f"{t}-{p}" for t, ps in by_topic.items() for p in ps)


def group_findings(
    gens: list[Generation], topics: dict[str, int] | None, verdicts: dict | None = None
) -> dict[tuple[str, int], list[dict[str, Any]]]:
    """Every generation's findings (``gens`` in the order they formed); ``verdicts``: (group, generation) ->
    ``check_generation``'s verdict. Without ``topics``, a group's partitions are those it is seen to hold or claim in
    any generation."""
    known: dict[str, set[TP]] = {}
    for g in gens:
        k = known.setdefault(g.group, set())
        for m in g.members or ():
            k.update(m.owned)
        for tps in (g.assignment or {}).values():
            k.update(tps)
    seen = {(g.group, g.generation): g.assignment for g in gens if g.assignment is not None}
    return {
        (g.group, g.generation): generation_findings(
            g,
            topics=topics,
            known=known.get(g.group, set()),
            before=seen.get((g.group, g.generation - 1)),
            verdict=(verdicts or {}).get((g.group, g.generation)),
        )
        for g in gens
    }


def decoded(gen: Any, protocol: str | None, member: Callable, partitions: Callable) -> Generation:
    """A :class:`Generation` of a captured one (``codec.assignor.consumer.wire.CapturedGeneration``), its bytes read
    with ``member`` (id, instance id, subscription bytes -> ConsumerMember) and ``partitions`` (assignment bytes ->
    its partitions); what does not read is left None."""
    members: list[ConsumerMember] | None = None
    assignment: dict[str, list[TP]] | None = None
    try:
        members = [member(mid, inst, raw) for mid, inst, raw in gen.members] or None
    except (CodecError, AssignmentError):  # bytes that do not read leave the generation unjudged
        members = None
    try:
        if gen.assignments is not None:
            assignment = {m: partitions(raw) for m, raw in gen.assignments.items()}
    except CodecError:
        assignment = None
    return Generation(gen.group, gen.generation, protocol, members, assignment)
