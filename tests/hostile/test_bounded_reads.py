"""Inputs that never end (``/dev/zero`` as a file, as stdin) through the installed console script: every command
that reads an input whole stops at :data:`codec.errors.MAX_WHOLE_INPUT` with one error line naming it, instead of
reading until memory runs out (before: ``decode @/dev/zero`` died of MemoryError as "a bug in rebalance-codec",
``assign``, ``simulate`` and ``conformance`` on ``/dev/zero`` took the machine's 24 GiB). Each run is held under a
1 GiB address-space limit, so a command that reads without bound fails its test, not the machine. A ``--lines``
line past the cap is that line's error, the lines around it answered (``-m slow``: it writes 256 MiB)."""

from __future__ import annotations

import json
import resource
import subprocess

import pytest

pytestmark = pytest.mark.wheel

CAP = "more than 268,435,456 bytes"  # codec.errors.MAX_WHOLE_INPUT, 256 MiB


def _limited() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))


def _run(installed, tmp_path, *args: str, stdin=subprocess.DEVNULL) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(installed), *args],
        stdin=stdin,
        capture_output=True,
        cwd=tmp_path,
        timeout=120,
        preexec_fn=_limited,
    )


@pytest.mark.parametrize(
    "args,from_stdin",
    [
        (("decode", "--kind", "assignment-info", "@/dev/zero"), False),
        (("decode", "--kind", "assignment-info"), True),  # hex on stdin
        (("encode", "--kind", "subscription-info", "-"), True),
        (("assign", "/dev/zero"), False),
        (("simulate", "/dev/zero", "--no-plots", "--out", "o"), False),
        (("conformance", "/dev/zero"), False),
    ],
)
def test_an_endless_input_is_one_error_line(installed, tmp_path, args, from_stdin):
    with open("/dev/zero", "rb") as zero:
        p = _run(installed, tmp_path, *args, stdin=zero if from_stdin else subprocess.DEVNULL)
    err, out = p.stderr.decode("utf-8", "replace"), p.stdout.decode("utf-8", "replace")
    assert p.returncode == 1 and "Traceback" not in err and "a bug in rebalance-codec" not in err, err[-500:]
    named = "stdin" if from_stdin else "/dev/zero"
    if args[0] == "assign":  # assign answers in JSON on stdout
        assert json.loads(out)["error"]["message"].startswith(f"{named}: {CAP}")
    else:
        assert err.strip().splitlines() == [
            f"error: {named}: {CAP}, the most a command reads of one input (codec.errors.MAX_WHOLE_INPUT)"
        ], err[-500:]


@pytest.mark.slow
def test_a_lines_input_line_past_the_cap_is_its_own_error(installed, tmp_path):
    f = tmp_path / "in.txt"
    with open(f, "wb") as w:
        w.write(b"00000007\n")
        w.write(b"0" * ((256 << 20) + 10) + b"\n")
        w.write(b"00000007\n")
    p = _run(installed, tmp_path, "decode", "--kind", "assignment-info", "--lines", f"@{f}")
    lines = p.stdout.decode("utf-8").splitlines()
    assert len(lines) == 3 and p.returncode == 1
    first, second, third = (json.loads(line)["error"] for line in lines)
    assert second["message"] == f"line 2: {CAP} (codec.errors.MAX_WHOLE_INPUT)"
    assert first == third and "truncated at offset 4" in first["message"]
