"""The consumer group protocol's scenarios (KIP-848: ConsumerGroupHeartbeat).

Where Kafka shows each rule: ``AbstractHeartbeatRequestManager.java``, ``ConsumerHeartbeatRequestManager.java``,
``AbstractMembershipManager.java`` and ``ConsumerMembershipManager.java`` in
``clients/src/main/java/org/apache/kafka/clients/consumer/internals/``, and ``GroupMetadataManager.java``
(``consumerGroupHeartbeat``) in the group coordinator (Kafka's 4.4 branch)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .consumer import ConsumerGroup
from .scenario import Scenario, Verdict, fail, ok, parts, until
from .steps import first_after, name

if TYPE_CHECKING:
    from .runner import Run
    from .trace import Request

__all__ = ["SCENARIOS"]

AHRM = "AbstractHeartbeatRequestManager.java"
CHRM = "ConsumerHeartbeatRequestManager.java"
AMM = "AbstractMembershipManager.java"
CMM = "ConsumerMembershipManager.java"
GMM = "GroupMetadataManager.java"
CONSUMER = frozenset({"consumer"})
STATIC = frozenset({"consumer", "static"})
HB = "ConsumerGroupHeartbeat"
UNKNOWN_MEMBER_ID, FENCED_MEMBER_EPOCH, UNRELEASED_INSTANCE_ID, FENCED_INSTANCE_ID = 25, 110, 111, 82
NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE = 16, 15
WINDOW = 5.0  # seconds a member told a fatal error is watched for a retry (its driver's exit ends it sooner)


def _owned(run: Run, before: float) -> list[tuple[str, int]]:
    """What the client's lines say it owns just before ``before`` (KIP-848's callbacks are incremental)."""
    owned: set[tuple[str, int]] = set()
    for e in run.trace.lines:
        if e.t >= before:
            break
        ps = set(parts(e.event.get("partitions")))
        if e.event.get("event") == "assigned":
            owned |= ps
        elif e.event.get("event") in ("revoked", "lost"):
            owned -= ps
    return sorted(owned)


def _acks(run: Run, target: list[tuple[str, int]], after: float) -> list[Request]:
    """The heartbeats after ``after`` that say the member owns exactly ``target``."""
    return [
        r
        for r in run.trace.of(HB, after=after)
        if r.extra.get("owned") is not None and parts(r.extra["owned"]) == target
    ]


async def acked(run: Run, after: float = -1.0, timeout: float = 20.0) -> float:
    """Wait until the member acknowledges its current target (a heartbeat whose owned partitions are it, in its
    current epoch); returns that heartbeat's time."""
    g: ConsumerGroup = run.group

    def done() -> float | None:
        for r in _acks(run, g.target, after):
            if r.body.get("memberEpoch") == g.epoch and g.sent and not r.error:
                return r.t
        return None

    return await until(run.trace, done, timeout, f"a heartbeat acknowledging {g.target}")


def _group(first: list[tuple[str, int]] | None = None):
    def build(run: Run) -> ConsumerGroup:
        return ConsumerGroup(
            run.trace, run.group_id, run.scenario.topics, interval_ms=run.config.consumer_interval_ms, first=first
        )

    return build


def _scenario(slug: str, title: str, rule: str, java: tuple[str, ...], play, judge, **kw) -> Scenario:  # type: ignore[no-untyped-def]
    kw.setdefault("needs", CONSUMER)
    kw.setdefault("group", _group())
    return Scenario(slug, title, rule, java, play=play, judge=judge, protocol="consumer", **kw)


# --- joining -------------------------------------------------------------------------------------------------


async def _play_join(run: Run) -> None:
    t = await acked(run)
    await until(run.trace, lambda: len(run.trace.of(HB, after=t)) >= 2, 5, "two more heartbeats")


def _judge_join(run: Run) -> Verdict:
    beats = run.trace.of(HB)
    if not beats:
        return fail("no ConsumerGroupHeartbeat")
    j = beats[0]
    b = j.body
    if b.get("memberEpoch") != 0:
        return fail(f"{j.short()}: a joining member's first heartbeat has memberEpoch 0")
    if j.version >= 1 and not b.get("memberId"):
        return fail(f"{j.short()}: from v1 the member names itself (a UUID it keeps, KIP-1082); memberId is empty")
    if sorted(b.get("subscribedTopicNames") or []) != sorted(run.scenario.topics):
        return fail(
            f"{j.short()} subscribes to {b.get('subscribedTopicNames')}; expected {sorted(run.scenario.topics)}"
        )
    if b.get("rebalanceTimeoutMs") != run.config.rebalance_timeout_ms:
        return fail(
            f"{j.short()} has rebalanceTimeoutMs {b.get('rebalanceTimeoutMs')}; the driver was given "
            f"{run.config.rebalance_timeout_ms}"
        )
    if b.get("topicPartitions") not in ([], None):
        return fail(f"{j.short()}: a joining member owns nothing, yet says {b.get('topicPartitions')}")
    target = run.group.target
    acks = _acks(run, target, j.t)
    if not acks:
        return fail(f"no heartbeat acknowledged the assignment {target}")
    got = _owned(run, acks[0].t)
    if got != target:
        return fail(f"when it acknowledged {target} the client's callbacks added up to {got}")
    first_line = run.trace.events("assigned")
    if first_line and acks[0].t < first_line[0].t:
        return fail(f"{acks[0].short()} acknowledged {target} before the client's assigned callback ran")
    return ok(
        f"joined at epoch 0, assigned {len(target)} partitions, acknowledged in epoch {acks[0].body.get('memberEpoch')}"
    )


JOIN = _scenario(
    "consumer-join",
    "consumer protocol: join at epoch 0, take the assignment, acknowledge it",
    "A member joins with memberEpoch 0, its subscribed topics and its rebalance timeout (and, from v1, a member id "
    "it made itself); it takes the partitions the coordinator assigns (its assigned callback), then tells the "
    "coordinator it owns them in its next heartbeat's TopicPartitions, in the epoch it was given.",
    (
        f"{CMM}: onHeartbeatSuccess",
        f"{AMM}: maybeReconcile, markReconciliationCompleted",
        f"{CHRM}: HeartbeatState.buildRequestData",
        f"{GMM}: consumerGroupHeartbeat",
    ),
    _play_join,
    _judge_join,
)


async def _play_interval(run: Run) -> None:
    await acked(run)
    await run.trace.wait_for(lambda: False, 3.0)


def _judge_interval(run: Run) -> Verdict:
    want = run.config.consumer_interval_ms
    acks = _acks(run, run.group.target, -1)
    if not acks:
        return fail("the member never acknowledged its assignment")
    beats = [r.t for r in run.trace.of(HB, after=acks[0].t)]
    if len(beats) < 3:
        return fail(
            f"{len(beats)} heartbeats in {run.trace.now() - acks[0].t:.1f} s; the coordinator asked for one "
            f"every {want} ms"
        )
    gaps = [b - a for a, b in zip(beats, beats[1:])]
    mean = sum(gaps) / len(gaps)
    if not want / 2000 <= mean <= want * 2.5 / 1000:
        return fail(
            f"heartbeats every {mean * 1000:.0f} ms on average; the coordinator's HeartbeatIntervalMs is {want}"
        )
    return ok(f"{len(beats)} heartbeats, {mean * 1000:.0f} ms apart on average (asked: {want} ms)")


INTERVAL = _scenario(
    "consumer-heartbeat-interval",
    "consumer protocol: heartbeat at the interval the coordinator gives",
    "In the consumer protocol the coordinator sets the heartbeat interval (HeartbeatIntervalMs in every answer): "
    "the member heartbeats about that often.",
    (f"{AHRM}: onResponse (heartbeatRequestState.updateHeartbeatIntervalMs)", f"{GMM}: consumerGroupHeartbeat"),
    _play_interval,
    _judge_interval,
    seeded=("stop-heartbeating",),
)


# --- fenced --------------------------------------------------------------------------------------------------


def _fenced(slug: str, error: int, seeded: tuple[str, ...] = ()) -> Scenario:
    async def play(run: Run) -> None:
        g: ConsumerGroup = run.group
        await acked(run)
        g.faults.arm(HB, error, when=lambda req: req.get("memberEpoch", 0) > 0, then=g.fence)
        hit = await until(run.trace, lambda: g.faults.hits, 10, f"a heartbeat to answer {name(error)}")
        await acked(run, after=hit[0][1].t)

    def judge(run: Run) -> Verdict:
        hits = run.group.faults.hits
        if not hits:
            return fail(f"no heartbeat was answered {name(error)}")
        err = hits[0][1]
        owned = _owned(run, err.t)
        nxt = first_after(run.trace, (HB,), err.t)
        if nxt is None:
            return fail(f"no heartbeat after {name(error)}: the member must rejoin")
        if nxt.body.get("memberEpoch") != 0:
            return fail(f"{nxt.short()} after {name(error)}: expected memberEpoch 0 (a rejoin)")
        if nxt.version >= 1 and nxt.body.get("memberId") != err.body.get("memberId"):
            return fail(
                f"{nxt.short()} after {name(error)}: expected the same memberId {err.body.get('memberId')!r} "
                "(a member keeps the id it made itself)"
            )
        released = [e for e in run.trace.events("lost", "revoked", after=err.t) if e.t <= nxt.t]
        gone = set().union(*(set(parts(e.event.get("partitions"))) for e in released)) if released else set()
        if not set(owned) <= gone:
            return fail(
                f"{nxt.short()} rejoined before releasing {sorted(set(owned) - gone)}: a fenced member has "
                "lost its partitions (its lost callback) before it rejoins"
            )
        if nxt.extra.get("owned"):
            return fail(f"{nxt.short()} rejoins saying it owns {nxt.extra['owned']}; a fenced member owns nothing")
        return ok(f"released {len(owned)} partitions, rejoined at epoch 0 as {nxt.body.get('memberId')!r}")

    return _scenario(
        slug,
        f"consumer protocol: {name(error)}: release everything, rejoin at epoch 0",
        f"{name(error)} fences the member: its partitions are lost (the lost callback, not a clean revocation) and "
        "it rejoins with memberEpoch 0 and the same member id, owning nothing.",
        (
            f"{AHRM}: onErrorResponse ({name(error)}: transitionToFenced)",
            f"{AMM}: transitionToFenced, transitionToJoining",
            f"{CMM}: invokeOnPartitionsLostCallback",
        ),
        play,
        judge,
        seeded=seeded,
    )


FENCED_EPOCH = _fenced("consumer-fenced-member-epoch", FENCED_MEMBER_EPOCH)
UNKNOWN = _fenced("consumer-unknown-member-id", UNKNOWN_MEMBER_ID)


# --- reconciliation ------------------------------------------------------------------------------------------


def _first_three(run: Run) -> list[tuple[str, int]]:
    return [(t, p) for t, n in sorted(run.scenario.topics.items()) for p in range(n)][:3]


def _stepwise(first: int = 3):
    def build(run: Run) -> ConsumerGroup:
        every = [(t, p) for t, n in sorted(run.scenario.topics.items()) for p in range(n)]
        return ConsumerGroup(
            run.trace,
            run.group_id,
            run.scenario.topics,
            interval_ms=run.config.consumer_interval_ms,
            first=every[:first],
        )

    return build


async def _play_swap(run: Run) -> None:
    g: ConsumerGroup = run.group
    await acked(run)
    every = g.all_partitions()
    g.assign(g.target[1:] + [every[3]])
    t = run.trace.now()
    await acked(run, after=t)


def _judge_swap(run: Run) -> Verdict:
    g: ConsumerGroup = run.group
    notes = [n for n in run.trace.notes if n.detail.startswith("target assignment") and "(epoch" in n.detail]
    if len(notes) < 1:
        return fail("the new target was never set")
    t = notes[-1].t
    target = g.target
    before = _owned(run, t)
    gone = sorted(set(before) - set(target))
    new = sorted(set(target) - set(before))
    rev = [e for e in run.trace.events("revoked", after=t) if set(gone) <= set(parts(e.event.get("partitions")))]
    add = [e for e in run.trace.events("assigned", after=t) if set(new) <= set(parts(e.event.get("partitions")))]
    if not rev:
        return fail(f"the new assignment dropped {gone}; the client never revoked them")
    if not add:
        return fail(f"the new assignment added {new}; the client never took them")
    if add[0].t < rev[0].t:
        return fail(f"the client took {new} before it revoked {gone}: reconciliation revokes first, then assigns")
    acks = _acks(run, target, t)
    if not acks or acks[0].t < add[0].t:
        return fail(f"no heartbeat acknowledged {target} after both callbacks")
    return ok(f"revoked {gone}, then took {new}, then acknowledged {len(target)} partitions")


SWAP = _scenario(
    "consumer-reconcile-revoke-first",
    "consumer protocol: reconcile a new assignment: revoke, then assign, then acknowledge",
    "When a new target assignment both drops and adds partitions, the member revokes the dropped ones first (its "
    "revoked callback), then takes the added ones (its assigned callback), and only then acknowledges the whole "
    "new assignment.",
    (f"{AMM}: maybeReconcile, revokeAndAssign", f"{CMM}: signalPartitionsBeingRevoked, signalPartitionsAssigned"),
    _play_swap,
    _judge_swap,
    group=_stepwise(),
    seeded=("skip-revocation",),
)


async def _play_give_up(run: Run) -> None:
    g: ConsumerGroup = run.group
    await acked(run)
    g.assign(g.target[1:])
    await acked(run, after=run.trace.now())


def _judge_give_up(run: Run) -> Verdict:
    notes = [n for n in run.trace.notes if n.detail.startswith("target assignment")]
    t = notes[-1].t
    before = _owned(run, t)
    gone = sorted(set(before) - set(run.group.target))
    early = [
        r
        for r in run.trace.of(HB, after=t)
        if r.extra.get("owned") is not None and not set(gone) & set(parts(r.extra["owned"]))
    ]
    rev = [
        e for e in run.trace.events("revoked", "lost", after=t) if set(gone) <= set(parts(e.event.get("partitions")))
    ]
    if not early:
        return fail(f"no heartbeat acknowledged giving up {gone}")
    if not rev or early[0].t < rev[0].t:
        return fail(
            f"{early[0].short()} acknowledged giving up {gone} before the client revoked them: the "
            "coordinator hands them to another member on that acknowledgement, and two members would own them"
        )
    return ok(f"revoked {gone}, then acknowledged ({early[0].t - rev[0].t:.3f} s later)")


GIVE_UP = _scenario(
    "consumer-ack-after-revocation",
    "consumer protocol: acknowledge giving a partition up only after revoking it",
    "The coordinator gives a partition to its next owner only once the previous owner's heartbeat no longer lists "
    "it: so a member may leave a partition out of its heartbeat only after its revoked callback for it has run "
    "(its last commit done).",
    (
        f"{AMM}: revokeAndAssign (the acknowledgement waits for the callback)",
        f"{GMM}: consumerGroupHeartbeat (partitions pending revocation)",
    ),
    _play_give_up,
    _judge_give_up,
    group=_stepwise(),
    seeded=("skip-revocation",),
)


async def _play_steps(run: Run) -> None:
    g: ConsumerGroup = run.group
    await acked(run)
    every = g.all_partitions()
    g.assign(sorted(set(g.target) | {every[1]}), bump=False)
    await acked(run, after=run.trace.now())


def _judge_steps(run: Run) -> Verdict:
    notes = [n for n in run.trace.notes if n.detail.startswith("target assignment")]
    t = notes[-1].t
    target = run.group.target
    acks = _acks(run, target, t)
    if not acks:
        return fail(f"no heartbeat acknowledged {target}")
    got = _owned(run, acks[0].t)
    if got != target:
        return fail(f"when it acknowledged {target} the client's callbacks added up to {got}")
    return ok(f"took the partition given in a later step and acknowledged {len(target)} partitions")


STEPS = _scenario(
    "consumer-assignment-in-steps",
    "consumer protocol: a partition given in a later step is taken and acknowledged",
    "A member's assignment can grow within its epoch, when a partition pending revocation from another member is "
    "released: the member takes it (assigned callback) and acknowledges the larger assignment.",
    (f"{AMM}: onHeartbeatSuccess, maybeReconcile", f"{GMM}: consumerGroupHeartbeat (partitions pending revocation)"),
    _play_steps,
    _judge_steps,
    group=_stepwise(1),
)


# --- leaving, static ------------------------------------------------------------------------------------------


async def _play_close(run: Run) -> None:
    await acked(run)
    await run.stop_driver()


def _leave_judge(epoch: int):
    def judge(run: Run) -> Verdict:
        leaves = [r for r in run.trace.of(HB) if r.body.get("memberEpoch", 0) < 0]
        if not leaves:
            return fail(f"no heartbeat with memberEpoch {epoch} after SIGTERM: a closing member leaves the group")
        leave = leaves[0]
        if leave.body.get("memberEpoch") != epoch:
            return fail(f"{leave.short()}: a {'static' if epoch == -2 else 'dynamic'} member leaves with epoch {epoch}")
        if leave.body.get("memberId") != run.group.member_id:
            return fail(f"{leave.short()} names {leave.body.get('memberId')!r}; the member is {run.group.member_id!r}")
        return ok(f"left with memberEpoch {epoch}")

    return judge


LEAVE = _scenario(
    "consumer-leave-on-close",
    "consumer protocol: a closing member leaves with epoch -1",
    "Closing a dynamic member sends a heartbeat with memberEpoch -1 (leave the group), with its member id.",
    (f"{CMM}: leaveGroupEpoch (LEAVE_GROUP_MEMBER_EPOCH)", f"{AMM}: leaveGroup"),
    _play_close,
    _leave_judge(-1),
)
STATIC_LEAVE = _scenario(
    "consumer-static-leave-on-close",
    "consumer protocol: a closing static member leaves with epoch -2",
    "Closing a static member sends memberEpoch -2: it leaves for now, its assignment kept for its instance id "
    "until its session times out.",
    (f"{CMM}: leaveGroupEpoch (LEAVE_GROUP_STATIC_MEMBER_EPOCH)", f"{GMM}: consumerGroupHeartbeat (static member)"),
    _play_close,
    _leave_judge(-2),
    needs=STATIC,
    static=True,
)


def _judge_static_join(run: Run) -> Verdict:
    beats = run.trace.of(HB)
    if not beats:
        return fail("no ConsumerGroupHeartbeat")
    if beats[0].body.get("instanceId") != run.instance_id:
        return fail(
            f"{beats[0].short()} has instanceId {beats[0].body.get('instanceId')!r}; the driver was given "
            f"{run.instance_id!r}"
        )
    return ok(f"joined as instance {run.instance_id!r}")


STATIC_JOIN = _scenario(
    "consumer-static-join",
    "consumer protocol: a static member joins with its instance id",
    "A static member's joining heartbeat carries its group.instance.id (InstanceId).",
    (f"{CHRM}: HeartbeatState.buildRequestData (setInstanceId)", f"{GMM}: consumerGroupHeartbeat"),
    _play_join,
    _judge_static_join,
    needs=STATIC,
    static=True,
)


async def _play_unreleased(run: Run) -> None:
    g: ConsumerGroup = run.group
    g.faults.arm(HB, UNRELEASED_INSTANCE_ID, when=lambda req: req.get("memberEpoch") == 0)
    hit = await until(run.trace, lambda: g.faults.hits, 20, "a joining heartbeat to answer UNRELEASED_INSTANCE_ID")
    err = hit[0][1]
    # what it does next: a member that stops ends its driver; a retry or a member going on is seen at once
    await run.trace.wait_for(
        lambda: (
            run.driver.proc.poll() is not None
            or [r for r in run.trace.of(HB, after=err.t) if r.body.get("memberEpoch", 0) >= 0]
        ),
        WINDOW,
    )


def _judge_unreleased(run: Run) -> Verdict:
    hits = run.group.faults.hits
    if not hits:
        return fail("no heartbeat was answered UNRELEASED_INSTANCE_ID")
    err = hits[0][1]
    # (a leave, epoch -1 or -2, on close is harmless: the member owns nothing)
    tries = [r for r in run.trace.of(HB, after=err.t) if r.body.get("memberEpoch", 0) >= 0]
    if tries and tries[0].body.get("memberEpoch", 0) > 0:
        return fail(f"{tries[0].short()} after UNRELEASED_INSTANCE_ID: the member never joined")
    if tries:
        return fail(
            f"{tries[0].short()} {tries[0].t - err.t:.2f} s after UNRELEASED_INSTANCE_ID: Kafka's consumer does "
            "not retry; the error is fatal (UnreleasedInstanceIdException, not retriable), raised to the "
            "application, which decides whether to start again once the previous instance has left"
        )
    errors = run.trace.events("error", after=err.t)
    said = f" (the driver reported: {str(errors[0].event.get('message'))[:80]})" if errors else ""
    return ok("stopped after UNRELEASED_INSTANCE_ID" + said)


UNRELEASED = _scenario(
    "consumer-unreleased-instance-id",
    "consumer protocol: UNRELEASED_INSTANCE_ID is fatal",
    "UNRELEASED_INSTANCE_ID answers a joining static member whose group.instance.id is still held by a member "
    "that has not left (with memberEpoch -2, a static member's leave). It is not retriable "
    "(UnreleasedInstanceIdException is no RetriableException): the member stops and tells the application, which "
    "may start again once the other instance has left; it sends no further joining heartbeat, and does not go on "
    "as if it had joined.",
    (
        f"{CHRM}: handleSpecificExceptionInResponse (UNRELEASED_INSTANCE_ID: handleFatalFailure)",
        "UnreleasedInstanceIdException.java (an ApiException, not a RetriableException)",
        f"{GMM}: getOrMaybeSubscribeStaticConsumerGroupMember, throwIfInstanceIdIsUnreleased",
    ),
    _play_unreleased,
    _judge_unreleased,
    needs=STATIC,
    static=True,
)


async def _play_fenced_instance(run: Run) -> None:
    g: ConsumerGroup = run.group
    await acked(run)
    g.faults.arm(HB, FENCED_INSTANCE_ID)
    await until(run.trace, lambda: g.faults.hits, 10, "a heartbeat to answer FENCED_INSTANCE_ID")
    await run.trace.wait_for(lambda: False, 3.0)


def _judge_fenced_instance(run: Run) -> Verdict:
    hits = run.group.faults.hits
    if not hits:
        return fail("no heartbeat was answered FENCED_INSTANCE_ID")
    err = hits[0][1]
    again = [r for r in run.trace.of(HB, after=err.t) if r.body.get("memberEpoch", 0) >= 0]
    if again:
        return fail(f"{again[0].short()} after FENCED_INSTANCE_ID: a fenced static member stops (fatal)")
    return ok("stopped after FENCED_INSTANCE_ID")


FENCED_INSTANCE = _scenario(
    "consumer-fenced-instance-id",
    "consumer protocol: FENCED_INSTANCE_ID is fatal",
    "FENCED_INSTANCE_ID: another member took this instance id; the member stops heartbeating and the application "
    "gets the error.",
    (f"{CHRM}: handleSpecificExceptionInResponse (FENCED_INSTANCE_ID: handleFatalFailure)",),
    _play_fenced_instance,
    _judge_fenced_instance,
    needs=STATIC,
    static=True,
)


# --- the coordinator moves -----------------------------------------------------------------------------------


def _moved(slug: str, error: int, *, full: bool) -> Scenario:
    async def play(run: Run) -> None:
        g: ConsumerGroup = run.group
        await acked(run)

        def moved() -> None:
            g.faults.moved = error

        g.faults.arm(HB, error, when=lambda req: req.get("memberEpoch", 0) > 0, then=moved)
        hit = await until(run.trace, lambda: g.faults.hits, 10, f"a heartbeat to answer {name(error)}")
        t = hit[0][1].t
        fc = await until(run.trace, lambda: first_after(run.trace, ("FindCoordinator",), t), 8, "a FindCoordinator")
        ok_after = lambda: [r for r in run.trace.of(HB, after=fc.t) if not r.error]  # noqa: E731
        await until(run.trace, ok_after, 15, "a heartbeat the new coordinator accepts")

    def judge(run: Run) -> Verdict:
        err = run.group.faults.hits[0][1] if run.group.faults.hits else None
        if err is None:
            return fail(f"no heartbeat was answered {name(error)}")
        fc = first_after(run.trace, ("FindCoordinator",), err.t)
        if fc is None:
            return fail(f"after {name(error)} the client never asked FindCoordinator")
        first = first_after(run.trace, (HB,), err.t)
        nxt = first_after(run.trace, (HB,), fc.t)
        if nxt is None or first is None:
            return fail(f"no heartbeat after {name(error)} and the FindCoordinator")
        if nxt.body.get("memberId") != err.body.get("memberId") or nxt.body.get("memberEpoch") != err.body.get(
            "memberEpoch"
        ):
            return fail(f"{nxt.short()}: after {name(error)} the membership holds: same memberId and epoch expected")
        if full:
            missing = [
                k
                for k in ("subscribedTopicNames", "rebalanceTimeoutMs", "topicPartitions")
                if first.body.get(k) in (None, -1)
            ]
            if missing:
                return fail(
                    f"{first.short()} after {name(error)} leaves out {', '.join(missing)}: after a failed "
                    "heartbeat the next one is a full heartbeat (a new coordinator may know nothing)"
                )
            return ok("the heartbeat after the error carries every field")
        return ok(f"found the coordinator again and went on in epoch {nxt.body.get('memberEpoch')}")

    return _scenario(
        slug,
        f"consumer protocol: {name(error)}: "
        + ("the next heartbeat is a full one" if full else "rediscover, keep the membership"),
        (
            f"After {name(error)} the member's next heartbeat carries every field (subscription, rebalance timeout, "
            "owned partitions): the coordinator it reaches may not know its state."
            if full
            else f"{name(error)}: the member finds the coordinator (FindCoordinator) before its next heartbeat, and "
            "keeps its member id and epoch."
        ),
        (
            f"{AHRM}: onErrorResponse ({name(error)}: markCoordinatorUnknown, resetHeartbeatState)",
            f"{CHRM}: HeartbeatState.reset, buildRequestData",
        ),
        play,
        judge,
    )


NOT_COORD = _moved("consumer-not-coordinator", NOT_COORDINATOR, full=False)
NOT_AVAILABLE = _moved("consumer-coordinator-not-available", COORDINATOR_NOT_AVAILABLE, full=False)
FULL = _moved("consumer-full-heartbeat-after-error", NOT_COORDINATOR, full=True)

SCENARIOS = [
    JOIN,
    INTERVAL,
    FENCED_EPOCH,
    UNKNOWN,
    SWAP,
    GIVE_UP,
    STEPS,
    LEAVE,
    STATIC_LEAVE,
    STATIC_JOIN,
    UNRELEASED,
    FENCED_INSTANCE,
    NOT_COORD,
    NOT_AVAILABLE,
    FULL,
]
