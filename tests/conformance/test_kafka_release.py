"""``conformance``/``vectors list --kafka-release R`` select what release R speaks, and ``vectors upstream-diff``
compares schemas/ with Kafka's message JSON. The expected selections are computed here from the vector files and the
raw per-release data; the expected differences from hand-made changes and from what Kafka 4.4 added (issue #43)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from codec.cli import main
from tests.conftest import ROOT, load_jsonl

RAW = json.loads((ROOT / "vectors" / "releases" / "kafka-versions.json").read_text(encoding="utf-8"))
FACTS = ROOT / "vectors" / "releases" / "kafka-4.4-facts.json"
KNOWN = ROOT / "vectors" / "releases" / "upstream-known.txt"
MIRROR = Path("/work/.mirror/confluentinc+kafka/repo")
#: Messages whose 4.4 changes are another part of #43 (k44c), not merged here yet: their differences from the 4.4
#: facts are the ones the issue lists; nothing else may differ.
PENDING = {
    "StreamsGroupDescribeRequest",
    "StreamsGroupDescribeResponse",
    "StreamsGroupMetadataValue",
    "ShareGroupTargetAssignmentMetadataValue",
}
SELECTED = [
    "StreamsGroupHeartbeatRequest",
    "StreamsGroupHeartbeatResponse",
    "ApiVersionsRequest",
    "ApiVersionsResponse",
    "DeleteGroupsResponse",
    "TxnOffsetCommitRequest",
]


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def expected_ids(release: str) -> set[str]:
    """The ids of the vectors of SELECTED at a version ``release`` speaks, from the files and the raw table."""
    out = set()
    for path in sorted((ROOT / "vectors").glob("*.jsonl")):
        for v in load_jsonl(path):
            if v["message"] not in SELECTED:
                continue
            facts = RAW["messages"][v["message"]]["releases"].get(release)
            if facts is None:
                continue
            lo, _, hi = facts["validVersions"].partition("-")
            top = int(hi or lo) - (1 if facts.get("latestVersionUnstable") else 0)
            if int(lo) <= v["version"] <= top:
                out.add(v["id"])
    return out


def test_conformance_kafka_release_43_vs_44(capsys, tmp_path):
    ids = {}
    for release in ("4.3", "4.4"):
        report = tmp_path / f"{release}.json"
        argv = ["conformance", "--kafka-release", release, "--generate", "0", "--json", str(report)]
        for m in SELECTED:
            argv += ["--message", m]
        code, _, err = run(capsys, *argv)
        assert code == 0, err
        ids[release] = {r["id"] for r in json.loads(report.read_text())["results"]}
        want = expected_ids(release)
        assert ids[release] == want
        assert f"kafka release {release}: {len(want)} of " in err
    # 4.4 adds versions 4.3 does not speak: StreamsGroupHeartbeat v1, ApiVersions v5, DeleteGroups v3,
    # TxnOffsetCommit v6 (issue #43); a 4.3 client is not asked them
    assert ids["4.3"] < ids["4.4"]
    extra = ids["4.4"] - ids["4.3"]
    by_id = {v["id"]: v for p in (ROOT / "vectors").glob("*.jsonl") for v in load_jsonl(p) if v["id"] in extra}
    assert {(v["message"], v["version"]) for v in by_id.values()} <= {
        ("StreamsGroupHeartbeatRequest", 1),
        ("StreamsGroupHeartbeatResponse", 1),
        ("ApiVersionsRequest", 5),
        ("ApiVersionsResponse", 5),
        ("DeleteGroupsResponse", 3),
        ("TxnOffsetCommitRequest", 6),
    }
    assert {v["message"] for v in by_id.values()} >= {"StreamsGroupHeartbeatRequest", "TxnOffsetCommitRequest"}


def test_records_follow_the_release(capsys, tmp_path):
    """A coordinator record exists from the release whose JSON first holds it (KIP-848's from 3.5); a classic
    record's value at the versions of that release's JSON (GroupMetadataValue v4, flexible, from 3.5)."""
    report = tmp_path / "records.json"
    names = ["ConsumerGroupMetadataValue", "ConsumerGroupMetadataKey", "GroupMetadataValue"]
    argv = ["conformance", "--kafka-release", "3.4", "--generate", "0", "--json", str(report)]
    for m in names:
        argv += ["--message", m]
    code, _, err = run(capsys, *argv)
    assert code == 0, err
    got = {(r["message"], r["version"]) for r in json.loads(report.read_text())["results"]}
    assert {m for m, _ in got} == {"GroupMetadataValue"}
    lo, hi = RAW["messages"]["GroupMetadataValue"]["releases"]["3.4"]["validVersions"].split("-")
    assert {v for _, v in got} == set(range(int(lo), int(hi) + 1)) == {0, 1, 2, 3}
    assert "3.4" not in RAW["messages"]["ConsumerGroupMetadataValue"]["releases"]


def test_generated_cases_follow_the_release(capsys, tmp_path):
    report = tmp_path / "gen.json"
    code, _, err = run(
        capsys,
        "conformance",
        "--kafka-release",
        "4.3",
        "--generated-only",
        "--generate",
        "40",
        "--message",
        "StreamsGroupHeartbeatResponse",
        "--seed",
        "7",
        "--json",
        str(report),
    )
    assert code == 0, err
    gen = json.loads(report.read_text())["generated"]
    assert gen["cases"] == 40 and {p["version"] for p in gen["passed"]} == {0}  # not v1, which 4.4 added


def test_vectors_list_kafka_release(capsys):
    code, out, err = run(capsys, "vectors", "list", "--kafka-release", "4.3", "--by-version")
    assert code == 0
    rows = [line.split() for line in out.splitlines() if line.startswith("StreamsGroupHeartbeatRequest ")]
    assert [r[1] for r in rows if r[2] != "-"] == ["0"]  # v1 is listed with nothing selected
    assert "kafka release 4.3: " in err


# --- upstream-diff ---------------------------------------------------------------------------------------------


def test_upstream_diff_against_44_facts_reports_only_what_the_issue_lists(capsys):
    code, out, err = run(capsys, "vectors", "upstream-diff", str(FACTS))
    lines = out.splitlines()
    assert {line.split(":", 1)[0] for line in lines} <= PENDING
    names = [p.stem for p in (ROOT / "schemas").glob("*.json") if p.stem not in PENDING]
    argv = ["vectors", "upstream-diff", str(FACTS)]
    for n in names:
        argv += ["--message", n]
    code, out, err = run(capsys, *argv)
    assert (code, out) == (0, ""), out
    assert ": 0 difference(s)" in err


def test_every_known_difference_is_still_found(capsys):
    code, out, _ = run(capsys, "vectors", "upstream-diff", str(FACTS), "--all")
    found = set(out.splitlines())
    known = [
        line.partition("  # ")[0]
        for line in KNOWN.read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    assert known and all(k in found for k in known)
    assert all("  # " in line for line in KNOWN.read_text().splitlines() if line and not line.startswith("#"))


def _tree(tmp_path: Path, *names: str) -> Path:
    tree = tmp_path / "kafka" / "clients" / "src" / "main" / "resources" / "common" / "message"
    tree.mkdir(parents=True)
    for n in names:
        shutil.copy(ROOT / "schemas" / f"{n}.json", tree / f"{n}.json")
    return tree


def _edit(path: Path, edit) -> None:
    text = path.read_text()
    spec = json.loads("\n".join(line for line in text.splitlines() if not line.lstrip().startswith("//")))
    edit(spec)
    path.write_text("// Licensed ...\n" + json.dumps(spec, indent=2))


def test_upstream_diff_hand_modified_copy(capsys, tmp_path):
    tree = _tree(tmp_path, "JoinGroupRequest", "StreamsGroupHeartbeatResponse")
    argv = ["vectors", "upstream-diff", str(tmp_path / "kafka")]
    argv += ["--message", "JoinGroupRequest", "--message", "StreamsGroupHeartbeatResponse"]
    code, out, err = run(capsys, *argv)
    assert (code, out) == (0, "")  # the same files: nothing
    assert "2 schemas compared" in err

    def join(spec):
        spec["validVersions"] = "0-10"
        spec["flexibleVersions"] = "7+"
        fields = {f["name"]: f for f in spec["fields"]}
        fields["SessionTimeoutMs"]["type"] = "int64"
        fields["RebalanceTimeoutMs"]["default"] = "-2"
        spec["fields"] = [f for f in spec["fields"] if f["name"] != "Reason"]
        spec["fields"].append({"name": "NewThing", "type": "string", "versions": "10+", "nullableVersions": "10+"})

    def sghb(spec):
        fields = {f["name"]: f for f in spec["fields"]}
        fields["Status"]["tag"] = 9
        fields["AcceptableRecoveryLag"]["ignorable"] = False

    _edit(tree / "JoinGroupRequest.json", join)
    _edit(tree / "StreamsGroupHeartbeatResponse.json", sghb)
    code, out, _ = run(capsys, *argv)
    assert code == 1
    ours = json.loads(
        "\n".join(
            line
            for line in (ROOT / "schemas" / "StreamsGroupHeartbeatResponse.json").read_text().splitlines()
            if not line.lstrip().startswith("//")
        )
    )
    status_tag = {f["name"]: f for f in ours["fields"]}["Status"].get("tag")
    assert sorted(out.splitlines()) == sorted(
        [
            "JoinGroupRequest: validVersions: ours 0-9, Kafka 0-10",
            "JoinGroupRequest: flexibleVersions: ours 6+, Kafka 7+",
            "JoinGroupRequest: Reason: not in Kafka's (string, versions 8+)",
            "JoinGroupRequest: NewThing: missing (Kafka: string, versions 10+)",
            "JoinGroupRequest: SessionTimeoutMs: type: ours int32, Kafka int64",
            "JoinGroupRequest: RebalanceTimeoutMs: default: ours -1, Kafka -2",
            f"StreamsGroupHeartbeatResponse: Status: tag: ours {json.dumps(status_tag) if status_tag is not None else '(none)'}, Kafka 9",
            "StreamsGroupHeartbeatResponse: AcceptableRecoveryLag: ignorable: ours true, Kafka false",
        ]
    )


def test_upstream_diff_bad_inputs_one_line(capsys, tmp_path):
    junk = tmp_path / "junk.json"
    junk.write_text("[1, 2")
    for argv in (
        ("vectors", "upstream-diff", str(tmp_path / "nowhere")),
        ("vectors", "upstream-diff", str(junk)),
        ("vectors", "upstream-diff", str(tmp_path), "--ref", "HEAD"),
        ("vectors", "upstream-diff", str(FACTS), "--message", "NoSuchMessage"),
    ):
        code, out, err = run(capsys, *argv)
        assert code == 1 and out == ""
        assert len(err.strip().splitlines()) == 1 and err.startswith("error: "), err
    bad = _tree(tmp_path / "bad", "JoinGroupRequest") / "JoinGroupRequest.json"
    _edit(bad, lambda spec: spec.update(fields=5))
    code, out, err = run(capsys, "vectors", "upstream-diff", str(tmp_path / "bad"), "--message", "JoinGroupRequest")
    assert code == 1 and out == "" and err.startswith("error: Kafka's JoinGroupRequest: ") and "Traceback" not in err
    (tmp_path / "empty").mkdir()
    code, out, err = run(capsys, "vectors", "upstream-diff", str(tmp_path / "empty"))  # no message JSON
    assert code == 1 and "no message JSON of schemas/ found" in err


@pytest.mark.skipif(not MIRROR.is_dir(), reason="no clone of Kafka's sources here")
def test_upstream_diff_against_the_43_release_finds_what_44_added(capsys):
    code, out, _ = run(
        capsys, "vectors", "upstream-diff", str(MIRROR), "--ref", "a9ce3221537b8653448750697915607dc7936cf3"
    )
    lines = set(out.splitlines())
    assert code == 1
    # what 4.4 added and the project already has (issue #43): ApiVersions v5 (KIP-1242), DeleteGroups v3's
    # per-group ErrorMessage, TxnOffsetCommit v6's topic ids, StreamsGroupHeartbeat v1
    assert {
        "ApiVersionsRequest: validVersions: ours 0-5, Kafka 0-4",
        "ApiVersionsRequest: ClusterId: not in Kafka's (string, versions 5+)",
        "DeleteGroupsResponse: Results.ErrorMessage: not in Kafka's (string, versions 3+)",
        "TxnOffsetCommitRequest: Topics.TopicId: not in Kafka's (uuid, versions 6+)",
        "StreamsGroupHeartbeatResponse: TopologyDescriptionRequired: not in Kafka's (bool, versions 1+)",
    } <= lines
