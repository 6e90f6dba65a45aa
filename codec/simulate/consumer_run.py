"""What the classic and the KIP-848 runs of a consumer group scenario share (:mod:`codec.simulate.consumer`): the
event queue, the scenario's member events (start, subscribe, stop, crash) as a member sees them, the ledger's
samples, and the run's end."""

from __future__ import annotations

import heapq
from typing import Any

from ..causes.vocabulary import UNKNOWN
from .consumer_ledger import Ledger
from .consumer_scenario import ConsumerEvent, ConsumerScenario
from .wire import Recorder

__all__ = ["MemberRun"]


class MemberRun:
    """A run's time and its members' events. A subclass keeps ``members`` (name -> its member: ``name``,
    ``topics``, ``running``, ``owned``, ``key``) and says what starting (:meth:`_start`), a new subscription
    (:meth:`_resubscribe`), stopping or crashing (:meth:`_stop`) and its own queued actions (:meth:`_act`) do."""

    members: dict[str, Any]

    def __init__(self, sc: ConsumerScenario, protocol: str, assignor: str, rec: Recorder) -> None:
        self.sc, self.protocol, self.assignor, self.rec = sc, protocol, assignor, rec
        self.specs = {m.name: m for m in sc.members}
        parts = [(t, p) for t, n in sc.topics.items() for p in range(n)]
        self.ledger = Ledger(parts, sc.events[0].at if sc.events else 0.0)
        self.queue: list = []
        self.seq = 0
        self.cause: tuple[str, str] = (UNKNOWN, "")
        self.rebalances: list[dict] = []
        self.notes: list[str] = []
        self.events_json: list[dict] = []
        self.assignments: list[dict] = []  # what the assignor got and gave, each time it ran

    def _push(self, t: float, action: str, *args) -> None:
        self.seq += 1
        heapq.heappush(self.queue, (t, self.seq, action, args))

    def _sample(self, t: float) -> None:
        self.ledger.sample(t, list(self.members))

    def _loop(self) -> float:
        """The scenario's events and the actions they queue, in time order, to its end; returns the end."""
        sc = self.sc
        self._sample(0.0)
        for e in sc.events:
            self._push(e.at, "event", e)
            self.events_json.append({"at": e.at, "event": e.describe()})
        end = sc.duration_s
        while self.queue and self.queue[0][0] <= end:
            t, _, action, args = heapq.heappop(self.queue)
            self.ledger.advance(t)
            if action == "event":
                self._event(args[0], t)
            else:
                self._act(action, args, t)
            self._sample(t)
        self.ledger.advance(end)
        self._sample(end)
        for m in self.members.values():
            if m.running:
                self.rec.close(m.key, end)
        return end

    def _event(self, e: ConsumerEvent, t: float) -> None:
        m = self.members[e.member]
        if e.kind == "start":
            if m.running:
                self.notes.append(f"{t:g}s: start {e.member}: already running")
                return
            self._start(m, t)
        elif e.kind == "subscribe":
            m.topics = e.topics or ()
            if m.running:
                self._resubscribe(m, t)
        else:
            if not m.running:
                self.notes.append(f"{t:g}s: {e.kind} {e.member}: not running")
                return
            self.ledger.give_up(m.name, sorted(m.owned), t, revoked=False)  # onPartitionsRevoked / Lost
            self._stop(m, t, crashed=e.kind == "crash")

    def _start(self, m, t: float) -> None:
        raise NotImplementedError

    def _resubscribe(self, m, t: float) -> None:
        raise NotImplementedError

    def _stop(self, m, t: float, *, crashed: bool) -> None:
        """``m`` stops (``close()``) or crashes at ``t``, having given up what it owned."""
        raise NotImplementedError

    def _act(self, action: str, args: tuple, t: float) -> None:
        raise NotImplementedError
