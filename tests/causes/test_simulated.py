"""The simulator as the cause engine's first oracle: its coordinator knows why each rebalance started (a member
joined, left, its session expired; a member rejoined for a probing deadline, a follow-up, a version probe, a
revocation), and writes it in the rebalance's ``cause`` (:mod:`codec.simulate.truth`). Each bundled scenario is
simulated, its frames written as a pcap, read back by ``capture``'s story, and every generation's main cause must
be the simulator's, naming the member the simulator names -- with the members' KIP-800 reasons on the wire, and
without them (as librdkafka and older clients send JoinGroup), where the engine must infer from the assignments,
heartbeats and membership alone."""

from __future__ import annotations

import functools

import pytest

from codec.capture.story import Generation, capture_story
from codec.simulate.connect import load_connect_scenario, simulate_connect
from codec.simulate.engine import simulate
from codec.simulate.scenario import bundled_examples, example_path, load_scenario

STREAMS = [n for n in bundled_examples() if not n.startswith(("connect", "consumer"))]
HEAVY = {"scale-out-100"}  # 100 members: a minute and more; run with -m slow
STREAMS_PARAMS = [pytest.param(n, marks=pytest.mark.slow) if n in HEAVY else n for n in STREAMS]
CONNECT = [n for n in bundled_examples() if n.startswith("connect")]


@functools.cache
def _told(kind: str, name: str, protocol: str, reasons: bool, tmp) -> tuple[list[dict], dict[int, Generation]]:
    if kind == "streams":
        result = simulate(load_scenario(example_path(name)), protocol, reasons=reasons)
    else:
        result = simulate_connect(load_connect_scenario(example_path(name)), protocol)
    out = tmp / f"{kind}-{name}-{protocol}-{reasons}"
    _, pcap = result.recorder.write(out)
    gens = {g.generation: g for g in capture_story(pcap) if isinstance(g, Generation) and g.generation is not None}
    return result.rebalances, gens


@pytest.fixture(scope="module")
def tmp(tmp_path_factory):
    return tmp_path_factory.mktemp("simulated")


def _check(rebalances: list[dict], gens: dict[int, Generation]) -> None:
    assert rebalances, "the scenario rebalanced"
    assert all(g.rebalance is not None for g in gens.values()), "every generation told has a cause"
    wrong = []
    for rb in rebalances:
        r = gens[rb["generation"]].rebalance
        assert r is not None
        if r.cause.kind != rb["cause"] or rb["cause_member"] not in r.cause.members:
            wrong.append((rb["generation"], rb["cause"], rb["trigger"] if "trigger" in rb else rb["reasons"], r.cause))
    assert wrong == []


@pytest.mark.parametrize("reasons", [True, False], ids=["KIP-800 reasons", "no reasons"])
@pytest.mark.parametrize("name", STREAMS_PARAMS)
def test_each_streams_rebalance_has_the_simulators_cause(name, reasons, tmp):
    _check(*_told("streams", name, "ha", reasons, tmp))


@pytest.mark.parametrize("protocol", ["eager", "cooperative"])
def test_each_rebalance_of_other_streams_protocols_has_the_simulators_cause(protocol, tmp):
    for name in ("rolling-upgrade", "leader-crash", "scale-out"):
        _check(*_told("streams", name, protocol, False, tmp))


@pytest.mark.parametrize("name", CONNECT)
def test_each_connect_rebalance_has_the_simulators_cause(name, tmp):
    for protocol in load_connect_scenario(example_path(name)).protocols:
        _check(*_told("connect", name, protocol, True, tmp))


def test_the_oracle_covers_every_kind_the_simulator_can_tell(tmp):
    """The scenarios exercise every cause the simulator's coordinator can name."""
    seen = set()
    for name in sorted(set(STREAMS) - HEAVY):
        seen |= {rb["cause"] for rb in _told("streams", name, "ha", True, tmp)[0]}
    for name in CONNECT:
        for protocol in load_connect_scenario(example_path(name)).protocols:
            seen |= {rb["cause"] for rb in _told("connect", name, protocol, True, tmp)[0]}
    assert seen == {
        "member-joined",
        "member-left",
        "session-timeout",
        "follow-up",
        "streams-probing",
        "streams-version-probing",
    }
