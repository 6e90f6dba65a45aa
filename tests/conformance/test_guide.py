"""Every example of the adapter guide (vectors/ADAPTERS.md) is checked: each request comes from a real vector
and gets the reply shown from the reference adapter, which agrees with that vector; the declaration and the
expectations file parse; both minimal adapters run against the suite; the CI step's command is one the CLI
takes."""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
import sys
import tomllib

import pytest

from codec.conformance.expect import read_expectations
from codec.conformance.messages import normalize
from codec.conformance.runner import Capabilities, first_difference
from codec.conformance.vectors import load_rounds, load_vectors
from tests.conftest import ROOT

GUIDE = (ROOT / "vectors" / "ADAPTERS.md").read_text(encoding="utf-8")
VECTORS = load_vectors()


def blocks(info: str) -> list[str]:
    return re.findall(rf"^```{info}\n(.*?)^```", GUIDE, re.DOTALL | re.MULTILINE)


def exchanges() -> list[tuple[dict, dict]]:
    pairs, request = [], None
    for block in blocks("protocol"):
        for line in block.splitlines():
            if line.startswith("> "):
                assert request is None, f"two requests in a row: {line[:80]}"
                request = json.loads(line[2:])
            elif line.startswith("< "):
                assert request is not None, f"a reply without a request: {line[:80]}"
                pairs.append((request, json.loads(line[2:])))
                request = None
            else:
                assert not line.strip() or line.startswith("#"), line
    assert request is None
    return pairs


EXCHANGES = exchanges()


def test_the_guide_shows_every_op():
    ops = {req["op"] for req, _ in EXCHANGES}
    assert ops == {"decode", "encode", "assign"}
    assert {req["message"] for req, _ in EXCHANGES if "message" in req} >= {"RequestFrame", "ResponseFrame"}
    assert any("error" in reply for _, reply in EXCHANGES)


def test_the_reference_adapter_answers_as_shown():
    lines = "".join(json.dumps(req) + "\n" for req, _ in EXCHANGES)
    p = subprocess.run(
        [sys.executable, "-m", "codec.conformance.adapter"],
        input=lines,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
        check=True,
    )
    got = [json.loads(line) for line in p.stdout.splitlines()]
    assert len(got) == len(EXCHANGES)
    for (req, shown), reply in zip(EXCHANGES, got):
        assert reply == shown, req


def _vector_for(req: dict) -> dict:
    for v in VECTORS:
        if (
            v["message"] == req["message"]
            and v.get("version") == req["version"]
            and v.get("apiKey") == req.get("apiKey")
        ):
            if req["op"] == "decode" and v.get("wire") == req["wire"]:
                return v
            if req["op"] == "encode" and "expected" in v and v["expected"] == req["value"]:
                return v
    raise AssertionError(f"no vector has this request: {json.dumps(req)[:200]}")


def test_each_example_reply_echoes_its_requests_id():
    assert all(isinstance(req["id"], int) and reply["id"] == req["id"] for req, reply in EXCHANGES)


@pytest.mark.parametrize("i", range(len(EXCHANGES)))
def test_each_example_is_a_vector_and_its_reply_agrees_with_it(i):
    req, reply = EXCHANGES[i]
    req, reply = ({k: v for k, v in x.items() if k != "id"} for x in (req, reply))
    if req["op"] == "assign":
        (round_,) = [r for r in load_rounds() if r["id"] == req["round"]["id"]]
        assert {k: v for k, v in round_.items() if k != "assignments"} == req["round"]
        assert reply == {"assignments": {a["memberId"]: a["assignment"] for a in round_["assignments"]}}
        return
    v = _vector_for(req)
    if v["result"] == "invalid":
        assert set(reply) == {"error"} and isinstance(reply["error"]["message"], str)
    elif req["op"] == "decode":
        assert first_difference(normalize(v["message"], v["expected"]), normalize(v["message"], reply["value"])) is None
    else:
        assert v["canonical"] and reply == {"wire": v["wire"]}


def _adapter_file(tmp_path, info: str, name: str):
    (code,) = blocks(info)
    path = tmp_path / name
    path.write_text(code, encoding="utf-8")
    return path


def _heartbeat_counts() -> tuple[int, int]:
    """By hand from the files: every HeartbeatResponse v0-3 vector passes (the minimal adapter reads and
    writes v0-3 exactly); the rest of the Heartbeat vectors are not declared."""
    beats = [v for v in VECTORS if v["message"] in ("HeartbeatRequest", "HeartbeatResponse")]
    passing = [v for v in beats if v["message"] == "HeartbeatResponse" and v["version"] <= 3]
    return len(passing), len(beats) - len(passing)


@pytest.mark.parametrize(
    "info,name,runtime", [("python", "adapter.py", sys.executable), ("javascript", "adapter.js", "node")]
)
def test_the_minimal_adapters_run(tmp_path, info, name, runtime):
    if shutil.which(runtime) is None:
        pytest.skip(f"{runtime} is not installed")
    path = _adapter_file(tmp_path, info, name)
    p = subprocess.run(
        [
            sys.executable,
            "-m",
            "codec",
            "conformance",
            "--impl",
            f"{runtime} {path}",
            "--message",
            "HeartbeatRequest",
            "--message",
            "HeartbeatResponse",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
        check=False,
    )
    passed, skipped = _heartbeat_counts()
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
    assert p.stdout.strip().splitlines()[-1] == f"{passed} passed, 0 failed, {skipped} skipped"
    (declaration,) = blocks("capabilities")
    assert "capabilities: decode/encode HeartbeatResponse v0-3" in p.stdout
    reply = subprocess.run(
        [runtime, str(path)],
        input='{"id": 1, "op": "capabilities", "protocol": 2}\n',
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert json.loads(reply.stdout) == {"id": 1, **json.loads(declaration)}


def test_the_declaration_parses():
    (declaration,) = blocks("capabilities")
    caps = Capabilities.parse(json.loads(declaration)["capabilities"])
    assert caps.covers("decode", "HeartbeatResponse", 3) and not caps.covers("decode", "HeartbeatResponse", 4)
    assert not caps.covers("decode", "HeartbeatRequest", 0)


def test_the_expectations_examples_name_real_vectors_and_messages(tmp_path):
    from codec.conformance.messages import MESSAGES

    ids_example, generated_example = blocks("expect")
    path = tmp_path / "expect.txt"
    path.write_text(ids_example)
    exp = read_expectations(path)
    ids = {v["id"] for v in VECTORS}
    assert exp.reasons and set(exp.reasons) <= ids and all(exp.reasons.values())
    path.write_text(generated_example)
    exp = read_expectations(path)
    assert not exp.reasons and [p.message for p in exp.patterns] == ["JoinGroupResponse"]
    (p,) = exp.patterns
    assert (
        p.message in MESSAGES
        and p.reason
        and p.matches("decode", "JoinGroupResponse", 5, "$.members[].groupInstanceId")
    )


def test_the_ci_step_is_a_command_the_cli_takes():
    from codec.cli import build_parser

    (yaml,) = blocks("yaml")
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert f"pip install rebalance-codec=={version}" in yaml
    (command,) = [ln.split("- run: ", 1)[1] for ln in yaml.splitlines() if "rebalance-codec conformance" in ln]
    argv = shlex.split(command)
    assert argv[:2] == ["rebalance-codec", "conformance"]
    args = build_parser().parse_args(argv[1:])
    assert args.impl and args.expect and args.junit == "kafka-conformance.xml"
    assert args.seed is not None  # the guide's way to pin the generated cases of a required check
    assert f"report_paths: {args.junit}" in yaml


def test_the_readme_links_the_guide_and_the_table_markers_stay():
    readme = (ROOT / "vectors" / "README.md").read_text(encoding="utf-8")
    assert "(ADAPTERS.md)" in readme
    assert readme.count("<!-- vectors-list:start -->") == 1 and readme.count("<!-- vectors-list:end -->") == 1
    assert "(README.md#what-the-suite-holds)" in GUIDE and "## What the suite holds" in readme
    for target in re.findall(r"\]\(((?:adapters|README)[^)#]*)\)", GUIDE):
        assert (ROOT / "vectors" / target).exists(), target
