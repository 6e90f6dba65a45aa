"""The classic group protocol's scenarios about what a member owns: eager revocation, cooperative rebalancing
(owned partitions, the follow-up rebalance, a leader that never gives a partition to two members), static
membership and leaving the group. Where Kafka shows each rule: as in :mod:`.scenarios_classic`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .classic import ClassicGroup, Scripted, owned_of
from .scenario import Scenario, Verdict, fail, ok, parts, skip, until
from .scenarios_classic import AC, CC, faulty
from .steps import first_after, stable
from .trace import Request

if TYPE_CHECKING:
    from .runner import Run

__all__ = ["SCENARIOS"]

ASSIGNOR = "AbstractStickyAssignor.java / CooperativeStickyAssignor.java"


def _assigned_before(run: Run, t: float) -> list[tuple[str, int]]:
    """What the client owned just before ``t``: its assigned and revoked lines so far, applied in order."""
    owned: set[tuple[str, int]] = set()
    for e in run.trace.lines:
        if e.t >= t:
            break
        kind = e.event.get("event")
        ps = set(parts(e.event.get("partitions")))
        if kind == "assigned":
            owned = owned | ps if "cooperative" in run.scenario.needs else ps
        elif kind in ("revoked", "lost"):
            owned -= ps
    return sorted(owned)


async def _rebalance_once(run: Run) -> float:
    """Stable, then a rebalance: returns the time of the JoinGroup that answers it."""
    t = await stable(run, 20)
    run.group.begin_rebalance()
    j = await until(
        run.trace, lambda: first_after(run.trace, ("JoinGroup",), t), 15, "a JoinGroup after the rebalance began"
    )
    await stable(run, 15, after=j.t)
    return j.t


def _rejoin(run: Run) -> tuple[float, Request, list[tuple[str, int]]] | Verdict:
    """(when the rebalance was told, the JoinGroup that answered it, what the client owned then)."""
    beats = [r for r in run.trace.of("Heartbeat") if r.error == 27]
    if not beats:
        return fail("no heartbeat was answered REBALANCE_IN_PROGRESS")
    j = first_after(run.trace, ("JoinGroup",), beats[0].t)
    if j is None:
        return fail("no JoinGroup after REBALANCE_IN_PROGRESS")
    return beats[0].t, j, _assigned_before(run, beats[0].t)


# --- eager ---------------------------------------------------------------------------------------------------


async def _play_rebalance(run: Run) -> None:
    await _rebalance_once(run)


def _judge_eager_revoke(run: Run) -> Verdict:
    got = _rejoin(run)
    if isinstance(got, Verdict):
        return got
    told, j, owned = got
    if not owned:
        return fail("the client owned nothing when the rebalance began (no assigned line)")
    covering = [
        e
        for e in run.trace.events("revoked", after=told)
        if e.t <= j.t and set(owned) <= set(parts(e.event.get("partitions")))
    ]
    if not covering:
        late = run.trace.events("revoked", after=j.t)
        when = f"only {late[0].t - j.t:.3f} s after it" if late else "never"
        return fail(
            f"{j.short()} was sent before its partitions {owned} were revoked ({when}); an eager member "
            "revokes everything before it rejoins"
        )
    return ok(f"revoked its {len(owned)} partitions, then rejoined")


EAGER_REVOKE = Scenario(
    "eager-revoke-before-rejoin",
    "eager: every partition revoked before the rejoin",
    "With an eager assignor (range, roundrobin) a member gives up all its partitions when a rebalance begins: its "
    "revocation callback runs, for every partition it owns, before its JoinGroup.",
    (f"{CC}: onJoinPrepare (EAGER: invokePartitionsRevoked of every assigned partition)",),
    play=_play_rebalance,
    judge=_judge_eager_revoke,
    needs=frozenset({"classic", "eager"}),
    assignor="eager",
    seeded=("skip-revocation",),
)


def _judge_eager_owns_nothing(run: Run) -> Verdict:
    got = _rejoin(run)
    if isinstance(got, Verdict):
        return got
    j = got[1]
    sub = j.extra.get("subscription")
    if sub is None:
        return fail(f"{j.short()}: its subscription cannot be read")
    if sub.get("version", 0) < 1:
        return skip(f"the subscription is v{sub.get('version')}, which has no owned partitions")
    if owned_of(sub):
        return fail(
            f"{j.short()} (eager) says it owns {owned_of(sub)}; an eager member has revoked everything "
            "before it rejoins and owns nothing"
        )
    return ok("the eager rejoin declares no owned partitions")


EAGER_OWNS_NOTHING = Scenario(
    "eager-rejoin-owns-nothing",
    "eager: the rejoin declares no owned partitions",
    "An eager member's rejoin follows its revocation of everything: its subscription (v1+) lists no owned partitions.",
    (f"{CC}: onJoinPrepare (assignFromSubscribed of nothing)", f"{CC}: metadata (ownedPartitions)"),
    play=_play_rebalance,
    judge=_judge_eager_owns_nothing,
    needs=frozenset({"classic", "eager"}),
    assignor="eager",
)


# --- cooperative ---------------------------------------------------------------------------------------------


def _judge_coop_owned(run: Run) -> Verdict:
    got = _rejoin(run)
    if isinstance(got, Verdict):
        return got
    told, j, owned = got
    sub = j.extra.get("subscription")
    if sub is None or sub.get("version", 0) < 1:
        return fail(f"{j.short()}: a cooperative subscription is v1 or later, with owned partitions")
    if owned_of(sub) != owned:
        return fail(f"{j.short()} declares owned partitions {owned_of(sub)}; it owns {owned} (KIP-429)")
    early = [e for e in run.trace.events("revoked", after=told) if e.t <= j.t and parts(e.event.get("partitions"))]
    if early:
        return fail(
            f"the client revoked {parts(early[0].event.get('partitions'))} before rejoining: a cooperative "
            "member keeps its partitions through the rebalance"
        )
    return ok(f"rejoined declaring its {len(owned)} owned partitions, revoking none")


COOP_OWNED = Scenario(
    "cooperative-owned-partitions",
    "cooperative: the rejoin declares the partitions owned, and keeps them",
    "With the cooperative protocol (KIP-429) a member keeps its partitions when a rebalance begins: it revokes "
    "nothing, and its JoinGroup's subscription lists every partition it owns, so that the leader can move only "
    "what must move.",
    (f"{CC}: onJoinPrepare (COOPERATIVE)", f"{CC}: metadata (ownedPartitions)", ASSIGNOR),
    play=_play_rebalance,
    judge=_judge_coop_owned,
    needs=frozenset({"classic", "cooperative"}),
    assignor="cooperative",
    seeded=("drop-owned-partitions",),
)


def _scripted_leader(run: Run) -> ClassicGroup:
    """A scripted member leads: it gives the client every partition until the script takes half away."""
    g = ClassicGroup(run.trace, run.group_id, run.scenario.topics, scripted_leader=True)
    g.plan = lambda gen, every: every[: len(every) // 2] if g.shrunk else every
    return g


async def _play_follow_up(run: Run) -> None:
    g = run.group
    await stable(run, 20)
    g.shrunk = True
    g.begin_rebalance()  # the next generation takes half away; the client revokes it and rejoins by itself
    t = run.trace.now()
    sync = await until(
        run.trace,
        lambda: [r for r in run.trace.of("SyncGroup", after=t) if not r.error and r.answered is not None],
        15,
        "the SyncGroup of the generation that takes half away",
    )
    await until(run.trace, lambda: first_after(run.trace, ("JoinGroup",), sync[0].t), 10, "the follow-up JoinGroup")


def _judge_follow_up(run: Run) -> Verdict:
    flip = [n for n in run.trace.notes if n.detail == "the coordinator begins a rebalance"]
    syncs = [r for r in run.trace.of("SyncGroup", after=flip[0].t if flip else 1e9) if not r.error]
    if not syncs:
        return fail("the generation that takes half away was never synced")
    g2 = syncs[0]
    kept = parts(g2.extra.get("given"))
    every = run.group.all_partitions()
    taken = sorted(set(every) - set(kept))
    rev = [e for e in run.trace.events("revoked", after=g2.t) if parts(e.event.get("partitions"))]
    if not rev:
        return fail(
            f"generation {g2.body.get('generationId')} took {taken} away; the client never reported them revoked"
        )
    if parts(rev[0].event.get("partitions")) != taken:
        return fail(
            f"the client revoked {parts(rev[0].event.get('partitions'))}; the new generation took exactly {taken}"
        )
    j = first_after(run.trace, ("JoinGroup",), g2.t)
    if j is None:
        return fail(
            "no follow-up JoinGroup after the revocation: the partitions taken away are owned by nobody "
            "until the member rejoins"
        )
    if j.t < rev[0].t:
        return fail(f"{j.short()} came before the revocation of {taken}")
    sub = j.extra.get("subscription") or {}
    if owned_of(sub) != kept:
        return fail(f"the follow-up {j.short()} declares owned {owned_of(sub)}; after revoking {taken} it owns {kept}")
    return ok(f"revoked {len(taken)} partitions, then rejoined at once owning {len(kept)}")


COOP_FOLLOW_UP = Scenario(
    "cooperative-revoke-then-rejoin",
    "cooperative: revoke what the new assignment took away, then rejoin at once",
    "When a cooperative assignment takes partitions away, the member revokes exactly those (keeping the rest) and "
    "rejoins straight away, declaring what it still owns: the follow-up rebalance in which the leader hands the "
    "freed partitions to their new owners.",
    (f"{CC}: onJoinComplete (revokedPartitions: invokePartitionsRevoked, requestRejoin)",),
    play=_play_follow_up,
    judge=_judge_follow_up,
    needs=frozenset({"classic", "cooperative"}),
    assignor="cooperative",
    group=_scripted_leader,
    seeded=("skip-revocation",),
)


def _with_newcomer(run: Run) -> ClassicGroup:
    topics = list(run.scenario.topics)
    g = ClassicGroup(run.trace, run.group_id, run.scenario.topics, scripted=[Scripted("scripted-1", topics)])
    return g


async def _play_newcomer(run: Run) -> None:
    await stable(run, 20)
    base = run.group.generation
    run.group.scripted.append(Scripted("scripted-2", list(run.scenario.topics)))
    run.group.begin_rebalance()
    # the next generation must not move owned partitions; the follow-up after it gives scripted-2 its share
    await until(
        run.trace, lambda: run.group.generation >= base + 2 and not run.group.syncing, 20, "the follow-up generation"
    )


def _leader_syncs(run: Run) -> list:
    return [r for r in run.trace.of("SyncGroup") if not r.error and "assignments" in r.extra]


def _judge_no_double_owner(run: Run) -> Verdict:
    for s in _leader_syncs(run):
        gen = s.body.get("generationId")
        join = [j for j in run.trace.of("JoinGroup") if not j.error and j.t < s.t][-1]
        owners = {m: [tuple(tp) for tp in tps] for m, tps in join.extra.get("owners", {}).items()}
        for member, tps in s.extra["assignments"].items():
            for tp in tps:
                for other, owned in owners.items():
                    if other != member and tuple(tp) in owned:
                        return fail(
                            f"generation {gen}: the leader gave {tuple(tp)} to {member} while {other} still "
                            "owns it; it must be revoked first (the next generation may hand it over)"
                        )
    if len(_leader_syncs(run)) < 2:
        return fail("the leader synced fewer than two generations")
    return ok(f"{len(_leader_syncs(run))} generations, no partition given away from its owner within one")


COOP_NO_DOUBLE = Scenario(
    "cooperative-leader-no-double-owner",
    "cooperative leader: a partition is never given to a member while another owns it",
    "A cooperative leader assigning to a group where a new member arrived may not give the newcomer a partition "
    "another member still owns: it leaves the partition out of this generation (its owner revokes it) and hands it "
    "over in the follow-up (franz-go PR #1367: two owners of one partition).",
    (f"{CC}: validateCooperativeAssignment", f"{CC}: onLeaderElected", ASSIGNOR),
    play=_play_newcomer,
    judge=_judge_no_double_owner,
    needs=frozenset({"classic", "cooperative"}),
    assignor="cooperative",
    group=_with_newcomer,
)


def _judge_follow_up_hands_over(run: Run) -> Verdict:
    syncs = _leader_syncs(run)
    if not syncs:
        return fail("the leader never synced")
    last = syncs[-1]
    every = sorted(run.group.all_partitions())
    given = sorted(tuple(tp) for tps in last.extra["assignments"].values() for tp in tps)
    if given != every:
        return fail(f"generation {last.body.get('generationId')} assigns {given}; every partition once: {every}")
    newcomer = last.extra["assignments"].get("scripted-2", [])
    if not newcomer:
        return fail(f"generation {last.body.get('generationId')} (the follow-up) still gives the new member nothing")
    return ok(f"the follow-up gives the newcomer {len(newcomer)} partitions and every partition once")


COOP_HANDS_OVER = Scenario(
    "cooperative-follow-up-hands-over",
    "cooperative leader: the follow-up rebalance hands the revoked partitions over",
    "After a cooperative generation that left partitions out (to be revoked), the follow-up rebalance assigns "
    "every partition exactly once, the newcomer included.",
    (f"{CC}: onJoinComplete (requestRejoin after revocation)", ASSIGNOR),
    play=_play_newcomer,
    judge=_judge_follow_up_hands_over,
    needs=frozenset({"classic", "cooperative"}),
    assignor="cooperative",
    group=_with_newcomer,
)


async def _play_sync_rebalance(run: Run) -> None:
    await stable(run, 20)
    member = run.group.member().member_id
    run.group.begin_rebalance()
    run.group.faults.arm("SyncGroup", 27, when=lambda req: req.get("memberId") == member)
    hit = await until(run.trace, lambda: run.group.faults.hits, 15, "a SyncGroup to answer REBALANCE_IN_PROGRESS")
    await stable(run, 15, after=hit[0][1].t)


def _judge_sync_rebalance_owned(run: Run) -> Verdict:
    hits = run.group.faults.hits
    if not hits:
        return fail("no SyncGroup was answered REBALANCE_IN_PROGRESS")
    err = hits[0][1]
    owned = _assigned_before(run, err.t)
    j = first_after(run.trace, ("JoinGroup",), err.t)
    if j is None:
        return fail("no JoinGroup after SyncGroup's REBALANCE_IN_PROGRESS")
    sub = j.extra.get("subscription") or {}
    if owned_of(sub) != owned:
        return fail(
            f"{j.short()} after SyncGroup's REBALANCE_IN_PROGRESS declares owned {owned_of(sub)}; it still "
            f"owns {owned} (KAFKA-13891: the generation was lost, and the rebalance went round again)"
        )
    return ok(f"rejoined after SyncGroup's REBALANCE_IN_PROGRESS still declaring its {len(owned)} partitions")


COOP_SYNC_REBALANCE = Scenario(
    "cooperative-sync-rebalance-keeps-owned",
    "cooperative: REBALANCE_IN_PROGRESS on SyncGroup keeps the owned partitions",
    "A SyncGroup answered REBALANCE_IN_PROGRESS does not cost a cooperative member its partitions or its "
    "generation: the rejoin still declares what it owns (KAFKA-13891).",
    (f"{AC}: SyncGroupResponseHandler.handle (REBALANCE_IN_PROGRESS: generation kept)", f"{CC}: onJoinPrepare"),
    play=_play_sync_rebalance,
    judge=_judge_sync_rebalance_owned,
    needs=frozenset({"classic", "cooperative"}),
    assignor="cooperative",
    group=faulty,
    seeded=("drop-owned-partitions",),
)


SCENARIOS = [
    EAGER_REVOKE,
    EAGER_OWNS_NOTHING,
    COOP_OWNED,
    COOP_FOLLOW_UP,
    COOP_NO_DOUBLE,
    COOP_HANDS_OVER,
    COOP_SYNC_REBALANCE,
]
