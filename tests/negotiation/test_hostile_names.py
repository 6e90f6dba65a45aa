"""Names in a scenario file are any string JSON holds: the text output shows them escaped, one line each,
never a crash (UnicodeEncodeError on a lone surrogate was one)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

NAME = "w\ud800\x1b[2J\nx"
SHOWN = "w\\ud800\\x1b[2J\\x0ax"  # codec.text.printable

SCENARIOS = {
    "connect-protocol": {
        "kind": "connect-protocol",
        "name": NAME,
        "phases": [{NAME: "eager", "B": "eager"}, {NAME: "sessioned", "B": "sessioned"}],
    },
    "protocol-selection": {
        "kind": "protocol-selection",
        "name": NAME,
        "phases": [{NAME: ["cooperative-sticky", "range"], "B": ["range"]}, {NAME: [NAME, "range"], "B": ["range"]}],
    },
}


@pytest.mark.parametrize("kind", sorted(SCENARIOS))
@pytest.mark.parametrize("fmt", ["text", "json"])
def test_hostile_names_are_shown_escaped(tmp_path, kind, fmt):
    path = tmp_path / "s.json"
    path.write_text(json.dumps(SCENARIOS[kind]))
    p = subprocess.run(
        [sys.executable, "-m", "codec", "negotiate", "--scenario", str(path), "--format", fmt],
        capture_output=True,
        timeout=120,
    )
    assert p.returncode == 0, p.stderr.decode(errors="replace")
    out = p.stdout.decode("utf-8")  # valid UTF-8: no lone surrogate written raw
    assert "\x1b" not in out
    if fmt == "text":
        assert SHOWN in out
    else:
        assert NAME in json.loads(out)[0][{"connect-protocol": "workers", "protocol-selection": "members"}[kind]]
