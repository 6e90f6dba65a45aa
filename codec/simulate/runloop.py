"""The event loop the Connect and consumer group runs share (:mod:`codec.simulate.connect`,
:mod:`codec.simulate.consumer_run`): the scenario's events and the actions they queue, in time order (ties in the
order they were queued), up to the scenario's end."""

from __future__ import annotations

import heapq
from typing import Any

from .wire import Recorder

__all__ = ["QueueRun"]


class QueueRun:
    """A run driven by one queue of (time, action). A subclass keeps ``sc`` (its scenario: ``events``,
    ``duration_s``) and ``rec``, and says how time passes (:meth:`_advance`), what the picture samples
    (:meth:`_sample`), what a scenario event (:meth:`_event`) and each queued action (:meth:`_act`) do, and whose
    connections are open at the end (:meth:`_open_keys`)."""

    sc: Any
    rec: Recorder

    def __init__(self) -> None:
        self.queue: list = []
        self.seq = 0
        self.events_json: list[dict] = []

    def _push(self, t: float, action: str, *args) -> None:
        self.seq += 1
        heapq.heappush(self.queue, (t, self.seq, action, args))

    def _loop(self) -> float:
        """Every event and queued action up to the scenario's end, then the open connections closed; returns the
        end."""
        sc = self.sc
        self._sample(0.0)
        for e in sc.events:
            self._push(e.at, "event", e)
            self.events_json.append({"at": e.at, "event": e.describe()})
        end = sc.duration_s
        while self.queue and self.queue[0][0] <= end:
            t, _, action, args = heapq.heappop(self.queue)
            self._advance(t)
            if action == "event":
                self._event(args[0], t)
            else:
                self._act(action, args, t)
            self._sample(t)
        self._advance(end)
        self._sample(end)
        for key in self._open_keys():
            self.rec.close(key, end)
        return end

    def _advance(self, t: float) -> None:
        raise NotImplementedError

    def _sample(self, t: float) -> None:
        raise NotImplementedError

    def _event(self, e, t: float) -> None:
        raise NotImplementedError

    def _act(self, action: str, args: tuple, t: float) -> None:
        raise NotImplementedError

    def _open_keys(self) -> list[str]:
        raise NotImplementedError
