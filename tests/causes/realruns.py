"""What a real-client capture's run record says was done, as the causes a test expects (for the tests of
``tests/causes/captures`` and ``../shared/captures``).

A run record is the harness's own: each action with its wall-clock time, each member's own lines (the member id it
had). An action starts the first generation (or epoch) that forms after it; :data:`KINDS` says which cause each
action is, and the member it names is the member id the acting client reported: the first after the action for
``start`` and ``restart-static``, the last before it otherwise. Nothing here reads the tool's output.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from codec.capture.story import Generation, capture_story
from codec.capture.heartbeat import HeartbeatGroup

#: each action of a run and the cause it is
KINDS = {
    "start": "member-joined",
    "restart-static": "static-member-replaced",
    "stop": "member-left",
    "kill": "session-timeout",
    "stall": "rebalance-timeout",
    "subscribe": "subscription-changed",
    "move-coordinator": "coordinator-moved",
}


@dataclass(frozen=True)
class Expected:
    """What an action of the run should be told as: ``kind`` and ``member`` (None: the action starts no
    rebalance -- the last member stopped, the group is empty), and ``before``: the time of the run's next action,
    by which the rebalance it started must have formed."""

    ts: float
    action: str
    kind: str | None
    client_id: str | None
    member: str | None
    before: float | None
    optional: bool = False
    certain: bool = False


def expected(record: dict) -> list[Expected]:
    """The run's actions as the causes they should be told as (see the module docstring), with what the clients and
    the broker do that the kinds alone do not say:

    * a member with a ``group.instance.id`` (a static member) sends no LeaveGroup when it stops (KIP-345): its stop
      is found by its session timing out;
    * a static member killed and restarted with the same instance id before its session times out is replaced:
      the kill and the restart are one ``static-member-replaced``, naming the old member id and the new;
    * the last member to stop or be killed leaves the group empty: no generation follows (librdkafka's mock forms
      none for an empty group);
    * moving the group's coordinator may start no rebalance at all (the mock keeps the group's state across its
      brokers, and the members carry on with the new coordinator): ``optional`` is then True;
    * a dynamic member that stops sends a LeaveGroup (every client closes so): the capture holds the act itself, so
      its ``member-left`` is ``certain`` -- ``certain`` is then True.
    """
    actions = record["actions"]
    session = record.get("session_timeout_ms", 0) / 1000.0
    instance = {}
    alive: set[str] = set()
    out = []
    for i, act in enumerate(actions):
        cid = act.get("client_id")
        nxt = actions[i + 1]["t"] if i + 1 < len(actions) else None
        lines = record["members"].get(cid, []) if cid else []
        ids = [(line["t"], line.get("member_id")) for line in lines if line.get("member_id")]
        kind = KINDS[act["action"]]
        if act["action"] in ("start", "restart-static"):
            instance[cid] = act.get("instance_id")
            alive.add(cid)
            member = next((m for t, m in ids if t >= act["t"]), None)
        else:
            member = next((m for t, m in reversed(ids) if t <= act["t"]), None)
        if act["action"] in ("stop", "kill"):
            alive.discard(cid)
            if act["action"] == "stop" and instance.get(cid):
                kind = "session-timeout"
            restart = actions[i + 1] if i + 1 < len(actions) else None
            if (
                act["action"] == "kill"
                and restart is not None
                and restart["action"] == "restart-static"
                and restart.get("instance_id") == instance.get(cid)
                and restart["t"] - act["t"] < session
            ):
                kind = "static-member-replaced"
                nxt = actions[i + 2]["t"] if i + 2 < len(actions) else None
            if not alive:
                kind = None
        certain = act["action"] == "stop" and kind == "member-left"
        out.append(
            Expected(act["t"], act["action"], kind, cid, member, nxt, act["action"] == "move-coordinator", certain)
        )
    return out


def told(pcap: Path, ports: list[int]) -> list:
    """The rebalances the capture's story tells, in order (a classic group's generations, or a heartbeat group's
    epochs), each a :class:`codec.causes.Rebalance`."""
    out = []
    for item in capture_story(pcap, ports=ports):
        if isinstance(item, Generation) and item.rebalance is not None:
            out.append(item.rebalance)
        elif isinstance(item, HeartbeatGroup):
            out += item.epoch_causes
    return sorted(out, key=lambda r: r.ts or 0.0)


def in_window(rebalances: list, e: Expected) -> list:
    """The rebalances formed after an action and before the run's next one (the plans leave room for each)."""
    return [r for r in rebalances if r.ts is not None and r.ts > e.ts and (e.before is None or r.ts < e.before)]


def started(rebalances: list, e: Expected):
    """The rebalance an action started: the first in its window whose main cause is the action's kind, naming its
    member; None when there is none. (A client may add rebalances of its own to a window -- kafka-python's leader
    rejoins after each generation when its metadata snapshot moved -- so the action's is looked for, not assumed to
    be the first.)"""
    for r in in_window(rebalances, e):
        if r.cause.kind == e.kind and (e.member is None or e.member in r.cause.members):
            if e.certain and r.cause.confidence != "certain":
                continue
            return r
    return None


def load(run: Path) -> dict:
    return json.loads(run.read_text(encoding="utf-8"))
