"""The runner's protocol for real clients (issue #22): declining with ``unsupported`` (skipped), declared
capabilities, selection by version range and op, expectations files, and the rejection-evidence rule.

The adapters are tests/conformance/scripted_adapter.py: the built-in codec with one behaviour changed, so every
expected count here follows from the vector files and the one change (counted from the files, never from the
runner's own output)."""

from __future__ import annotations

import contextlib
import io
import json
from collections import Counter
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

from codec.cli import main
from codec.conformance.impl import CommandImplementation
from codec.conformance.runner import (
    Capabilities,
    ask_capabilities,
    parse_versions,
    run_vectors,
    vector_ops,
)
from codec.conformance.vectors import load_rounds, load_vectors
from tests.conftest import ROOT, consumer_round_counts

ADAPTER = ROOT / "tests" / "conformance" / "scripted_adapter.py"
VECTORS = load_vectors()
REFUSAL = "kj-joingrouprequest-error-groupinstanceid-v4"  # Kafka refuses groupInstanceId "x" at v4
# What drop-instance-id gets wrong at v4: every value with a groupInstanceId, which Kafka refuses at v4
REFUSALS = [
    v["id"]
    for v in VECTORS
    if v["message"] == "JoinGroupRequest"
    and v["version"] == 4
    and v["result"] == "invalid"
    and "wire" not in v
    and v["expected"].get("groupInstanceId") is not None
]
OTHERS = "".join(f"{i}  # the same\n" for i in REFUSALS if i != REFUSAL)


def encodes(v: dict) -> bool:
    """By the README's rule: a valid vector not flagged decode-only, or an invalid one without wire."""
    if v["result"] == "valid":
        return not {"version-probe", "capture-facts"} & set(v.get("flags", ()))
    return v["result"] == "invalid" and "wire" not in v


def decodes(v: dict) -> bool:
    """A vector with wire, but a valid one flagged encode-only (ignorable-dropped: its bytes decode to another value)."""
    return "wire" in v and not (v["result"] == "valid" and "ignorable-dropped" in v.get("flags", ()))


def adapter(mode: str, log=None) -> str:
    return f"{sys.executable} {ADAPTER} {mode}" + (f" {log}" if log else "")


def cli(*args: str) -> subprocess.CompletedProcess:
    """``rebalance-codec conformance ARGS`` in this process (the adapters are still child processes; the
    installed console script is tested in tests/hostile/test_gate.py)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(["conformance", *args])
        except SystemExit as e:  # argparse's usage errors
            status = e.code
    return subprocess.CompletedProcess(args, status, out.getvalue(), err.getvalue())


def last(p) -> str:
    return p.stdout.strip().splitlines()[-1]


def select(messages=None, versions=None):
    return [
        v
        for v in VECTORS
        if (messages is None or v["message"] in messages) and (versions is None or v.get("version") in versions)
    ]


# --- declining -------------------------------------------------------------------------------------------


def test_declined_messages_are_skipped_not_failed(tmp_path):
    junit, report = tmp_path / "j.xml", tmp_path / "r.json"
    p = cli(
        "--impl",
        adapter("decline-streams"),
        "--message",
        "SubscriptionInfo",
        "--message",
        "JoinGroupRequest",
        "--version",
        "1",
        "--junit",
        str(junit),
        "--json",
        str(report),
    )
    streams, group = len(select({"SubscriptionInfo"}, {1})), len(select({"JoinGroupRequest"}, {1}))
    assert p.returncode == 0, p.stdout[-2000:]
    assert last(p) == f"{group} passed, 0 failed, {streams} skipped"
    assert f"SKIP {streams}: no Kafka Streams metadata here" in p.stdout
    data = json.loads(report.read_text())
    assert data["counts"] == {"pass": group, "fail": 0, "skip": streams, "xfail": 0, "xpass": 0, "notrun": 0}
    skipped = [r for r in data["results"] if r["status"] == "skip"]
    assert {r["message"] for r in skipped} == {"SubscriptionInfo"} and len(skipped) == streams
    assert all(r["reason"] == "no Kafka Streams metadata here" and r["version"] is not None for r in skipped)
    root = ET.parse(junit).getroot()
    # the generated cases: a testcase per message, version and op (SubscriptionInfo v1's two declined too)
    (gen,) = [s for s in root.findall("testsuite") if s.get("name").startswith("generated (seed ")]
    assert sorted((c.get("classname"), c.get("name"), c.find("skipped") is not None) for c in gen) == [
        ("generated.JoinGroupRequest.v1", "decode", False),
        ("generated.JoinGroupRequest.v1", "encode", False),
        ("generated.SubscriptionInfo.v1", "decode", True),
        ("generated.SubscriptionInfo.v1", "encode", True),
    ]
    assert (root.get("tests"), root.get("failures"), root.get("skipped")) == (
        str(streams + group + 4),
        "0",
        str(streams + 2),
    )
    marks = root.findall(".//testcase/skipped")
    assert len(marks) == streams + 2 and {m.get("message") for m in marks} == {"no Kafka Streams metadata here"}


def test_a_run_that_checks_nothing_fails_and_says_why():
    p = cli("--impl", adapter("decline-streams"), "--message", "SubscriptionInfo", "--version", "4")
    assert p.returncode == 1 and last(p) == f"0 passed, 0 failed, {len(select({'SubscriptionInfo'}, {4}))} skipped"
    assert p.stderr == "error: nothing was checked: every selected vector was skipped\n"
    p = cli("--message", "NoSuchMessage")
    assert p.returncode == 1 and p.stderr == "error: nothing was checked: no vector is selected\n"


def test_a_declined_cell_of_the_cross_version_matrix_never_agrees():
    """An AssignmentInfo newer than its reader is an error in Kafka: a decline is no such error."""
    p = cli("--impl", adapter("decline-streams"), "--cross-version")
    assert p.returncode == 1 and last(p) == "0 of 242 cells agree with Kafka"
    assert "  v11 " + " ".join(["sk*"] * 11) in p.stdout


def test_unsupported_never_passes_an_invalid_vector():
    """Before #22 a decline had to be an error, which passed every invalid vector: now it is a skip."""
    invalid = [v for v in select({"SubscriptionInfo"}) if v["result"] == "invalid"]
    impl = CommandImplementation(adapter("decline-streams"))
    try:
        results = run_vectors(impl, invalid)
    finally:
        impl.close()
    assert invalid and [r.status for r in results] == ["skip"] * len(invalid)


@pytest.mark.parametrize("reply", ['{"unsupported": 5}', '{"unsupported": null}'])
def test_unsupported_needs_a_string_reason(tmp_path, reply):
    script = tmp_path / "a.py"
    script.write_text(
        "import json, sys\nfor line in sys.stdin:\n"
        f"    print(json.dumps({{'id': json.loads(line)['id'], **json.loads({reply!r})}}), flush=True)\n"
    )
    impl = CommandImplementation(f"{sys.executable} {script}")
    try:
        (r,) = run_vectors(impl, select({"JoinGroupRequest"}, {4})[:1])
    finally:
        impl.close()
    assert r.status == "fail" and "unsupported without a string reason" in r.detail


def test_an_adapter_that_rejects_everything_passes_no_invalid_vector():
    """The rejection-evidence rule: ``{"error": ...}`` for valid input as well is no implementation."""
    vectors = [v for v in select({"SubscriptionInfo"}, {4}) if v["result"] == "invalid"]
    impl = CommandImplementation(adapter("reject-all"))
    try:
        results = run_vectors(impl, vectors)  # no valid vector in the run: the runner asks a witness
    finally:
        impl.close()
    assert vectors and all(r.status == "fail" for r in results)
    assert "rejected, but the adapter also decodes no valid SubscriptionInfo input" in results[0].detail


def test_one_valid_vector_the_adapter_gets_wrong_is_not_the_verdict_on_its_rejections():
    """The witnesses: up to three valid vectors of the same cell; one answered is evidence enough."""
    from codec.conformance.impl import BuiltinImplementation, Outcome

    cell = select({"SubscriptionInfo"}, {4})
    invalid = [v for v in cell if v["result"] == "invalid" and "wire" in v]
    valid = [v for v in cell if v["result"] == "valid"]
    first = valid[0]["wire"]

    class FirstWrong(BuiltinImplementation):
        def decode(self, message, version, wire, reader_version=None, api_key=None):
            if wire.hex() == first:
                return Outcome(error={"message": "a bug of this one vector"})
            return super().decode(message, version, wire, reader_version, api_key)

    results = run_vectors(FirstWrong(), invalid, witnesses=valid)
    assert invalid and all(r.status == "pass" for r in results)


def test_the_evidence_for_a_frame_is_its_own_api():
    """An adapter that reads JoinGroup request frames but answers an error (not unsupported) to LeaveGroup
    ones: its rejections of cut LeaveGroup frames are no evidence."""
    from codec.conformance.impl import BuiltinImplementation, Outcome

    def api(v):
        return int(v["wire"][:4], 16) if len(v.get("wire", "")) >= 4 else None

    frames = [v for v in VECTORS if v["message"] == "RequestFrame" and "wire" in v]
    leave_cut = [v for v in frames if v["result"] == "invalid" and api(v) == 13]
    join_valid = [v for v in frames if v["result"] == "valid" and api(v) == 11]

    class NoLeaveGroup(BuiltinImplementation):
        def decode(self, message, version, wire, reader_version=None, api_key=None):
            if wire[:2] == b"\x00\x0d":
                return Outcome(error={"message": "no such API"})
            return super().decode(message, version, wire, reader_version, api_key)

    assert leave_cut and join_valid
    results = run_vectors(NoLeaveGroup(), leave_cut + join_valid, ops=["decode"])
    leave = [r for r in results if r.id in {v["id"] for v in leave_cut}]
    assert all(
        r.status == "fail" and "rejected, but the adapter also decodes no valid RequestFrame" in r.detail for r in leave
    )
    assert all(r.status == "pass" for r in results if r not in leave)


def test_a_real_rejection_still_passes_without_valid_vectors_in_the_run():
    vectors = [v for v in VECTORS if "truncated" in v.get("flags", ())][:40]
    impl = CommandImplementation(adapter("drop-instance-id"))  # honest for decoding
    try:
        results = run_vectors(impl, vectors)
    finally:
        impl.close()
    assert [r.status for r in results] == ["pass"] * len(vectors)


def test_the_refusal_is_a_readable_one_line_diff():
    p = cli("--impl", adapter("drop-instance-id"), "--message", "JoinGroupRequest", "--version", "4")
    assert p.returncode == 1
    line = next(ln for ln in p.stdout.splitlines() if ln.startswith(f"FAIL {REFUSAL} "))
    assert line == (
        f"FAIL {REFUSAL} (JoinGroupRequest v4): encoded a value that must be refused (unrepresentable); "
        'its bytes read back as $.groupInstanceId: missing (expected "x")'
    )
    n = len(REFUSALS)
    assert last(p) == f"{len(select({'JoinGroupRequest'}, {4})) - n} passed, {n} failed, 0 skipped"


# --- declared capabilities -------------------------------------------------------------------------------


def test_a_declaration_keeps_undeclared_requests_unsent(tmp_path):
    log = tmp_path / "requests.jsonl"
    report = tmp_path / "r.json"
    p = cli(
        "--impl",
        adapter("declare", log),
        "--message",
        "JoinGroupRequest",
        "--message",
        "JoinGroupResponse",
        "--message",
        "SyncGroupRequest",
        "--json",
        str(report),
    )
    assert p.returncode == 0, p.stdout[-2000:]
    assert "capabilities: decode JoinGroupResponse v0-5; encode JoinGroupRequest v3-" in p.stdout
    sent = [json.loads(line) for line in log.read_text().splitlines()]
    assert sent[0] == ["capabilities", None, None]
    assert all(
        (op == "decode" and m == "JoinGroupResponse" and v <= 5)
        or (op == "encode" and m == "JoinGroupRequest" and v >= 3)
        for op, m, v in sent[1:]
    )
    # by hand: a JoinGroupResponse v0-5 passes on its decode half; a JoinGroupRequest v3+ on its encode half
    # (valid, and the refusal at v4); everything else is "not declared"
    passing = [v for v in select({"JoinGroupResponse"}, range(6)) if decodes(v)] + [
        v for v in select({"JoinGroupRequest"}) if v["version"] >= 3 and encodes(v)
    ]
    total = len(select({"JoinGroupRequest", "JoinGroupResponse", "SyncGroupRequest"}))
    assert last(p) == f"{len(passing)} passed, 0 failed, {total - len(passing)} skipped"
    halves = [v for v in passing if v["result"] == "valid" and decodes(v) and encodes(v)]
    assert f"HALF {len(halves)}: checked on one half only, the other skipped" in p.stdout
    results = {r["id"]: r for r in json.loads(report.read_text())["results"]}
    some_request = next(v["id"] for v in passing if v["message"] == "JoinGroupRequest" and v["result"] == "valid")
    assert results[some_request]["ops"] == {"decode": "skip", "encode": "pass"}
    assert results[some_request]["reason"] == "decode skipped: not declared"
    sync = next(v["id"] for v in select({"SyncGroupRequest"}))
    assert results[sync]["status"] == "skip" and results[sync]["reason"] == "not declared"


@pytest.mark.parametrize(
    "mode,said",
    [
        ("decline-streams", "none declared (the adapter declined (no Kafka Streams metadata here))"),
        ("reject-all", "none declared (the adapter answered an error (not implemented))"),
        ("crash-on-capabilities", "none declared (adapter exited (status 4) without answering"),
        ("bad-declaration", "the answer is not a declaration (capabilities[0].op is not one of"),
    ],
)
def test_without_a_declaration_everything_is_asked(mode, said):
    p = cli("--impl", adapter(mode), "--message", "JoinGroupRequest", "--version", "5")
    assert f"capabilities: {said}" in p.stdout
    assert "every vector is sent" in p.stdout
    n = len(select({"JoinGroupRequest"}, {5}))
    if mode == "reject-all":
        assert last(p) == f"0 passed, {n} failed, 0 skipped"
    else:
        assert last(p) == f"{n} passed, 0 failed, 0 skipped" and p.returncode == 0


def test_a_declaration_naming_no_message_of_the_suite_says_so(tmp_path):
    script = tmp_path / "a.py"
    script.write_text(
        "import sys\nsys.stdin.readline()\n"
        'print(\'{"id": 1, "capabilities": [{"op": "decode", "message": "JoinGroupRequset"}]}\', flush=True)\n'
    )
    impl = CommandImplementation(f"{sys.executable} {script}")
    try:
        caps, said = ask_capabilities(impl)
    finally:
        impl.close()
    assert said == "capabilities: decode JoinGroupRequset (no such message in the suite: JoinGroupRequset)"
    assert not caps.covers("decode", "JoinGroupRequest", 1)


def test_the_reference_adapter_declares_every_vector_of_the_suite():
    reply = subprocess.run(
        [sys.executable, "-m", "codec.conformance.adapter"],
        input='{"op": "capabilities"}\n',
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
        check=True,
    )
    caps = Capabilities.parse(json.loads(reply.stdout)["capabilities"])
    hidden = [
        (v["id"], op) for v in VECTORS for op in vector_ops(v) if not caps.covers(op, v["message"], v.get("version"))
    ]
    assert hidden == [] and caps.covers("assign", "RebalanceRound", None)


def test_capabilities_declarations():
    caps = Capabilities.parse(
        [
            {"op": "decode", "message": "JoinGroupResponse", "versions": "0-5"},
            {"op": ["encode", "decode"], "message": ["HeartbeatRequest"], "versions": [0, "3-"]},
            {"op": "assign"},
        ]
    )
    assert caps.covers("decode", "JoinGroupResponse", 5) and not caps.covers("decode", "JoinGroupResponse", 6)
    assert not caps.covers("encode", "JoinGroupResponse", 0)
    assert caps.covers("encode", "HeartbeatRequest", 0) and caps.covers("decode", "HeartbeatRequest", 9)
    assert not caps.covers("encode", "HeartbeatRequest", 1)
    assert caps.covers("assign", "RebalanceRound", None)
    assert not caps.covers("decode", "JoinGroupResponse", None)  # a range names versions
    for bad, why in [
        ({"op": "decode"}, "not a list"),
        ([5], "not an object"),
        ([{"op": "x"}], ".op"),
        ([{"op": "decode", "versions": "5-3"}], "empty version range"),
        ([{"op": "decode", "message": 5}], ".message"),
        ([{"op": "decode", "extra": 1}], "unknown keys"),
    ]:
        with pytest.raises(ValueError, match=why):
            Capabilities.parse(bad)


# --- selection -------------------------------------------------------------------------------------------


def test_version_ranges(tmp_path):
    report = tmp_path / "r.json"
    p = cli("--message", "JoinGroupRequest", "--version", "3-5", "--json", str(report))
    assert p.returncode == 0
    data = json.loads(report.read_text())
    assert sorted({(r["message"], r["version"]) for r in data["results"]}) == [
        ("JoinGroupRequest", v) for v in (3, 4, 5)
    ]
    assert len(data["results"]) == len(select({"JoinGroupRequest"}, {3, 4, 5}))
    p = cli("--message", "SyncGroupResponse", "--version", "4-", "--version", "0", "--json", str(report))
    assert sorted({r["version"] for r in json.loads(report.read_text())["results"]}) == [0, 4, 5]
    assert parse_versions("5-") == (5, None) and parse_versions("3") == (3, 3) and parse_versions(" 3-5") == (3, 5)
    for bad in ("x", "5-3", "-2", "1-2-3", "", None, True, -1):
        with pytest.raises(ValueError):
            parse_versions(bad)
    p = cli("--version", "5-3")
    assert p.returncode == 2 and p.stderr == 'error: --version: "5-3" is an empty version range\n'


def test_op_selection(tmp_path):
    assert vector_ops(next(v for v in VECTORS if v["id"] == REFUSAL)) == ("encode",)
    report = tmp_path / "r.json"
    p = cli("--message", "JoinGroupRequest", "--version", "4", "--op", "encode", "--json", str(report))
    results = json.loads(report.read_text())["results"]
    assert p.returncode == 0 and {tuple(r["ops"]) for r in results} == {("encode",)}
    assert len(results) == len([v for v in select({"JoinGroupRequest"}, {4}) if encodes(v)])
    p = cli("--message", "SubscriptionInfo", "--version", "5", "--op", "decode", "--json", str(report))
    results = json.loads(report.read_text())["results"]
    by_hand = [v for v in select({"SubscriptionInfo"}, {5}) if decodes(v)]
    assert {tuple(r["ops"]) for r in results} == {("decode",)} and len(results) == len(by_hand)
    p = cli("--op", "assign", "--json", str(report))
    results = json.loads(report.read_text())["results"]
    by = Counter(r["message"] for r in results)
    assert by == {"RebalanceRound": len(load_rounds()), **consumer_round_counts()}


# --- expectations ----------------------------------------------------------------------------------------


def run_expect(tmp_path, text: str, *extra: str, mode="drop-instance-id"):
    exp = tmp_path / "expect.txt"
    exp.write_text(text)
    return cli(
        "--impl", adapter(mode), "--message", "JoinGroupRequest", "--version", "4", "--expect", str(exp), *extra
    ), exp


def test_a_listed_failure_is_expected(tmp_path):
    n = len(select({"JoinGroupRequest"}, {4}))
    p, _ = run_expect(tmp_path, f"# kafka-python\n\n{REFUSAL}   # writes v4 without groupInstanceId\n{OTHERS}")
    assert p.returncode == 0, p.stdout[-2000:]
    k = len(REFUSALS)
    assert last(p) == f"{n - k} passed, 0 failed, 0 skipped, {k} expected failure{'s' if k > 1 else ''}"
    (line,) = [ln for ln in p.stdout.splitlines() if ln.startswith(f"XFAIL {REFUSAL} ")]
    assert line.startswith(f"XFAIL {REFUSAL} (JoinGroupRequest v4): encoded a value that must be refused")
    assert line.endswith("  # writes v4 without groupInstanceId")


def test_a_listed_id_that_passes_fails_the_run_naming_it(tmp_path):
    fixed = next(v["id"] for v in select({"JoinGroupRequest"}, {4}) if v["result"] == "valid")
    p, exp = run_expect(tmp_path, f"{fixed}  # was broken once\n{REFUSAL}  # known\n{OTHERS}")
    assert p.returncode == 1
    assert f"FIXED {fixed} (JoinGroupRequest v4): fixed: remove {fixed} from {exp} (line 1)" in p.stdout
    assert last(p).endswith(
        f", 0 failed, 0 skipped, {len(REFUSALS)} expected failure{'s' if len(REFUSALS) > 1 else ''}, 1 fixed"
    )


def test_an_unlisted_failure_still_fails(tmp_path):
    p, _ = run_expect(tmp_path, f"# one not known\n{OTHERS}")
    k = len(REFUSALS) - 1
    assert p.returncode == 1 and last(p).endswith(
        f" passed, 1 failed, 0 skipped, {k} expected failure{'' if k == 1 else 's'}"
    )
    assert f"FAIL {REFUSAL} " in p.stdout


def test_stale_and_unselected_entries(tmp_path):
    other = select({"SyncGroupRequest"})[0]["id"]  # in the suite, outside this selection: not mentioned
    p, exp = run_expect(tmp_path, f"{REFUSAL}\n{other}\nno-such-vector  # renamed long ago\n{OTHERS}")
    assert p.returncode == 1
    assert f"STALE {exp}:3: no-such-vector: no such vector in the suite; remove it" in p.stdout
    assert other not in p.stdout
    p, exp = run_expect(tmp_path, f"{REFUSAL}\n{other}\n{OTHERS}")
    assert p.returncode == 0


def test_a_malformed_expectations_file_is_one_line(tmp_path):
    for text, why in [("a b\n", ":1: one vector id a line"), ("x\n\nx # again\n", ":3: x is listed twice")]:
        p, exp = run_expect(tmp_path, text)
        assert p.returncode == 1 and p.stderr.startswith(f"error: {exp}{why}"), p.stderr
        assert len(p.stderr.strip().splitlines()) == 1 and "Traceback" not in p.stderr
    p = cli("--expect", str(tmp_path / "missing.txt"))
    assert p.returncode == 1 and p.stderr.startswith("error: expectations file ") and "Traceback" not in p.stderr


def test_an_expectations_file_from_a_windows_editor(tmp_path):
    from codec.conformance.expect import read_expectations

    path = tmp_path / "expect.txt"
    path.write_bytes(b"\xef\xbb\xbf# list\r\nabc  # why\r\n\r\ndef\r\n")
    exp = read_expectations(path)
    assert exp.reasons == {"abc": "why", "def": ""} and exp.lines == {"abc": 2, "def": 4}


def test_write_expect_starts_a_list_that_holds(tmp_path):
    out = tmp_path / "written.txt"
    p = cli(
        "--impl",
        adapter("drop-instance-id"),
        "--message",
        "JoinGroupRequest",
        "--version",
        "0-4",
        "--write-expect",
        str(out),
        "--show-failures",
        "3",
    )
    assert p.returncode == 1
    entries = [ln for ln in out.read_text().splitlines() if ln and not ln.startswith("#")]
    below_v5 = [
        v["id"]
        for v in VECTORS
        if v["message"] == "JoinGroupRequest"
        and v["version"] < 5
        and not decodes(v)
        and v["result"] == "invalid"
        and v["expected"].get("groupInstanceId") is not None
    ]
    assert sorted(e.split()[0] for e in entries) == sorted(below_v5)
    assert (
        f"{REFUSAL}  # encoded a value that must be refused (unrepresentable); its bytes read back as "
        '$.groupInstanceId: missing (expected "x")' in entries
    )
    assert len([ln for ln in p.stdout.splitlines() if ln.startswith("FAIL ")]) == 3
    assert f"... and {len(below_v5) - 3} more FAIL (see --json or --junit)" in p.stdout
    p = cli(
        "--impl",
        adapter("drop-instance-id"),
        "--message",
        "JoinGroupRequest",
        "--version",
        "0-4",
        "--expect",
        str(out),
        "--show-failures",
        "0",
    )
    k = len(below_v5)
    assert p.returncode == 0 and last(p).endswith(
        f" passed, 0 failed, 0 skipped, {k} expected failure{'s' if k > 1 else ''}"
    )
    assert len([ln for ln in p.stdout.splitlines() if ln.startswith("XFAIL ")]) == k


def test_junit_and_json_of_expected_and_fixed(tmp_path):
    fixed = next(v["id"] for v in select({"JoinGroupRequest"}, {4}) if v["result"] == "valid")
    junit, report = tmp_path / "j.xml", tmp_path / "r.json"
    p, _ = run_expect(
        tmp_path, f"{REFUSAL}  # drops it\n{fixed}\n{OTHERS}", "--junit", str(junit), "--json", str(report)
    )
    assert p.returncode == 1
    root = ET.parse(junit).getroot()
    assert (root.get("failures"), root.get("skipped")) == ("1", str(len(REFUSALS)))
    xfail = root.find(f".//testcase[@name='{REFUSAL}']/skipped")
    assert xfail.get("type") == "expected-failure" and xfail.get("message").startswith("expected failure: drops it: ")
    assert root.find(f".//testcase[@name='{fixed}']/failure") is not None
    statuses = {r["id"]: (r["status"], r["reason"]) for r in json.loads(report.read_text())["results"]}
    assert statuses[REFUSAL] == ("xfail", "drops it") and statuses[fixed] == ("xpass", "")


# --- protocol 2: the request id -------------------------------------------------------------------------------

PROTOCOL_1 = """\
import json, sys
from codec.conformance.impl import handle_request
for line in sys.stdin:
    req = json.loads(line)
    print(json.dumps(handle_request(req)), flush=True)
"""


@pytest.mark.parametrize("extra", [[], ["--cross-version"]], ids=["run", "cross-version"])
def test_an_adapter_of_protocol_1_is_refused_with_how_to_upgrade(tmp_path, extra):
    """Replies without the request's id (the reference adapter's answers, as protocol 1 wrote them): refused before
    anything else is asked, in one line that says what to change."""
    script = tmp_path / "old.py"
    script.write_text(PROTOCOL_1, encoding="utf-8")
    p = cli("--impl", f"{sys.executable} {script}", "--message", "HeartbeatResponse", *extra)
    assert p.returncode == 2 and p.stdout == ""
    (line,) = p.stderr.strip().splitlines()
    assert line.startswith("error: the adapter ") and "speaks protocol 1" in line
    assert 'reply["id"] = request["id"]' in line and "protocol 2" in line


def test_a_reply_without_the_id_fails_its_request(tmp_path):
    """The capabilities reply has the id, the others do not: each of them fails, and none passes."""
    script = tmp_path / "half.py"
    script.write_text(
        PROTOCOL_1.replace(
            "    print(json.dumps(handle_request(req)), flush=True)",
            "    out = handle_request(req)\n"
            "    print(json.dumps({'id': req['id'], **out} if req['op'] == 'capabilities' else out), flush=True)",
        ),
        encoding="utf-8",
    )
    p = cli("--impl", f"{sys.executable} {script}", "--message", "HeartbeatResponse", "--version", "0", "--seed", "1")
    n = len(select({"HeartbeatResponse"}, {0}))
    assert p.returncode == 1 and last(p) == f"0 passed, {n} failed, 0 skipped"
    assert 'adapter answered without the request\'s "id"' in p.stdout


def test_the_request_ids_are_new_for_every_request_of_a_run(tmp_path):
    log = tmp_path / "ids.log"
    script = tmp_path / "ids.py"
    script.write_text(
        PROTOCOL_1.replace(
            "    print(json.dumps(handle_request(req)), flush=True)",
            f"    open({str(log)!r}, 'a').write(json.dumps(req['id']) + '\\n')\n"
            "    print(json.dumps({'id': req['id'], **handle_request(req)}), flush=True)",
        ),
        encoding="utf-8",
    )
    p = cli("--impl", f"{sys.executable} {script}", "--message", "HeartbeatResponse", "--version", "0-1")
    assert p.returncode == 0, p.stdout[-2000:]
    ids = [json.loads(line) for line in log.read_text().splitlines()]
    # two processes (the writing part and the reading part), one count over both
    assert ids == list(range(1, len(ids) + 1)) and all(type(i) is int for i in ids)
