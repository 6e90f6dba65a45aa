"""Shared test set-up: where Kafka's vectors live, and the hypothesis profiles.

Profiles: ``ci`` (the default: derandomized, bounded) and ``deep`` (long runs:
``HYPOTHESIS_PROFILE=deep pytest -m slow``)."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("REBALANCE_CODEC_SHARED", ROOT.parent / "shared"))
KAFKA_VECTORS = SHARED / "vectors" / "kafka-java"

settings.register_profile(
    "ci",
    max_examples=60,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile(
    "deep", max_examples=20000, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def load_jsonl(path: Path) -> list[dict]:
    if not path.is_file():
        raise FileNotFoundError(
            f"{path} is missing: the tests need ../shared beside the repository "
            "(or REBALANCE_CODEC_SHARED pointing at it)"
        )
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def consumer_round_counts() -> dict[str, int]:
    """How many rounds of each message the gate runs from vectors/consumer/, counted by the rule the gate states
    (docs/explanations/assignors.md, vectors/ADAPTERS.md): each Kafka-computed case with an expected assignment and
    none of Kafka's test-only switches (preferRackAwareLogic, a forced subscriptionType); a client-side assignor's
    a ConsumerRound, or a ConsumerRackRound when the case has partition racks; a server-side one's (uniform,
    server-range) a ServerAssignorRound."""
    n = {"ConsumerRound": 0, "ConsumerRackRound": 0, "ServerAssignorRound": 0}
    for name in ("kafka-tests.jsonl", "kafka-java-assignors.jsonl"):
        for line in (ROOT / "vectors" / "consumer" / name).read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            c = json.loads(line)
            g = c.get("group", {})
            if "expected" not in c or g.get("preferRackAwareLogic") or "subscriptionType" in g:
                continue
            if c.get("assignor") in ("range", "roundrobin", "sticky", "cooperative-sticky"):
                n["ConsumerRackRound" if "partitionRacks" in g else "ConsumerRound"] += 1
            elif c.get("assignor") in ("uniform", "server-range"):
                n["ServerAssignorRound"] += 1
    return n


def consumer_round_count() -> int:
    """Every round the gate runs from vectors/consumer/ (:func:`consumer_round_counts`)."""
    return sum(consumer_round_counts().values())


def record_id(r: dict) -> str:
    return str(r.get("id") or f"{r.get('kind')}-v{r.get('version')}-{r.get('index')}")


@pytest.fixture(scope="session")
def kafka_vectors():
    return lambda name: load_jsonl(KAFKA_VECTORS / name)


def run_folder(tmp_path_factory) -> Path:
    """A folder every pytest-xdist worker of this run shares (the parent of each worker's base temp); with
    ``-n 0``, this process's base temp."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def built_once(tmp_path_factory, name: str, build) -> Path:
    """The folder ``name`` of :func:`run_folder`, filled by ``build(folder)`` once per test run: the first worker
    that needs it builds it under a lock, the others wait and reuse it. A build that raises leaves no folder
    behind (the next worker to ask builds it again, and fails the same way)."""
    import fcntl

    shared = run_folder(tmp_path_factory)
    folder, complete = shared / name, shared / f"{name}.complete"
    with (shared / f"{name}.lock").open("w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        if not complete.is_file():
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir()
            try:
                build(folder)
            except BaseException:
                shutil.rmtree(folder, ignore_errors=True)
                raise
            complete.touch()
    return folder


def _build_installed(base: Path) -> None:
    import fcntl

    # pip builds a local folder in place (its build/ and *.egg-info): one build of the checkout at a time, so that
    # two test runs of one checkout never write the same files at once
    lock = Path(tempfile.gettempdir()) / f"rebalance-codec-wheel-{hashlib.sha256(bytes(ROOT)).hexdigest()[:16]}.lock"
    with lock.open("w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        subprocess.run(
            [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(base / "dist"), str(ROOT)],
            check=True,
            timeout=600,
            cwd=base,
            capture_output=True,
        )
    (wheel,) = (base / "dist").glob("rebalance_codec-*.whl")
    install_wheel(wheel, base)


def install_wheel(wheel: Path, base: Path) -> Path:
    """``wheel`` installed with plain pip into a new venv ``base``/venv; its console script."""
    subprocess.run([sys.executable, "-m", "venv", str(base / "venv")], check=True, timeout=300)
    subprocess.run(
        [str(base / "venv" / "bin" / "pip"), "install", "--quiet", str(wheel)],
        check=True,
        timeout=900,
        cwd=base,
        capture_output=True,
    )
    return base / "venv" / "bin" / "rebalance-codec"


# What a user runs: the wheel in a fresh venv outside the checkout (tests/test_installed.py, tests/hostile/).
@pytest.fixture(scope="session")
def installed(tmp_path_factory) -> Path:
    """The console script of a fresh venv with the wheel installed, and nothing of the checkout on its path: built
    once per test run (:func:`built_once`; the pytest-xdist workers share it). Tests read it, never change it."""
    script = built_once(tmp_path_factory, "installed", _build_installed) / "venv" / "bin" / "rebalance-codec"
    assert script.is_file()
    return script


@pytest.fixture
def own_installed(installed, tmp_path) -> Path:
    """The same wheel in a venv of the test's own, for a test that changes the installed package (the
    :func:`installed` venv is shared by the run's workers)."""
    (wheel,) = (installed.parents[2] / "dist").glob("rebalance_codec-*.whl")
    script = install_wheel(wheel, tmp_path / "own")
    assert script.is_file()
    return script


def console(script: Path, cwd: Path):
    """Run ``script`` (an installed console script) in ``cwd``, with no variable pointing into the checkout."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "REBALANCE_CODEC_SHARED")}

    def go(*args: str, stdin: str | None = None, timeout: float = 300) -> subprocess.CompletedProcess:
        return subprocess.run(
            [str(script), *args],
            input=stdin,
            capture_output=True,
            text=True,
            encoding="utf-8",
            cwd=cwd,
            env=env,
            timeout=timeout,
        )

    return go


@pytest.fixture
def installed_cli(installed, tmp_path):
    """Run the installed console script in an empty folder, with no variable pointing into the checkout."""
    return console(installed, tmp_path)


def npm_modules(src: Path) -> Path:
    """A node_modules folder with what ``src``'s package-lock.json pins, installed by ``npm ci`` from the npm
    registry once per lockfile and kept in ~/.cache/rebalance-codec/. Skips only when node or npm is not
    installed; a failing ``npm ci`` fails the tests that need it."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if not node or not npm:
        pytest.skip(f"node and npm are not installed: {src.relative_to(ROOT)} needs them")
    pinned = (src / "package.json").read_bytes() + (src / "package-lock.json").read_bytes()
    cache = Path.home() / ".cache" / "rebalance-codec" / f"kafkajs-{hashlib.sha256(pinned).hexdigest()[:16]}"
    if not (cache / "node_modules" / "kafkajs" / "package.json").is_file():
        cache.parent.mkdir(parents=True, exist_ok=True)
        work = Path(tempfile.mkdtemp(prefix=".npm-ci-", dir=cache.parent))  # renamed into place when complete
        for name in ("package.json", "package-lock.json"):
            shutil.copy(src / name, work / name)
        p = subprocess.run(
            [npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund"],
            cwd=work,
            check=False,
            capture_output=True,
            text=True,
            timeout=600,
        )
        if p.returncode != 0:
            shutil.rmtree(work, ignore_errors=True)
            pytest.fail(f"npm ci in a copy of {src.relative_to(ROOT)} failed (exit {p.returncode}): {p.stderr[-2000:]}")
        try:
            work.rename(cache)
        except OSError:  # another run installed it meanwhile
            shutil.rmtree(work, ignore_errors=True)
    return cache / "node_modules"


@pytest.fixture(scope="session")
def kafkajs_modules() -> Path:
    """The kafkajs of the kafkajs adapter (vectors/adapters/kafkajs/package-lock.json)."""
    return npm_modules(ROOT / "vectors" / "adapters" / "kafkajs")


@pytest.fixture(scope="session")
def kafkajs_driver_modules() -> Path:
    """The kafkajs of the behaviour gate's kafkajs driver (vectors/drivers/kafkajs/package-lock.json)."""
    return npm_modules(ROOT / "vectors" / "drivers" / "kafkajs")
