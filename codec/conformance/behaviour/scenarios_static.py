"""The classic group protocol's scenarios of static membership (KIP-345) and of leaving the group (KIP-800's
reason). Where Kafka shows each rule: as in :mod:`.scenarios_classic`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .classic import ClassicGroup
from .scenario import Scenario, Verdict, fail, ok, parts, skip, until
from .scenarios_classic import AC, CC, GMM
from .steps import first_after, stable

if TYPE_CHECKING:
    from .runner import Run

__all__ = ["SCENARIOS"]

STATIC = frozenset({"classic", "static"})
FENCED_INSTANCE_ID = 82
WINDOW = 5.0  # seconds a fenced member is watched for a retry (its driver's exit ends it sooner)
# the first version of each group API that carries a group instance id (KIP-345)
INSTANCE_FROM = {"JoinGroup": 5, "SyncGroup": 3, "Heartbeat": 3, "OffsetCommit": 7, "LeaveGroup": 3}


async def _play_static(run: Run) -> None:
    t = await stable(run, 20)
    await until(run.trace, lambda: len(run.trace.of("Heartbeat", after=t)) >= 2, 5, "two more heartbeats")


def _judge_static_join(run: Run) -> Verdict:
    want = run.instance_id
    seen = 0
    for r in run.trace.of(*INSTANCE_FROM):
        if r.version < INSTANCE_FROM[r.api]:
            return fail(f"{r.short()} cannot carry a group instance id (from v{INSTANCE_FROM[r.api]}, KIP-345)")
        got = r.body.get("groupInstanceId")
        if r.api == "LeaveGroup":
            got = (r.body.get("members") or [{}])[0].get("groupInstanceId")
        if got != want:
            return fail(f"{r.short()} has groupInstanceId {got!r}; the driver was given {want!r}")
        seen += 1
    first = run.trace.of("JoinGroup")
    if first and first[0].error == 79:
        return fail("a static member was answered MEMBER_ID_REQUIRED: its JoinGroup carried no instance id")
    return ok(f"{seen} group requests, each with groupInstanceId {want!r}")


STATIC_JOIN = Scenario(
    "static-join",
    "static: every group request carries the group instance id",
    "A static member (group.instance.id, KIP-345) names its instance id in JoinGroup (v5+), SyncGroup, Heartbeat, "
    "LeaveGroup (v3+) and OffsetCommit (v7+): the coordinator knows it by that id across restarts.",
    (
        f"{AC}: sendJoinGroupRequest, onJoinFollower, sendHeartbeatRequest (setGroupInstanceId)",
        f"{GMM}: classicGroupJoinExistingStaticMember",
    ),
    play=_play_static,
    judge=_judge_static_join,
    needs=STATIC,
    static=True,
)


async def _play_fenced(run: Run) -> None:
    await stable(run, 20)
    g = run.group
    inst = run.instance_id

    def fenced() -> None:
        g.static.pop(inst, None)

    g.faults.arm("Heartbeat", FENCED_INSTANCE_ID, then=fenced)
    hit = await until(run.trace, lambda: g.faults.hits, 10, "a heartbeat to answer FENCED_INSTANCE_ID")
    await run.trace.wait_for(lambda: False, 3.0)
    del hit


def _judge_fenced(run: Run) -> Verdict:
    hits = run.group.faults.hits
    if not hits:
        return fail("no heartbeat was answered FENCED_INSTANCE_ID")
    err = hits[0][1]
    again = first_after(run.trace, ("JoinGroup", "SyncGroup", "Heartbeat"), err.t)
    if again is not None:
        return fail(
            f"{again.short()} after FENCED_INSTANCE_ID: another instance holds {run.instance_id!r}; a fenced "
            "static member stops (a fatal error to the application), it does not fight for the id"
        )
    errors = run.trace.events("error", after=err.t)
    said = f" (the driver reported: {str(errors[0].event.get('message'))[:80]})" if errors else ""
    return ok("stopped after FENCED_INSTANCE_ID" + said)


STATIC_FENCED = Scenario(
    "static-fenced-instance-id",
    "static: FENCED_INSTANCE_ID is fatal",
    "FENCED_INSTANCE_ID means another instance took this member's group.instance.id: the member stops and tells "
    "the application (FencedInstanceIdException from poll); it sends no further group request for that id.",
    (
        f"{AC}: HeartbeatResponseHandler.handle (FENCED_INSTANCE_ID)",
        f"{AC}: HeartbeatThread.run (failed), pollHeartbeat",
    ),
    play=_play_fenced,
    judge=_judge_fenced,
    needs=STATIC,
    static=True,
)


async def _play_join_fenced(run: Run) -> None:
    await stable(run, 20)
    g = run.group
    inst = run.instance_id
    assert inst is not None
    member = g.static.get(inst)

    def taken() -> None:  # another instance joined with this id: the coordinator replaced this member
        g.members.pop(member, None)
        g.static[inst] = f"{inst}-another"

    g.begin_rebalance()
    g.faults.arm("JoinGroup", FENCED_INSTANCE_ID, then=taken)
    hit = await until(run.trace, lambda: g.faults.hits, 15, "a rejoining JoinGroup to answer FENCED_INSTANCE_ID")
    err = hit[0][1]
    # what it does next: a fenced member stops (its driver ends), a retry is seen at once
    await run.trace.wait_for(
        lambda: (
            run.driver.proc.poll() is not None or first_after(run.trace, ("JoinGroup", "SyncGroup", "Heartbeat"), err.t)
        ),
        WINDOW,
    )


def _judge_join_fenced(run: Run) -> Verdict:
    hits = run.group.faults.hits
    if not hits:
        return fail("no JoinGroup was answered FENCED_INSTANCE_ID")
    err = hits[0][1]
    again = first_after(run.trace, ("JoinGroup", "SyncGroup", "Heartbeat"), err.t)
    if again is not None:
        return fail(
            f"{again.short()} {again.t - err.t:.2f} s after {err.short()} was answered FENCED_INSTANCE_ID: another "
            f"instance took {run.instance_id!r} while this one rejoined; a fenced static member stops (a fatal "
            "error to the application), it does not join again"
        )
    errors = run.trace.events("error", after=err.t)
    said = f" (the driver reported: {str(errors[0].event.get('message'))[:80]})" if errors else ""
    return ok("stopped after its JoinGroup was answered FENCED_INSTANCE_ID" + said)


STATIC_JOIN_FENCED = Scenario(
    "static-join-fenced-instance-id",
    "static: FENCED_INSTANCE_ID on a rejoin is fatal",
    "When another instance joins with a static member's group.instance.id while the member is rejoining, the "
    "coordinator replaces the member and answers its pending JoinGroup FENCED_INSTANCE_ID (Kafka's coordinator "
    "answers UNRELEASED_INSTANCE_ID to KIP-848's heartbeats only: consumer-unreleased-instance-id). The member "
    "stops and tells the application (FencedInstanceIdException from poll); it sends no further JoinGroup, "
    "SyncGroup or Heartbeat.",
    (
        f"{AC}: JoinGroupResponseHandler.handle (FENCED_INSTANCE_ID: always fatal on a JoinGroup)",
        f"{AC}: joinGroupIfNeeded (a non-retriable error is thrown)",
        "ClassicGroup.java: replaceStaticMember (the pending JoinGroup answered FENCED_INSTANCE_ID)",
        f"{GMM}: getOrMaybeSubscribeStaticConsumerGroupMember (throwIfInstanceIdIsUnreleased for consumer-protocol "
        "members only)",
    ),
    play=_play_join_fenced,
    judge=_judge_join_fenced,
    needs=STATIC,
    static=True,
)


def _follower(run: Run) -> ClassicGroup:
    every = [(t, p) for t, n in sorted(run.scenario.topics.items()) for p in range(n)]
    return ClassicGroup(
        run.trace, run.group_id, run.scenario.topics, scripted_leader=True, plan=lambda g, e: every[::2]
    )


async def _play_restart(run: Run) -> None:
    await stable(run, 20)
    await run.stop_driver()
    t = run.trace.now()
    run.start_driver()
    await stable(run, 25, after=t)


def _judge_restart(run: Run) -> Verdict:
    stops = [n for n in run.trace.notes if n.kind == "script" and n.detail == "SIGTERM to the driver"]
    starts = [n for n in run.trace.notes if n.kind == "script" and n.detail == "driver 2 started"]
    if not stops or not starts:
        return fail("the driver was not restarted")
    leave = [r for r in run.trace.of("LeaveGroup") if stops[0].t <= r.t <= starts[0].t]
    if leave:
        return fail(
            f"{leave[0].short()} when the static member closed: a static member does not leave on close "
            "(its assignment waits for it until its session times out)"
        )
    joins = run.trace.of("JoinGroup", after=starts[0].t)
    if not joins:
        return fail("the restarted member never joined")
    if joins[0].body.get("groupInstanceId") != run.instance_id:
        return fail(f"{joins[0].short()}: the restart lost its instance id {run.instance_id!r}")
    before = [e for e in run.trace.events("assigned") if e.t < stops[0].t]
    after = run.trace.events("assigned", after=starts[0].t)
    if not before or not after:
        return fail("no assignment reported before or after the restart")
    a, b = parts(before[-1].event.get("partitions")), parts(after[-1].event.get("partitions"))
    if a != b:
        return fail(f"assigned {a} before the restart and {b} after; the coordinator gave the same")
    return ok(f"closed without LeaveGroup, rejoined as {run.instance_id!r}, assigned the same {len(a)} partitions")


STATIC_RESTART = Scenario(
    "static-restart-keeps-assignment",
    "static: a restart sends no LeaveGroup and rejoins with the same instance id",
    "A static member that closes does not leave the group (KIP-345): when it comes back within its session "
    "timeout with the same group.instance.id, the coordinator hands it its assignment again without a rebalance.",
    (
        f"{AC}: maybeLeaveGroup (isDynamicMember)",
        f"{CC}: onLeavePrepare",
        f"{GMM}: classicGroupJoinExistingStaticMember",
    ),
    play=_play_restart,
    judge=_judge_restart,
    needs=STATIC,
    static=True,
    group=_follower,
    bound=45.0,
)


async def _play_close(run: Run) -> None:
    await stable(run, 20)
    await run.stop_driver()


def _judge_leave(run: Run) -> Verdict:
    stops = [n for n in run.trace.notes if n.kind == "script" and n.detail == "SIGTERM to the driver"]
    member = run.group.member()
    leaves = run.trace.of("LeaveGroup")
    if not stops:
        return fail("the driver was never stopped")
    if not leaves:
        exit_ = f" (it exited {run.trace.exit})" if run.trace.exit is not None else ""
        return fail(
            f"no LeaveGroup after SIGTERM{exit_}: a dynamic member leaves the group when it closes, so the "
            "group rebalances at once instead of after its session timeout"
        )
    leave = leaves[0]
    ids = [m.get("memberId") for m in leave.body.get("members") or []] or [leave.body.get("memberId")]
    want = [r.body.get("memberId") for r in run.trace.of("Heartbeat") if not r.error][-1:] or [
        member.member_id if member else None
    ]
    if ids != want:
        return fail(f"{leave.short()} names {ids}; the member was {want}")
    return ok(f"left with LeaveGroup v{leave.version} naming {ids[0]!r}")


LEAVE = Scenario(
    "leave-group-on-close",
    "a dynamic member leaves the group when it closes",
    "Closing a dynamic member sends LeaveGroup with its member id (v3+: in Members) so that the group rebalances "
    "at once rather than after the member's session timeout.",
    (f"{AC}: close, maybeLeaveGroup", f"{CC}: onLeavePrepare", f"{GMM}: classicGroupLeave"),
    play=_play_close,
    judge=_judge_leave,
)


def _judge_reason(run: Run) -> Verdict:
    leaves = run.trace.of("LeaveGroup")
    if not leaves:
        return fail("no LeaveGroup after SIGTERM")
    leave = leaves[0]
    if leave.version < 5:
        return skip(f"LeaveGroup v{leave.version} has no reason (KIP-800, v5)")
    reasons = [m.get("reason") for m in leave.body.get("members") or []]
    if not reasons or not all(isinstance(r, str) and r for r in reasons):
        return fail(f"{leave.short()} gives reason {reasons}; from v5 a leaving member says why (KIP-800)")
    return ok(f"left saying {reasons[0]!r}")


LEAVE_REASON = Scenario(
    "leave-group-reason",
    "LeaveGroup v5+ says why the member leaves (KIP-800)",
    "From LeaveGroup v5 each leaving member carries a reason, which the coordinator logs with the rebalance it "
    "causes (KIP-800).",
    (f"{AC}: maybeLeaveGroup (setReason)", "LeaveGroupRequest.java"),
    play=_play_close,
    judge=_judge_reason,
)


SCENARIOS = [STATIC_JOIN, STATIC_FENCED, STATIC_JOIN_FENCED, STATIC_RESTART, LEAVE, LEAVE_REASON]
