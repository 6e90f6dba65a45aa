"""Every Kafka test method restated in :mod:`.kafka_sticky_scenarios`, :mod:`.kafka_sticky_scenarios2`,
:mod:`.kafka_range_scenarios` and :mod:`.kafka_server_scenarios`, once per assignor and parameter as JUnit runs it:
:func:`cases` lists them, :meth:`Case.run` runs one on an engine (a function from ``assign --consumer`` JSON to an
answer). ``vectors/consumer/kafka-client-tests.jsonl`` holds, per case, every call Kafka's own Java classes answered
when the same case ran on them."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Callable

from tests.assignor import (
    kafka_range_scenarios,
    kafka_server_scenarios,
    kafka_sticky_scenarios,
    kafka_sticky_scenarios2,
)
from tests.assignor.kafka_client_harness import Engine, RackConfig, StickyTest
from tests.assignor.kafka_range_scenarios import RangeTest, RoundRobinTest
from tests.assignor.kafka_server_scenarios import ServerTest
from tests.assignor.kafka_sticky_scenarios import HAS_RACK, RACK

CLIENT = "org.apache.kafka.clients.consumer."
PACKAGES = {
    "AbstractStickyAssignorTest": CLIENT + "internals.AbstractStickyAssignorTest",
    "StickyAssignorTest": CLIENT + "StickyAssignorTest",
    "CooperativeStickyAssignorTest": CLIENT + "CooperativeStickyAssignorTest",
    "RangeAssignorTest": CLIENT + "RangeAssignorTest",
    "RoundRobinAssignorTest": CLIENT + "RoundRobinAssignorTest",
}
# the sizes Kafka runs them at: long (minutes here), behind the ``slow`` marker
SLOW = {
    "testLargeAssignmentAndGroupWithUniformSubscription",
    "testLargeAssignmentAndGroupWithNonEqualSubscription",
    "testAssignmentAndGroupWithNonEqualSubscriptionNotTimeout",
}


@dataclass(frozen=True)
class Case:
    id: str
    kafka_test: str  # package.Class#method, as the class that declares it
    runs_as: str  # the JUnit class that runs it (a subclass for AbstractStickyAssignorTest's)
    assignor: str
    params: tuple
    fn: Callable[..., Any]
    family: str  # sticky, range, roundrobin, server

    @property
    def slow(self) -> bool:
        return self.kafka_test.rsplit("#", 1)[1] in SLOW

    def run(self, engine: Engine) -> None:
        rng = random.Random(self.id)
        if self.family == "sticky":
            self.fn(StickyTest(self.assignor, engine, rng), *self.params)
        elif self.family == "range":
            self.fn(RangeTest(engine), *self.params)
        elif self.family == "roundrobin":
            self.fn(RoundRobinTest(engine), *self.params)
        else:
            self.fn(ServerTest(self.assignor, engine, rng), *self.params)


def _param_text(params: tuple) -> str:
    return ",".join(p.name if isinstance(p, RackConfig) else str(p).lower() for p in params)


def _params(kind: str) -> list[tuple]:
    if kind == RACK:
        return [(rc,) for rc in RackConfig]
    if kind == HAS_RACK:
        return [(False,), (True,)]
    if kind == kafka_sticky_scenarios2.BOTH_SUBSCRIPTIONS:  # StickyAssignorTest.rackAndSubscriptionCombinations
        return [(rc, equal) for equal in (True, False) for rc in RackConfig]
    return [()]


def cases() -> list[Case]:
    out: list[Case] = []
    sticky_rows = [
        ("AbstractStickyAssignorTest", m, fn, kind) for m, (fn, kind) in kafka_sticky_scenarios.SCENARIOS.items()
    ]
    for cls, method, fn, kind in sticky_rows + kafka_sticky_scenarios2.SCENARIOS:
        runs = {
            "AbstractStickyAssignorTest": ("StickyAssignorTest", "CooperativeStickyAssignorTest"),
            "StickyAssignorTest": ("StickyAssignorTest",),
            "CooperativeStickyAssignorTest": ("CooperativeStickyAssignorTest",),
        }[cls]
        for runs_as in runs:
            assignor = "sticky" if runs_as == "StickyAssignorTest" else "cooperative-sticky"
            for p in _params(kind):
                cid = f"{runs_as}#{method}[{_param_text(p)}]"
                out.append(Case(cid, f"{PACKAGES[cls]}#{method}", PACKAGES[runs_as], assignor, p, fn, "sticky"))
    for cls, method, fn, kind in kafka_range_scenarios.SCENARIOS:
        assignor = "range" if cls == "RangeAssignorTest" else "roundrobin"
        for p in _params(kind):
            cid = f"{cls}#{method}[{_param_text(p)}]"
            out.append(Case(cid, f"{PACKAGES[cls]}#{method}", PACKAGES[cls], assignor, p, fn, assignor))
    for cls, method, assignor, fn, p in kafka_server_scenarios.SCENARIOS:
        cid = f"{cls.rsplit('.', 1)[1]}#{method}[{_param_text(p)}]"
        out.append(Case(cid, f"{cls}#{method}", cls, assignor, p, fn, "server"))
    return out
