"""The per-release API table (vectors/releases/kafka-versions.json): derived from Kafka's JSON (regenerated here when
a clone of Kafka is at hand), true to facts of Kafka's release notes, and the one source of ``negotiate
--broker-release``, ``--kafka-release`` and the docs' table. Expected values come from the data file read here
directly, the schema files read here directly, the vector files, and Kafka's KIPs and release notes."""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import pytest

from codec.cli import main
from tests.conftest import ROOT

DATA = ROOT / "vectors" / "releases" / "kafka-versions.json"
PAGE = ROOT / "docs" / "reference" / "kafka-releases.md"
MIRROR = Path("/work/.mirror/confluentinc+kafka/repo")
RAW = json.loads(DATA.read_text(encoding="utf-8"))


def _schema(name: str) -> dict:
    text = (ROOT / "schemas" / f"{name}.json").read_text(encoding="utf-8")
    return json.loads("\n".join(line for line in text.splitlines() if not line.lstrip().startswith("//")))


def _range(text: str) -> tuple[int, int]:
    lo, _, hi = text.partition("-")
    return int(lo), int(hi or lo)


def broker_range(message: str, release: str) -> tuple[int, int] | None:
    """What a broker advertises, computed here from the raw facts: listeners, unstable newest version."""
    facts = RAW["messages"].get(message, {}).get("releases", {}).get(release)
    if facts is None:
        return None
    if "listeners" in facts and not {"broker", "zkBroker"} & set(facts["listeners"]):
        return None
    lo, hi = _range(facts["validVersions"])
    hi -= 1 if facts.get("latestVersionUnstable") else 0
    return (lo, hi) if lo <= hi else None


def spoken(message: str, release: str) -> tuple[int, int] | None:
    facts = RAW["messages"][message]["releases"].get(release)
    if facts is None:
        return None
    lo, hi = _range(facts["validVersions"])
    hi -= 1 if facts.get("latestVersionUnstable") else 0
    return (lo, hi) if lo <= hi else None


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_releases_2_0_to_4_4():
    assert list(RAW["releases"]) == [f"2.{i}" for i in range(9)] + [f"3.{i}" for i in range(10)] + [
        f"4.{i}" for i in range(5)
    ]
    for release, where in RAW["releases"].items():
        assert re.fullmatch(r"[0-9a-f]{40}", where["commit"]), release
        # the release's own commit (a .0 or, where the mirror has none, the first patch), or 4.4's branch
        assert where["gradle_version"].startswith(release + ".") or release == "4.4", (release, where)


def test_facts_of_kafkas_release_notes():
    """Facts from KIPs and release notes, not from the JSON: each is a version a release added or removed."""
    assert broker_range("JoinGroupRequest", "2.0") == (0, 3)
    assert broker_range("JoinGroupRequest", "2.3") == (0, 5)  # KIP-345 static membership: JoinGroup v5 in 2.3
    assert broker_range("JoinGroupRequest", "2.4")[1] == 6  # KIP-482 flexible versions: JoinGroup v6 in 2.4
    assert broker_range("FetchRequest", "2.1") == (0, 10)  # KIP-320 fetch v9, KIP-110 v10 (2.1)
    assert broker_range("ConsumerGroupHeartbeatRequest", "3.6") is None  # KIP-848: unstable until 3.7
    assert broker_range("ConsumerGroupHeartbeatRequest", "3.7") == (0, 0)  # early access in 3.7
    assert broker_range("ConsumerGroupHeartbeatRequest", "4.0") == (0, 1)  # GA in 4.0
    assert broker_range("OffsetCommitRequest", "4.0")[0] == 2  # KIP-896: 4.0 removed OffsetCommit v0-1
    assert broker_range("StreamsGroupHeartbeatRequest", "4.1") is None  # KIP-1071: early access behind a flag
    assert broker_range("StreamsGroupHeartbeatRequest", "4.4") == (0, 1)  # 4.4's v1 (issue #43)
    assert broker_range("ApiVersionsRequest", "4.3") == (0, 4)
    assert broker_range("ApiVersionsRequest", "4.4") == (0, 5)  # KIP-1242: ApiVersions v5 in 4.4
    assert broker_range("DeleteGroupsRequest", "4.4") == (0, 3)  # DeleteGroups v3 in 4.4


def test_every_api_of_schemas_is_in_the_table():
    apis = {p.stem for p in (ROOT / "schemas").glob("*.json") if _schema(p.stem).get("type") == "request"}
    assert apis <= set(RAW["messages"])
    # every such API at 4.4 is where the schemas follow it: the codec's range is 4.4's (StreamsGroupDescribe v1 is
    # another part of #43, not merged yet: until then the codec's range is 4.3's, a part of 4.4's)
    pending = {"StreamsGroupDescribeRequest"}
    for name in sorted(apis):
        ours, kafka = _range(_schema(name)["validVersions"]), spoken(name, "4.4")
        if name in pending and ours != kafka:
            assert kafka[0] <= ours[0] <= ours[1] <= kafka[1] and ours == spoken(name, "4.3"), name
        else:
            assert ours == kafka, name


@pytest.mark.skipif(not MIRROR.is_dir(), reason="no clone of Kafka's sources here")
def test_the_data_is_what_the_script_derives_from_kafka():
    spec = importlib.util.spec_from_file_location("krv", ROOT / "vectors" / "tools" / "kafka_release_versions.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    only = ("2.0", "2.7", "4.4")  # hand-written classes, ListOffsets' old name, the JSON of today
    fresh = mod.build(str(MIRROR), ROOT / "schemas", only)
    for release in only:
        assert fresh["releases"][release] == RAW["releases"][release]
    for name, entry in RAW["messages"].items():
        for release in only:
            assert fresh["messages"].get(name, {}).get("releases", {}).get(release) == entry["releases"].get(release), (
                name,
                release,
            )


@pytest.mark.skipif(not MIRROR.is_dir(), reason="no clone of Kafka's sources here")
def test_the_recorded_44_facts_are_what_the_script_reads_from_kafka():
    spec = importlib.util.spec_from_file_location("krv", ROOT / "vectors" / "tools" / "kafka_release_versions.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    recorded = json.loads((ROOT / "vectors" / "releases" / "kafka-4.4-facts.json").read_text(encoding="utf-8"))
    assert mod.facts(str(MIRROR), recorded["commit"], ROOT / "schemas") == recorded
    assert "about" not in json.dumps(recorded["messages"])  # facts only: no text of Kafka's files


def test_negotiate_broker_release_is_the_highest_common_version(capsys):
    code, out, _ = run(capsys, "negotiate", "--broker-release", "3.7", "--format", "json")
    assert code == 0
    rows = {r["api"] + "Request": r for r in json.loads(out)["apis"]}
    for name, row in rows.items():
        ours = _range(_schema(name)["validVersions"])
        broker = broker_range(name, "3.7")
        want = None
        if broker is not None and max(ours[0], broker[0]) <= min(ours[1], broker[1]):
            want = min(ours[1], broker[1])
        assert row["version"] == want, name
        if want is not None:  # header versions: request v2 / response v1 at a flexible version (wire-facts §7)
            flexible = _schema(name).get("flexibleVersions", "none")
            is_flexible = flexible != "none" and want >= int(flexible.rstrip("+"))
            assert row["request_header"] == (2 if is_flexible else 1), name
    assert rows["JoinGroupRequest"]["version"] == 9
    assert rows["DescribeGroupsRequest"]["version"] == 5
    assert rows["ConsumerGroupHeartbeatRequest"]["version"] == 0
    assert rows["StreamsGroupHeartbeatRequest"]["version"] is None


def test_negotiate_client_release(capsys):
    code, out, _ = run(capsys, "negotiate", "--broker-release", "4.3", "--client-release", "4.4", "--format", "json")
    assert code == 0
    rows = {r["api"]: r for r in json.loads(out)["apis"]}
    assert rows["ApiVersions"]["client"] == [0, 5] and rows["ApiVersions"]["version"] == 4
    assert rows["StreamsGroupHeartbeat"]["version"] == 0
    code, out, _ = run(capsys, "negotiate", "--broker-release", "4.4", "--client-release", "2.0")
    assert code == 0
    assert re.search(r"^JoinGroup +11 +0-3 +0-9 +v3 ", out, re.M)
    assert re.search(r"^ConsumerGroupHeartbeat +68 +- +0-1 +none: a Kafka 2.0 client does not send it", out, re.M)


@pytest.mark.parametrize(
    "argv",
    [
        ("negotiate", "--broker-release", "9.9"),
        ("negotiate", "--broker-release", "4.4", "--client-release", "1.0"),
        ("negotiate", "--broker-release", "4.4", "--scenario", "streams-v4-to-v7"),
        ("negotiate", "--client-release", "4.4"),
        ("negotiate",),
        ("conformance", "--kafka-release", "4.5", "--generate", "0"),
        ("vectors", "list", "--kafka-release", "x"),
    ],
)
def test_bad_release_is_one_line(capsys, argv):
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and err.startswith("error: ")


def test_docs_page_is_the_data():
    """The page's generated table is the data's: every cell read back and computed here from the raw facts."""
    from codec.negotiation.releases import PAGE_MARKERS, render_api_table, render_release_commits

    text = PAGE.read_text(encoding="utf-8")

    def block(name: str) -> str:
        start, end = PAGE_MARKERS[name]
        return text[text.index(start) + len(start) : text.index(end)].strip()

    assert block("table") == render_api_table()
    assert block("commits") == render_release_commits()
    lines = block("table").splitlines()
    releases = [c.strip() for c in lines[0].strip("|").split("|")][2:]
    assert releases == list(RAW["releases"])
    names = {_schema(p.stem)["apiKey"]: p.stem for p in (ROOT / "schemas").glob("*Request.json")}
    seen = set()
    for line in lines[2:]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        key = int(cells[1])
        seen.add(key)
        for release, cell in zip(releases, cells[2:]):
            got = broker_range(names[key], release)
            want = "–" if got is None else str(got[0]) if got[0] == got[1] else f"{got[0]}-{got[1]}"
            assert cell == want, (names[key], release)
    assert seen == {k for k, n in names.items() if n in RAW["messages"]}
