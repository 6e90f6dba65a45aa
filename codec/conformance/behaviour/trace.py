"""What one scenario saw: the client's requests (Kafka's JSON, with the error each was answered), the broker's
notes (connections, protocol errors) and the driver's lines, each with its time since the scenario began.

The judges read only this record, so a verdict is explained by the requests and lines it quotes."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import Any, Callable

__all__ = ["DriverLine", "Note", "Request", "Trace"]


@dataclass
class Request:
    t: float  # seconds since the scenario began
    conn: int
    api: str  # "JoinGroup"
    version: int
    correlation_id: int
    body: dict  # Kafka's JSON of the request
    client_id: str | None = None
    error: int = 0  # the error code answered
    dropped: bool = False  # the connection was closed instead of answering
    answered: float | None = None
    extra: dict = field(default_factory=dict)  # what the group decoded further (a JoinGroup's subscription)

    def short(self) -> str:
        """``JoinGroup v9 at 1.23 s`` and the fields a reader looks for first."""
        keys = ("memberId", "generationId", "memberEpoch", "groupInstanceId", "instanceId")
        said = ", ".join(f"{k} {self.body[k]!r}" for k in keys if k in self.body)
        return f"{self.api} v{self.version} at {self.t:.2f} s" + (f" ({said})" if said else "")


@dataclass
class Note:
    t: float
    kind: str  # connect, disconnect, protocol-error, broker-error, script
    conn: int | None = None
    detail: str = ""


@dataclass
class DriverLine:
    t: float
    event: dict  # the driver's JSON line


class Trace:
    """The record, and a way for a script to wait on it (every addition wakes the waiters)."""

    def __init__(self) -> None:
        self.start = time.monotonic()
        self.requests: list[Request] = []
        self.notes: list[Note] = []
        self.lines: list[DriverLine] = []
        self.stderr: list[str] = []
        self.supports: set[str] | None = None
        self.exit: int | None = None
        self.drains: list[Callable[[], None]] = []  # read what the drivers wrote so far (before a request)
        self._changed = asyncio.Event()

    def now(self) -> float:
        """Seconds since the scenario began, at the clock's full precision (records are ordered by it)."""
        return time.monotonic() - self.start

    def _wake(self) -> None:
        self._changed.set()

    def request(self, conn: int, api: str, version: int, corr: int, body: dict, *, at: float, **kw: Any) -> Request:
        """Record a request that arrived at ``at`` (the broker stamps a frame when its bytes arrive, after reading
        what the drivers wrote: see :class:`~.broker.Broker`)."""
        r = Request(at, conn, api, version, corr, body, **kw)
        self.requests.append(r)
        self._wake()
        return r

    def note(self, kind: str, *, conn: int | None = None, detail: str = "") -> None:
        self.notes.append(Note(self.now(), kind, conn, detail))
        self._wake()

    def line(self, event: dict) -> None:
        self.lines.append(DriverLine(self.now(), event))
        self._wake()

    async def wait_for(self, pred: Callable[[], Any], timeout: float) -> Any:
        """Wait until ``pred()`` is true (returned), or ``timeout`` seconds (None)."""
        deadline = time.monotonic() + timeout
        while True:
            got = pred()
            if got:
                return got
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            self._changed.clear()
            try:
                await asyncio.wait_for(self._changed.wait(), min(left, 0.5))
            except asyncio.TimeoutError:
                pass

    # --- reading -----------------------------------------------------------------------------------------------

    def of(self, *apis: str, after: float = -1.0) -> list[Request]:
        return [r for r in self.requests if r.api in apis and r.t > after]

    def events(self, *kinds: str, after: float = -1.0) -> list[DriverLine]:
        return [e for e in self.lines if e.event.get("event") in kinds and e.t > after]

    def notes_of(self, kind: str) -> list[Note]:
        return [n for n in self.notes if n.kind == kind]

    def to_json(self, limit: int = 400) -> dict:
        """The record as JSON (at most ``limit`` requests), for --json reports."""
        return {
            "requests": [
                {
                    "t": round(r.t, 6),
                    "conn": r.conn,
                    "api": r.api,
                    "version": r.version,
                    "body": r.body,
                    "error": r.error,
                    **({"dropped": True} if r.dropped else {}),
                    **({"subscription": r.extra["subscription"]} if "subscription" in r.extra else {}),
                }
                for r in self.requests[:limit]
            ],
            "requestsLeftOut": max(0, len(self.requests) - limit),
            "driver": [{"t": round(e.t, 6), **e.event} for e in self.lines[:limit]],
            "notes": [
                {"t": round(n.t, 6), "kind": n.kind, "conn": n.conn, "detail": n.detail} for n in self.notes[:limit]
            ],
            "stderr": self.stderr[-20:],
            "exit": self.exit,
        }
