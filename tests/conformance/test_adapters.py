"""The shipped adapters of real clients (vectors/adapters/): kafka-python 3.0.12 and kafkajs 2.2.4, run through
the installed console script with the expectations files the wheel ships (issue #22), and 1,000 generated cases
(issue #27).

The counts are not constants: they come from the vector files and from what each client implements (its message
versions, written out below and checked against the installed library): a vector is skipped when every op it uses
(README, "The runner") is one the client does not do, each id of the expectations file is an expected failure, and
every other vector passes. The generated cases are drawn again from the run's seed: a case is skipped where the
client does not do its op, message and version, an expected failure where a ``generated`` line of the file says
what the client does with it (kafka-python writes no unknown tagged field), and passes otherwise."""

from __future__ import annotations

import importlib.util
import json
import re
import shlex
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from tests.conftest import ROOT, consumer_round_count

pytestmark = pytest.mark.wheel

ADAPTERS = ROOT / "vectors" / "adapters"
API_KEYS = {11: "JoinGroup", 14: "SyncGroup", 12: "Heartbeat", 13: "LeaveGroup"}
# the newest version each client has of each group API (kafka-python: its classes' validVersions; kafkajs: the
# v* folders of src/protocol/requests/<api>/); both checked below against the installed library
KAFKA_PYTHON = {"JoinGroup": 9, "SyncGroup": 5, "Heartbeat": 4, "LeaveGroup": 5}
KAFKAJS = {"JoinGroup": 5, "SyncGroup": 3, "Heartbeat": 3, "LeaveGroup": 3}
GENERATE = 1000
SUMMARY = re.compile(r"(\d+) passed, (\d+) failed(?:, (\d+) skipped)?(?:, (\d+) expected failures?)?$")


def _suite() -> list[dict]:
    return [
        json.loads(line)
        for f in sorted((ROOT / "vectors").glob("*.jsonl"))
        for line in f.read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]


def _rounds() -> int:
    """The rounds of the files: the Streams leader's and the consumer leader's (neither adapter declares assign)."""
    return consumer_round_count() + sum(
        1
        for line in (ROOT / "vectors" / "rebalance" / "rounds.jsonl").read_text(encoding="utf-8").splitlines()
        if line.strip()
    )


def _ops(v: dict) -> list[str]:
    """The ops a vector uses (vectors/README.md, "The runner")."""
    if v["result"] == "valid":
        if "ignorable-dropped" in v.get("flags", ()):  # its bytes decode to another value: encode only
            return ["encode"]
        return ["decode"] if {"version-probe", "capture-facts"} & set(v.get("flags", ())) else ["decode", "encode"]
    return ["encode"] if v["result"] == "invalid" and "wire" not in v else ["decode"]


def _api(op: str, v: dict) -> str | None:
    """The group API a vector is about: from its message name, or for a frame from its API key (a request frame
    names it in its first two bytes, or in the value it is written from; a response frame's vector carries it)."""
    m = v["message"]
    if m == "ResponseFrame":
        return API_KEYS.get(v.get("apiKey"))
    if m == "RequestFrame":
        key = v["expected"].get("apiKey") if op == "encode" else int(v["wire"][:4] or "0", 16)
        return API_KEYS.get(key)
    found = re.fullmatch(r"(JoinGroup|SyncGroup|Heartbeat|LeaveGroup)(Request|Response)", m)
    return found and found.group(1)


def kafka_python_does(op: str, v: dict) -> bool:
    """kafka-python reads and writes every group message and frame at its versions, ConsumerProtocol v0-3 and
    the headers it has (RequestHeader v1-2, ResponseHeader v0-1)."""
    m, ver = v["message"], v.get("version")
    if m.startswith("ConsumerProtocol"):
        return 0 <= ver <= 3
    if m in ("RequestHeader", "ResponseHeader"):
        return ver in ((1, 2) if m == "RequestHeader" else (0, 1))
    api = _api(op, v)
    return api in KAFKA_PYTHON and 0 <= ver <= KAFKA_PYTHON[api]


def kafkajs_does(op: str, v: dict) -> bool:
    """kafkajs writes requests (bodies and frames) and reads responses (bodies and frames), at its versions."""
    m, api = v["message"], _api(op, v)
    if api not in KAFKAJS or not 0 <= v.get("version", -1) <= KAFKAJS[api]:
        return False
    writes = m.endswith("Request") or m == "RequestFrame"
    return (op == "encode") == writes


def _expected_ids(path: Path) -> dict[str, str]:
    """The expectations file's vector ids: id -> reason (its ``generated`` lines are not ids)."""
    out = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        entry, _, reason = line.partition("#")
        if entry.strip() and not entry.startswith("generated "):
            out[entry.strip()] = reason.strip()
    return out


def _has_unknown_tags(value) -> bool:
    if isinstance(value, dict):
        return bool(value.get("_unknownTaggedFields")) or any(_has_unknown_tags(x) for x in value.values())
    return isinstance(value, list) and any(_has_unknown_tags(x) for x in value)


def _generated_counts(adapter: list[str], seed: int, does, xfail) -> dict[str, int]:
    """The run's generated cases drawn again (the adapter's declaration, the seed): how many each status."""
    from codec.conformance.generate import generated_cells, plan, take_case
    from codec.conformance.runner import Capabilities

    reply = subprocess.run(
        adapter,
        input='{"id": 1, "op": "capabilities", "protocol": 2}\n',
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    caps = Capabilities.parse(json.loads(reply.stdout.splitlines()[0])["capabilities"])
    counts = {"pass": 0, "fail": 0, "skip": 0, "xfail": 0, "notrun": 0}
    for op, m, v, api, i in plan(seed, GENERATE, generated_cells(), wanted=caps.covers):
        case = take_case(seed, i, op, m, v, api)
        vector = {"message": m, "version": v, "apiKey": case.api_key, "wire": case.wire.hex(), "expected": case.value}
        counts["skip" if not does(op, vector) else "xfail" if xfail(op, case) else "pass"] += 1
    return counts


def _expected_statuses(does, expect: Path) -> dict[str, str]:
    xfail = _expected_ids(expect)
    status = {}
    for v in _suite():
        checked = any(does(op, v) for op in _ops(v))
        status[v["id"]] = "skip" if not checked else "xfail" if v["id"] in xfail else "pass"
    return status


def _shipped(installed: Path, *parts: str) -> Path:
    """A file of vectors/adapters/ as the wheel installed it."""
    (site,) = installed.parent.parent.glob("lib/python*/site-packages")
    path = site.joinpath("codec", "vectors", "adapters", *parts)
    assert path.is_file(), f"{'/'.join(parts)} is not in the wheel"
    return path


def _run(installed_cli, tmp_path, impl: str, *args: str):
    report = tmp_path / "report.json"
    p = installed_cli(
        "conformance", "--impl", impl, "--json", str(report), "--generate", str(GENERATE), *args, timeout=600
    )
    assert "Traceback" not in p.stdout + p.stderr, p.stderr[-3000:]
    data = json.loads(report.read_text(encoding="utf-8")) if report.exists() else {"results": []}
    return p, {r["id"]: r for r in data["results"]}, data.get("generated")


def _failures(p) -> str:
    """What made a run fail: its FAIL, FIXED and STALE lines (vectors and generated cases), its stderr."""
    lines = [ln for ln in p.stdout.splitlines() if ln.startswith(("FAIL ", "FIXED ", "STALE ", "seed: "))]
    return "\n".join(lines)[-6000:] + "\n" + p.stderr[-2000:]


def _check_counts(p, results: dict, expected: dict[str, str], rounds: int, does=None) -> None:
    """The run's summary and every vector's status are what the files say; with ``does``, every op of every
    vector too: skipped exactly where the client does not do it."""
    n = {s: sum(1 for x in expected.values() if x == s) for s in ("pass", "skip", "xfail")}
    summary = p.stdout.strip().splitlines()[-1]
    assert SUMMARY.fullmatch(summary), summary
    assert summary == (
        f"{n['pass']} passed, 0 failed, {n['skip'] + rounds} skipped, "
        f"{n['xfail']} expected failure{'' if n['xfail'] == 1 else 's'}"
    ), p.stdout[-4000:]
    leader = ("RebalanceRound", "ConsumerRound", "ConsumerRackRound", "ServerAssignorRound")  # the rounds of the files
    got = {i: r["status"] for i, r in results.items() if r["message"] not in leader}
    assert got == expected
    if does is not None:
        suite = {v["id"]: v for v in _suite()}
        for i, r in results.items():
            if r["message"] not in leader:
                assert {op for op, st in r["ops"].items() if st == "skip"} == {
                    op for op in _ops(suite[i]) if not does(op, suite[i])
                }, r
    assert sum(r["status"] == "skip" for r in results.values() if r["message"] in leader) == rounds


@pytest.fixture(scope="module")
def kafka_python() -> str:
    """The Python that runs the adapter: this one, where the test extra installed kafka-python."""
    if importlib.util.find_spec("kafka") is None:
        pytest.fail("kafka-python is not installed: it is in the test extra (pip install -e '.[test]')")
    return sys.executable


def test_kafka_python_versions_are_the_librarys(kafka_python):
    with warnings.catch_warnings():  # kafka-python 3.0.12 reads its schemas with importlib.resources.read_text
        warnings.simplefilter("ignore", DeprecationWarning)
        from kafka.protocol.consumer import group, metadata

    for api, newest in KAFKA_PYTHON.items():
        for half in ("Request", "Response"):
            assert getattr(group, api + half).max_version == newest
    assert metadata.ConsumerProtocolSubscription.max_version == metadata.ConsumerProtocolAssignment.max_version == 3


def test_kafka_python_with_its_expectations(installed, installed_cli, tmp_path, kafka_python):
    adapter, expect = (
        _shipped(installed, "kafka-python", "adapter.py"),
        _shipped(installed, "kafka-python", "expect.txt"),
    )
    p, results, gen = _run(installed_cli, tmp_path, shlex.join([kafka_python, str(adapter)]), "--expect", str(expect))
    assert p.returncode == 0, _failures(p)
    _check_counts(p, results, _expected_statuses(kafka_python_does, expect), _rounds(), kafka_python_does)
    # kafka-python writes no unknown tagged field (the expectations file's generated line): those cases' encode
    assert gen["counts"] == _generated_counts(
        [kafka_python, str(adapter)],
        gen["seed"],
        kafka_python_does,
        lambda op, case: op == "encode" and _has_unknown_tags(case.value),
    )
    assert {f["where"].rsplit(".", 1)[-1] for f in gen["failures"]} <= {"_unknownTaggedFields"}
    # no declined message costs a failure: SubscriptionInfo, AssignmentInfo, Connect and the rounds are skipped
    for r in results.values():
        if r["message"] in (
            "SubscriptionInfo",
            "AssignmentInfo",
            "ConnectMetadata",
            "ConnectAssignment",
            "RebalanceRound",
            "ConsumerRound",
        ):
            assert r["status"] == "skip", r


def test_kafka_python_without_expectations_fails_on_its_differences(installed, installed_cli, tmp_path, kafka_python):
    """Kafka's JoinGroupRequest refuses a groupInstanceId at v4 (group_edge.jsonl), and so does the adapter, which
    adds Kafka's rules to kafka-python; but kafka-python reads -2 as the count of protocols as an empty array.
    Without the expectations file that is a failure, on one readable line, and the run fails."""
    adapter = _shipped(installed, "kafka-python", "adapter.py")
    p, results, _ = _run(
        installed_cli,
        tmp_path,
        shlex.join([kafka_python, str(adapter)]),
        "--message",
        "JoinGroupRequest",
        "--version",
        "4",
    )
    assert p.returncode == 1
    assert results["kj-joingrouprequest-error-groupinstanceid-v4"]["status"] == "pass"
    line = next(x for x in p.stdout.splitlines() if "kr-joingrouprequest-v4-negative-count-protocols" in x)
    assert line.startswith(
        "FAIL kr-joingrouprequest-v4-negative-count-protocols (JoinGroupRequest v4): accepted "
        "invalid input (expected invalid-count); decoded {"
    )
    listed = {
        i for i in _expected_ids(ADAPTERS / "kafka-python" / "expect.txt") if results.get(i, {}).get("version") == 4
    }
    assert {i for i, r in results.items() if r["status"] == "fail"} == listed
    assert {r["message"] for r in results.values()} == {"JoinGroupRequest"}


def test_kafkajs_versions_are_the_librarys(kafkajs_modules):
    requests = kafkajs_modules / "kafkajs" / "src" / "protocol" / "requests"
    for api, newest in KAFKAJS.items():
        folder = requests / (api[0].lower() + api[1:])
        assert sorted(int(d.name[1:]) for d in folder.glob("v*")) == list(range(newest + 1))


def test_kafkajs_with_its_expectations(installed, installed_cli, tmp_path, kafkajs_modules):
    """kafkajs encodes requests and decodes responses: every other half is declined and skipped, and what it
    does either passes or is listed with its reason."""
    adapter, expect = _shipped(installed, "kafkajs", "adapter.js"), _shipped(installed, "kafkajs", "expect.txt")
    command = ["env", f"NODE_PATH={kafkajs_modules}", "node", str(adapter)]  # kafkajs from the npm ci
    p, results, gen = _run(installed_cli, tmp_path, shlex.join(command), "--expect", str(expect))
    assert p.returncode == 0, _failures(p)
    _check_counts(p, results, _expected_statuses(kafkajs_does, expect), _rounds(), kafkajs_does)
    # kafkajs' JoinGroup and SyncGroup response decoders throw on errorCode 35 (the file's generated lines)
    assert gen["counts"] == _generated_counts(command, gen["seed"], kafkajs_does, _kafkajs_refuses)
    assert {f["where"] for f in gen["failures"]} <= {"error"}


def _kafkajs_refuses(op: str, case) -> bool:
    if op != "decode" or case.message not in ("JoinGroupResponse", "SyncGroupResponse", "ResponseFrame"):
        return False
    body = case.value.get("body", {}) if case.message == "ResponseFrame" else case.value
    api = _api(op, {"message": case.message, "apiKey": case.api_key})
    return api in ("JoinGroup", "SyncGroup") and body.get("errorCode") == 35
