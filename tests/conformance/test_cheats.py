"""Cheat-proof runs (issue #27): adapters with no codec end with 0 passed and a non-zero exit, with or without an
expectations file written for them (tests/conformance/cheat_adapter.py).

Each was green before #27: the remember-the-wire echo passed 3,231 vectors (a vector's decode half was sent just
before its encode half), declaring only the cells no valid vector has passed by "nothing to ask", the
cross-version matrix agreed everywhere from the request's version words, and refusing everything went green with
its own --write-expect file. Every count here is a property of the adapter (it implements nothing, so nothing
passes), not the runner's output."""

from __future__ import annotations

import json
import re
import sys

import pytest

from codec.conformance.generate import plan
from codec.conformance.runner import write_rank
from codec.conformance.vectors import load_rounds, load_vectors
from tests.conformance.test_runner_protocol import cli, last
from tests.conftest import ROOT, consumer_round_count

CHEAT = ROOT / "tests" / "conformance" / "cheat_adapter.py"
VECTORS = load_vectors()
ROUNDS = len(load_rounds()) + consumer_round_count()  # the Streams leader's and the consumer assignors'
# A part of the suite with a layer that carries another's bytes (ConsumerProtocol in JoinGroup), a record, a
# Kafka 4 RPC and a message with many versions; the whole suite runs in the tests of the issue's own four.
PART = [
    "ConsumerProtocolSubscription",
    "JoinGroupRequest",
    "HeartbeatResponse",
    "ConsumerGroupMemberMetadataValue",
    "ConsumerGroupHeartbeatResponse",
]
SUMMARY = re.compile(r"(\d+) passed, (\d+) failed, (\d+) skipped(?:, (\d+) expected failures?)?$")
GENERATED = re.compile(r"^generated: seed \d+, \d+ cases over \d+ message versions: (\d+) passed", re.MULTILINE)


def cheat(mode: str) -> str:
    return f"{sys.executable} {CHEAT} {mode}"


def passed(p) -> tuple[int, int]:
    """(vectors passed, generated cases passed) of a run's output."""
    m = SUMMARY.fullmatch(last(p))
    assert m, p.stdout[-2000:]
    g = GENERATED.search(p.stdout)
    return int(m.group(1)), int(g.group(1)) if g else 0


def assert_nothing_passes(mode: str, tmp_path, *args: str, expect: bool = False) -> None:
    """The run fails with 0 passed and says why; with ``expect``, so does a run with the expectations file written
    from it."""
    written = tmp_path / f"{mode}.expect"
    p = cli("--impl", cheat(mode), "--write-expect", str(written), "--generate", "200", "--seed", "1", *args)
    assert p.returncode == 1 and passed(p) == (0, 0), p.stdout[-3000:]
    assert "error: nothing " in p.stderr
    if expect:
        p = cli("--impl", cheat(mode), "--expect", str(written), "--generate", "200", "--seed", "1", *args)
        assert p.returncode == 1 and passed(p) == (0, 0), p.stdout[-3000:]
        assert "error: nothing " in p.stderr


def test_the_remember_the_wire_echo_passes_nothing(tmp_path):
    """The whole suite: no encode request comes after the decode request that shows its bytes."""
    p = cli("--impl", cheat("echo"), "--generate", "300")
    assert p.returncode == 1 and passed(p) == (0, 0)
    assert p.stderr == "error: nothing was checked: every selected vector was skipped\n"


@pytest.mark.parametrize(
    "mode,expect",
    [
        ("echo-any-version", False),
        ("echo-any-message", False),
        ("echo-values", False),
        ("from-version", False),
        ("decode-only-error", True),
        ("encode-only-error", False),
        ("lookup", True),
    ],
)
def test_a_codec_less_adapter_passes_nothing(tmp_path, monkeypatch, mode, expect):
    monkeypatch.setenv("ECHO_FILE", str(tmp_path / "remembered.jsonl"))  # echo-values: memory across processes
    assert_nothing_passes(mode, tmp_path, *[a for m in PART for a in ("--message", m)], expect=expect)


def test_declaring_only_cells_without_valid_vectors_passes_nothing(tmp_path):
    """AssignmentInfo and SubscriptionInfo v0 and v12+ hold invalid vectors only: their rejections need a witness
    of another version, declared or not, which the adapter refuses."""
    assert_nothing_passes(
        "no-valid-cells", tmp_path, "--message", "AssignmentInfo", "--message", "SubscriptionInfo", expect=True
    )


def test_refusing_everything_with_its_own_expectations_fails(tmp_path):
    """The whole suite, as the issue found it: every vector listed as an expected failure."""
    written = tmp_path / "refuse.expect"
    p = cli("--impl", cheat("refuse-all"), "--write-expect", str(written), "--generate", "100", "--seed", "3")
    assert p.returncode == 1
    listed = [ln for ln in written.read_text().splitlines() if ln and not ln.startswith("#")]
    assert len([ln for ln in listed if not ln.startswith("generated ")]) == len(VECTORS) + ROUNDS  # and the rounds
    p = cli("--impl", cheat("refuse-all"), "--expect", str(written), "--generate", "100", "--seed", "3")
    assert p.returncode == 1
    assert last(p) == f"0 passed, 0 failed, 0 skipped, {len(VECTORS) + ROUNDS} expected failures"
    assert (
        p.stderr.startswith("error: nothing passed (0 failed, ") and "whatever an expectations file lists" in p.stderr
    )
    assert re.search(r"^generated: .*: 0 passed, 0 failed, 0 skipped, 100 expected failures$", p.stdout, re.MULTILINE)


def test_the_cross_version_matrix_from_the_version_words_agrees_nowhere():
    p = cli("--impl", cheat("from-version"), "--cross-version")
    assert p.returncode == 1
    m = re.search(r"^(\d+) of 242 cells agree with Kafka$", p.stdout, re.MULTILINE)
    # the cells where Kafka's answer is an error (AssignmentInfo newer than its reader) need no value: 55
    assert m and int(m.group(1)) == sum(1 for w in range(1, 12) for r in range(1, 12) if w > r), p.stdout


def test_the_cross_version_samples_follow_the_seed():
    from codec.conformance.crossversion import _samples

    assert list(_samples(5)) == list(_samples(5)) and list(_samples(5)) != list(_samples(6))
    p = cli("--cross-version", "--seed", "5")
    assert p.returncode == 0 and "seed: 5 " in p.stdout and "242 of 242 cells agree with Kafka" in p.stdout


def test_a_value_carrying_another_vectors_bytes_is_asked_after_it(tmp_path):
    """The writing part's order: a ConsumerProtocolSubscription vector's encode comes before that of a JoinGroup
    request whose metadata is its bytes (listed first), whatever the seed; every decode comes after."""
    import base64

    (inner,) = [v for v in VECTORS if v["id"] == "kj-consumer-subscription-v0-0"] or [
        next(v for v in VECTORS if v["message"] == "ConsumerProtocolSubscription" and v["result"] == "valid")
    ]
    outer = next(
        v
        for v in VECTORS
        if v["message"] == "JoinGroupRequest"
        and v["result"] == "valid"
        and v["version"] == 1
        and v["expected"]["protocols"]
    )
    value = {
        **outer["expected"],
        "protocols": [{"name": "range", "metadata": base64.b64encode(bytes.fromhex(inner["wire"])).decode()}],
    }
    from codec.conformance.impl import BuiltinImplementation

    carrier = {
        **outer,
        "id": "carrier",
        "expected": value,
        "canonical": True,
        "wire": BuiltinImplementation().encode("JoinGroupRequest", 1, value).value.hex(),
    }
    path = tmp_path / "carried.jsonl"
    path.write_text("".join(json.dumps({k: x for k, x in v.items() if k != "_file"}) + "\n" for v in (carrier, inner)))
    scripted = ROOT / "tests" / "conformance" / "scripted_adapter.py"
    for seed in range(4):
        log = tmp_path / f"{seed}.log"
        p = cli("--impl", f"{sys.executable} {scripted} honest {log}", "--seed", str(seed), str(path))
        assert p.returncode == 0, p.stdout[-2000:]
        sent = [tuple(json.loads(line)[:2]) for line in log.read_text().splitlines()]
        assert sent.index(("encode", "ConsumerProtocolSubscription")) < sent.index(("encode", "JoinGroupRequest"))
        assert max(i for i, s in enumerate(sent) if s[0] == "encode") < min(
            i for i, s in enumerate(sent) if s[0] == "decode"
        )
    assert (
        write_rank("SubscriptionInfo")
        < write_rank("ConsumerProtocolSubscription")
        < write_rank("JoinGroupRequest")
        < write_rank("RequestFrame")
        < write_rank("RebalanceRound")
    )


def test_a_seed_replays_the_order_and_the_cases(tmp_path):
    log1, log2, log3 = (tmp_path / f"{i}.log" for i in range(3))
    scripted = ROOT / "tests" / "conformance" / "scripted_adapter.py"
    for log, seed in ((log1, "7"), (log2, "7"), (log3, "8")):
        p = cli(
            "--impl",
            f"{sys.executable} {scripted} honest {log}",
            "--message",
            "HeartbeatRequest",
            "--seed",
            seed,
            "--generate",
            "20",
        )
        assert p.returncode == 0 and f"seed: {seed} " in p.stdout
    first, again, other = (log.read_text() for log in (log1, log2, log3))
    assert first == again and first != other
    ops = [json.loads(line)[0] for line in first.splitlines()]
    assert ops[0] == "capabilities"
    assert "decode" not in ops[: ops.index("decode")] and "encode" not in ops[ops.index("decode") :]
    assert len(plan(7, 20, [("HeartbeatRequest", v, None) for v in range(5)])) == 20
