"""What a user runs: the wheel, installed into a fresh virtual environment outside the checkout, its console
script run from another folder.

An editable install hides packaging bugs (data folders read through the checkout, modules missing from the
package list), so these tests build the wheel, install it with plain ``pip install`` into a new venv under a
temporary folder and run ``rebalance-codec`` with that folder as the working directory. Expected values come
from the checkout's own files (vector lines, the example ``.bin`` files), the shared captures' ``frames.jsonl``
and hand derivation, never from the installed code.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.conftest import ROOT, SHARED, consumer_round_count

pytestmark = pytest.mark.wheel

# AssignmentInfo v7 whose partitionsByHost has host "h" + U+D800 (an unpaired surrogate, which Java's writeUTF
# writes as the three bytes ED A0 80) and topic "t" + U+DFFF (ED BF BF). Derived by hand from the v7 layout in
# ../shared/spec/kafka-wire-facts.md: version 7, commonly supported 11, no active or standby tasks, one host.
SURROGATE_ASSIGNMENT = (
    "00000007"
    "0000000b"  # version 7, commonly supported version 11
    "00000000"  # active tasks: 0
    "00000000"  # standby tasks: 0
    "00000001"  # v5+ topic dictionary: one topic ...
    "00000000"
    "0004"
    "74edbfbf"  # ... int32 index 0, writeUTF "t\udfff"
    "00000001"  # partitions by host: one host
    "0004"
    "68eda080"
    "00000001"  # writeUTF "h\ud800", port 1
    "00000001"
    "00000000"
    "00000000"  # one partition: topic index 0, partition 0
    "00000000"  # standby partitions by host: none
    "00000000"  # error code 0
    "7fffffffffffffff"  # next rebalance: Long.MAX_VALUE
)
# Another v7 assignment, with plain ASCII strings (the README's example).
PLAIN_ASSIGNMENT = (
    "000000070000000b000000010000000000000000000000010000000100000000000000010001630000000000000001000000000001"
    "740000000100016800000001000000010000000000000000000000010001680000000100000000000000007fffffffffffffff"
)


def _vector_lines() -> int:
    """The vectors and rebalance rounds of the checkout's vectors/, counted line by line."""
    files = [*(ROOT / "vectors").glob("*.jsonl"), ROOT / "vectors" / "rebalance" / "rounds.jsonl"]
    return sum(1 for f in files for line in f.read_text(encoding="utf-8").splitlines() if line.strip())


def _no_traceback(p: subprocess.CompletedProcess) -> None:
    assert "Traceback" not in p.stderr, p.stderr[-2000:]


def test_the_installed_package_is_not_the_checkout(installed, tmp_path):
    out = subprocess.run(
        [str(installed.parent / "python"), "-c", "import codec; print(codec.__file__)"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=True,
    ).stdout.strip()
    assert "site-packages" in out and not out.startswith(str(ROOT))


def test_vectors_check(installed_cli):
    p = installed_cli("vectors", "check")
    _no_traceback(p)
    assert p.returncode == 0, p.stdout + p.stderr
    # Every vector line of the checkout's vectors/ is in the installed copy and was checked.
    lines = _vector_lines()
    assert lines > 3000
    assert p.stdout.strip().splitlines()[-1].startswith(f"{lines} vectors in ")
    assert p.stdout.strip().endswith("0 problems")


def test_the_vector_writers_leave_the_installed_package_alone(installed_cli, installed):
    """``vectors handcraft`` / ``import`` / ``rebalance`` rewrite a checkout's vectors/: in an installed package
    they ask for ``--dir`` instead of rewriting the package's own copy, and without a shared folder ``import``
    says how to name one (its default once pointed at ``lib/python3.X/shared``)."""
    package = Path(
        subprocess.run(
            [str(installed.parent / "python"), "-c", "import codec, os; print(os.path.dirname(codec.__file__))"],
            capture_output=True,
            text=True,
            check=True,
            cwd=installed.parent,  # (not the checkout, whose codec/ the current folder would put first)
        ).stdout.strip()
    )
    before = {p: p.stat().st_mtime_ns for p in (package / "vectors").rglob("*.jsonl")}
    assert before
    for action in ("handcraft", "import", "rebalance"):
        p = installed_cli("vectors", action)
        _no_traceback(p)
        assert p.returncode == 1 and "give --dir" in p.stderr, (action, p.stderr)
    assert {p: p.stat().st_mtime_ns for p in (package / "vectors").rglob("*.jsonl")} == before
    p = installed_cli("vectors", "import", "--dir", "out")
    _no_traceback(p)
    assert p.returncode == 1 and "REBALANCE_CODEC_SHARED" in p.stderr, p.stderr


def test_conformance_of_the_built_in_codec(installed_cli):
    p = installed_cli("conformance")
    _no_traceback(p)
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
    lines = _vector_lines() + consumer_round_count()  # and the consumer leader's rounds of vectors/consumer/
    assert p.stdout.strip().splitlines()[-1].startswith(f"{lines} passed, 0 failed")


def test_demo(installed_cli):
    p = installed_cli("demo")
    _no_traceback(p)
    assert p.returncode == 0
    for name in ("streams-v7-subscription.bin", "streams-v7-assignment.bin"):
        assert (ROOT / "codec" / "examples" / name).read_bytes().hex() in p.stdout.splitlines()
    assert "SubscriptionInfo v7" in p.stdout and "AssignmentInfo v7" in p.stdout


def test_decode_and_encode_a_lone_surrogate(installed_cli):
    """Kafka-style JSON of the surrogate AssignmentInfo is valid JSON and encodes back to the same bytes."""
    p = installed_cli("decode", "--kind", "assignment-info", "--style", "kafka", SURROGATE_ASSIGNMENT)
    _no_traceback(p)
    assert p.returncode == 0, p.stderr
    assert "\\ud800" in p.stdout and "\\udfff" in p.stdout  # written as JSON escapes
    value = json.loads(p.stdout)
    (host,) = value["partitionsByHost"]
    assert host["host"] == "h\ud800" and host["port"] == 1
    assert host["partitions"] == [{"topic": "t\udfff", "partition": 0}]
    e = installed_cli("encode", "--kind", "assignment-info", "--style", "kafka", stdin=p.stdout)
    _no_traceback(e)
    assert e.returncode == 0, e.stderr
    assert e.stdout.strip() == SURROGATE_ASSIGNMENT


def test_decode_pretty_of_a_lone_surrogate(installed_cli):
    p = installed_cli("decode", "--kind", "assignment-info", "--format", "pretty", SURROGATE_ASSIGNMENT)
    _no_traceback(p)
    assert p.returncode == 0, p.stderr
    assert "h\\ud800" in p.stdout


def test_decode_lines_keeps_every_line(installed_cli):
    p = installed_cli(
        "decode",
        "--kind",
        "assignment-info",
        "--lines",
        stdin=f"{PLAIN_ASSIGNMENT}\n{SURROGATE_ASSIGNMENT}\n{PLAIN_ASSIGNMENT}\n",
    )
    _no_traceback(p)
    assert p.returncode == 0, p.stderr
    out = p.stdout.splitlines()
    assert len(out) == 3
    values = [json.loads(line) for line in out]
    assert values[0] == values[2] and values[0]["partitionsByHost"][0]["host"] == "h"
    assert values[1]["partitionsByHost"][0]["host"] == "h\ud800"


def _recorded_frames(scenario: str) -> list[dict]:
    path = SHARED / "captures" / "frames.jsonl"
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [r for r in rows if r["run"] == "runA" and r["scenario"] == scenario and r["api_key"] in (11, 12, 13, 14)]


@pytest.mark.parametrize("scenario", ["java-default", "ck-cooperative-sticky", "kp-sticky"])
def test_capture_of_a_shared_pcap(installed_cli, scenario):
    """Every group frame the capture harness recorded for the scenario (``frames.jsonl``, written by the
    harness from the client's side, not by this codec) is in ``capture --json``'s output, byte for byte."""
    pcap = SHARED / "captures" / "pcaps" / "runA" / f"{scenario}.pcap.gz"
    p = installed_cli("capture", "--json", str(pcap))
    _no_traceback(p)
    assert p.returncode == 0, p.stderr[-2000:]
    records = [json.loads(line) for line in p.stdout.splitlines()]
    frames = {
        (r["client"], r["direction"], r["api_key"], r["correlation_id"]): r["hex"]
        for r in records
        if r["type"] == "frame"
    }
    recorded = _recorded_frames(scenario)
    assert len(recorded) >= 20
    for r in recorded:
        key = (r["conn"], r["direction"], r["api_key"], r["correlation_id"])
        assert key in frames, key
        assert frames[key] == r["hex"], key
    text = installed_cli("capture", str(pcap))
    _no_traceback(text)
    assert text.returncode == 0 and f"g-{scenario}" in text.stdout


#: the pages whose sessions need only the base install (no Spark, pyarrow, kafka-python or matplotlib)
BASE_INSTALL_PAGES = [
    "getting-started/explain-a-rebalance.md",
    "getting-started/cross-version-upgrade.md",
    "guides/group-messages.md",
    "guides/kafka-connect.md",
    "guides/kafka4.md",
    "guides/simulator.md",
    "guides/cross-version.md",
]


@pytest.mark.parametrize("page", BASE_INSTALL_PAGES)
def test_the_pages_sessions_run_on_the_installed_package(installed, tmp_path, page):
    """A page's ``$`` sessions, as tests/docs runs them on the checkout, run the same on the wheel from another
    folder: its console script and Python first on PATH, and ``codec`` there the installed package, whose
    ``examples`` folder holds the bundled inputs the pages name (``codec/examples/...``). A file a page names
    that the wheel leaves out, or a command that behaves otherwise when installed, fails here."""
    from tests.docs.examples import blocks, check_session, is_session

    bin_dir = installed.parent
    package = subprocess.run(
        [str(bin_dir / "python"), "-c", "import codec, os; print(os.path.dirname(codec.__file__))"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=True,
    ).stdout.strip()
    assert not package.startswith(str(ROOT)), package
    (tmp_path / "codec").symlink_to(package, target_is_directory=True)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "REBALANCE_CODEC_SHARED")}
    env.update(PATH=f"{bin_dir}{os.pathsep}{env.get('PATH', '')}", PYTHONUNBUFFERED="1", COLUMNS="120")
    ran = 0
    for block in blocks(page):
        if block.file:
            (tmp_path / block.file).write_text(block.text, encoding="utf-8")
        elif is_session(block) and not (block.not_run or block.slow):
            check_session(block, tmp_path, env)
            ran += 1
    assert ran, f"{page}: no session ran"


def _compiler() -> str | None:
    import shlex
    import shutil
    import sysconfig

    cc = os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc"
    return shutil.which(shlex.split(cc)[0])


def test_the_native_codec_is_active_in_the_install(installed_cli):
    """Plain ``pip install`` compiled the engine with the machine's C compiler; ``--version`` from another
    folder says the native codec is the one in use."""
    if _compiler() is None:
        pytest.skip("no C compiler on this machine: the wheel holds the pure-Python codec only")
    p = installed_cli("--version")
    _no_traceback(p)
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines()[1].startswith("codec: native ("), p.stdout
    d = installed_cli("decode", "--kind", "assignment-info", "--compact", PLAIN_ASSIGNMENT)
    assert d.returncode == 0 and json.loads(d.stdout)["partitionsByHost"][0]["host"] == "h"


def test_without_a_compiler_the_wheel_installs_and_falls_back(tmp_path):
    """``CC=false``: the build says the extension failed, the wheel still builds (from a clean copy of the
    sources: no earlier build's object can slip in), installs with plain pip, and runs on the pure-Python
    codec, which ``--version`` names."""
    import shutil
    import sys

    files = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    src = tmp_path / "src"
    for name in files:
        if (ROOT / name).is_file():
            (src / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, src / name)
    env = {**os.environ, "CC": "false"}
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-v", "-w", str(tmp_path / "dist"), str(src)],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        cwd=tmp_path,
    )
    assert build.returncode == 0, build.stderr[-2000:]
    assert 'building extension "codec.wire._native" failed' in build.stdout + build.stderr
    (wheel,) = (tmp_path / "dist").glob("rebalance_codec-*.whl")
    import zipfile

    assert not [n for n in zipfile.ZipFile(wheel).namelist() if n.endswith((".so", ".pyd"))]
    site = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", str(site), str(wheel)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    run_env = {k: v for k, v in os.environ.items() if k != "REBALANCE_CODEC_NATIVE"}
    run_env["PYTHONPATH"] = str(site)
    p = subprocess.run(
        [sys.executable, "-m", "codec", "--version"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=run_env,
        timeout=120,
    )
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines()[1].startswith("codec: python (pure Python: the extension is not built"), p.stdout
    d = subprocess.run(
        [sys.executable, "-m", "codec", "decode", "--kind", "assignment-info", "--compact", PLAIN_ASSIGNMENT],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=run_env,
        timeout=120,
    )
    assert d.returncode == 0 and json.loads(d.stdout)["partitionsByHost"][0]["host"] == "h", d.stderr
    where = subprocess.run(
        [sys.executable, "-c", "import codec; print(codec.__file__)"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=run_env,
        timeout=60,
    ).stdout
    assert where.startswith(str(site))
