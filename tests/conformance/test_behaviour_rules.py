"""The behaviour gate's rules where Kafka's Java consumer settled them (issue #45's reference): the judges read
traces written here by hand, each the shape of what a client does, and the verdict each must get follows from
Kafka's code at its 4.4 branch (quoted with each test), never from a run of the gate.

The Java consumer's own runs against every scenario are vectors/drivers/java/results.json (run by hand: CI has
no kafka-clients); tests/conformance/test_behaviour_reference.py holds that record to the scenarios."""

from __future__ import annotations

from codec.conformance.behaviour import by_name
from codec.conformance.behaviour.classic import ClassicGroup
from codec.conformance.behaviour.consumer import ConsumerGroup
from codec.conformance.behaviour.runner import Run
from codec.conformance.behaviour.scenario import Config
from codec.conformance.behaviour.trace import DriverLine, Trace

FENCED_INSTANCE_ID, UNRELEASED_INSTANCE_ID = 82, 111
HB = "ConsumerGroupHeartbeat"


def _run(name: str) -> Run:
    s = by_name()[name]
    trace = Trace()
    if s.protocol == "consumer":
        group = ConsumerGroup(trace, f"behaviour-{name}", s.topics, interval_ms=400)
    else:
        group = ClassicGroup(trace, f"behaviour-{name}", s.topics)
    return Run(s, ["driver"], Config(), {"classic", "consumer", "static", "eager"}, trace=trace, group=group)


def _hit(run: Run, api: str, version: int, body: dict, error: int, t: float) -> None:
    r = run.trace.request(0, api, version, 1, body, at=t, error=error, answered=t)
    run.group.faults.hits.append((error, r))


def _beat(run: Run, epoch: int, t: float, instance: str | None = None) -> None:
    body = {"groupId": run.group_id, "memberId": "m", "memberEpoch": epoch, "instanceId": instance or run.instance_id}
    run.trace.request(0, HB, 1, 2, body, at=t, answered=t)


# --- consumer-unreleased-instance-id: fatal (ConsumerHeartbeatRequestManager.handleSpecificExceptionInResponse:
# UNRELEASED_INSTANCE_ID -> handleFatalFailure; UnreleasedInstanceIdException is an ApiException, not retriable)


def _unreleased() -> Run:
    run = _run("consumer-unreleased-instance-id")
    _hit(run, HB, 1, {"memberId": "m", "memberEpoch": 0, "instanceId": run.instance_id}, UNRELEASED_INSTANCE_ID, 1.0)
    return run


def test_unreleased_instance_id_stopping_passes():
    run = _unreleased()
    run.trace.lines.append(DriverLine(1.2, {"event": "error", "message": "UnreleasedInstanceIdException: ..."}))
    v = run.scenario.judge(run)
    assert v.status == "pass" and "UnreleasedInstanceIdException" in v.detail


def test_unreleased_instance_id_a_leave_on_close_is_no_retry():
    run = _unreleased()
    _beat(run, -2, 1.5)
    assert run.scenario.judge(run).status == "pass"


def test_unreleased_instance_id_retried_with_a_back_off_fails():
    # the rule before Kafka's consumer settled it accepted this (the same id, one a second); Kafka's does not retry
    run = _unreleased()
    _beat(run, 0, 2.0)
    _beat(run, 0, 3.5)
    v = run.scenario.judge(run)
    assert v.status == "fail" and "not retry" in v.detail and "1.00 s after" in v.detail


def test_unreleased_instance_id_going_on_fails():
    run = _unreleased()
    _beat(run, 1, 1.4)
    v = run.scenario.judge(run)
    assert v.status == "fail" and "never joined" in v.detail


# --- static-join-fenced-instance-id: what Kafka's classic coordinator answers when another instance takes a
# rejoining static member's id (ClassicGroup.replaceStaticMember: the pending JoinGroup gets FENCED_INSTANCE_ID),
# and what Kafka's consumer does with it (JoinGroupResponseHandler.handle: "always treat this as a fatal error")


def _join_fenced() -> Run:
    run = _run("static-join-fenced-instance-id")
    body = {"memberId": "old", "generationId": 1, "groupInstanceId": run.instance_id}
    _hit(run, "JoinGroup", 9, body, FENCED_INSTANCE_ID, 2.0)
    return run


def test_fenced_on_a_rejoin_stopping_passes():
    run = _join_fenced()
    assert run.scenario.judge(run).status == "pass"


def test_fenced_on_a_rejoin_joining_again_fails():
    for member_id in ("old", ""):
        run = _join_fenced()
        body = {"memberId": member_id, "generationId": -1, "groupInstanceId": run.instance_id}
        run.trace.request(0, "JoinGroup", 9, 3, body, at=2.4, answered=2.4)
        v = run.scenario.judge(run)
        assert v.status == "fail" and "does not join again" in v.detail, member_id


def test_the_classic_unreleased_instance_id_scenario_is_gone():
    # Kafka's coordinator never answers a JoinGroup UNRELEASED_INSTANCE_ID at 4.4: a classic member joining a
    # consumer group skips throwIfInstanceIdIsUnreleased (GroupMetadataManager.
    # getOrMaybeSubscribeStaticConsumerGroupMember, KAFKA-17228), and a classic group replaces the static member,
    # fencing its pending JoinGroup: the scenario that scripted the answer judged a case Kafka does not have
    names = by_name()
    assert "static-unreleased-instance-id" not in names
    assert names["static-join-fenced-instance-id"].static and names["consumer-unreleased-instance-id"].static
