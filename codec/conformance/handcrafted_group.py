"""Handcrafted vectors for the group messages, headers and frames (``vectors/handcrafted-group.jsonl``).

Four kinds, none of them made by this project's encoder or decoder:

* **refusals** — for every field a version lacks that Kafka's message JSON does not mark ``ignorable``
  (:func:`codec.conformance.coverage.refusal_fields`), at every such version: a Kafka- or kio-written value of that
  version with the field set to a non-default value, which Kafka's generated writer refuses
  (``UnsupportedVersionException: Attempted to write a non-default … at version …``). A null-default string is
  set twice, to a name and to ``""`` (not null, so not the default either); a field inside a struct is set on one
  element holding it (each array on the way cut to that element). Invalid vectors without ``wire``. Those of the
  RPCs at Kafka 4.4 (``coverage.KAFKA44_RPCS``) are each Kafka's verdict: the value asked of Kafka's class at the
  4.4 commit (:func:`refusal_cases`, through vectors/tools/KafkaRules.java; the answers beside the rule vectors');
* **truncations** — the bytes of a valid vector of another file (Kafka's, kio's) cut to half and to all but the
  last byte, for every group and ConsumerProtocol message × version, the Streams versions outside the core
  4-7 (handcrafted.py cuts those at every field), Kafka 4's group RPCs (kio's bytes, ``kio-group-kafka4.jsonl``), the
  RPCs at Kafka 4.4 (Kafka's bytes, ``kafka-java-admin*.jsonl``; a field-less version has no byte to cut) and
  the classic group's ``__consumer_offsets`` record parts (Kafka's bytes, ``kafka-java-offsets.jsonl``): Kafka's
  readers need every field, and a flexible body its final tagged-field count, so each cut fails;
* **headers** — RequestHeader v0-2 and ResponseHeader v0-1, bytes assembled field by field from
  kafka-wire-facts.md §7 (int16 key and version, int32 correlation id, int16-length client id, an empty tagged
  field section from the flexible versions) with their values written out literally;
* **frames** — every API and version of JoinGroup, SyncGroup, Heartbeat and LeaveGroup as a whole request and
  response frame (no size prefix): a header assembled here (v1/v0, or v2/v1 at the API's flexible versions)
  followed by the body bytes of a Kafka- or kio-written vector, the value that vector's; and their truncations
  and refusals.

``rebalance-codec vectors handcraft`` writes them with the other handcrafted files; a test checks the committed
file is what this module produces from the committed vectors.
"""

from __future__ import annotations

import json
import struct
from pathlib import Path

from ..group.messages import MESSAGES as GROUP_MESSAGES
from ..wire.registry import messages_of_type, ordered, request_header_version, response_header_version
from ..wire.schema import load_message
from .coverage import (
    CLASSIC_RECORDS,
    FRAME_APIS,
    GENERATED_DATA,
    GROUP_SOURCES,
    KAFKA4_RPCS,
    KAFKA44_RPCS,
    SHARE_COORDINATOR_RECORDS,
    refusal_fields,
    supported,
)

__all__ = ["GROUP_FILE", "group_vectors", "refusal_cases"]

GROUP_FILE = "handcrafted-group.jsonl"
_UNCUTTABLE = {"trailing-bytes", "missing-fields", "version-probe", "capture-facts", "other-reader"}
# Streams versions whose truncations handcrafted.py already writes (handcrafted-*-info.jsonl)
_STREAMS_CORE = {4, 5, 6, 7}
# the messages cut here from another file's bytes: Kafka Streams' metadata, the ConsumerProtocol and the classic group
# protocol's bodies (Kafka Connect's vectors carry Kafka's own cuts; headers and frames are cut apart)
_CUT_MESSAGES = (*ordered(messages_of_type("streams")), *GENERATED_DATA, *GROUP_MESSAGES)
# the non-default values a refusal sets, by field (hand-chosen; Kafka's defaults are null, "", [] and false)
_NON_DEFAULT: dict[str, list[object]] = {
    "GroupInstanceId": ["instance-1", ""],
    "SubscribedTopicRegex": ["^orders-.*", ""],
    "MemberId": ["member-1"],
    "SkipAssignment": [True],
    "TopologyDescriptionRequired": [True],  # StreamsGroupHeartbeatResponse v0 (v1+ in Kafka 4.4)
    "AcceptableRecoveryLagLegacy": [10000],  # StreamsGroupHeartbeatResponse v1+ (v0 only in Kafka 4.4)
    # the RPCs around the group at Kafka 4.4 (coverage.KAFKA44_RPCS)
    "IncludeAuthorizedOperations": [True],  # DescribeGroupsRequest v0-2
    "ErrorMessage": ["the group is being deleted", ""],  # DescribeGroupsResponse v0-5 Groups[] (default null)
    "AuthorizedOperations": [8],  # DescribeGroupsResponse v0-2 Groups[] (default -2147483648)
    "StatesFilter": [["Stable"]],  # ListGroupsRequest v0-3
    "TypesFilter": [["consumer"]],  # ListGroupsRequest v0-4
    "GenerationIdOrMemberEpoch": [5],  # TxnOffsetCommitRequest v0-2 (default -1)
    "IsRenewAck": [True],  # ShareFetchRequest, ShareAcknowledgeRequest v1
    "PartitionMaxBytes": [1048576],  # ShareFetchRequest v1-2 Topics[].Partitions[] (v0 only)
    "IncludeTopologyDescription": [True],  # StreamsGroupDescribeRequest v0 (v1+ in Kafka 4.4)
    "TopologyDescriptionStatus": [3],  # StreamsGroupDescribeResponse v0 Groups[] (v1+; default 0)
    "TopologyDescription": [{"subtopologies": [], "globalStores": []}],  # ... (v1+; default null)
}
_MEMBERS = {
    "LeaveGroupRequest": [{"memberId": "member-1", "groupInstanceId": "instance-1"}],
    "LeaveGroupResponse": [{"memberId": "member-1", "groupInstanceId": None, "errorCode": 0}],
}


def _prov(note: str) -> dict:
    return {"source": "handcrafted", "note": note}


def _i16(n: int) -> bytes:
    return struct.pack(">h", n)


def _i32(n: int) -> bytes:
    return struct.pack(">i", n)


def _str16(s: str | None) -> bytes:  # Kafka's non-compact (nullable) string: int16 length + UTF-8
    if s is None:
        return _i16(-1)
    b = s.encode("utf-8")
    return _i16(len(b)) + b


# the file of kio's Kafka 4 RPCs (issue #21), whose bytes the Kafka 4 truncations and refusals are built from
KAFKA4_SOURCE = "kio-group-kafka4.jsonl"
# StreamsGroupHeartbeat v0-1 as Kafka 4.4's classes write them (vectors/tools/kafka_streams44.py): v1's only source
KAFKA44_STREAMS_SOURCE = "kafka-java-streams44.jsonl"
# the RPCs around the group at Kafka 4.4 (coverage.KAFKA44_RPCS: the admin RPCs, the share groups' data and state
# RPCs) as Kafka 4.4's classes write them (vectors/tools/kafka_message_rand.py): their only sources
KAFKA44_ADMIN_SOURCES = ("kafka-java-admin.jsonl", "kafka-java-admin-share.jsonl")
# StreamsGroupDescribe v0-1 and StreamsGroupTopologyDescriptionUpdate (API 93) and the records Kafka 4.4 adds or
# changes (StreamsGroupMetadataValue, ShareGroupTargetAssignmentMetadataValue, the share coordinator's ShareSnapshot
# and ShareUpdate) as Kafka 4.4's classes write them (vectors/tools/kafka_topology44.py)
KAFKA44_TOPOLOGY_SOURCES = ("kafka-java-topology44.jsonl", "kafka-java-records44.jsonl")


def _load(directory: Path) -> list[dict]:
    out = []
    for name in (
        *GROUP_SOURCES,
        KAFKA4_SOURCE,
        KAFKA44_STREAMS_SOURCE,
        *KAFKA44_ADMIN_SOURCES,
        *KAFKA44_TOPOLOGY_SOURCES,
    ):
        path = directory / name
        out += [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return out


def _has_bytes(value: dict) -> bool:
    """Whether a group value carries embedded bytes (metadata, assignments): frames take bodies without them,
    so a frame's body compares field for field whatever view of embedded bytes an implementation gives."""
    return (
        any(p.get("metadata") for p in value.get("protocols", []) + value.get("members", []))
        or any(a.get("assignment") for a in value.get("assignments", []))
        or bool(value.get("assignment"))
    )


def _sources(directory: Path) -> dict[tuple[str, int], list[dict]]:
    """Valid, cuttable vectors of the other files by (message, version), canonical ones first, in file order."""
    by: dict[tuple[str, int], list[dict]] = {}
    for v in _load(directory):
        if v.get("result") == "valid" and not _UNCUTTABLE & set(v.get("flags", ())) and v.get("version") is not None:
            by.setdefault((v["message"], v["version"]), []).append(v)
    for vs in by.values():
        vs.sort(key=lambda v: not v.get("canonical"))
    return by


def _cut_points(n: int) -> list[int]:
    return sorted(c for c in {n // 2, n - 1} if 0 <= c < n)  # none of a body of no bytes (a field-less version)


def _truncations(message: str, version: int, src: dict, extra: dict | None = None, what: str = "") -> list[dict]:
    wire = bytes.fromhex(src["wire"])
    out = []
    for cut in _cut_points(len(wire)):
        out.append(
            {
                "id": f"hc-{message.lower()}-{what}v{version}-cut-{cut}",
                "message": message,
                "version": version,
                **(extra or {}),
                "description": f"{message} v{version}: the {len(wire)} bytes of {src['id']} cut to {cut}",
                "wire": wire[:cut].hex(),
                "result": "invalid",
                "error": "truncated",
                "offset": cut,
                "canonical": False,
                "flags": ["truncated"],
                "provenance": _prov(f"the bytes of {src['id']} ({src['provenance']['source']}), cut"),
            }
        )
    return out


def _key(name: str) -> str:
    return name[0].lower() + name[1:]


def _with(value: dict, path: tuple[str, ...], new: object) -> dict | None:
    """``value`` with the field at ``path`` (Kafka's names) set to ``new``, each array of structs on the way cut to
    its first element (one element holding the field); None where an array on the way is empty or null."""
    key = _key(path[0])
    if len(path) == 1:
        return {**value, key: new}
    below = value.get(key)
    if isinstance(below, list):
        inner = _with(below[0], path[1:], new) if below and isinstance(below[0], dict) else None
        return None if inner is None else {**value, key: [inner]}
    inner = _with(below, path[1:], new) if isinstance(below, dict) else None
    return None if inner is None else {**value, key: inner}


def _refusals(message: str, version: int, cands: list[dict], frame=None) -> list[dict]:
    """The refusals of a message × version, each on the first of ``cands`` (valid vectors) whose value reaches the
    field: a field inside a struct needs an element of each array on the way, which the refusal keeps alone."""
    out = []
    for path in refusal_fields(message, version):
        name = path[-1]
        values: list[object] = (
            [_MEMBERS[message]] if name == "Members" and message in _MEMBERS else _NON_DEFAULT.get(name, [])
        )
        for value in values:
            src, body = next(
                ((c, b) for c in cands if (b := _with(c["expected"], path, value)) is not None), (None, None)
            )
            if src is None or body is None:
                continue  # no source reaches the field (the coverage test names the version)
            src_id = src["id"]
            key = ".".join(_key(p) for p in path)
            shown = "one member" if name == "Members" else json.dumps(value)
            if len(path) > 1:
                shown += f" (in one element of {'.'.join(_key(p) for p in path[:-1])})"
            vid = f"hc-{message.lower()}-v{version}-refuse-{key.lower()}{'-empty' if value == '' else ''}"
            desc = (
                f"{message} v{version} with {key} {shown}, a non-default value for a field v{version} lacks: "
                "Kafka's generated writer throws UnsupportedVersionException"
            )
            expected = body
            extra: dict = {}
            if frame is not None:
                vid = vid.replace(f"hc-{message.lower()}", f"hc-{frame['message'].lower()}-{message.lower()}")
                expected = {**frame["expected"], "body": body}
                desc = f"A {frame['message']} of {desc}"
                extra = {"apiKey": frame["apiKey"]} if "apiKey" in frame else {}
                message_out = frame["message"]
            else:
                message_out = message
            out.append(
                {
                    "id": vid,
                    "message": message_out,
                    "version": version,
                    **extra,
                    "description": desc,
                    "expected": expected,
                    "result": "invalid",
                    "error": "unrepresentable",
                    "canonical": False,
                    "flags": ["encode-refused"],
                    "provenance": _prov(
                        f"{src_id}'s value with {key} set; Kafka's rule for generated messages "
                        "(kafka-wire-facts.md §0.3)"
                    ),
                }
            )
    return out


# --- headers ------------------------------------------------------------------------------------------------

_REQUEST_HEADERS = [  # (api key, api version, correlation id, client id)
    (11, 5, 1, "consumer-app-1"),
    (12, 4, 2147483647, None),
    (14, 3, -1, "cl\u00e9-\U0001f600"),
    (13, 0, 0, ""),
]


def _header_vectors() -> list[dict]:
    out: list[dict] = []
    for hv in (0, 1, 2):
        for n, (key, ver, corr, client) in enumerate(_REQUEST_HEADERS):
            if hv == 0 and n:
                continue
            wire = _i16(key) + _i16(ver) + _i32(corr)
            expected: dict = {"requestApiKey": key, "requestApiVersion": ver, "correlationId": corr}
            if hv >= 1:
                wire += _str16(client)
                expected["clientId"] = client
            if hv >= 2:
                wire += b"\x00"  # no tagged fields
            out.append(
                {
                    "id": f"hc-requestheader-v{hv}-{n}",
                    "message": "RequestHeader",
                    "version": hv,
                    "description": f"RequestHeader v{hv} of API {key} v{ver}, correlation id {corr}"
                    + (f", client id {json.dumps(client)}" if hv >= 1 else "")
                    + (" (int16-length even in v2), no tagged fields" if hv == 2 else ""),
                    "wire": wire.hex(),
                    "expected": expected,
                    "result": "valid",
                    "canonical": True,
                    "flags": [],
                    "provenance": _prov("assembled field by field (kafka-wire-facts.md §7)"),
                }
            )
    for hv in (0, 1):
        for n, corr in enumerate((7, -2147483648)):
            wire = _i32(corr) + (b"\x00" if hv else b"")
            out.append(
                {
                    "id": f"hc-responseheader-v{hv}-{n}",
                    "message": "ResponseHeader",
                    "version": hv,
                    "description": f"ResponseHeader v{hv}, correlation id {corr}"
                    + (", no tagged fields" if hv else ""),
                    "wire": wire.hex(),
                    "expected": {"correlationId": corr},
                    "result": "valid",
                    "canonical": True,
                    "flags": [],
                    "provenance": _prov("assembled field by field (kafka-wire-facts.md §7)"),
                }
            )
    return out


# --- frames -------------------------------------------------------------------------------------------------


def _frame(api: str, key: int, version: int, side: str, body: dict) -> dict:
    # the header a version goes with (the registry's, from the request schema's flexible versions)
    flexible = (request_header_version if side == "request" else response_header_version)(key, version) > (
        1 if side == "request" else 0
    )
    corr = 1000 * key + version
    if side == "request":
        client = None if version % 2 else f"rebalance-codec-{api.lower()}"
        hv = 2 if flexible else 1
        head = _i16(key) + _i16(version) + _i32(corr) + _str16(client) + (b"\x00" if flexible else b"")
        header = {"requestApiKey": key, "requestApiVersion": version, "correlationId": corr, "clientId": client}
        frame_message = "RequestFrame"
    else:
        hv = 1 if flexible else 0
        head = _i32(corr) + (b"\x00" if flexible else b"")
        header = {"correlationId": corr}
        frame_message = "ResponseFrame"
    v = {"id": f"hc-{frame_message.lower()}-{api.lower()}-v{version}", "message": frame_message, "version": version}
    if side == "response":
        v["apiKey"] = key
    v.update(
        {
            "description": f"A {api} v{version} {side} frame: header v{hv} (correlation id {corr}) and the body of "
            f"{body['id']}",
            "wire": (head + bytes.fromhex(body["wire"])).hex(),
            "expected": {
                "apiKey": key,
                "apiVersion": version,
                "headerVersion": hv,
                "header": header,
                "body": body["expected"],
            },
            "result": "valid",
            "canonical": True,
            "flags": [],
            "provenance": _prov(
                f"header assembled field by field (kafka-wire-facts.md §7), body {body['id']} "
                f"({body['provenance']['source']})"
            ),
        }
    )
    return v


# --- Kafka's verdict on the refusals of the RPCs at Kafka 4.4 -------------------------------------------------


def _refusal_case(v: dict):
    """The question a refusal vector of :data:`KAFKA44_RPCS` puts to Kafka's class at the 4.4 commit: write this
    value at this version (KafkaRules.java's ``write``)."""
    from .handcrafted_case import Case

    return Case(v["id"], "refusal", v["message"], v["version"], "write", "refused", {"value": v["expected"]})


def refusal_cases(directory: Path) -> list:
    """The cases of the refusal vectors of :data:`KAFKA44_RPCS` (``Case.question()`` of each, one JSON line, to
    vectors/tools/KafkaRules.java on Kafka's classes at the 4.4 commit; its answers go to
    vectors/tools/kafka-rules.answers.jsonl beside the rule vectors')."""
    sources = _sources(directory)
    return [_refusal_case(v) for v in _kafka44_refusals(sources)]


def _kafka44_refusals(sources: dict) -> list[dict]:
    out = []
    for message in KAFKA44_RPCS:
        for version in supported()[message]:
            if refusal_fields(message, version) and sources.get((message, version)):
                out += _refusals(message, version, sources[(message, version)])
    return out


def _with_kafkas_verdict(directory: Path, vectors: list[dict]) -> list[dict]:
    """Each refusal with Kafka's answer to it in its provenance; a refusal without an answer to this very value, or
    one Kafka wrote or refused for another reason, stops the build (RuleError), as a rule vector's does."""
    from .handcrafted_case import ANSWERS, RuleError

    path = directory / ANSWERS
    lines = path.read_text(encoding="utf-8").split("\n") if path.is_file() else []
    answers = {a["id"]: a for a in (json.loads(line) for line in lines if line.strip())}
    out, problems = [], []
    for v in vectors:
        q = _refusal_case(v).question()
        a = answers.get(v["id"])
        if a is None or a.get("digest") != q["digest"]:
            problems.append(
                f"{v['id']}: no answer from Kafka's classes to this value (run vectors/tools/KafkaRules.java)"
            )
        elif a["ok"] or not (
            "UnsupportedVersionException" in a["error"]  # ... a non-default <the field> at version <v>
            and f"non-default {v['id'].split('-refuse-')[1].removesuffix('-empty').split('.')[-1]} at"
            in a["error"].lower()
        ):
            problems.append(
                f"{v['id']}: Kafka's {q['class']} {'wrote' if a['ok'] else 'refused'} it: {a.get('error') or a['hex']}"
            )
        else:
            prov = {
                **v["provenance"],
                "commit": a["commit"],
                "record": f"vectors/{ANSWERS.as_posix()}:{v['id']}",
                "checkedBy": f"{a['class']} (write): {a['error']}",
            }
            out.append({**v, "provenance": prov})
    if problems:
        raise RuleError("; ".join(problems[:5]) + (f" (and {len(problems) - 5} more)" if len(problems) > 5 else ""))
    return out


def group_vectors(directory: Path) -> list[dict]:
    """The vectors of ``handcrafted-group.jsonl``, from the committed vectors of ``directory``."""
    sources = _sources(directory)
    out = _header_vectors()
    # refusals, on a Kafka- or kio-written value of the same message and version
    # (a message × version without a source vector gets none: the coverage test names it); those of the RPCs at
    # Kafka 4.4 each with the verdict of Kafka's class at that commit
    for message in (*_CUT_MESSAGES, *KAFKA4_RPCS):
        for version in supported()[message]:
            if refusal_fields(message, version) and sources.get((message, version)):
                out += _refusals(message, version, sources[(message, version)])
    out += _with_kafkas_verdict(directory, _kafka44_refusals(sources))
    # truncations of every message and version (the Streams core versions have their own in handcrafted.py)
    for message in (*_CUT_MESSAGES, *KAFKA4_RPCS, *KAFKA44_RPCS, *CLASSIC_RECORDS):
        for version in supported()[message]:
            if message in ("SubscriptionInfo", "AssignmentInfo") and version in _STREAMS_CORE:
                continue
            if sources.get((message, version)):
                out += _truncations(message, version, sources[(message, version)][0])
    # the share coordinator's record parts, cut from Kafka 4.4's bytes (their vectors name no version: the bytes do)
    for message in SHARE_COORDINATOR_RECORDS:
        src = next((v for v in _load(directory) if v["message"] == message and v.get("result") == "valid"), None)
        if src is not None:
            for v in _truncations(message, 0, src):
                out.append({**v, "id": v["id"].replace("-v0-", "-"), "version": None})
    seen = set()
    for v in [v for v in out if v["message"] in ("RequestHeader", "ResponseHeader")]:
        if (v["message"], v["version"]) not in seen:  # the first header of each version, cut
            seen.add((v["message"], v["version"]))
            out += _truncations(v["message"], v["version"], v)
    # frames: every API, version and side, with their truncations and refusals
    for api, key in FRAME_APIS.items():
        for side in ("request", "response"):
            message = f"{api}{side.capitalize()}"
            for version in load_message(message).versions:
                cands = sources[(message, version)]
                body = next((c for c in cands if c.get("canonical") and not _has_bytes(c["expected"])), cands[0])
                frame = _frame(api, key, version, side, body)
                out.append(frame)
                out += _truncations(
                    frame["message"], version, frame, {"apiKey": key} if side == "response" else None, f"{api.lower()}-"
                )
                out += _refusals(message, version, [body], frame=frame)
    return out
