"""Adding a message is adding its schema file (issue #42): the registry derives every table a schema states, and no
module of ``codec`` keeps one of those tables by hand.

Expected values come from Kafka's facts (``../shared/spec/kafka-wire-facts.md`` §7, ``schemas/README.md``'s record
table, Kafka's ``Errors`` and ``ApiKeys``) and from bytes assembled field by field here, never from the code under
test.
"""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from codec.wire import registry
from codec.wire.registry import kind_name
from codec.wire.error_codes import ERROR_NAMES
from tests.conftest import ROOT, console

# HeartbeatRequest v4 (flexible) assembled by hand: compact string "g" (02 67), int32 generation 1, compact string
# "m" (02 6d), a null compact GroupInstanceId (00), an empty tagged-field section (00)
PING_V4 = "026700000001026d0000"
PING_JSON = {"groupId": "g", "generationId": 1, "memberId": "m", "groupInstanceId": None}
PING_KEY = 32000


def _ping_schema() -> str:
    """A copy of HeartbeatRequest.json under another name and API key."""
    text = (ROOT / "schemas" / "HeartbeatRequest.json").read_text(encoding="utf-8")
    text = text.replace('"name": "HeartbeatRequest"', '"name": "PingRequest"')
    text, n = re.subn(r'"apiKey":\s*12\b', f'"apiKey": {PING_KEY}', text)
    assert n == 1 and '"name": "PingRequest"' in text
    return text


def _decode_and_encode(run) -> None:
    """``decode --kind ping-request`` gives Kafka's JSON of the hand-made bytes, ``encode`` gives the bytes back, a
    request frame of the new API key decodes, and ``kinds`` lists the kind."""
    p = run("decode", "--kind", "ping-request", "--version", "4", "--compact", PING_V4)
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout) == PING_JSON
    p = run("encode", "--kind", "ping-request", "--version", "4", json.dumps(PING_JSON))
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == PING_V4
    # a whole request frame: header v2 (v4 is flexible: the copied schema's flexibleVersions) with the new API key
    header = f"{PING_KEY:04x}000400000007ffff00"  # key, version 4, correlation id 7, null client id, tags
    p = run("decode", "--kind", "request-frame", "--compact", header + PING_V4)
    assert p.returncode == 0, p.stderr
    frame = json.loads(p.stdout)
    assert (frame["api"], frame["apiKey"], frame["headerVersion"], frame["body"]) == ("Ping", PING_KEY, 2, PING_JSON)
    p = run("kinds")
    assert re.search(rf"^ping-request +Kafka PingRequest body \(API key {PING_KEY}, v0-4", p.stdout, re.M), p.stdout


@pytest.mark.wheel
def test_a_schema_file_dropped_into_the_installed_package_is_a_message(own_installed, tmp_path):
    """The Done-when of issue #42: a copy of HeartbeatRequest under another name and API key, dropped into the
    installed package's schema folder, decodes and encodes through the console script, with no other change.
    (Its own install: the shared one is read by other workers' tests meanwhile.)"""
    installed, installed_cli = own_installed, console(own_installed, tmp_path)
    site = subprocess.run(
        [str(installed.parent / "python"), "-c", "import codec.wire.schema as s; print(s._schema_path())"],
        capture_output=True,
        text=True,
        check=True,
        cwd=installed.parent,
    ).stdout.strip()
    folder = Path(site)
    assert folder.name == "schemas" and "site-packages" in folder.parts, folder
    added = folder / "PingRequest.json"
    added.write_text(_ping_schema(), encoding="utf-8")
    try:
        _decode_and_encode(installed_cli)
    finally:
        added.unlink()
    assert "ping-request" not in installed_cli("kinds").stdout


def test_a_schema_file_dropped_into_a_copy_of_the_package_is_a_message(tmp_path):
    """The same, quickly: the package copied as an install lays it out (``codec/schemas/``), run from elsewhere."""
    shutil.copytree(ROOT / "codec", tmp_path / "codec", ignore=shutil.ignore_patterns("__pycache__", "examples"))
    shutil.copytree(ROOT / "schemas", tmp_path / "codec" / "schemas")
    (tmp_path / "codec" / "schemas" / "PingRequest.json").write_text(_ping_schema(), encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    env.pop("REBALANCE_CODEC_SHARED", None)
    work = tmp_path / "work"
    work.mkdir()

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "codec", *args], capture_output=True, text=True, env=env, cwd=work, timeout=120
        )

    _decode_and_encode(run)


def test_without_the_file_there_is_no_such_kind(capsys):
    from codec.cli import main

    assert main(["decode", "--kind", "ping-request", "--version", "4", PING_V4]) == 2
    assert "unknown kind 'ping-request'" in capsys.readouterr().err


# --- the tables, derived ---------------------------------------------------------------------------------------


def test_the_api_table_is_the_schemas():
    """Keys, names and first flexible versions of the group APIs (wire-facts §7; ConsumerGroupHeartbeat and the
    others are flexible from their first version, schemas/README.md) and of those around them (Kafka's
    ``*Request.json`` at 4.3.1), the header versions they take (ApiVersionsResponse always behind header v0)."""
    apis = registry.apis()
    facts = {11: ("JoinGroup", 6), 12: ("Heartbeat", 4), 13: ("LeaveGroup", 4), 14: ("SyncGroup", 4)}
    facts |= {68: ("ConsumerGroupHeartbeat", 0), 69: ("ConsumerGroupDescribe", 0), 76: ("ShareGroupHeartbeat", 0)}
    facts |= {77: ("ShareGroupDescribe", 0), 88: ("StreamsGroupHeartbeat", 0), 89: ("StreamsGroupDescribe", 0)}
    # the APIs around the group (the behaviour gate's schemas; their first flexible versions are Kafka's message JSON's)
    facts |= {10: ("FindCoordinator", 3), 18: ("ApiVersions", 3), 1: ("Fetch", 12), 2: ("ListOffsets", 6)}
    facts |= {3: ("Metadata", 9), 8: ("OffsetCommit", 8), 9: ("OffsetFetch", 6)}
    # the group admin RPCs and the share-group data and state RPCs (Kafka's message JSON on the 4.4 branch, #43);
    # OffsetDelete is never flexible ("none")
    facts |= {15: ("DescribeGroups", 5), 16: ("ListGroups", 3), 28: ("TxnOffsetCommit", 3), 42: ("DeleteGroups", 2)}
    facts |= {47: ("OffsetDelete", 32767), 78: ("ShareFetch", 0), 79: ("ShareAcknowledge", 0)}
    state = ("Initialize", "Read", "Write", "Delete")
    facts |= {k: (n + "ShareGroupState", 0) for k, n in zip((83, 84, 85, 86), state)}
    facts |= {87: ("ReadShareGroupStateSummary", 0)}
    facts |= {k: (n + "ShareGroupOffsets", 0) for k, n in zip((90, 91, 92), ("Describe", "Alter", "Delete"))}
    facts |= {93: ("StreamsGroupTopologyDescriptionUpdate", 0)}  # Kafka 4.4 (KIP-1331)
    assert {k: (a.name, a.flexible_from) for k, a in apis.items()} == facts
    assert apis[11].request == "JoinGroupRequest" and apis[11].response == "JoinGroupResponse"
    assert (registry.request_header_version(11, 5), registry.request_header_version(11, 6)) == (1, 2)
    assert (registry.response_header_version(14, 3), registry.response_header_version(14, 4)) == (0, 1)
    assert registry.response_header_version(18, 3) == 0 and registry.request_header_version(18, 3) == 2
    assert (registry.request_header_version(47, 0), registry.response_header_version(47, 0)) == (1, 0)
    assert (registry.api_name(0), registry.api_name(3), registry.api_name(92)) == (
        "Produce",
        "Metadata",
        "DeleteShareGroupOffsets",
    )


def test_the_record_types_are_the_schemas():
    """schemas/README.md's record table: 0-1 OffsetCommit (Kafka writes 1), 2 GroupMetadata, 3-8 and 16 consumer
    groups, 9-15 share groups, 17 and 19-23 Streams groups; no release knows 18."""
    types = registry.record_types()
    assert sorted(types) == [*range(18), *range(19, 24)]
    assert registry.records()["OffsetCommit"] == (1, 0) and registry.records()["GroupMetadata"] == (2,)
    assert (types[3].name, types[9].name, types[16].name, types[17].name, types[23].name) == (
        "ConsumerGroupMetadata",
        "ShareGroupPartitionMetadata",
        "ConsumerGroupRegularExpression",
        "StreamsGroupMetadata",
        "StreamsGroupTopology",
    )
    assert (types[1].key_version, types[2].key_version, types[5].key_version) == (1, 2, 0)


def test_the_streams_releases_are_the_history():
    """wire-facts §1: the first release of each SubscriptionInfo version, and the newest version of a release."""
    firsts = registry.first_release("SubscriptionInfo")
    assert firsts == {
        1: "0.10.0",
        2: "0.10.1",
        3: "2.0",
        4: "2.1",
        5: "2.4",
        6: "2.5",
        7: "2.6",
        8: "2.7",
        9: "2.8",
        10: "3.0",
        11: "3.2",
    }
    latest = registry.latest_by_release("SubscriptionInfo")
    assert (latest["0.10.2"], latest["1.1"], latest["2.3"], latest["2.6"], latest["3.1"], latest["4.0"]) == (
        2,
        2,
        4,
        7,
        10,
        11,
    )
    assert "4.1" not in latest  # the schema follows releases to 4.0


def test_error_names_are_kafkas():
    """Kafka's Errors (4.4 branch, 8d3916cfe1): -1 UNKNOWN_SERVER_ERROR .. 136 CONTROLLER_ID_NOT_REGISTERED, one name
    each."""
    assert ERROR_NAMES[-1] == "UNKNOWN_SERVER_ERROR" and ERROR_NAMES[0] == "NONE"
    assert (ERROR_NAMES[27], ERROR_NAMES[79], ERROR_NAMES[132]) == (
        "REBALANCE_IN_PROGRESS",
        "MEMBER_ID_REQUIRED",
        "STREAMS_TOPOLOGY_FENCED",
    )
    assert (ERROR_NAMES[133], ERROR_NAMES[134], ERROR_NAMES[135], ERROR_NAMES[136]) == (
        "SHARE_SESSION_LIMIT_REACHED",
        "GROUP_DELETION_FAILED",
        "STREAMS_TOPOLOGY_DESCRIPTION_UPDATE_FAILED",
        "CONTROLLER_ID_NOT_REGISTERED",
    )
    assert sorted(ERROR_NAMES) == list(range(-1, 137)) and len(set(ERROR_NAMES.values())) == len(ERROR_NAMES)
    assert registry.error_name(25) == "UNKNOWN_MEMBER_ID" and registry.error_code("UNKNOWN_MEMBER_ID") == 25
    assert registry.error_name(9999) is None


# --- no hand-kept table --------------------------------------------------------------------------------------

# The modules that hold the tables (the registry derives; the two tables the schemas cannot hold)
_TABLES = {"wire/registry.py", "wire/error_codes.py", "wire/api_keys.py"}
# Lists of names that state what no schema does: a judgement, each with its reason
_ACCEPTED = {
    # the order --kind auto tries the self-describing kinds in (most specific first): a choice, not a schema's fact
    ("group/kinds.py", "AUTO_CANDIDATES"),
}
_RELEASE = re.compile(r"\d+\.\d+(\.\d+)?$")


def _hand_tables(root: Path) -> list[str]:
    """Every display (dict, list, tuple, set) in ``root``'s modules that keeps a table the schemas state: API keys
    with their names, record types with their records, three or more message names, Kafka's error names, or a
    release's metadata versions."""
    messages = set(registry.message_names())
    apis = {k: a.name for k, a in registry.apis().items()}
    records = {t: r.name for t, r in registry.record_types().items()}
    errors = set(ERROR_NAMES.values())
    api_names = set(apis.values())
    # a message's kind (kebab case, and squashed as the pipeline's aliases were) and a carried layer's
    kinds = {k for m in messages for k in (kind_name(m), kind_name(m).replace("-protocol", ""), m.lower())}
    out = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        if rel in _TABLES:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        assigned = {
            id(node.value): getattr(node.targets[0], "id", "") if isinstance(node, ast.Assign) else ""
            for node in ast.walk(tree)
            if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None
        }
        # the module's own tables: what a module-level assignment binds (not a comparison's operands or a
        # scenario's script)
        module_level = {
            id(part)
            for node in tree.body
            if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None
            for part in _operands(node.value)
        }
        for node in ast.walk(tree):
            found = []
            if isinstance(node, ast.Dict):
                keys = [k for k in node.keys if k is not None]
                ks, vs = _consts(keys, str), _consts(node.values, str) + _consts(_tuple_items(node.values), str)
                ki, vi = _consts(keys, int), _consts(node.values, int) + _consts(_tuple_items(node.values), int)
                pairs = [
                    (k.value, v)
                    for k, v in zip(node.keys, node.values)
                    if isinstance(k, ast.Constant) and isinstance(v, (ast.Constant, ast.Tuple))
                ]
                if sum(1 for k, v in pairs if k in apis and apis[k] in _strings(v)) >= 2:
                    found.append("API keys and their names")
                if sum(1 for k, v in pairs if k in records and _names_record(records[k], _strings(v))) >= 2:
                    found.append("record types and their records")
                if sum(1 for k, v in pairs if isinstance(k, str) and _named_key(k, apis) in _ints(v)) >= 2:
                    found.append("names and their API keys")
                if len([v for v in vs if v in errors]) >= 3:
                    found.append("Kafka's error names")
                if len([k for k in ks if _RELEASE.match(k)]) >= 3 and len(vi) >= 3:
                    found.append("releases and their versions")
                if len([v for v in vs if _RELEASE.match(v)]) >= 3 and len(ki) >= 3:
                    found.append("versions and their releases")
                if len([k for k in ks if k in kinds]) >= 3 and id(node) in module_level:
                    found.append("kind names")
            if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
                s = _consts(node.elts, str)
                named = len([x for x in s if x in messages])
                # three names, or two beside more spliced in (handcrafted_case's _AT_44 was two names, two splices),
                # or nothing but two or more (handcrafted_case's _FROM_OUR_TABLE, coverage's GENERATED_DATA)
                composed = named >= 2 and any(isinstance(e, ast.Starred) for e in node.elts)
                only = named >= 2 and named == len(node.elts) and id(node) in module_level
                if named >= 3 or composed or only:
                    found.append("message names")
                # the APIs by name (group.messages' APIS, coverage's AWAITING_VECTORS)
                if len([x for x in s if x in api_names]) >= 3 and id(node) in module_level:
                    found.append("API names")
                # the command line's kinds of messages (pipeline.records' KINDS)
                if len([x for x in s if x in kinds]) >= 3 and id(node) in module_level:
                    found.append("kind names")
            where = (rel, assigned.get(id(node), ""))
            if found and where in _ACCEPTED:
                continue
            out += [f"codec/{rel}:{node.lineno}: {what}" for what in found]
    return out


def _operands(node) -> list:
    """A value and, where it joins displays (``(...) + tuple(...)``, ``{...} | {...}``), each of them."""
    return [node, *_operands(node.left), *_operands(node.right)] if isinstance(node, ast.BinOp) else [node]


def _names_record(record: str, strings: list[str]) -> bool:
    """Whether ``strings`` name ``record`` (its name, or its key's or value's schema)."""
    return any(x in strings for x in (record, f"{record}Key", f"{record}Value"))


def _consts(nodes, kind: type) -> list:
    return [n.value for n in nodes if isinstance(n, ast.Constant) and type(n.value) is kind]


def _tuple_items(nodes) -> list:
    return [e for n in nodes if isinstance(n, ast.Tuple) for e in n.elts]


def _strings(node) -> list[str]:
    return _consts(node.elts if isinstance(node, ast.Tuple) else [node], str)


def _ints(node) -> list[int]:
    return _consts(node.elts if isinstance(node, ast.Tuple) else [node], int)


def _named_key(name: str, apis: dict[int, str]) -> int | None:
    return next((k for k, n in apis.items() if n == name or name in (f"{n}Request", f"{n}Response")), None)


def test_no_module_keeps_a_table_the_schemas_state():
    """No API-key, message-name, error-name or release table is kept by hand in ``codec`` (issue #42)."""
    assert _hand_tables(ROOT / "codec") == []


def test_no_json_schema_of_the_vectors_lists_the_messages():
    """vectors/schema.json kept an enum of message names (14 schemas behind); the messages a vector may name are the
    kinds' (codec.conformance.vectors.check_vectors holds them to it): no JSON schema in vectors/ lists three."""
    messages = set(registry.message_names())

    def lists(value, where: str):
        if isinstance(value, list):
            if len([x for x in value if isinstance(x, str) and x in messages]) >= 3:
                yield where
            for i, x in enumerate(value):
                yield from lists(x, f"{where}[{i}]")
        elif isinstance(value, dict):
            for k, x in value.items():
                yield from lists(x, f"{where}.{k}")

    found = []
    for path in sorted((ROOT / "vectors").rglob("schema.json")):  # (a run's record, results.json, may list some)
        found += lists(json.loads(path.read_text(encoding="utf-8")), path.relative_to(ROOT).as_posix())
    assert found == []


def test_the_scan_finds_the_tables_it_looks_for(tmp_path):
    """A sibling that can fail: each kind of table, written the way the removed ones were, is found."""
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "tables.py").write_text(
        "GROUP_APIS = {11: 'JoinGroup', 12: 'Heartbeat', 13: 'LeaveGroup'}\n"
        "FLEX = {'JoinGroupRequest': 11, 'SyncGroupRequest': 14}\n"
        "RECORDS = {3: 'ConsumerGroupMetadata', 4: 'ConsumerGroupPartitionMetadata'}\n"
        "PARTS = {2: ('GroupMetadataKey', 'GroupMetadataValue'), 3: ('ConsumerGroupMetadataKey', 'x')}\n"
        "MESSAGES = ('JoinGroupRequest', 'JoinGroupResponse', 'SyncGroupRequest')\n"
        "AT = {'StreamsGroupMetadataValue', 'ShareGroupTargetAssignmentMetadataValue', *OTHERS}\n"
        "ERRORS = {0: 'NONE', 25: 'UNKNOWN_MEMBER_ID', 27: 'REBALANCE_IN_PROGRESS'}\n"
        "RELEASES = {'2.4': 5, '2.5': 6, '2.6': 7}\n"
        "FIRSTS = {1: '0.10.0', 2: '0.10.1', 3: '2.0'}\n"
        "FINE = {'JoinGroupRequest': ('protocols', 'metadata'), 'SyncGroupRequest': (None, 'assignment')}\n"
        "APIS = ('JoinGroup', 'SyncGroup', 'Heartbeat', 'LeaveGroup')\n"
        "OURS = {'ShareGroupPartitionMetadataKey', 'ShareGroupPartitionMetadataValue'}\n"
        "KINDS = ('subscription-info', 'consumer-subscription', 'join-group-request', 'frame') + tuple(OTHERS)\n"
        "ALIASES = {'joingrouprequest': 'x', 'syncgrouprequest': 'y', 'consumerprotocolassignment': 'z'}\n"
        "def f(m):\n"
        "    return m in ('JoinGroup', 'SyncGroup', 'Heartbeat') or m in ('ConnectMetadata', 'ConnectAssignment')\n",
        encoding="utf-8",
    )
    found = [line.split(": ", 1)[1] for line in _hand_tables(pkg)]
    assert found == [
        "API keys and their names",
        "names and their API keys",
        "record types and their records",
        "record types and their records",
        "message names",
        "message names",
        "Kafka's error names",
        "releases and their versions",
        "versions and their releases",
        "API names",
        "message names",
        "kind names",
        "kind names",
    ]


def test_the_accepted_lists_hold_what_they_say():
    """Each accepted list names a module table the scan finds (so a stale entry goes)."""
    for rel, name in _ACCEPTED:
        tree = ast.parse((ROOT / "codec" / rel).read_text(encoding="utf-8"))
        assert any(isinstance(n, ast.Assign) and getattr(n.targets[0], "id", "") == name for n in tree.body), (
            rel,
            name,
        )


def test_a_kind_found_is_not_looked_up_in_the_folder_again(monkeypatch):
    """A decode call names its message; listing the schema folder each time made the pure-Python codec ~20x
    slower on small messages (SyncGroupResponse v3: ~165 µs a call instead of ~8). A kind found is remembered; a
    kind not found lists the folder again, so a schema file added meanwhile is still seen."""
    from codec.wire import registry

    calls: list[int] = []
    real = registry.message_names
    monkeypatch.setattr(registry, "message_names", lambda: calls.append(1) or real())
    monkeypatch.setattr(registry, "_KINDS", {})
    for _ in range(3):
        assert registry.message_of_kind("heartbeat-request") == "HeartbeatRequest"
        assert registry.message_of_kind("HeartbeatRequest") == "HeartbeatRequest"
    assert len(calls) == 2
    assert registry.message_of_kind("no-such-request") is None
    assert registry.message_of_kind("no-such-request") is None
    assert len(calls) == 4
