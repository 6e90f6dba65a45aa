"""The versions of every message ``schemas/`` holds, at each Kafka feature release 2.0 ... 4.4, read from Kafka's own
message JSON at that release's commit: ``vectors/releases/kafka-versions.json``, the one source of the per-release
tables (``codec.negotiation.releases``: ``negotiate --broker-release``, ``vectors``/``conformance --kafka-release``,
the docs' table).

It reads a git repository of Kafka's sources (a bare clone is enough: nothing is checked out), and for each release
the commit :data:`RELEASES` names: the release's tag where the repository has one, else the commit that set
``gradle.properties``'s version to the release (``Bump version to X.Y.Z``; where the ``.0`` release's commit is not
in the repository, the first patch release's, whose message versions Kafka does not change in a patch release).
Every ``*/src/main/resources/common/message/*.json`` file of a request, response, coordinator record or data
message (ConsumerProtocol's) whose ``name`` is a message of ``schemas/`` is read (Streams' metadata, which has its own
release table, is not), and these facts of it kept: ``apiKey``, ``type``, ``validVersions``, ``flexibleVersions``,
``latestVersionUnstable`` and ``listeners`` (which servers answer the API). An API whose messages a release still
wrote by hand (2.0 and 2.1 all of them, some until 2.4) is read from that release's ``ApiKeys.java``, which names
the request and response classes, and those classes' ``schemaVersions()`` arrays (v0 to one less than their
length; ``"source": "java"``). Nothing of Kafka's files is copied but those facts. From the repository root:

    python vectors/tools/kafka_release_versions.py /work/.mirror/confluentinc+kafka/repo \\
        > vectors/releases/kafka-versions.json

``facts REPO COMMIT`` writes instead the facts ``rebalance-codec vectors upstream-diff`` compares, of every message
JSON of ``schemas/``'s names at one commit (names, versions, types, tags, defaults; no descriptions, no code):
``vectors/releases/kafka-4.4-facts.json``, which a test diffs ``schemas/`` against:

    python vectors/tools/kafka_release_versions.py facts /work/.mirror/confluentinc+kafka/repo \\
        8d3916cfe15f13a2d878c79d302ba2d63172f0af > vectors/releases/kafka-4.4-facts.json
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

#: release -> (commit, what it is). Tags where the mirror has them; else the "Bump version to X.Y.Z" commit.
RELEASES: dict[str, tuple[str, str]] = {
    "2.0": ("2.0.0", "tag 2.0.0"),
    "2.1": ("2.1.0", "tag 2.1.0"),
    "2.2": ("2.2.0", "tag 2.2.0"),
    "2.3": ("2.3.0", "tag 2.3.0"),
    "2.4": ("2.4.0", "tag 2.4.0"),
    "2.5": ("2.5.0", "tag 2.5.0"),
    "2.6": ("2.6.0", "tag 2.6.0"),
    "2.7": ("2.7.0", "tag 2.7.0"),
    "2.8": ("2.8.0", "tag 2.8.0"),
    "3.0": ("3.0.0", "tag 3.0.0"),
    "3.1": ("3.1.0", "tag 3.1.0"),
    "3.2": ("3.2.0", "tag 3.2.0"),
    "3.3": ("9d1f9f77642d7e95dec37647657478ed187bdeb7", "Bump version to 3.3.0"),
    "3.4": ("2e1947d240607d53f071f61c875cfffc3fec47fe", "Bump version to 3.4.0"),
    "3.5": ("c97b88d5db4de28d9f51bb11fb71ddd6217c7dda", "Bump version to 3.5.0"),
    "3.6": ("60e845626d8a465a8cfe68bb2d7d4b88d622634e", "Bump version to 3.6.0"),
    "3.7": ("e2494e6ffb89f8288ed2aeb9b5596c755210bffd", "Bump version to 3.7.1"),
    "3.8": ("771b9576b00ecf5b64ab6e8bedf04156fbdb5cd6", "Bump version to 3.8.0"),
    "3.9": ("cc53a632edcf78dc8b2a4c2c502c654950744e1e", "Bump version to 3.9.0"),
    "4.0": ("b3aeb69cb4c84a4ade32083216be987829b21574", "Bump version to 4.0.1"),
    "4.1": ("13f70256db3c994c590e5d262a7cc50b9e973204", "Bump version to 4.1.0"),
    "4.2": ("a18251bae0b825c69794a50dffd4c3100cf5ca5b", "Bump version to 4.2.0"),
    "4.3": ("a9ce3221537b8653448750697915607dc7936cf3", "Bump version to 4.3.0"),
    "4.4": ("8d3916cfe15f13a2d878c79d302ba2d63172f0af", "the 4.4 branch (4.4.0 released 2026-10-13)"),
}
_MESSAGE_PATH = re.compile(r"^(?:.*/)?src/main/resources/common/message/([A-Za-z0-9]+)\.json$")
_COMMENT = re.compile(r"^\s*//.*$", re.M)
#: Kafka's names of a message before it was renamed -> the name schemas/ (and Kafka since) gives it.
RENAMED = {"ListOffsetRequest": "ListOffsetsRequest", "ListOffsetResponse": "ListOffsetsResponse"}
#: The kinds of message JSON kept: RPCs, coordinator records, and plain data (ConsumerProtocol, the classic
#: records before Kafka 4 typed them); Streams' own metadata (streams/) follows its own release table.
KINDS = ("request", "response", "coordinator-key", "coordinator-value", "data")
KEPT = ("apiKey", "type", "validVersions", "flexibleVersions", "latestVersionUnstable", "listeners", "source")


def _git(repo: str, *args: str) -> str:
    return subprocess.run(["git", "-C", repo, *args], check=True, capture_output=True, text=True).stdout


def schema_names(schemas: Path) -> set[str]:
    return {p.stem for p in schemas.glob("*.json")}


def facts_at(repo: str, commit: str, names: set[str]) -> dict[str, dict]:
    """name -> the kept facts of Kafka's JSON of that request or response at ``commit`` (main sources only, never
    tests), completed from the hand-written classes for the APIs that had no JSON yet (:func:`java_facts`)."""
    out: dict[str, dict] = {}
    paths = _git(repo, "ls-tree", "-r", "--name-only", commit).splitlines()
    for path in paths:
        m = _MESSAGE_PATH.match(path)
        if not m or RENAMED.get(m.group(1), m.group(1)) not in names:
            continue
        spec = json.loads(_COMMENT.sub("", _git(repo, "show", f"{commit}:{path}")))
        if spec.get("type") not in KINDS or path.startswith("streams/"):
            continue
        name = RENAMED.get(spec.get("name", m.group(1)), spec.get("name", m.group(1)))
        if name in out:
            raise SystemExit(f"{commit}: {name} twice ({path})")
        out[name] = {k: spec[k] for k in KEPT if k in spec}
    for name, facts in java_facts(repo, commit, paths).items():
        if name in names and name not in out:
            out[name] = facts
    return out


_API_KEY = re.compile(
    r"^\s+[A-Z_]+\((\d+),\s*\"(\w+)\",[^()]*?(\w+)\.schemaVersions\(\),\s*(\w+)\.schemaVersions\(\)", re.M
)
_ARRAY = re.compile(r"schemaVersions\(\)\s*\{\s*return\s+new\s+Schema\[\]\s*\{([^}]*)\}", re.S)


def java_facts(repo: str, commit: str, paths: list[str]) -> dict[str, dict]:
    """Request and response name -> facts, for the APIs ``ApiKeys.java`` at ``commit`` builds from hand-written
    ``schemaVersions()`` arrays (before their JSON existed)."""
    api_keys = [p for p in paths if p.endswith("/common/protocol/ApiKeys.java") and "/src/main/" in p]
    if not api_keys:
        return {}
    text = _git(repo, "show", f"{commit}:{api_keys[0]}")
    by_class = {p.rsplit("/", 1)[1][:-5]: p for p in paths if "/common/requests/" in p and p.endswith(".java")}
    out: dict[str, dict] = {}
    for m in _API_KEY.finditer(text):
        key, api = int(m.group(1)), m.group(2)
        for cls, kind in ((m.group(3), "request"), (m.group(4), "response")):
            if cls not in by_class:
                continue
            arr = _ARRAY.search(_git(repo, "show", f"{commit}:{by_class[cls]}"))
            if not arr:
                continue
            count = len([w for w in re.split(r"[,\s]+", arr.group(1)) if w])
            name = RENAMED.get(api + kind.capitalize(), api + kind.capitalize())
            out[name] = {
                "apiKey": key,
                "type": kind,
                "validVersions": f"0-{count - 1}" if count > 1 else "0",
                "source": "java",
            }
    return out


def build(repo: str, schemas: Path, only: tuple[str, ...] | None = None) -> dict:
    names = schema_names(schemas)
    releases: dict[str, dict] = {}
    messages: dict[str, dict] = {}
    for release, (ref, what) in RELEASES.items():
        if only is not None and release not in only:
            continue
        commit = _git(repo, "rev-parse", f"{ref}^{{commit}}").strip()
        version = next(
            (
                line.split("=", 1)[1]
                for line in _git(repo, "show", f"{commit}:gradle.properties").splitlines()
                if line.startswith("version=")
            ),
            "?",
        )
        releases[release] = {"commit": commit, "what": what, "gradle_version": version}
        for name, facts in facts_at(repo, commit, names).items():
            entry = messages.setdefault(name, {"releases": {}})
            for key in ("apiKey", "type"):
                if key in facts:
                    entry[key] = facts[key]
            entry["releases"][release] = {k: facts[k] for k in KEPT[2:] if k in facts}
    return {
        "about": "The versions of each message of schemas/ in Kafka's own message JSON at each feature release "
        "(generated by vectors/tools/kafka_release_versions.py; do not edit by hand)",
        "releases": releases,
        "messages": {n: messages[n] for n in sorted(messages)},
    }


_FACT_KEYS = (
    "name",
    "apiKey",
    "type",
    "validVersions",
    "flexibleVersions",
    "versions",
    "nullableVersions",
    "taggedVersions",
    "tag",
    "default",
    "ignorable",
)


def _facts_of(spec: dict) -> dict:
    out = {k: spec[k] for k in _FACT_KEYS if k in spec}
    for key in ("fields", "commonStructs"):
        if key in spec:
            out[key] = [_facts_of(f) for f in spec[key]]
    return out


def facts(repo: str, commit: str, schemas: Path) -> dict:
    names = schema_names(schemas)
    commit = _git(repo, "rev-parse", f"{commit}^{{commit}}").strip()
    messages = {}
    for path in _git(repo, "ls-tree", "-r", "--name-only", commit).splitlines():
        m = _MESSAGE_PATH.match(path)
        if m and m.group(1) in names:
            spec = json.loads(_COMMENT.sub("", _git(repo, "show", f"{commit}:{path}")))
            messages[spec["name"]] = _facts_of(spec)
    return {
        "about": f"Facts of Kafka's message JSON at {commit} for the messages of schemas/ (generated by "
        "vectors/tools/kafka_release_versions.py facts; do not edit by hand)",
        "commit": commit,
        "messages": {n: messages[n] for n in sorted(messages)},
    }


def main(argv: list[str]) -> int:
    schemas = Path(__file__).resolve().parents[2] / "schemas"
    if len(argv) == 3 and argv[0] == "facts":
        json.dump(facts(argv[1], argv[2], schemas), sys.stdout, indent=1)
        sys.stdout.write("\n")
        return 0
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    data = build(argv[0], schemas)
    json.dump(data, sys.stdout, indent=1, sort_keys=False)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
