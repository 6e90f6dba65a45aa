"""A classic consumer group's checks that need what its leader saw, one group at a time (the function behind the
``findings`` table's ``applyInPandas``; no pyspark here, so that executors and tests without Spark can run it).

From each generation's leader's JoinGroup response (its members' ConsumerProtocol subscription bytes, in its order)
and SyncGroup request (each member's assignment bytes), the same code as ``assign --consumer auto --check``
(:func:`codec.assignor.consumer.wire.check_generation` and :func:`codec.assignor.consumer.findings.group_findings`)
gives:

* ``not-the-assignors-assignment`` (warning): the leader's assignment is not what Kafka's assignor of the
  generation's protocol (``range``, ``roundrobin``, ``sticky``, ``cooperative-sticky``) gives the same
  subscriptions (topics, owned partitions, generation, sticky user data) and metadata;
* ``partition-unowned`` (error): a partition of a subscribed topic given to nobody (under ``cooperative-sticky``
  a partition withheld from its valid owner while it revokes it is no finding);

and, from two generations in a row:

* ``member-never-rejoined`` (warning): a member of generation N's JoinGroup response that generation N+1's does not
  list (neither by member id nor, a static member, by ``group.instance.id``), with no LeaveGroup of it in the
  input: it did not rejoin the rebalance in time and the coordinator dropped it (the partitions generation N gave
  it are named).

Both checks of an assignment need the topics' partition counts, which group messages do not carry: they are the
counts of the Metadata responses in the same input (``source``) as the group's JoinGroup response, a topic's
count known where every such response that names it agrees (and the partitions' replica racks from their brokers,
for the rack-aware assignors); for a topic none names, the count given with ``--partitions TOPIC=N``. A generation that cannot be checked -- its leader's JoinGroup response or SyncGroup
request not in the input, a protocol that is none of Kafka's assignors, a subscribed topic whose count no Metadata
response gives (or whose responses disagree), bytes that do not read -- has no such finding and says why: one
verdict row each (``checked``, ``why``), which the job's report lists.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

__all__ = ["FACTS_SCHEMA", "VERDICT_SCHEMA", "CHECKS", "group_consumer_checks", "generation_verdicts"]

#: the rows the Spark side hands over, one group at a time (``what``: ``join`` a member of a leader's JoinGroup
#: response, ``joined`` the response itself, ``sync`` a member's assignment in a leader's SyncGroup request,
#: ``leave`` a LeaveGroup request's member, ``topic`` a Metadata response's topic in the group's input)
FACTS_SCHEMA = (
    "group string, generation int, what string, record_id string, unit int, member string, instance string, "
    "data binary, protocol string, leader string, ts_ms bigint, topic string, partitions int, "
    "racks array<array<string>>"
)
#: the findings (``check`` set) and one verdict row per generation (``check`` null: ``checked``, ``why``)
VERDICT_SCHEMA = (
    "group string, generation int, check string, severity string, task string, member string, process_id string, "
    "detail string, escaped array<string>, checked boolean, why string"
)
#: the checks run here (the other consumer checks run in Spark: codec.pipeline.findings)
CHECKS = ("not-the-assignors-assignment", "partition-unowned")


def _v(row: dict, name: str) -> Any:
    v = row.get(name)
    if v is None:
        return None
    try:
        if v != v:  # NaN
            return None
    except (TypeError, ValueError):
        pass
    return v


def _topics(rows: list[dict]) -> tuple[dict[str, int], dict[str, list[list[str]]], dict[str, list[int]]]:
    """The partition counts the group's Metadata responses agree on, their replica racks, and the topics they
    disagree on (topic -> the counts seen)."""
    seen: dict[str, set[int]] = {}
    racks: dict[str, list[list[str]]] = {}
    for r in rows:
        t, n = _v(r, "topic"), _v(r, "partitions")
        if t is None or n is None:
            continue
        seen.setdefault(t, set()).add(int(n))
        rk = _v(r, "racks")
        if rk is not None and any(len(x) for x in rk):
            racks[t] = [list(x) for x in rk]
    counts = {t: next(iter(ns)) for t, ns in seen.items() if len(ns) == 1}
    return (
        counts,
        {t: rk for t, rk in racks.items() if t in counts},
        {t: sorted(ns) for t, ns in seen.items() if len(ns) > 1},
    )


def generation_verdicts(group: str, rows: Iterable[dict], given: dict[str, int] | None = None) -> list[dict[str, Any]]:
    """The findings and verdict rows (:data:`VERDICT_SCHEMA`) of one group's facts (:data:`FACTS_SCHEMA`);
    ``given``: partition counts for the topics no Metadata response of the group's input names (``--partitions``)."""
    from ..assignor.consumer.findings import decoded, group_findings
    from ..assignor.consumer.model import CLIENT_ASSIGNORS, AssignmentError
    from ..assignor.consumer.wire import (
        CapturedGeneration,
        _partitions_of,
        check_generation,
        member_from_subscription,
    )
    from ..errors import CodecError

    rows = list(rows)
    counts, racks, disagree = _topics([r for r in rows if r["what"] == "topic"])
    for t, n in (given or {}).items():  # (a topic the responses name, or disagree on, keeps what they say)
        if t not in counts and t not in disagree:
            counts[t] = n
    gens: dict[int, CapturedGeneration] = {}
    joined: dict[int, str] = {}  # generation -> the record of its leader's JoinGroup response (the first one)
    for r in sorted(
        (r for r in rows if r["what"] == "joined" and _v(r, "generation") is not None), key=lambda r: r["record_id"]
    ):
        g = int(r["generation"])
        if g not in joined:
            joined[g] = r["record_id"]
            gens[g] = CapturedGeneration(group, g, _v(r, "protocol"), _v(r, "leader"))
    for r in sorted((r for r in rows if r["what"] == "join"), key=lambda r: int(r["unit"])):
        g = _v(r, "generation")
        if g is not None and joined.get(int(g)) == r["record_id"]:
            gens[int(g)].members.append((r["member"], _v(r, "instance"), bytes(r["data"])))
    syncs: dict[int, str] = {}
    for r in sorted(
        (r for r in rows if r["what"] == "sync" and _v(r, "generation") is not None),
        key=lambda r: (r["record_id"], int(r["unit"])),
    ):
        g = int(r["generation"])
        if syncs.setdefault(g, r["record_id"]) != r["record_id"]:
            continue  # one SyncGroup request per generation: the leader's (a repeat of it adds nothing)
        gen = gens.setdefault(g, CapturedGeneration(group, g))
        if gen.assignments is None:
            gen.assignments = {}
        gen.assignments[r["member"]] = bytes(r["data"])
    doc: dict[str, Any] = {"topics": counts}
    if racks:
        doc["partitionRacks"] = racks

    out: list[dict[str, Any]] = []
    verdicts: dict[tuple[str, int], dict] = {}
    ordered = [gens[g] for g in sorted(gens)]
    for gen in ordered:
        why = None
        if not gen.members or gen.assignments is None:
            why = (
                "the leader's "
                + ("JoinGroup response" if not gen.members else "SyncGroup request")
                + " is not in the input"
            )
        elif gen.protocol not in CLIENT_ASSIGNORS:
            why = f"the group's protocol {gen.protocol!r} is none of Kafka's client-side assignors"
        else:
            try:
                subscribed = sorted(
                    {t for _, inst, raw in gen.members for t in member_from_subscription("", inst, raw).topics}
                )
            except (CodecError, AssignmentError) as e:
                subscribed, why = [], f"a member's subscription does not read: {e}"
            unknown = [t for t in subscribed if t not in counts]
            if unknown and why is None:
                odd = [f"{t} ({' and '.join(map(str, disagree[t]))})" for t in unknown if t in disagree]
                why = f"the partition count of {', '.join(unknown)} is not known: " + (
                    f"the Metadata responses of the group's input disagree on {', '.join(odd)}"
                    if odd
                    else "no Metadata response of the group's input names it (nor --partitions)"
                )
        if why is None:
            v = check_generation(gen, doc, "auto")
            verdicts[(group, gen.generation)] = v
            if not v.get("checked"):
                why = v.get("why") or "not checked"
        out.append(_row(group, gen.generation, checked=why is None, why=why))

    def protocol_of(g: CapturedGeneration) -> str | None:
        return g.protocol if g.protocol in CLIENT_ASSIGNORS else None

    checked = [
        g for g in ordered if (group, g.generation) in verdicts and verdicts[(group, g.generation)].get("checked")
    ]
    found = group_findings(
        [decoded(g, protocol_of(g), member_from_subscription, _partitions_of) for g in checked], counts, verdicts
    )
    for (_, generation), items in sorted(found.items()):
        for f in items:
            if f["check"] not in CHECKS:
                continue  # (the others run in Spark over the tables' rows: codec.pipeline.findings)
            out.append(
                _row(
                    group,
                    generation,
                    check=f["check"],
                    severity=f["severity"],
                    task=f.get("partition"),
                    member=f.get("member"),
                    detail=f["detail"],
                )
            )
    out.extend(_never_rejoined(group, gens, rows, member_from_subscription, _partitions_of))
    return out


def _never_rejoined(group: str, gens: dict, rows: list[dict], member, partitions) -> list[dict[str, Any]]:
    """``member-never-rejoined``: a member of generation N's JoinGroup response that N+1's lists neither by id nor
    by instance id, and no LeaveGroup request of which is in the input."""
    left = {r["member"] for r in rows if r["what"] == "leave" and _v(r, "member") is not None}
    out = []
    for g, gen in sorted(gens.items()):
        nxt = gens.get(g + 1)
        if not gen.members or nxt is None or not nxt.members:
            continue
        ids = {m for m, _, _ in nxt.members}
        instances = {i for _, i, _ in nxt.members if i}
        for mid, inst, _ in gen.members:
            if mid in ids or (inst and inst in instances) or mid in left:
                continue
            held = "its partitions in it are not in the input"
            raw = (gen.assignments or {}).get(mid)
            if raw is not None:
                try:
                    tps = partitions(raw)
                    held = "it was given " + (", ".join(f"{t}-{p}" for t, p in tps) if tps else "no partition")
                except Exception:  # noqa: BLE001 - bytes that do not read (the quarantine says so)
                    pass
            out.append(
                _row(
                    group,
                    g + 1,
                    check="member-never-rejoined",
                    severity="warning",
                    member=mid,
                    detail=(
                        f"{mid} of generation {g} ({held}) did not rejoin: generation {g + 1}'s JoinGroup response "
                        f"lists {len(nxt.members)} members without it{' or its instance id ' + inst if inst else ''}, "
                        "and no LeaveGroup of it is in the input (the coordinator dropped it when the rebalance "
                        "timed out; until its session ends it may still consume them)"
                    ),
                )
            )
    return out


def _row(group: str, generation: int, *, checked=None, why=None, check=None, severity=None, task=None, member=None,
         detail=None) -> dict[str, Any]:  # fmt: skip
    return {"group": group, "generation": generation, "check": check, "severity": severity, "task": task,
            "member": member, "process_id": None, "detail": detail, "escaped": None, "checked": checked, "why": why}  # fmt: skip


def group_consumer_checks(pdf, given: dict[str, int] | None = None):
    """``applyInPandas``'s function: one group's facts in, its findings and verdicts out (a DataFrame of the input's
    class: pandas, which only Spark's side needs)."""
    cols = [c.split()[0] for c in VERDICT_SCHEMA.split(", ")]
    records = pdf.to_dict("records")
    if not records:
        return type(pdf)([], columns=cols)
    return type(pdf)(generation_verdicts(records[0]["group"], records, given), columns=cols)
