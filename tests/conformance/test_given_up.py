"""An adapter given up ends the run at once (issue #38; #46's "a broken adapter is one failure, shown once").

Before, the runner went on through every vector and generated case after a dead or hung adapter was given up: each
case was still drawn and written by the reference (about 5 s of CPU for the default 2,000, 37 s of a hung adapter's
run on a loaded machine), each request failed with the same reason, and each FAIL line repeated its stderr. Now
nothing is drawn nor asked once it is gone: the requests left are counted as not run, and the run fails."""

from __future__ import annotations

from codec.conformance import evidence, runner
from codec.conformance.impl import Outcome
from codec.conformance.vectors import load_vectors

VECTORS = [v for v in load_vectors() if v["message"] in ("HeartbeatRequest", "SubscriptionInfo")]


class Dies:
    """An implementation that answers ``answers`` requests (each refused) and then is gone, as CommandImplementation
    is once it gives an adapter up; it counts what it is asked after that."""

    name = "dies"

    def __init__(self, answers: int) -> None:
        self.left, self.gone, self.asked_after = answers, None, 0

    def _answer(self, *_, **__) -> Outcome:
        if self.gone:
            self.asked_after += 1
            return Outcome(failure=f"not run: {self.gone}")
        if self.left == 0:
            self.gone = "the adapter answered nothing (it exited)"
            return Outcome(failure="adapter exited (status 1) without answering")
        self.left -= 1
        return Outcome(error={"message": "no"})

    decode = encode = assign = capabilities = _answer


def _counting(monkeypatch) -> list:
    """Every generated case and witness the run draws, recorded."""
    drawn: list = []
    for module in (runner, evidence):
        real = module.take_case

        def take(*args, _real=real, **kw):
            drawn.append(args)
            return _real(*args, **kw)

        monkeypatch.setattr(module, "take_case", take)
    return drawn


def test_nothing_is_drawn_nor_asked_once_the_adapter_is_gone(monkeypatch):
    drawn = _counting(monkeypatch)
    impl = Dies(5)
    run = runner.run_all(impl, VECTORS, generate=400, cells=[("HeartbeatRequest", 4, None)], seed=7)
    assert impl.asked_after == 0
    gen = run.generated
    assert gen is not None and gen.cases + gen.not_run == 400
    assert len(drawn) == gen.cases <= 6  # the cases asked before it was gone (5 answers and the one it died on)
    statuses = [r.status for r in run.vectors]
    assert statuses.count("notrun") + statuses.count("fail") + statuses.count("pass") == len(VECTORS)
    assert statuses.count("notrun") >= len(VECTORS) - 6
    assert run.gone == "the adapter answered nothing (it exited)"


def test_a_run_that_never_gives_up_has_no_request_not_run():
    run = runner.run_all(Dies(10**9), VECTORS, generate=50, cells=[("HeartbeatRequest", 4, None)], seed=7)
    assert run.gone is None and run.generated is not None and run.generated.not_run == 0
    assert all(r.status != "notrun" for r in run.vectors)
