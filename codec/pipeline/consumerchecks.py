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

__all__ = [
    "FACTS_SCHEMA",
    "VERDICT_SCHEMA",
    "CHECKS",
    "group_consumer_checks",
    "generation_verdicts",
    "kip848_verdicts",
]

#: the rows the Spark side hands over, one group at a time (``what``: ``join`` a member of a leader's JoinGroup
#: response -- a Streams member's without bytes --, ``joined`` the response itself, ``sync`` a member's assignment
#: in a leader's SyncGroup request, ``leave`` a LeaveGroup request's member, ``topic`` a Metadata response's topic
#: in the group's input; a KIP-848 group's: ``k848-assigned`` a heartbeat or Describe response's assignment of a
#: member at its epoch, ``k848-leave`` a heartbeat request leaving the group (epoch < 0), ``k848-sub`` a member's
#: subscribed topics, ``k848-topic`` a topic its records or Describe responses name)
FACTS_SCHEMA = (
    "group string, generation int, what string, record_id string, unit int, member string, instance string, "
    "data binary, protocol string, leader string, ts_ms bigint, topic string, partitions int, "
    "racks array<array<string>>, topic_id string, "
    "parts array<struct<topic_id:string,topic:string,partition:int>>, topics array<string>"
)
#: the findings (``check`` set) and one verdict row per generation (``check`` null: ``checked``, ``why``)
VERDICT_SCHEMA = (
    "group string, generation int, check string, severity string, task string, member string, process_id string, "
    "detail string, escaped array<string>, checked boolean, why string"
)
#: why no KIP-848 group is judged for ``not-the-assignors-assignment`` (report.json's ``kip848_not_judged``)
KIP848_NOT_JUDGED = (
    "the broker computes a KIP-848 group's assignment (its server assignor, from the group's state: member order, "
    "the previous target, subscriptions and topic metadata as the coordinator holds them), which no captured "
    "message carries whole: no leader's bytes to hold it to"
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
        check_generation,
        member_from_subscription,
        partitions_of,
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
            raw = _v(r, "data")  # (None: a Streams member; only member-never-rejoined reads it)
            gens[int(g)].members.append(
                (r["member"], _v(r, "instance"), None if raw is None else bytes(raw))  # type: ignore[arg-type]
            )
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
        if gen.members and all(raw is None for _, _, raw in gen.members):
            continue  # a classic Streams generation: the assignor checks are a plain consumer group's
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
        [decoded(g, protocol_of(g), member_from_subscription, partitions_of) for g in checked], counts, verdicts
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
    out.extend(_never_rejoined(group, gens, rows, member_from_subscription, partitions_of))
    out.extend(kip848_verdicts(group, rows, given or {}))
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


_EVENTS = ("k848-assigned", "k848-beat", "k848-leave", "k848-sub")


def _order(r: dict) -> tuple:
    rid = str(r["record_id"])
    head, _, line = rid.rpartition(":")
    return (_v(r, "ts_ms") or 0, head, int(line) if line.isdigit() else 0, rid, int(_v(r, "unit") or 0))


def kip848_verdicts(group: str, rows: list[dict], given: dict[str, int]) -> list[dict[str, Any]]:
    """``partition-unowned`` for a KIP-848 group, and one verdict row per member epoch its responses name.

    The broker computes the assignment and members reconcile one by one, so a partition is unowned by design
    between its revocation and its next owner's heartbeat. The group is judged at each epoch N where the input
    shows it *settled*: the heartbeat (or Describe) responses, replayed in time order (a heartbeat request with
    epoch 0 joins the group, without partitions until its first response; one with epoch < 0 leaves it), put
    every member at N, and, when the last member to reach N released partitions doing so, every other member had
    a response after it (a released partition reaches its next owner at that owner's next heartbeat).
    At the last such moment, every partition of the members' subscribed topics -- partition counts from the
    Metadata responses of the group's input (by topic id and name), else its records' partition metadata, else
    ``--partitions`` -- must be held by some member; one held twice is ``partition-owned-twice``, which the
    tables' rows give at every epoch (:func:`codec.pipeline.findings.consumer_findings`)."""
    k = [r for r in rows if str(r["what"]).startswith("k848-")]
    if not k:
        return []
    meta = [r for r in rows if r["what"] == "topic"]
    counts, _, disagree = _topics(meta)
    recorded: dict[str, set[int]] = {}
    names: dict[str, set[str]] = {}
    for r in meta + [r for r in k if r["what"] == "k848-topic"]:
        tid, t = _v(r, "topic_id"), _v(r, "topic")
        if tid is not None and t is not None:
            names.setdefault(tid, set()).add(t)
        if r["what"] == "k848-topic" and t is not None and _v(r, "partitions") is not None:
            recorded.setdefault(t, set()).add(int(r["partitions"]))
    state: dict[str, tuple[int | None, set, int]] = {}  # member -> (epoch, its partitions, index of that)
    subs: dict[str, list[str]] = {}
    since: dict[int, tuple[int, str, bool]] = {}  # epoch -> (index, member, whether it released partitions then)
    settled: dict[int, tuple[dict, dict]] = {}  # epoch -> the last settled moment (state, subscriptions)
    epochs: set[int] = set()
    events = sorted((r for r in k if r["what"] in _EVENTS), key=_order)
    for i, r in enumerate(events):
        m = r["member"]
        if r["what"] == "k848-beat":  # a response without an assignment: the member's is unchanged at its epoch
            if m in state and state[m][0] == _v(r, "generation"):
                state[m] = (state[m][0], state[m][1], i)
            else:
                continue
        if r["what"] == "k848-sub":
            subs[m] = [str(t) for t in r["topics"]]
            if _v(r, "generation") == 0:  # a join (or a rejoin): a member without its assignment yet
                state[m] = (None, set(), i)
                since.clear()
            continue
        if r["what"] == "k848-leave":  # the group's membership changed: its epoch moves on
            state.pop(m, None)
            since.clear()
            continue
        if r["what"] == "k848-beat":
            e = int(r["generation"])
            released = False
        else:
            e, released = _assigned(r, i, state, epochs)
        at = {ep for ep, _, _ in state.values()}
        if len(at) != 1 or None in at:
            since.clear()
            continue
        if e not in since:
            since.clear()
            since[e] = (i, m, released)
        first, last, freed = since[e]
        if not freed or all(idx > first or mm == last for mm, (_, _, idx) in state.items()):
            settled[e] = (dict(state), dict(subs))
    return _judged(group, epochs, settled, names, counts, disagree, recorded, given)


def _assigned(r: dict, i: int, state: dict, epochs: set) -> tuple[int, bool]:
    """A response's assignment of a member at its epoch (event ``i``) into ``state``; whether it released
    partitions (held some it no longer holds)."""
    m, e = r["member"], int(r["generation"])
    epochs.add(e)
    given = _v(r, "parts")
    parts = {(p["topic_id"], p["topic"], int(p["partition"])) for p in ([] if given is None else given)}
    released = bool(state[m][1] - parts) if m in state else False
    state[m] = (e, parts, i)
    return e, released


def _judged(group, epochs, settled, names, counts, disagree, recorded, given) -> list[dict[str, Any]]:
    """The verdict of each epoch, and its findings, from the settled moments :func:`kip848_verdicts` found."""
    out = []
    for n in sorted(epochs):
        why = None
        if n not in settled:
            why = (
                f"the group never settled at epoch {n} in the input: no moment has every member at it (and, where "
                "the last to reach it released partitions, each other member's next heartbeat after that: a "
                "released partition reaches its next owner at that owner's next heartbeat)"
            )
            out.append(_row(group, n, checked=False, why=why))
            continue
        st, sb = settled[n]
        missing = sorted(m for m in st if m not in sb)
        owned: dict[tuple[str, int], list[str]] = {}
        unnamed = set()
        for m, (_, parts, _) in st.items():
            for tid, t, p in parts:
                known = t or (min(names[tid]) if tid in names and len(names[tid]) == 1 else None)
                if known is None:
                    unnamed.add(tid)
                owned.setdefault((known or tid, p), []).append(m)
        topics = sorted({t for m in st for t in sb.get(m, ())})
        size: dict[str, int] = {}
        unknown = []
        for t in topics:
            if t in counts:
                size[t] = counts[t]
            elif t in disagree:
                unknown.append(f"{t} (the Metadata responses disagree: {' and '.join(map(str, disagree[t]))})")
            elif len(recorded.get(t, ())) == 1:
                size[t] = next(iter(recorded[t]))
            elif t in given:
                size[t] = given[t]
            else:
                unknown.append(t)
        if missing:
            why = f"the subscribed topics of {', '.join(missing)} are not in the input"
        elif unnamed:
            why = (
                f"no input of the group names topic id {', '.join(sorted(unnamed))} (a Metadata response, its records)"
            )
        elif unknown:
            why = (
                f"the partition count of {', '.join(unknown)} is not known: no Metadata response of the group's "
                "input names it (nor its partition metadata record, nor --partitions)"
            )
        out.append(_row(group, n, checked=why is None, why=why))
        if why is not None:
            continue
        for t in topics:
            for p in range(size[t]):
                if (t, p) in owned:
                    continue
                out.append(
                    _row(
                        group,
                        n,
                        check="partition-unowned",
                        severity="error",
                        task=f"{t}-{p}",
                        detail=(
                            f"{t}-{p} (of a subscribed topic, {size[t]} partitions) is held by none of the "
                            f"{len(st)} members at epoch {n}, settled (each heartbeated at it after the last one "
                            "reached it)"
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
