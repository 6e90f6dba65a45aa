"""Does the generated Python fast path earn its place beside the C engine? (issue #42)

The fast path (``codec/wire/fastpath.py``) runs only where the engine does not: an install without a C compiler, or
``REBALANCE_CODEC_NATIVE=0``. Every codec comparison of ``codec_bench.py`` (the group messages, ConsumerProtocol,
SubscriptionInfo/AssignmentInfo, Kafka 4's RPCs), measured with three sides, paired and interleaved
(``harness.py``):

``ours``       the pure-Python codec as shipped: the generated fast path, then the construct reference
``construct``  the pure-Python codec without the fast path (``fastpath.set_enabled(False)``): the reference alone
``engine``     the C engine (the codec every install with a compiler runs)

``python bench/run.py fastpath`` writes the section ``fastpath`` of ``results/results.json``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from codec_bench import codec_comparisons, kafka4_comparisons
from harness import Comparison

from codec.wire import fastpath

__all__ = ["fastpath_comparisons"]


def _without_fastpath(fn: Callable[[], Any]) -> Callable[[], Any]:
    def run():
        old = fastpath.set_enabled(False)
        try:
            return fn()
        finally:
            fastpath.set_enabled(old)

    return run


def fastpath_comparisons() -> list[Comparison]:
    out = []
    for c in codec_comparisons() + kafka4_comparisons():
        python = c.sides["python"]
        sides = {"ours": python, "construct": _without_fastpath(python), "engine": c.sides["ours"]}
        out.append(Comparison("fastpath", c.label, c.op, sides, meta=c.meta))
    return out
