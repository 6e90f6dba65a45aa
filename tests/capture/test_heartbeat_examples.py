"""The bundled heartbeat-based captures (issue #21): each is what ``codec/examples/kip848-examples.py`` writes
from :mod:`codec.capture.scripted`, and the Kafka 4 guide's ``capture`` example is the command's output, line for
line."""

from __future__ import annotations

import importlib.util

import pytest

from tests.conftest import ROOT

from .storyfixtures import run_capture

EXAMPLES = ROOT / "codec" / "examples"
COMMAND = "$ rebalance-codec capture codec/examples/kip848-group.pcap"


def _script():
    spec = importlib.util.spec_from_file_location("kip848_examples", EXAMPLES / "kip848-examples.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("name", ["kip848-group.pcap", "kip1071-streams.pcap", "kip932-share.pcap"])
def test_bundled_capture_is_what_the_script_writes(name):
    assert (EXAMPLES / name).read_bytes() == _script().EXAMPLES[name]()


def test_the_guides_block_is_the_command_output():
    doc = (ROOT / "docs" / "guides" / "kafka4.md").read_text(encoding="utf-8")
    assert doc.count(COMMAND) == 1
    block = doc[doc.index(COMMAND) + len(COMMAND) + 1 :]
    block = block[: block.index("```\n")]
    status, out = run_capture(EXAMPLES / "kip848-group.pcap")
    assert status == 0
    assert block == out


def test_the_example_tells_the_rebalance():
    """By hand from the script: six members, topic ids named by the Metadata exchange, epochs 1-6."""
    _, out = run_capture(EXAMPLES / "kip848-group.pcap")
    assert "group orders-app  (consumer group: 6 members, pcap input)" in out
    assert "member epochs 1, 2, 3, 4, 5, 6" in out
    assert "revoked orders: 3-5" in out and "fenced  22:13:28.002: gave up orders: 3 (1 partition)" in out
