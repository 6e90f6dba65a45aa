"""The conformance gate against adapters whose replies are large or out of step, and reports aimed at the run's
own inputs. The adapters are small scripts written here; the expectations are vectors/ADAPTERS.md's rules: a reply
up to ``--max-reply-bytes`` (64 MiB) is read within ``--timeout`` (10 s); one reply line a request, logs to stderr;
a report never replaces an input."""

from __future__ import annotations

import re
import sys

import pytest

from codec.conformance.impl import DEFAULT_MAX_REPLY, DEFAULT_TIMEOUT

from .adapters import decode_once

pytestmark = pytest.mark.wheel

# An implementation of the messages (the built-in codec's answers), whose rejections all say just "no".
_HONEST_NO = (
    "import sys, json\n"
    "from codec.conformance.impl import handle_request\n"
    "def answer(req):\n"
    "    out = handle_request(req)\n"
    "    return {'id': req['id'], **({'error': {'message': 'no'}} if 'error' in out else out)}\n"
)


def test_a_reply_just_under_the_cap_is_read_within_the_default_timeout(tmp_path):
    """A reply of 64 MiB less 100 bytes, allowed by the protocol: it arrives in some thousand pieces, and joining
    each to all before it (and searching all of it for the newline again) took 17 s, past the 10 s timeout."""
    size = DEFAULT_MAX_REPLY - 100
    outcome, impl = decode_once(
        tmp_path,
        "    import json\n"
        f'    sys.stdout.write(\'{{"id": \' + str(json.loads(line)[\'id\']) + \', "value": {{"userData": "\' '
        f"+ 'x' * {size - 40} + '\"}}}}\\n'); sys.stdout.flush()\n",
    )
    assert impl.timeout == DEFAULT_TIMEOUT == 10
    assert outcome.failure is None, outcome.failure
    assert len(outcome.value["userData"]) == size - 40


def _summary(stdout: str) -> str:
    return stdout.strip().splitlines()[-1]


def test_two_replies_to_one_request_pass_nothing_else(installed_cli, tmp_path):
    """Each (right) reply written twice in one write: the second copy was read as the next request's reply, and
    on the nine truncated HeartbeatResponse vectors each refusal answered another vector, so the run passed
    (9 passed, exit 0). Now the copy fails the request it is found at and the adapter starts afresh: only the
    vectors answered by their own reply pass, and the run fails."""
    adapter = tmp_path / "twice.py"
    adapter.write_text(
        _HONEST_NO
        + "for line in sys.stdin:\n    s = json.dumps(answer(json.loads(line)))\n"
        + "    sys.stdout.write(s + '\\n' + s + '\\n'); sys.stdout.flush()\n",
        encoding="utf-8",
    )
    p = installed_cli(
        "conformance",
        "--impl",
        f"{sys.executable} {adapter}",
        "--flags",
        "truncated",
        "--message",
        "HeartbeatResponse",
        "--show-failures",
        "0",
    )
    assert "Traceback" not in p.stderr
    assert p.returncode == 1, p.stdout[-2000:]
    m = re.fullmatch(r"(\d+) passed, (\d+) failed, 0 skipped", _summary(p.stdout))
    assert m and int(m[1]) + int(m[2]) == 9 and int(m[2]) >= 4, p.stdout[-2000:]
    fails = [line for line in p.stdout.splitlines() if line.startswith("FAIL ")]
    assert len(fails) == int(m[2]) and all("adapter wrote to stdout when it was not asked" in f for f in fails)


@pytest.mark.parametrize(
    "args,words",
    [
        (["v.jsonl", "--json", "./v.jsonl"], "--json ./v.jsonl is also the vector file v.jsonl"),
        (["v.jsonl", "--junit", "v.jsonl"], "--junit v.jsonl is also the vector file v.jsonl"),
        (["v.jsonl", "--write-expect", "v.jsonl"], "--write-expect v.jsonl is also the vector file v.jsonl"),
        (["v.jsonl", "--expect", "e.txt", "--json", "e.txt"], "--json e.txt is also the --expect file e.txt"),
        (["v.jsonl", "--junit", "r", "--json", "r"], "--json r is also the --junit r"),
    ],
)
def test_a_report_over_an_input_is_refused_before_the_run(installed_cli, tmp_path, args, words):
    """``conformance v.jsonl --json v.jsonl`` replaced the vector file with the report; now a usage error, and
    the file is untouched."""
    from tests.conftest import ROOT

    vectors = (ROOT / "vectors" / "handcrafted-subscription-info.jsonl").read_bytes()
    (tmp_path / "v.jsonl").write_bytes(vectors)
    (tmp_path / "e.txt").write_text("# none\n", encoding="utf-8")
    p = installed_cli("conformance", *args)
    assert p.returncode == 2 and p.stdout == ""
    assert p.stderr.strip().splitlines() == [f"error: {words}"]
    assert (tmp_path / "v.jsonl").read_bytes() == vectors and not (tmp_path / "r").exists()


def test_write_expect_may_refresh_the_expect_file_it_reads(installed_cli, tmp_path):
    from tests.conftest import ROOT

    (tmp_path / "v.jsonl").write_bytes((ROOT / "vectors" / "handcrafted-subscription-info.jsonl").read_bytes())
    (tmp_path / "e.txt").write_text("# none\n", encoding="utf-8")
    p = installed_cli("conformance", "v.jsonl", "--expect", "e.txt", "--write-expect", "e.txt")
    assert p.returncode == 0, p.stderr
