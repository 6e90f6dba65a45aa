"""Kafka Connect's group-protocol negotiation: ``connect.protocol`` -> the protocols a worker sends, the
coordinator's selection, and the bundled rolling upgrades and downgrades.

Expectations are derived by hand from Kafka's code (at 1eb7644):

* ``WorkerCoordinator.metadata()``: eager sends ``ConnectProtocol.metadataRequest`` (only ``default``, v0
  metadata); compatible and sessioned send ``IncrementalCooperativeConnectProtocol.metadataRequest``, which adds
  ``sessioned`` (v2 metadata) when sessioned, then ``compatible`` (v1) and ``default`` (v0), in that order.
* ``ClassicGroup.selectProtocol``: the candidates are the protocols every member sends; each member votes for
  the first candidate in its own list; the most votes win.
"""

from __future__ import annotations

import itertools
import json
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from codec.connect import ConnectAssignment
from codec.group import decode_request_frame
from codec.negotiation.connect import connect_mode, join_group_protocols, select_connect_protocol, worker_protocols
from codec.negotiation.scenario import ScenarioError, run_connect_phases

ROOT = Path(__file__).resolve().parents[2]


# --- what a worker sends ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "mode,protocols",
    [
        ("eager", ("default",)),
        ("compatible", ("compatible", "default")),
        ("sessioned", ("sessioned", "compatible", "default")),
        ("SESSIONED", ("sessioned", "compatible", "default")),  # Kafka matches the config value ignoring case
        ("Eager", ("default",)),
    ],
)
def test_the_protocols_a_worker_sends(mode, protocols):
    assert worker_protocols(mode) == protocols


@pytest.mark.parametrize("bad", ["default", "cooperative", "", "eager ", None, 1])
def test_unknown_connect_protocol_values(bad):
    with pytest.raises(ValueError):
        connect_mode(bad)


def s16(s: str) -> bytes:
    return struct.pack(">h", len(s.encode())) + s.encode()


def test_join_group_metadata_bytes_without_a_previous_assignment():
    # header, URL, config offset; from v1 a null allocation (int32 -1)
    url, offset = "http://w1:8083/", 5
    body = s16(url) + struct.pack(">q", offset)
    assert join_group_protocols("sessioned", url, offset) == (
        ("sessioned", b"\x00\x02" + body + b"\xff\xff\xff\xff"),
        ("compatible", b"\x00\x01" + body + b"\xff\xff\xff\xff"),
        ("default", b"\x00\x00" + body),
    )
    assert join_group_protocols("eager", url, offset) == (("default", b"\x00\x00" + body),)


def test_join_group_metadata_bytes_with_a_previous_assignment():
    """The allocation is the previous assignment written with the protocol's own header (v2 under sessioned,
    v1 under compatible); ConnectProtocol's v0 metadata has no place for it."""
    url, offset = "u1", 9
    prev = ConnectAssignment(leader="L", leader_url="u", config_offset=7, connectors=("a",))
    # error 0, leader "L", leader URL "u", config offset 7, one connector "a" with only its connector task
    # (-1), no revoked connectors, delay 0
    fields = (
        b"\x00\x00"
        + s16("L")
        + s16("u")
        + struct.pack(">q", 7)
        + struct.pack(">i", 1)
        + s16("a")
        + struct.pack(">i", 1)
        + struct.pack(">i", -1)
        + struct.pack(">i", 0)
        + struct.pack(">i", 0)
    )
    body = s16(url) + struct.pack(">q", offset)
    v2_alloc, v1_alloc = b"\x00\x02" + fields, b"\x00\x01" + fields
    assert join_group_protocols("sessioned", url, offset, prev) == (
        ("sessioned", b"\x00\x02" + body + struct.pack(">i", len(v2_alloc)) + v2_alloc),
        ("compatible", b"\x00\x01" + body + struct.pack(">i", len(v1_alloc)) + v1_alloc),
        ("default", b"\x00\x00" + body),
    )
    assert join_group_protocols("compatible", url, offset, prev)[0] == (
        "compatible",
        b"\x00\x01" + body + struct.pack(">i", len(v1_alloc)) + v1_alloc,
    )


def test_a_join_group_request_of_those_protocols_decodes_as_connect():
    protocols = join_group_protocols(
        "sessioned",
        "http://w1:8083/",
        5,
        ConnectAssignment(leader="L", leader_url="u", config_offset=7, connectors=("a",)),
    )
    body = (
        s16("connect-cluster")
        + struct.pack(">ii", 10000, 300000)
        + s16("")
        + struct.pack(">h", -1)
        + s16("connect")
        + struct.pack(">i", len(protocols))
        + b"".join(s16(n) + struct.pack(">i", len(m)) + m for n, m in protocols)
    )
    frame = struct.pack(">hhi", 11, 5, 1) + s16("w1") + body
    decoded = decode_request_frame(frame)
    got = [
        (p.name, p.metadata.value.info.version, p.metadata.value.info.assignment.connectors)
        for p in decoded.body.protocols
    ]
    # the v0 metadata read by the v1 reader: no allocation, so Kafka's empty assignment
    assert got == [("sessioned", 2, ("a",)), ("compatible", 1, ("a",)), ("default", 0, ())]


# --- the coordinator's selection ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "workers,protocol,votes",
    [
        # one list each: the candidates are what all send; each votes its first candidate
        ({"A": "eager", "B": "eager", "C": "eager"}, "default", {"default": 3}),
        ({"A": "compatible", "B": "compatible"}, "compatible", {"compatible": 2}),
        ({"A": "sessioned", "B": "sessioned", "C": "sessioned"}, "sessioned", {"sessioned": 3}),
        # {sessioned, compatible, default} & {default} = {default}
        ({"A": "sessioned", "B": "eager", "C": "eager"}, "default", {"default": 3}),
        ({"A": "sessioned", "B": "sessioned", "C": "eager"}, "default", {"default": 3}),
        # {sessioned, compatible, default} & {compatible, default} = {compatible, default}: A's first of those is
        # compatible, B's too
        ({"A": "sessioned", "B": "compatible"}, "compatible", {"compatible": 2}),
        ({"A": "compatible", "B": "eager"}, "default", {"default": 2}),
        ({"A": "sessioned", "B": "compatible", "C": "eager"}, "default", {"default": 3}),
        ({"A": "sessioned"}, "sessioned", {"sessioned": 1}),
    ],
)
def test_the_coordinators_selection(workers, protocol, votes):
    sel = select_connect_protocol(workers)
    assert sel.protocol == protocol and sel.selection.votes == votes and sel.selection.tie == ()
    assert sel.version == {"default": 0, "compatible": 1, "sessioned": 2}[protocol]
    assert sel.rebalancing == ("eager" if protocol == "default" else "incremental cooperative")
    assert sel.assignor == ("EagerAssignor" if protocol == "default" else "IncrementalCooperativeAssignor")
    assert sel.sessioned == (protocol == "sessioned")


ORDER = {"eager": 0, "compatible": 1, "sessioned": 2}
OWN = {"eager": "default", "compatible": "compatible", "sessioned": "sessioned"}


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_every_group_runs_its_oldest_workers_protocol(n):
    """Each mode's list is a tail of (sessioned, compatible, default): the candidates are the oldest worker's
    list, and every worker's first candidate is its head, so all votes agree (no tie to break)."""
    for modes in itertools.product(ORDER, repeat=n):
        workers = {f"w{i}": m for i, m in enumerate(modes)}
        oldest = min(modes, key=ORDER.get)
        sel = select_connect_protocol(workers)
        assert sel.protocol == OWN[oldest], workers
        assert sel.selection.votes == {OWN[oldest]: n} and sel.selection.tie == ()


# --- the bundled rolling upgrades and downgrades ------------------------------------------------------------


def _bundled(name: str) -> dict:
    return json.loads((ROOT / "codec" / "examples" / "negotiation" / f"{name}.json").read_text())


# Per phase, the protocol of the oldest mode among the workers (the rule above), worked out phase by phase.
@pytest.mark.parametrize(
    "name,modes,protocols",
    [
        (
            "connect-eager-to-sessioned",
            [("eager",) * 3, ("sessioned", "eager", "eager"), ("sessioned", "sessioned", "eager"), ("sessioned",) * 3],
            ["default", "default", "default", "sessioned"],
        ),
        (
            "connect-eager-to-compatible",
            [
                ("eager",) * 3,
                ("compatible", "eager", "eager"),
                ("compatible", "compatible", "eager"),
                ("compatible",) * 3,
            ],
            ["default", "default", "default", "compatible"],
        ),
        (
            "connect-compatible-to-sessioned",
            [
                ("compatible",) * 3,
                ("sessioned", "compatible", "compatible"),
                ("sessioned", "sessioned", "compatible"),
                ("sessioned",) * 3,
            ],
            ["compatible", "compatible", "compatible", "sessioned"],
        ),
        (
            "connect-eager-to-sessioned-via-compatible",
            [
                ("eager",) * 3,
                ("compatible", "eager", "eager"),
                ("compatible", "compatible", "eager"),
                ("compatible",) * 3,
                ("sessioned", "compatible", "compatible"),
                ("sessioned", "sessioned", "compatible"),
                ("sessioned",) * 3,
            ],
            ["default", "default", "default", "compatible", "compatible", "compatible", "sessioned"],
        ),
        (
            "connect-sessioned-to-eager",
            [("sessioned",) * 3, ("eager", "sessioned", "sessioned"), ("eager", "eager", "sessioned"), ("eager",) * 3],
            ["sessioned", "default", "default", "default"],
        ),
        (
            "connect-sessioned-to-compatible",
            [
                ("sessioned",) * 3,
                ("compatible", "sessioned", "sessioned"),
                ("compatible", "compatible", "sessioned"),
                ("compatible",) * 3,
            ],
            ["sessioned", "compatible", "compatible", "compatible"],
        ),
    ],
)
def test_bundled_scenarios(name, modes, protocols):
    spec = _bundled(name)
    assert spec["kind"] == "connect-protocol"
    assert [tuple(p[w] for w in "ABC") for p in spec["phases"]] == modes
    phases = run_connect_phases(spec)
    assert [p["protocol"] for p in phases] == protocols
    for p, want in zip(phases, modes):
        assert {w: x["protocols"] for w, x in p["workers"].items()} == {
            w: list(worker_protocols(m)) for w, m in zip("ABC", want)
        }
        assert p["votes"] == {p["protocol"]: 3}


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "codec", *args], capture_output=True, text=True, cwd=ROOT)


def test_connect_eager_to_sessioned_through_the_cli():
    p = _cli("negotiate", "--scenario", "connect-eager-to-sessioned")
    assert p.returncode == 0, p.stderr
    out = p.stdout
    for phase, line in [
        (1, "-> group protocol: default (v0): eager rebalancing, EagerAssignor"),
        (2, "-> group protocol: default (v0): eager rebalancing, EagerAssignor"),
        (3, "-> group protocol: default (v0): eager rebalancing, EagerAssignor"),
        (4, "-> group protocol: sessioned (v2): incremental cooperative rebalancing, IncrementalCooperativeAssignor"),
    ]:
        block = out.split(f"\nphase {phase}:")[1].split("\nphase ")[0]
        assert line in block, (phase, block)
    assert "phase 2: A restarts with connect.protocol=sessioned (was eager)" in out
    assert "A  connect.protocol=sessioned   sends sessioned, compatible, default" in out
    assert "the group runs: phase 1 default, phase 2 default, phase 3 default, phase 4 sessioned" in out
    p = _cli("negotiate", "--scenario", "connect-sessioned-to-eager", "--format", "json")
    assert p.returncode == 0, p.stderr
    phases = json.loads(p.stdout)
    assert [(x["protocol"], x["rebalancing"]) for x in phases] == [
        ("sessioned", "incremental cooperative"),
        ("default", "eager"),
        ("default", "eager"),
        ("default", "eager"),
    ]
    assert phases[1]["changes"] == ["A restarts with connect.protocol=eager (was sessioned)"]


def test_joins_and_leaves_between_phases():
    phases = run_connect_phases(
        {
            "kind": "connect-protocol",
            "phases": [{"A": "sessioned", "B": "eager"}, {"A": "sessioned"}, {"A": "sessioned", "C": "compatible"}],
        }
    )
    assert [p["protocol"] for p in phases] == ["default", "sessioned", "compatible"]
    assert phases[1]["changes"] == ["B leaves"]
    assert phases[2]["changes"] == ["C joins with connect.protocol=compatible"]


# --- scenario checks ----------------------------------------------------------------------------------------


def _connect(*phases, **rest) -> dict:
    return {"kind": "connect-protocol", "phases": list(phases), **rest}


@pytest.mark.parametrize(
    "spec,where",
    [
        (
            _connect({"A": ["sessioned", "compatible"]}),
            "phases[0].A: needs a connect.protocol (eager, compatible, sessioned), got a list",
        ),
        (_connect({"A": "lazy"}), "phases[0].A: unknown connect.protocol 'lazy'"),
        (_connect({"A": "default"}), "phases[0].A: unknown connect.protocol 'default'"),
        (_connect({"A": None}), "phases[0].A: needs a connect.protocol"),
        (_connect({"A": 2}), "phases[0].A: needs a connect.protocol"),
        (_connect({}), "phases[0]: a group needs at least one worker"),
        (_connect(["A"]), "phases[0]: needs an object"),
        (_connect(), "phases: a scenario needs at least one phase"),
        ({"kind": "connect-protocol"}, "phases: missing"),
        ({"kind": "connect-protocol", "phases": {"A": "eager"}}, "phases: needs a list, got an object"),
        (_connect({"A": "eager"}, workers=[]), "scenario: unknown key 'workers'"),
        (_connect({"A": "eager"}, name=3), "name: needs a string"),
    ],
)
def test_connect_scenario_refusals(spec, where):
    with pytest.raises(ScenarioError) as e:
        run_connect_phases(spec)
    assert str(e.value).startswith(where), str(e.value)


def test_a_refused_connect_scenario_is_one_error_line(tmp_path):
    f = tmp_path / "bad.json"
    f.write_text(json.dumps(_connect({"A": "eager", "B": ["default"]})))
    p = _cli("negotiate", "--scenario", str(f))
    assert p.returncode == 1 and p.stdout == ""
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and "phases[0].B: needs a connect.protocol" in lines[0], p.stderr
