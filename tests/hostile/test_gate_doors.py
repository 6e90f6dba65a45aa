"""The doors of issue #38: adapters with no codec of their own, or with a codec that has one fault the comparison
missed, that got exit 0 from the gate (tests/hostile/codecless.py). Each must now end in a non-zero exit, and those
without a codec with nothing passed.

The counts in the docstrings are what each door gave before it was closed. Every expectation here is a property of
the adapter: one that computes nothing passes nothing; one with a fault fails where the fault shows."""

from __future__ import annotations

import json
import re
import sys

import pytest

from codec.conformance.vectors import load_rounds, load_vectors
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


@pytest.mark.parametrize("mode", ["lag", "lag-echo"])
@pytest.mark.parametrize(
    "args",
    [["--flags", "truncated", "--seed", "1"], ["--message", "SubscriptionInfo", "--seed", "1"]],
    ids=["truncated", "subscription-info"],
)
def test_the_lagging_adapter_gets_no_pass(mode, args):
    """Each request answered with the previous request's answer: where consecutive answers are equal (two refusals
    of truncated vectors in a row) that passed: 2 of the truncated vectors under seed 1 (the witnesses' answers
    failed the rest); 25 of 777 SubscriptionInfo vectors by the issue's count. Each reply now names the request it
    was written for, and counts for no other. One that echoes the id it is sent and still answers the request before
    (``lag-echo``: no id can tell it) passes nothing either: its rare equal answers have no evidence beside them."""
    p = cli("--impl", codecless(mode), *args)
    assert p.returncode == 1
    assert passed(p) == (0, 0)
    if mode == "lag":
        assert "adapter answered request " in p.stdout


def _report(tmp_path, mode: str, *args: str) -> tuple[object, dict]:
    report = tmp_path / "report.json"
    p = cli("--impl", codecless(mode), "--json", str(report), "--seed", "5", *args)
    return p, json.loads(report.read_text(encoding="utf-8"))


def _has(value, key: str, nonempty: bool = False) -> bool:
    """Whether an object anywhere in ``value`` has ``key`` (with a non-empty value)."""
    if isinstance(value, dict):
        return (key in value and (bool(value[key]) or not nonempty)) or any(
            _has(x, key, nonempty) for x in value.values()
        )
    return isinstance(value, list) and any(_has(x, key, nonempty) for x in value)


SUITE = {v["id"]: v for v in load_vectors()}


def _decode_halves_failed(data: dict, which) -> None:
    """Every valid vector of the run with a decode half that ``which`` picks failed that half, and no other failed."""
    picked = {r["id"] for r in data["results"] if r["id"] in SUITE and "decode" in r["ops"] and which(SUITE[r["id"]])}
    picked = {i for i in picked if SUITE[i]["result"] == "valid"}
    assert picked
    failed = {r["id"] for r in data["results"] if r["ops"].get("decode") == "fail"}
    assert picked <= failed


@pytest.mark.parametrize(
    "mode,messages,which",
    [
        ("extra-tags", ["JoinGroupRequest", "ConsumerGroupHeartbeatResponse"], lambda v: True),
        (
            "extra-tags-empty",
            ["JoinGroupRequest", "ConsumerGroupHeartbeatResponse"],
            lambda v: _has(v.get("expected"), "_unknownTaggedFields", nonempty=True),
        ),
        (
            "extra-client-tags",
            ["SubscriptionInfo"],
            lambda v: v["version"] >= 11 and "version-probe" not in v.get("flags", ()),
        ),
        ("floats", ["HeartbeatResponse", "SubscriptionInfo"], lambda v: True),
    ],
)
def test_a_decoder_that_reads_what_is_not_there_fails(tmp_path, mode, messages, which):
    """A decoder that adds an unknown tagged field (or one more where there are some) or a client tag to every
    struct passed all 7,782 vectors and 2,000 generated cases: those maps were compared as field subsets. Integers
    answered as floats passed too (1 == 1.0). Now the maps' keys are compared whole, numbers with their JSON type."""
    p, data = _report(tmp_path, mode, *[a for m in messages for a in ("--message", m)])
    assert p.returncode == 1
    _decode_halves_failed(data, which)
    assert data["generated"]["counts"]["fail"] > 0


@pytest.mark.parametrize("mode", ["round-junk", "round-junk-inner"])
def test_junk_after_a_rounds_assignment_fails_the_round(tmp_path, mode):
    """The built-in leader with a byte after each ConsumerProtocol assignment (or after the AssignmentInfo in its
    user data): every round passed."""
    p, data = _report(tmp_path, mode, "--message", "RebalanceRound")
    assert p.returncode == 1
    rounds = [r for r in data["results"] if r["message"] == "RebalanceRound"]
    assert len(rounds) == len(load_rounds()) and all(r["status"] == "fail" for r in rounds)
    assert all("after the end of the" in r["detail"] for r in rounds)


def test_junk_after_an_encoded_message_fails_its_encode(tmp_path):
    """The built-in encoder with a byte after each message: the vectors that are not canonical (Java's hash order,
    Connect's grouping), whose bytes are read back rather than compared, passed."""
    messages = ["SubscriptionInfo", "AssignmentInfo", "ConnectMetadata", "ConnectAssignment"]
    p, data = _report(tmp_path, "encode-junk", *[a for m in messages for a in ("--message", m)])
    assert p.returncode == 1
    encoded = [r for r in data["results"] if "encode" in r["ops"]]
    assert any(not SUITE[r["id"]].get("canonical", True) for r in encoded)  # the read-back ones are among them
    assert encoded and all(r["ops"]["encode"] == "fail" for r in encoded)
    assert data["generated"]["counts"]["pass"] == sum(
        f["cases"] for f in data["generated"]["passed"] if f["op"] == "decode"
    )


@pytest.mark.parametrize(
    "expected,actual,difference",
    [
        ({"a": 1}, {"a": 1, "b": 2}, None),  # a field the expected value does not name is not compared
        ({"a": 1}, {"a": 1.0}, "$.a: expected 1, got 1.0"),
        ({"a": 1}, {"a": True}, "$.a: expected 1, got true"),
        (
            {"a": 1},
            {"a": 1, "_unknownTaggedFields": {"9": "00"}},
            '$._unknownTaggedFields: expected none, got {"9": "00"}',
        ),
        ({"a": 1}, {"a": 1, "_unknownTaggedFields": {}}, None),
        (
            {"t": {"_unknownTaggedFields": {"1": "ab"}}},
            {"t": {"_unknownTaggedFields": {"1": "ab", "2": "cd"}}},
            '$.t._unknownTaggedFields.2: not expected (got "cd")',
        ),
        (
            {"clientTags": {"zone": "a"}},
            {"clientTags": {"zone": "a", "rack": "b"}},
            '$.clientTags.rack: not expected (got "b")',
        ),
        ({"clientTags": {"zone": "a"}}, {"clientTags": {}}, '$.clientTags.zone: missing (expected "a")'),
    ],
)
def test_maps_whose_keys_are_data_are_compared_whole(expected, actual, difference):
    from codec.conformance.messages import first_difference

    assert first_difference(expected, actual) == difference


def _no_pass(p) -> None:
    """The run failed and no vector or round passed."""
    assert p.returncode == 1, p.stdout[-3000:]
    assert passed(p)[0] == 0, p.stdout[-3000:]


@pytest.mark.parametrize("mode", ["rounds-lookup", "rounds-one-real"])
@pytest.mark.parametrize("args", [[], ["--generate", "0"], ["--op", "assign"]], ids=["generated", "witnesses", "op"])
def test_rounds_answered_from_the_installed_file_pass_nothing(mode, args):
    """Declaring assign alone and answering each round from the installed rebalance/rounds.jsonl: 16 passed, exit
    0 (rounds had no generated cases and no evidence rule). Now the rounds' passes count beside the adapter's passes
    of rounds nobody wrote down (generated, or witnesses where the run draws none), and one real answer of 64 is no
    evidence."""
    p = cli("--impl", codecless(mode), "--message", "RebalanceRound", "--seed", "3", *args)
    if mode == "rounds-lookup":
        _no_pass(p)
    else:  # one pass of 24 witnesses credits 16 rounds x (1/24) / 50%: one, and the run fails
        assert p.returncode == 1 and passed(p)[0] <= 1
        assert "NO EVIDENCE assign RebalanceRound: the adapter passes 1 of " in p.stdout


@pytest.mark.parametrize(
    "mode,args",
    [
        ("probe-cells", ["--message", "SubscriptionInfo", "--message", "AssignmentInfo"]),
        ("probe-cells", ["--message", "ShareGroupHeartbeatRequest", "--message", "SubscriptionInfo"]),
        ("probe-cells", ["--flags", "version-probe"]),
        ("probe-cells", ["--message", "AssignmentInfo", "--generate", "0"]),
        ("probe-cells", ["--message", "ShareGroupHeartbeatRequest", "--generate", "0"]),
        ("probe-cells-rounds", ["--message", "SubscriptionInfo", "--message", "RebalanceRound"]),
    ],
)
def test_a_table_of_the_cells_the_generator_did_not_draw_passes_nothing(mode, args):
    """A table of the installed vectors declaring only SubscriptionInfo v0 and v12-, AssignmentInfo v0 and v12- and
    ShareGroupHeartbeatRequest v0: the generator drew nothing there and a suite vector could be the witness of its
    rejections (10 passed, exit 0; 26 with the rounds). Now version probes are generated cells too, and witnesses
    are drawn values only."""
    p = cli("--impl", codecless(mode), "--seed", "2", *args)
    _no_pass(p)


def _expect(tmp_path, *lines: str) -> str:
    path = tmp_path / "expect.txt"
    path.write_text("".join(f"{line}  # what the adapter does not compute\n" for line in lines), encoding="utf-8")
    return str(path)


PART = ["ConsumerProtocolSubscription", "JoinGroupRequest", "HeartbeatResponse", "ConsumerGroupMemberMetadataValue"]


@pytest.mark.parametrize(
    "mode,lines",
    [
        ("one-real", ["generated * * * error"]),
        ("one-real", ["generated * * decode error", "generated * * encode error", "generated * * assign error"]),
        ("one-real-decline", []),
        ("lookup-all-rounds", ["generated * * * error"]),
    ],
)
def test_one_real_answer_an_op_and_message_credits_no_table(tmp_path, mode, lines):
    """A table of the installed files that answers the first request of each op and message nobody wrote down with a
    real codec, and every later one wrongly (or declines it), with expectations lines over those failures: the one
    pass credited the whole suite (7,301 passed, exit 0). Now a pass counts in proportion to the adapter's passes of
    values nobody wrote down, and a run where that leaves passes uncounted fails."""
    args = [a for m in PART for a in ("--message", m)] + (["--expect", _expect(tmp_path, *lines)] if lines else [])
    if mode == "lookup-all-rounds":
        args += ["--message", "RebalanceRound"]
    p = cli("--impl", codecless(mode), "--seed", "4", *args)
    assert p.returncode == 1
    assert "NO EVIDENCE " in p.stdout and "error: passes without evidence for " in p.stderr
    m = SUMMARY.fullmatch(last(p))
    vectors = [v for v in load_vectors() if v["message"] in PART]
    assert int(m.group(1)) < len(vectors) / 4  # a share in proportion to 1 pass of a message's cases, not the suite


@pytest.mark.parametrize("where", ["*", "$*", "$.*", "**", "$[]*"])
def test_a_generated_line_that_expects_every_failure_of_a_message_is_refused(tmp_path, where):
    """``generated * * * *`` turned every generated failure into an expected one."""
    path = _expect(tmp_path, f"generated JoinGroupRequest * * {where}")
    p = cli("--impl", codecless("one-real"), "--message", "JoinGroupRequest", "--expect", path)
    assert p.returncode == 1 and p.stdout == ""
    (line,) = p.stderr.strip().splitlines()
    assert line.startswith(f"error: {path}:1: a generated line names what differs")
