"""The doors of issue #38: adapters with no codec of their own, or with a codec that has one fault the comparison
missed, that got exit 0 from the gate (tests/hostile/codecless.py). Each must now end in a non-zero exit, and those
without a codec with nothing passed.

The counts in the docstrings are what each door gave before it was closed. Every expectation here is a property of
the adapter: one that computes nothing passes nothing; one with a fault fails where the fault shows."""

from __future__ import annotations

import re
import sys

import pytest

from tests.conformance.test_runner_protocol import cli, last
from tests.conftest import ROOT

CODECLESS = ROOT / "tests" / "hostile" / "codecless.py"
SUMMARY = re.compile(r"(\d+) passed, (\d+) failed, (\d+) skipped(?:, (\d+) expected failures?)?$")
GENERATED = re.compile(r"^generated: seed \d+, \d+ cases over \d+ message versions: (\d+) passed", re.MULTILINE)


def codecless(mode: str) -> str:
    return f"{sys.executable} {CODECLESS} {mode}"


def passed(p) -> tuple[int, int]:
    """(vectors passed, generated cases passed) of a run's output."""
    m = SUMMARY.fullmatch(last(p))
    assert m, p.stdout[-3000:] + p.stderr[-2000:]
    g = GENERATED.search(p.stdout)
    return int(m.group(1)), int(g.group(1)) if g else 0


@pytest.mark.parametrize(
    "args",
    [["--flags", "truncated", "--seed", "1"], ["--message", "SubscriptionInfo", "--seed", "1"]],
    ids=["truncated", "subscription-info"],
)
def test_the_lagging_adapter_gets_no_pass(args):
    """Each request answered with the previous request's answer: where consecutive answers are equal (two refusals
    of truncated vectors in a row) that passed: 2 of the truncated vectors under seed 1 (the witnesses' answers
    failed the rest); 25 of 777 SubscriptionInfo vectors by the issue's count. Each reply now names the request it
    was written for, and counts for no other."""
    p = cli("--impl", codecless("lag"), *args)
    assert p.returncode == 1
    assert passed(p) == (0, 0)
    assert "adapter answered request " in p.stdout
