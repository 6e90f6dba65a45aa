"""The conformance gate under hostile adapters and vector files (issue #17), through the installed console
script: no false pass, no traceback, no hang, bounded memory, valid reports.

The adapters are small scripts written by the tests; every expectation is the protocol's rule
(vectors/README.md): only ``{"error": {"message": ...}}`` rejects an input, anything else fails."""

from __future__ import annotations

import json
import sys
import time
import xml.dom.minidom

import pytest

pytestmark = pytest.mark.wheel

TRUNCATED = 714  # vectors flagged "truncated" in vectors/*.jsonl (counted by test_truncated_count_by_hand; the
# classic records added 26: 13 message versions of kafka-java-offsets.jsonl, each cut at half and at all but one byte;
# Kafka 4.4's StreamsGroupHeartbeat v1 4, its request and response cut at half and at all but one byte; the RPCs
# added at Kafka 4.4 145: 80 message versions, ListGroupsRequest v0-2 without a byte to cut, 9 of one or two bytes cut
# once, 68 cut twice; Kafka 4.4's topology description 16: StreamsGroupDescribe v1 and StreamsGroupTopologyDescription-
# Update v0, request and response, and the share coordinator's four record parts, each cut at half and at all but one
# byte)


def _adapter(tmp_path, name: str, body: str) -> str:
    path = tmp_path / f"{name}.py"
    path.write_text("import sys, json\n" + body, encoding="utf-8")
    return f"{sys.executable} {path}"


def _summary(stdout: str) -> str:
    return stdout.strip().splitlines()[-1]


def _clean(p) -> None:
    assert "Traceback" not in p.stderr and "Traceback" not in p.stdout, p.stderr[-3000:]


def test_truncated_count_by_hand():
    from tests.conftest import ROOT

    n = 0
    for f in (ROOT / "vectors").glob("*.jsonl"):
        for line in f.read_text(encoding="utf-8").splitlines():
            if line.strip() and "truncated" in json.loads(line).get("flags", []):
                n += 1
    assert n == TRUNCATED


@pytest.mark.parametrize("impl", ["false", "true"])
def test_an_adapter_that_answers_nothing_is_given_up(installed_cli, impl):
    """One request fails (the one it died on); every other is not run, and the run fails."""
    p = installed_cli("conformance", "--impl", impl, "--flags", "truncated")
    _clean(p)
    assert p.returncode == 1
    assert _summary(p.stdout) == f"0 passed, 1 failed, 0 skipped, {TRUNCATED - 1} not run"
    assert "GIVEN UP: the adapter answered nothing (adapter exited (status " in p.stdout
    assert f"NOT RUN {TRUNCATED - 1} vectors: " in p.stdout
    assert "error: the adapter was given up: the adapter answered nothing" in p.stderr


_BROKEN = "import no_such_module_of_the_adapter\n"  # the interpreter that runs it lacks its module


def test_a_broken_adapter_is_one_failure_with_its_stderr_shown_once(installed_cli, tmp_path):
    """An adapter whose interpreter lacks its module (issue #46): before, each of ~100 FAIL lines repeated its
    traceback, newlines as a literal \\x0a. Now: the one request it failed on, then its stderr once, one line to a
    line, and the rest counted as not run (none drawn, none sent)."""
    junit, report = tmp_path / "r.xml", tmp_path / "r.json"
    impl = _adapter(tmp_path, "broken", _BROKEN)
    p = installed_cli("conformance", "--impl", impl, "--seed", "3", "--junit", str(junit), "--json", str(report))
    assert "Traceback" not in p.stderr  # the runner's own: the adapter's is on stdout, below
    assert p.returncode == 1
    out = p.stdout.splitlines()
    assert out.count("    ModuleNotFoundError: No module named 'no_such_module_of_the_adapter'") == 1
    assert out.count("    Traceback (most recent call last):") == 1
    assert "\\x0a" not in p.stdout and p.stdout.count("No module named") == 2  # the capabilities line names it too
    assert sum(line.startswith("FAIL ") for line in out) == 1
    data = json.loads(report.read_text(encoding="utf-8"))
    counts, generated = data["counts"], data["generated"]
    # one failure: the first request the seed's order sends, a vector or a generated case
    assert counts["fail"] + generated["counts"]["fail"] == 1
    assert counts["pass"] == counts["skip"] == generated["counts"]["pass"] == 0
    assert counts["notrun"] == len(data["results"]) - counts["fail"]
    assert generated["cases"] + generated["counts"]["notrun"] == generated["requested"]
    assert data["givenUp"]["stderr"][-1] == "ModuleNotFoundError: No module named 'no_such_module_of_the_adapter'"
    assert _summary(p.stdout) == f"0 passed, {counts['fail']} failed, 0 skipped, {counts['notrun']} not run"
    suites = xml.dom.minidom.parse(str(junit)).getElementsByTagName("testsuite")
    (adapter,) = [s for s in suites if s.getAttribute("name") == "adapter"]
    assert (
        "No module named 'no_such_module_of_the_adapter'" in adapter.getElementsByTagName("failure")[0].firstChild.data
    )


def _with_id(reply: str) -> str:
    """An adapter's loop that answers ``reply`` to every request: an object with the request's id in it (protocol 2),
    anything else as it is."""
    if not reply.startswith("{"):
        return f"for line in sys.stdin:\n    print({reply!r}, flush=True)\n"
    rest = reply[1:].lstrip()
    return (
        "for line in sys.stdin:\n"
        f"    print('{{\"id\": ' + json.dumps(json.loads(line)['id']) + {(', ' + rest if rest != '}' else '}')!r}, "
        "flush=True)\n"
    )


@pytest.mark.parametrize(
    "reply", ["[]", "5", "null", '"no"', '{"error": "x"}', '{"error": {}}', "{}", "not json", '{"unsupported": 5}']
)
def test_only_the_error_object_rejects(installed_cli, tmp_path, reply):
    impl = _adapter(tmp_path, "reply", _with_id(reply))
    p = installed_cli("conformance", "--impl", impl, "--flags", "truncated")
    _clean(p)
    assert p.returncode == 1
    assert _summary(p.stdout) == f"0 passed, {TRUNCATED} failed, 0 skipped"
    assert "adapter failure" in p.stdout


# An implementation of the messages (the built-in codec's answers), whose rejections all say just "no".
_HONEST_NO = (
    "from codec.conformance.impl import handle_request\n"
    "def answer(req):\n"
    "    out = handle_request(req)\n"
    "    return {'id': req['id'], **({'error': {'message': 'no'}} if 'error' in out else out)}\n"
)


def test_a_real_rejection_passes_invalid_vectors(installed_cli, tmp_path):
    impl = _adapter(
        tmp_path,
        "reject",
        _HONEST_NO + "for line in sys.stdin:\n    print(json.dumps(answer(json.loads(line))), flush=True)\n",
    )
    p = installed_cli("conformance", "--impl", impl, "--flags", "truncated")
    _clean(p)
    assert p.returncode == 0, p.stdout[-2000:]
    assert _summary(p.stdout) == f"{TRUNCATED} passed, 0 failed, 0 skipped"


def test_rejecting_everything_is_no_implementation(installed_cli, tmp_path):
    """Issue #22: an error for valid input too is no evidence; such an adapter passes no invalid vector."""
    impl = _adapter(tmp_path, "reject", _with_id('{"error": {"message": "no"}}'))
    p = installed_cli("conformance", "--impl", impl, "--flags", "truncated")
    _clean(p)
    assert p.returncode == 1
    assert _summary(p.stdout) == f"0 passed, {TRUNCATED} failed, 0 skipped"
    assert "decline with unsupported" in p.stdout


def test_a_decline_is_a_skip_never_a_pass(installed_cli, tmp_path):
    impl = _adapter(tmp_path, "decline", _with_id('{"unsupported": "maybe"}'))
    p = installed_cli("conformance", "--impl", impl, "--flags", "truncated")
    _clean(p)
    assert p.returncode == 1  # nothing was checked
    assert _summary(p.stdout) == f"0 passed, 0 failed, {TRUNCATED} skipped"


def test_a_hung_adapter_ends_within_its_timeout(installed_cli):
    start = time.monotonic()
    p = installed_cli("conformance", "--impl", "sleep 100000", "--timeout", "3", timeout=60)
    took = time.monotonic() - start
    _clean(p)
    assert p.returncode == 1
    assert took < 3 + 15, took
    assert "did not answer within 3 s" in p.stdout
    assert _summary(p.stdout).startswith("0 passed, ")


def test_the_default_timeout_ends_a_hung_adapter(installed_cli):
    start = time.monotonic()
    p = installed_cli("conformance", "--impl", "sleep 100000", "--message", "SubscriptionInfo", timeout=120)
    _clean(p)
    assert p.returncode == 1 and time.monotonic() - start < 10 + 30
    assert "did not answer within 10 s" in p.stdout


def test_an_adapter_that_hangs_on_one_request_is_restarted(installed_cli, tmp_path):
    """Hangs on its third request only: that vector fails with the timeout, the rest are answered."""
    impl = _adapter(
        tmp_path,
        "hang3",
        _HONEST_NO
        + (
            "import os, time\n"
            "state = os.path.join(os.path.dirname(__file__), 'count')\n"
            "for line in sys.stdin:\n"
            "    n = int(open(state).read()) + 1 if os.path.exists(state) else 1\n"
            "    open(state, 'w').write(str(n))\n"
            "    if n == 3:\n"
            "        time.sleep(1000)\n"
            "    print(json.dumps(answer(json.loads(line))), flush=True)\n"
        ),
    )
    p = installed_cli("conformance", "--impl", impl, "--flags", "truncated", "--timeout", "2", timeout=120)
    _clean(p)
    assert _summary(p.stdout) == f"{TRUNCATED - 1} passed, 1 failed, 0 skipped"
    assert "did not answer within 2 s" in p.stdout


def test_a_flood_without_newlines_is_capped(installed_cli, tmp_path):
    impl = _adapter(tmp_path, "flood", "while True:\n    sys.stdout.write('x' * 65536); sys.stdout.flush()\n")
    p = installed_cli(
        "conformance", "--impl", impl, "--max-reply-bytes", "1000000", "--message", "SubscriptionInfo", timeout=120
    )
    _clean(p)
    assert p.returncode == 1
    assert "more than 1000000 bytes without a newline" in p.stdout


def test_the_adapters_stderr_is_reported(installed_cli, tmp_path):
    impl = _adapter(tmp_path, "crash", "sys.stdin.readline()\nsys.stderr.write('boom: cannot parse\\n')\nsys.exit(3)\n")
    p = installed_cli("conformance", "--impl", impl, "--message", "SubscriptionInfo")
    _clean(p)
    assert p.returncode == 1
    assert "status 3" in p.stdout and "boom: cannot parse" in p.stdout


@pytest.mark.parametrize(
    "impl,why", [("", "needs a command"), ("'x", "is not a command line"), ("/nonexistent/adapter", "cannot start")]
)
def test_a_bad_impl_is_a_usage_error(installed_cli, impl, why):
    p = installed_cli("conformance", "--impl", impl)
    _clean(p)
    assert p.returncode == 2
    assert p.stderr.startswith("error: ") and why in p.stderr and len(p.stderr.strip().splitlines()) == 1


def test_cross_version_with_a_nonsense_adapter(installed_cli, tmp_path):
    impl = _adapter(tmp_path, "five", "for line in sys.stdin:\n    print(5, flush=True)\n")
    p = installed_cli("conformance", "--impl", impl, "--cross-version")
    _clean(p)
    assert p.returncode == 1
    assert "0 of 242 cells agree" in p.stdout


def test_reports_stay_valid_with_control_characters_and_lone_surrogates(installed_cli, tmp_path):
    impl = _adapter(
        tmp_path,
        "nasty",
        (
            "for line in sys.stdin:\n"
            "    print(json.dumps({'id': json.loads(line)['id'], 'value': {'x': 'a\\x1b[31m\\x00\\udc00'}}), "
            "flush=True)\n"
        ),
    )
    junit, report = tmp_path / "r.xml", tmp_path / "r.json"
    p = installed_cli(
        "conformance", "--impl", impl, "--message", "SubscriptionInfo", "--junit", str(junit), "--json", str(report)
    )
    _clean(p)
    assert p.returncode == 1
    doc = xml.dom.minidom.parse(str(junit))
    assert doc.getElementsByTagName("failure")
    data = json.loads(report.read_text(encoding="utf-8"))
    assert data["results"] and all(r["status"] == "fail" for r in data["results"])
    assert "\x1b" not in p.stdout  # the terminal sees escapes, not the control characters
    assert not list(tmp_path.glob(".r.*"))  # no temporary report files left behind


BAD_LINES = [
    (b"not json\n", "not JSON"),
    (b"[1, 2]\n", "JSON object"),
    (
        b'{"id": "x", "message": "SubscriptionInfo", "version": 7, "result": "invalid", "wire": "00", "flags": 5}\n',
        "flags",
    ),
    (b'{"id": "x", "message": ["SubscriptionInfo"], "version": 7, "result": "invalid", "wire": "00"}\n', "message"),
    (b'{"message": "SubscriptionInfo", "version": 7, "result": "invalid", "wire": "00"}\n', "id"),
    (b'{"id": "x\xff", "message": "SubscriptionInfo"}\n', "not UTF-8"),
]


@pytest.mark.parametrize("line,why", BAD_LINES)
def test_bad_vector_files_are_lint_errors(installed_cli, tmp_path, line, why):
    good = (
        b'{"id": "ok", "message": "SubscriptionInfo", "version": 7, "result": "invalid", "wire": "0000",'
        b' "description": "cut"}\n'
    )
    f = tmp_path / "bad.jsonl"
    f.write_bytes(good + line)
    p = installed_cli("conformance", str(f))
    _clean(p)
    assert p.returncode == 1
    assert "bad.jsonl:2: " in p.stderr and why in p.stderr
    # vectors check --dir: the same line is a problem, not a crash
    d = tmp_path / "dir"
    d.mkdir()
    from tests.conftest import ROOT

    for name in ("schema.json", "flags.json"):
        (d / name).write_bytes((ROOT / "vectors" / name).read_bytes())
    (d / "bad.jsonl").write_bytes(good + line)
    c = installed_cli("vectors", "check", "--dir", str(d))
    _clean(c)
    assert c.returncode == 1
    assert "bad.jsonl:2: " in c.stdout
