"""What the classic and the KIP-848 runs of a consumer group scenario share (:mod:`codec.simulate.consumer`): the
scenario's member events (start, subscribe, stop, crash) as a member sees them, and the ledger as the run's clock
and picture (the queue itself is :class:`codec.simulate.runloop.QueueRun`'s)."""

from __future__ import annotations

from typing import Any

from ..causes.vocabulary import UNKNOWN
from .consumer_ledger import Ledger
from .consumer_scenario import ConsumerEvent, ConsumerScenario
from .runloop import QueueRun
from .wire import Recorder

__all__ = ["MemberRun"]


class MemberRun(QueueRun):
    """A consumer group run's members and their events. A subclass keeps ``members`` (name -> its member: ``name``,
    ``topics``, ``running``, ``owned``, ``key``) and says what starting (:meth:`_start`), a new subscription
    (:meth:`_resubscribe`), stopping or crashing (:meth:`_stop`) and its own queued actions (:meth:`_act`) do."""

    members: dict[str, Any]

    def __init__(self, sc: ConsumerScenario, protocol: str, assignor: str, rec: Recorder) -> None:
        super().__init__()
        self.sc, self.protocol, self.assignor, self.rec = sc, protocol, assignor, rec
        self.specs = {m.name: m for m in sc.members}
        parts = [(t, p) for t, n in sc.topics.items() for p in range(n)]
        self.ledger = Ledger(parts, sc.events[0].at if sc.events else 0.0)
        self.cause: tuple[str, str] = (UNKNOWN, "")
        self.rebalances: list[dict] = []
        self.notes: list[str] = []
        self.assignments: list[dict] = []  # what the assignor got and gave, each time it ran

    def _advance(self, t: float) -> None:
        self.ledger.advance(t)

    def _sample(self, t: float) -> None:
        self.ledger.sample(t, list(self.members))

    def _open_keys(self) -> list[str]:
        return [m.key for m in self.members.values() if m.running]

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
