"""The classic group protocol's scenarios: joining, errors on every group API, rediscovery, lost and late
answers, heartbeats. (Assignment, revocation, static membership and leaving: :mod:`.scenarios_members`.)

Where Kafka shows each rule: ``AbstractCoordinator.java`` and ``ConsumerCoordinator.java`` in
``clients/src/main/java/org/apache/kafka/clients/consumer/internals/``, and the coordinator's
``GroupMetadataManager.java`` in ``group-coordinator/src/main/java/org/apache/kafka/coordinator/group/`` (Kafka's
4.4 branch)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .classic import ClassicGroup
from .scenario import Incomplete, Scenario, Verdict, fail, ok, parts, skip, until
from .steps import first_after, name, stable

if TYPE_CHECKING:
    from .runner import Run

__all__ = ["SCENARIOS"]

AC = "AbstractCoordinator.java"
CC = "ConsumerCoordinator.java"
GMM = "GroupMetadataManager.java"

UNKNOWN_MEMBER_ID, ILLEGAL_GENERATION, REBALANCE_IN_PROGRESS = 25, 22, 27
NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE, COORDINATOR_LOAD_IN_PROGRESS = 16, 15, 14


def faulty(run: Run) -> ClassicGroup:
    s = run.scenario
    g = ClassicGroup(run.trace, run.group_id, s.topics)
    return g


def _member_id(run: Run) -> str:
    m = run.group.member()
    return m.member_id if m else ""


# --- a plain join -------------------------------------------------------------------------------------------


async def _play_join(run: Run) -> None:
    t = await stable(run, 20)
    await until(run.trace, lambda: len(run.trace.of("Heartbeat", after=t)) >= 2, 5, "two more heartbeats")


def _judge_join(run: Run) -> Verdict:
    trace, topics = run.trace, set(run.scenario.topics)
    joins = [r for r in trace.of("JoinGroup") if not r.error]
    if not joins:
        return fail("no JoinGroup was accepted")
    j = joins[-1]
    if j.body.get("protocolType") != "consumer":
        return fail(f"{j.short()} has protocolType {j.body.get('protocolType')!r}; expected 'consumer'")
    sub = j.extra.get("subscription")
    if sub is None:
        return fail(f"{j.short()}: {j.extra.get('subscription_error', 'no subscription')}")
    if set(sub.get("topics", [])) != topics:
        return fail(f"{j.short()} subscribes to {sorted(sub.get('topics', []))}; expected {sorted(topics)}")
    syncs = [r for r in trace.of("SyncGroup") if not r.error and "assignments" in r.extra]
    if not syncs:
        return fail("the leader's SyncGroup carried no assignment")
    every = sorted(run.group.all_partitions())
    given = sorted(tuple(tp) for tps in syncs[-1].extra["assignments"].values() for tp in tps)
    if given != every:
        return fail(f"the leader assigned {given}; expected every partition once: {every}")
    mine = parts(syncs[-1].extra.get("given"))
    assigned = trace.events("assigned", after=syncs[-1].t)
    if not assigned or parts(assigned[0].event.get("partitions")) != mine:
        got = parts(assigned[0].event.get("partitions")) if assigned else "no assigned line"
        return fail(f"after {syncs[-1].short()} the client reported {got}; the coordinator gave {mine}")
    gen, member = syncs[-1].body.get("generationId"), syncs[-1].body.get("memberId")
    for h in trace.of("Heartbeat", after=syncs[-1].t):
        if h.body.get("generationId") != gen or h.body.get("memberId") != member:
            return fail(f"{h.short()} after {syncs[-1].short()}: expected generation {gen} and member {member!r}")
    return ok(f"joined in generation {gen}, assigned {len(mine)} partitions, heartbeats in that generation")


JOIN = Scenario(
    "join",
    "a plain join: subscribe, join, sync, heartbeat",
    "A consumer joins with protocol type 'consumer' and a ConsumerProtocol subscription of its topics; as the "
    "group's only member it leads, assigns every partition of its topics exactly once, reports the partitions "
    "the coordinator gave it, and heartbeats with the generation and member id of its join.",
    (
        f"{AC}: joinGroupIfNeeded, sendJoinGroupRequest",
        f"{CC}: onLeaderElected, onJoinComplete",
        f"{GMM}: classicGroupJoin",
    ),
    play=_play_join,
    judge=_judge_join,
    group=faulty,
)


# --- KIP-394 -------------------------------------------------------------------------------------------------


def _judge_member_id_required(run: Run) -> Verdict:
    first = next((r for r in run.trace.of("JoinGroup") if r.error == 79), None)
    if first is None:
        v = run.trace.of("JoinGroup")
        if v and v[0].version < 4:
            return skip(f"the client joins with JoinGroup v{v[0].version}, before MEMBER_ID_REQUIRED (v4, KIP-394)")
        return fail("no JoinGroup was answered MEMBER_ID_REQUIRED (the client never joined with an empty id)")
    given = first.extra.get("given_id", "")
    nxt = first_after(run.trace, ("JoinGroup",), first.t)
    if nxt is None:
        return fail(f"no JoinGroup after {first.short()} answered MEMBER_ID_REQUIRED")
    if nxt.body.get("memberId") != given:
        return fail(f"{nxt.short()} after MEMBER_ID_REQUIRED: expected memberId {given!r}, the id the coordinator gave")
    return ok(f"rejoined with the member id the coordinator gave ({given})")


async def _play_member_id_required(run: Run) -> None:
    await stable(run, 20)


MEMBER_ID_REQUIRED = Scenario(
    "member-id-required",
    "MEMBER_ID_REQUIRED: rejoin with the id the coordinator gave (KIP-394)",
    "From JoinGroup v4 a dynamic member joining with an empty member id is answered MEMBER_ID_REQUIRED with a "
    "member id; its next JoinGroup must carry that id (an empty one again would be given another id, and the "
    "group would fill with members that never join).",
    (f"{AC}: JoinGroupResponseHandler.handle (MEMBER_ID_REQUIRED)", f"{GMM}: classicGroupJoinNewDynamicMember"),
    play=_play_member_id_required,
    judge=_judge_member_id_required,
)


# --- errors answered to a stable member ----------------------------------------------------------------------


def _error_scenario(
    slug: str,
    api: str,
    error: int,
    *,
    keeps_id: bool,
    rediscovers: bool,
    rejoins: bool,
    java: tuple[str, ...],
    why: str,
    seeded: tuple[str, ...] = (),
) -> Scenario:
    """A stable member's next ``api`` request is answered ``error``; the rule: what it does next."""

    async def play(run: Run) -> None:
        g, faults = run.group, run.group.faults
        t0 = await stable(run, 20)
        member = _member_id(run)

        def then() -> None:
            if error == UNKNOWN_MEMBER_ID:
                g.members.pop(member, None)
            elif error == ILLEGAL_GENERATION:
                g.generation += 1
                g.rebalancing = False
            elif error == REBALANCE_IN_PROGRESS:
                g.rebalancing = True
            elif rediscovers:
                faults.moved = error

        if api == "SyncGroup" or api == "JoinGroup":
            g.begin_rebalance()
            faults.arm(api, error, then=then, when=lambda req: req.get("memberId") == member or api == "JoinGroup")
        else:
            faults.arm(api, error, then=then)
        hit = await until(run.trace, lambda: faults.hits, 15, f"a {api} to answer {name(error)}")
        t_err = hit[0][1].t
        if rediscovers:
            found = await run.trace.wait_for(lambda: first_after(run.trace, ("FindCoordinator",), t_err), 8)
            if not found:
                raise Incomplete(
                    f"after {hit[0][1].short()} answered {name(error)} the client never asked FindCoordinator "
                    f"({len(faults.refused)} more group requests to the broker that no longer coordinates the group)"
                )
            t_err = found.t
        if rejoins:
            await stable(run, 15, after=t_err)
        else:
            trace = run.trace
            await until(
                trace,
                lambda: [r for r in trace.of("Heartbeat", after=t_err) if not r.error and r.answered is not None],
                15,
                "a heartbeat the coordinator accepts, after the error",
            )
        del t0

    def judge(run: Run) -> Verdict:
        faults = run.group.faults
        if not faults.hits:
            return fail(f"no {api} was answered {name(error)}")
        err = faults.hits[0][1]
        before = err.body.get("memberId", "")
        fc = None
        if rediscovers:
            fc = first_after(run.trace, ("FindCoordinator",), err.t)
            if fc is None:
                again = faults.refused
                return fail(
                    f"after {err.short()} answered {name(error)} the client never asked FindCoordinator; it sent "
                    f"{len(again)} more group requests to the broker that no longer coordinates the group"
                )
            limit = run.config.session_timeout_ms / 1000
            if fc.t - err.t > limit:
                return fail(
                    f"the client asked FindCoordinator {fc.t - err.t:.2f} s after {name(error)}: its session "
                    f"({limit:g} s) ran out first"
                )
        since = fc.t if fc is not None else err.t  # (what it sent the old coordinator meanwhile was refused)
        nxt = first_after(run.trace, ("JoinGroup",), since)
        if rejoins:
            if nxt is None:
                return fail(f"after {err.short()} answered {name(error)} the client never sent a JoinGroup")
            limit = run.config.rebalance_timeout_ms / 1000
            if nxt.t - err.t > limit:
                return fail(
                    f"{nxt.short()} came {nxt.t - err.t:.2f} s after {name(error)}: later than the rebalance "
                    f"timeout ({limit:g} s)"
                )
            got = nxt.body.get("memberId", "")
            if keeps_id and got != before:
                return fail(
                    f"{nxt.short()} after {err.short()} answered {name(error)}: expected memberId {before!r} "
                    f"(kept), got {got!r}"
                )
            if not keeps_id and got:
                return fail(
                    f"{nxt.short()} after {err.short()} answered {name(error)}: expected an empty memberId "
                    f"(reset), got {got!r}"
                )
            return ok(f"rejoined {nxt.t - err.t:.2f} s after {name(error)} with memberId {got!r}")
        beat = first_after(run.trace, ("Heartbeat",), since)
        if nxt is not None and (beat is None or nxt.t < beat.t) and nxt.body.get("memberId") != before:
            return fail(
                f"after {name(error)} the client rejoined with memberId {nxt.body.get('memberId')!r}: its "
                f"membership ({before!r}) was still good"
            )
        if beat is None and nxt is None:
            return fail(f"after {err.short()} answered {name(error)} the client sent no Heartbeat or JoinGroup")
        went = beat if beat is not None else nxt
        assert went is not None
        return ok(
            f"found the coordinator again ({len(faults.refused)} requests refused meanwhile), went on: {went.short()}"
        )

    what = "rejoin" if rejoins else "go on"
    return Scenario(
        slug,
        f"{name(error)} on {api}: {'rediscover, then ' if rediscovers else ''}{what}"
        + (f" {'keeping' if keeps_id else 'resetting'} the member id" if rejoins else ""),
        why,
        java,
        play=play,
        judge=judge,
        group=faulty,
        seeded=seeded,
    )


HEARTBEAT_REBALANCE = _error_scenario(
    "heartbeat-rebalance-in-progress",
    "Heartbeat",
    REBALANCE_IN_PROGRESS,
    keeps_id=True,
    rediscovers=False,
    rejoins=True,
    java=(
        f"{AC}: HeartbeatResponseHandler.handle (REBALANCE_IN_PROGRESS: requestRejoin)",
        f"{GMM}: classicGroupHeartbeat",
    ),
    why="A heartbeat answered REBALANCE_IN_PROGRESS means the group is rebalancing: the member rejoins within its "
    "rebalance timeout, keeping its member id (aiokafka PR #747: a client that reset its member id and generation "
    "here rebalanced for ever).",
    seeded=("ignore-rebalance-in-progress", "reset-member-id"),
)
HEARTBEAT_UNKNOWN = _error_scenario(
    "heartbeat-unknown-member",
    "Heartbeat",
    UNKNOWN_MEMBER_ID,
    keeps_id=False,
    rediscovers=False,
    rejoins=True,
    java=(f"{AC}: HeartbeatResponseHandler.handle (resetStateOnResponseError, shouldResetMemberId)",),
    why="UNKNOWN_MEMBER_ID on a heartbeat: the coordinator no longer knows the member; it rejoins with an empty "
    "member id (its old id would be refused again).",
    seeded=("keep-member-id",),
)
HEARTBEAT_ILLEGAL = _error_scenario(
    "heartbeat-illegal-generation",
    "Heartbeat",
    ILLEGAL_GENERATION,
    keeps_id=True,
    rediscovers=False,
    rejoins=True,
    java=(f"{AC}: HeartbeatResponseHandler.handle (ILLEGAL_GENERATION keeps the member id)",),
    why="ILLEGAL_GENERATION on a heartbeat: the group went on to another generation; the member rejoins keeping "
    "its member id, which is still valid (resetting it leaves the old member in the group until its session "
    "times out, and costs another rebalance).",
)
SYNC_UNKNOWN = _error_scenario(
    "sync-unknown-member",
    "SyncGroup",
    UNKNOWN_MEMBER_ID,
    keeps_id=False,
    rediscovers=False,
    rejoins=True,
    java=(f"{AC}: SyncGroupResponseHandler.handle (UNKNOWN_MEMBER_ID: reset the member id)",),
    why="UNKNOWN_MEMBER_ID on SyncGroup: the member rejoins with an empty member id (librdkafka#3866: a client "
    "that went Join, Sync, SyncError in a loop).",
    seeded=("keep-member-id",),
)
SYNC_ILLEGAL = _error_scenario(
    "sync-illegal-generation",
    "SyncGroup",
    ILLEGAL_GENERATION,
    keeps_id=True,
    rediscovers=False,
    rejoins=True,
    java=(f"{AC}: SyncGroupResponseHandler.handle (ILLEGAL_GENERATION keeps the member id)",),
    why="ILLEGAL_GENERATION on SyncGroup: the member rejoins keeping its member id.",
)
SYNC_REBALANCE = _error_scenario(
    "sync-rebalance-in-progress",
    "SyncGroup",
    REBALANCE_IN_PROGRESS,
    keeps_id=True,
    rediscovers=False,
    rejoins=True,
    java=(f"{AC}: SyncGroupResponseHandler.handle (REBALANCE_IN_PROGRESS)", f"{AC}: joinGroupIfNeeded"),
    why="REBALANCE_IN_PROGRESS on SyncGroup: another rebalance began; the member rejoins keeping its member id.",
    seeded=("ignore-rebalance-in-progress",),
)
JOIN_UNKNOWN = _error_scenario(
    "join-unknown-member",
    "JoinGroup",
    UNKNOWN_MEMBER_ID,
    keeps_id=False,
    rediscovers=False,
    rejoins=True,
    java=(f"{AC}: JoinGroupResponseHandler.handle (UNKNOWN_MEMBER_ID: reset the member id)",),
    why="UNKNOWN_MEMBER_ID on JoinGroup: the member joins again with an empty member id.",
    seeded=("keep-member-id",),
)
JOIN_LOADING = _error_scenario(
    "join-coordinator-loading",
    "JoinGroup",
    COORDINATOR_LOAD_IN_PROGRESS,
    keeps_id=True,
    rediscovers=False,
    rejoins=True,
    java=(f"{AC}: JoinGroupResponseHandler.handle (COORDINATOR_LOAD_IN_PROGRESS: back off and retry)",),
    why="COORDINATOR_LOAD_IN_PROGRESS on JoinGroup: the coordinator is loading the group; the member retries the "
    "JoinGroup with the same member id.",
)
JOIN_NOT_COORDINATOR = _error_scenario(
    "join-not-coordinator",
    "JoinGroup",
    NOT_COORDINATOR,
    keeps_id=True,
    rediscovers=True,
    rejoins=True,
    java=(f"{AC}: JoinGroupResponseHandler.handle (markCoordinatorUnknown)", f"{AC}: ensureCoordinatorReady"),
    why="NOT_COORDINATOR on JoinGroup: the group moved; the member finds the coordinator again (FindCoordinator) "
    "before it rejoins, with the same member id.",
)
SYNC_NOT_COORDINATOR = _error_scenario(
    "sync-not-coordinator",
    "SyncGroup",
    NOT_COORDINATOR,
    keeps_id=True,
    rediscovers=True,
    rejoins=True,
    java=(f"{AC}: SyncGroupResponseHandler.handle (markCoordinatorUnknown)",),
    why="NOT_COORDINATOR on SyncGroup: the member finds the coordinator again, then rejoins with the same member id.",
)
HEARTBEAT_NOT_COORDINATOR = _error_scenario(
    "heartbeat-not-coordinator",
    "Heartbeat",
    NOT_COORDINATOR,
    keeps_id=True,
    rediscovers=True,
    rejoins=False,
    java=(f"{AC}: HeartbeatResponseHandler.handle (markCoordinatorUnknown)", f"{AC}: HeartbeatThread.run"),
    why="NOT_COORDINATOR on a heartbeat: the member finds the coordinator again before its next group request; "
    "its membership still holds (it goes on heartbeating, or rejoins with the same member id).",
)
HEARTBEAT_NOT_AVAILABLE = _error_scenario(
    "heartbeat-coordinator-not-available",
    "Heartbeat",
    COORDINATOR_NOT_AVAILABLE,
    keeps_id=True,
    rediscovers=True,
    rejoins=False,
    java=(f"{AC}: HeartbeatResponseHandler.handle (COORDINATOR_NOT_AVAILABLE: markCoordinatorUnknown)",),
    why="COORDINATOR_NOT_AVAILABLE on a heartbeat: as NOT_COORDINATOR, the member finds the coordinator again "
    "first; its membership still holds.",
)


# --- FindCoordinator -----------------------------------------------------------------------------------------


async def _play_find_unavailable(run: Run) -> None:
    faults = run.group.faults
    for _ in range(2):
        faults.arm("FindCoordinator", COORDINATOR_NOT_AVAILABLE)
    await stable(run, 20)


def _judge_find_unavailable(run: Run) -> Verdict:
    fcs = run.trace.of("FindCoordinator")
    errs = [r for r in fcs if r.error == COORDINATOR_NOT_AVAILABLE]
    if len(errs) < 2:
        return fail(f"{len(errs)} FindCoordinator answered COORDINATOR_NOT_AVAILABLE; the scenario needs 2")
    join = first_after(run.trace, ("JoinGroup",), -1)
    good = [r for r in fcs if not r.error]
    if not good or join is None or join.t < good[0].t:
        return fail("the client sent a JoinGroup before a FindCoordinator was answered with a coordinator")
    gaps = [b.t - a.t for a, b in zip(errs, errs[1:] + good[:1])]
    if min(gaps) < 0.01:
        return fail(f"FindCoordinator retried {min(gaps) * 1000:.0f} ms after COORDINATOR_NOT_AVAILABLE: no back-off")
    return ok(f"retried FindCoordinator {len(errs)} times, {min(gaps) * 1000:.0f} ms apart at least, then joined")


FIND_UNAVAILABLE = Scenario(
    "find-coordinator-not-available",
    "COORDINATOR_NOT_AVAILABLE on FindCoordinator: back off, ask again, then join",
    "While no coordinator is available the consumer asks FindCoordinator again, after a back-off, and joins only "
    "once a coordinator is named.",
    (f"{AC}: FindCoordinatorResponseHandler.onSuccess", f"{AC}: ensureCoordinatorReady (retryBackoffMs)"),
    play=_play_find_unavailable,
    judge=_judge_find_unavailable,
    group=faulty,
)


# --- lost and late answers -----------------------------------------------------------------------------------


def _held(slug: str, api: str, *, drop: bool, java: tuple[str, ...], why: str) -> Scenario:
    async def play(run: Run) -> None:
        g, faults = run.group, run.group.faults
        await stable(run, 20)
        member = _member_id(run)
        hold = 0.0 if drop else (run.config.rebalance_timeout_ms / 1000) * (0.6 if api == "JoinGroup" else 0.3)
        g.begin_rebalance()
        faults.arm(api, 0, when=lambda req: req.get("memberId") == member, delay=hold, drop=drop)
        hit = await until(run.trace, lambda: faults.hits, 15, f"a {api} to {'lose' if drop else 'hold'}")
        t = hit[0][1].t
        if drop:
            limit = run.config.rebalance_timeout_ms / 1000
            got = await run.trace.wait_for(lambda: first_after(run.trace, ("JoinGroup", api), t), limit + 1)
            if not got:
                raise Incomplete(
                    f"after the answer to {hit[0][1].short()} was lost the client sent neither a JoinGroup nor the "
                    f"{api} again within the rebalance timeout ({limit:g} s): it waits for an answer that will not "
                    "come (Kafka's coordinator removes a member that has not synced within the rebalance timeout)"
                )
        await stable(run, 20 + hold, after=t - 0.001)

    def judge(run: Run) -> Verdict:
        faults = run.group.faults
        if not faults.hits:
            return fail(f"no {api} came to {'lose' if drop else 'hold'}")
        held = faults.hits[0][1]
        if drop:
            nxt = first_after(run.trace, ("JoinGroup", api), held.t)
            if nxt is None:
                return fail(
                    f"after the answer to {held.short()} was lost (the connection closed) the client never joined again"
                )
            if nxt.api == "SyncGroup" and nxt.body.get("generationId") != held.body.get("generationId"):
                return fail(f"{nxt.short()} retried the lost SyncGroup in another generation")
            if nxt.body.get("memberId") != held.body.get("memberId"):
                return fail(
                    f"{nxt.short()} after a lost {api} answer: expected memberId "
                    f"{held.body.get('memberId')!r} (kept: the membership still holds)"
                )
            how = "joined again" if nxt.api == "JoinGroup" else "sent the SyncGroup again"
            return ok(f"{how} {nxt.t - held.t:.2f} s after the lost answer, keeping its member id")
        again = [r for r in run.trace.of(api, "JoinGroup", after=held.t) if held.answered and r.t < held.answered]
        gone = [n for n in run.trace.notes_of("disconnect") if n.conn == held.conn and n.t < (held.answered or 1e9)]
        if gone:
            return fail(
                f"the client closed the connection {gone[0].t - held.t:.2f} s into a {api} answer held "
                f"{(held.answered or 0) - held.t:.2f} s (within its rebalance timeout)"
            )
        if again:
            return fail(f"{again[0].short()} while the answer to {held.short()} was still coming")
        return ok(f"waited {(held.answered or 0) - held.t:.2f} s for the {api} answer and went on")

    return Scenario(
        slug,
        f"a {'lost' if drop else 'late'} {api} answer",
        why,
        java,
        play=play,
        judge=judge,
        group=faulty,
        bound=40.0,
    )


JOIN_LOST = _held(
    "join-response-lost",
    "JoinGroup",
    drop=True,
    java=(f"{AC}: joinGroupIfNeeded (a failed join future is retried)", f"{AC}: CoordinatorResponseHandler.onFailure"),
    why="The coordinator's connection closes before it answers a JoinGroup: the member reconnects and joins again "
    "with the same member id (the request failed; the membership did not).",
)
JOIN_LATE = _held(
    "join-response-late",
    "JoinGroup",
    drop=False,
    java=(f"{AC}: sendJoinGroupRequest (joinGroupTimeoutMs = rebalance timeout + 5 s)", f"{GMM}: classicGroupJoin"),
    why="A JoinGroup is answered when the group's rebalance completes, up to the rebalance timeout later: the "
    "member waits for it (its request timeout for a JoinGroup is the rebalance timeout and more) and neither "
    "sends it again nor drops the connection.",
)
SYNC_LOST = _held(
    "sync-response-lost",
    "SyncGroup",
    drop=True,
    java=(f"{AC}: joinGroupIfNeeded", f"{AC}: CoordinatorResponseHandler.onFailure (markCoordinatorUnknown)"),
    why="The connection closes before a SyncGroup is answered: the member does not wait for an answer that will not "
    "come; it joins again (a new JoinGroup, same member id, as Kafka's Java consumer does) or sends the SyncGroup "
    "again in the same generation (which the coordinator answers as long as the generation stands).",
)
SYNC_LATE = _held(
    "sync-response-late",
    "SyncGroup",
    drop=False,
    java=(f"{AC}: sendSyncGroupRequest", f"{GMM}: classicGroupSync (the answer waits for the leader's assignment)"),
    why="A follower's SyncGroup is answered only when the leader's assignment arrives: the member waits for it, "
    "without sending it again or dropping the connection.",
)


# --- heartbeats and timeouts ---------------------------------------------------------------------------------


async def _play_cadence(run: Run) -> None:
    t = await stable(run, 20)
    await run.trace.wait_for(lambda: False, 3.0)
    del t


def _judge_cadence(run: Run) -> Verdict:
    c = run.config
    syncs = [r for r in run.trace.of("SyncGroup") if not r.error and r.answered is not None]
    if not syncs:
        return fail("no SyncGroup was answered")
    start = syncs[-1].answered or syncs[-1].t
    beats = [r.t for r in run.trace.of("Heartbeat", after=start)]
    if len(beats) < 3:
        return fail(
            f"{len(beats)} heartbeats in the {run.trace.now() - start:.1f} s after the join; expected one "
            f"every {c.heartbeat_interval_ms} ms"
        )
    gaps = [b - a for a, b in zip([start] + beats, beats)]
    worst = max(gaps)
    if worst * 1000 > c.session_timeout_ms:
        return fail(
            f"a {worst:.2f} s gap between heartbeats: longer than the session timeout ({c.session_timeout_ms} ms)"
        )
    mean = sum(gaps[1:]) / len(gaps[1:])
    # not faster than half the interval (no flood); on average well within the session timeout: a third of it,
    # Kafka's guidance for heartbeat.interval.ms (a loaded machine stretches the interval, never to that)
    lo, hi = c.heartbeat_interval_ms / 2000, c.session_timeout_ms / 3000
    if not lo <= mean <= hi:
        return fail(
            f"heartbeats every {mean * 1000:.0f} ms on average; expected about the heartbeat interval "
            f"({c.heartbeat_interval_ms} ms), at least half of it and at most a third of the session timeout "
            f"({hi * 1000:.0f} ms)"
        )
    return ok(f"{len(beats)} heartbeats, {mean * 1000:.0f} ms apart on average, the longest gap {worst * 1000:.0f} ms")


CADENCE = Scenario(
    "heartbeat-cadence",
    "heartbeats every heartbeat interval, well within the session timeout",
    "A stable member heartbeats about every heartbeat.interval.ms (the driver's REBALANCE_HEARTBEAT_INTERVAL_MS), "
    "never leaving a gap as long as its session timeout, after which the coordinator would remove it.",
    (f"{AC}: HeartbeatThread.run", "Heartbeat.java: timeToNextHeartbeat", f"{GMM}: classicGroupHeartbeat"),
    play=_play_cadence,
    judge=_judge_cadence,
    seeded=("stop-heartbeating",),
)


def _judge_timeouts(run: Run) -> Verdict:
    c = run.config
    joins = run.trace.of("JoinGroup")
    if not joins:
        return fail("no JoinGroup")
    for j in joins:
        if j.body.get("sessionTimeoutMs") != c.session_timeout_ms:
            return fail(
                f"{j.short()} has sessionTimeoutMs {j.body.get('sessionTimeoutMs')}; the driver was given "
                f"{c.session_timeout_ms}"
            )
        if j.version >= 1 and j.body.get("rebalanceTimeoutMs") != c.rebalance_timeout_ms:
            return fail(
                f"{j.short()} has rebalanceTimeoutMs {j.body.get('rebalanceTimeoutMs')}; the driver was "
                f"given {c.rebalance_timeout_ms} (max.poll.interval.ms)"
            )
    return ok(
        f"sessionTimeoutMs {c.session_timeout_ms} and rebalanceTimeoutMs {c.rebalance_timeout_ms} in "
        f"{len(joins)} JoinGroups"
    )


TIMEOUTS = Scenario(
    "join-timeouts",
    "JoinGroup carries the session and rebalance timeouts configured",
    "The JoinGroup says the member's session timeout (session.timeout.ms) and, from v1, its rebalance timeout "
    "(max.poll.interval.ms): the coordinator removes the member after the one and waits for it in a rebalance up "
    "to the other.",
    (f"{AC}: sendJoinGroupRequest (setSessionTimeoutMs, setRebalanceTimeoutMs)", f"{GMM}: classicGroupJoin"),
    play=_play_member_id_required,
    judge=_judge_timeouts,
)


SCENARIOS = [
    JOIN,
    MEMBER_ID_REQUIRED,
    TIMEOUTS,
    CADENCE,
    HEARTBEAT_REBALANCE,
    HEARTBEAT_UNKNOWN,
    HEARTBEAT_ILLEGAL,
    SYNC_UNKNOWN,
    SYNC_ILLEGAL,
    SYNC_REBALANCE,
    JOIN_UNKNOWN,
    JOIN_LOADING,
    JOIN_NOT_COORDINATOR,
    SYNC_NOT_COORDINATOR,
    HEARTBEAT_NOT_COORDINATOR,
    HEARTBEAT_NOT_AVAILABLE,
    FIND_UNAVAILABLE,
    JOIN_LOST,
    JOIN_LATE,
    SYNC_LOST,
    SYNC_LATE,
]
