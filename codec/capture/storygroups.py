"""The generations of one group in the rebalance story: settled at the end of the input, each with its changes
from the one before, and the events that name no generation placed by time."""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

from ..group.consumer import ASSIGNMENT, SUBSCRIPTION
from ..group.nested import STREAMS_PROTOCOL, Nested, decode_layer
from .events import Event
from .items import Item

from .storymodel import Changes, Generation, holdings

__all__ = ["GroupGenerations", "place", "with_protocol"]


# -- generations of a group ---------------------------------------------------------------------------


@dataclass(slots=True)
class _Snapshot:
    """What the next generation's changes are computed against."""

    generation: int | None
    members: dict[str, str]  # member id -> label
    owners: dict[str, dict[Item, str]]  # kind -> item -> member label


def _snapshot(gen: Generation) -> _Snapshot:
    owners: dict[str, dict[Item, str]] = {}
    for m in gen.members.values():
        for kind, items in (holdings(m.assignment) or {}).items():
            for item in items:
                owners.setdefault(kind, {})[item] = m.label
    return _Snapshot(gen.generation, {m.member_id: m.label for m in gen.members.values()}, owners)


def _changes(prev: _Snapshot | None, gen: Generation) -> Changes | None:
    if prev is None:
        return None
    now = _snapshot(gen)
    moved: dict[str, dict[tuple[str | None, str | None], list[Item]]] = {}
    for kind in sorted(set(prev.owners) | set(now.owners)):
        a, b = prev.owners.get(kind, {}), now.owners.get(kind, {})
        moves: dict[tuple[str | None, str | None], list[Item]] = {}
        for item in sorted(set(a) | set(b)):
            if a.get(item) != b.get(item):
                moves.setdefault((a.get(item), b.get(item)), []).append(item)
        if moves:
            moved[kind] = dict(sorted(moves.items(), key=lambda kv: (kv[0][0] or "", kv[0][1] or "")))
    return Changes(
        prev.generation,
        sorted(now.members[m] for m in now.members.keys() - prev.members.keys()),
        sorted(prev.members[m] for m in prev.members.keys() - now.members.keys()),
        moved,
    )


class GroupGenerations:
    """Every generation of one group, and the events that name no generation (placed at the end)."""

    def __init__(self, name: str, source: str) -> None:
        self.name = name
        self.source = source
        self.generations: dict[int, Generation] = {}
        self.loose: list[Event] = []
        self.clients: OrderedDict[str, str] = OrderedDict()  # member id -> client id, from request headers

    def generation(self, gen_id: int, ts: float | None) -> Generation:
        g = self.generations.get(gen_id)
        if g is None:
            g = self.generations[gen_id] = Generation(self.name, gen_id, self.source)
        g.touch(ts)
        return g

    def event(self, ev: Event, gen_id: int | None = None) -> None:
        g = self.generations.get(gen_id) if gen_id is not None else None
        if g is None:
            self.loose.append(ev)
        else:
            g.events.append(ev)
            g.touch(ev.ts)

    def finish(self) -> list[Generation]:
        """The generations in order, each with its events sorted and its changes from the one before;
        then, if some events fit no generation, a generation None holding them."""
        gens = [self.generations[k] for k in sorted(self.generations)]
        outside = []
        for ev in self.loose:
            g = place(ev, gens)
            if g is None:
                outside.append(ev)
                continue
            g.events.append(ev)
            if ev.kind == "leave" and ev.member is not None:  # (a leave names its members)
                for mid in ev.member.split(", "):
                    if mid in g.members:
                        g.members[mid].left = True
        prev: _Snapshot | None = None
        for g in gens:
            for m in g.members.values():
                m.client_id = m.client_id or self.clients.get(m.member_id)
                m.subscription = with_protocol(m.subscription, SUBSCRIPTION, g.protocol)
                m.assignment = with_protocol(m.assignment, ASSIGNMENT, g.protocol)
            g.members = dict(sorted(g.members.items(), key=lambda kv: (kv[1].label, kv[0])))
            g.events.sort(key=lambda e: (e.ts is None, e.ts or 0.0))
            g.changes = _changes(prev, g)
            prev = _snapshot(g)
        if outside:
            g = Generation(self.name, None, self.source, events=outside)
            for ev in outside:
                g.touch(ev.ts)
            gens.append(g)
        return gens


def place(ev: Event, gens: list[Generation]) -> Generation | None:
    """The generation an event without one belongs to: a failed join to the first generation formed
    after it (the rebalance it was part of), anything else to the last one formed before it; events
    without a time go to the last generation."""
    if not gens:
        return None
    if ev.ts is None:
        return gens[-1]
    start = [(g.formed_ts if g.formed_ts is not None else g.first_ts) for g in gens]
    if ev.kind == "join":
        return next((g for g, t in zip(gens, start) if t is not None and t >= ev.ts), gens[-1])
    before = [g for g, t in zip(gens, start) if t is not None and t <= ev.ts]
    return before[-1] if before else gens[0]


def with_protocol(value, layer: str, protocol: str | None):
    """A carried field decoded again with the generation's protocol, when its UserData was left bytes
    for want of it (a frame decoded before the JoinGroup response that names the protocol)."""
    if protocol != STREAMS_PROTOCOL or not isinstance(value, Nested) or not value.ok:
        return value
    user = value.value.data.user_data
    return decode_layer(layer, value.raw, protocol_name=protocol) if user and not isinstance(user, Nested) else value
