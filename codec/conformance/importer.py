"""``rebalance-codec vectors import``: turn Kafka's reference vectors into golden vectors.

``expected`` always comes from Kafka's own decoded values (or, for group messages, the ``data`` Kafka's
generated classes wrote and read back), never from this project's decoder.
"""

from __future__ import annotations

import json
from pathlib import Path

from .. import text as _text
from ..errors import InputError
from ..group.messages import MESSAGES as GROUP_MESSAGES
from ..wire.registry import apis

__all__ = ["import_kafka_java", "import_captures", "connect_vectors", "kio_kafka4_vectors", "KAFKA_COMMIT"]

KAFKA_COMMIT = "1eb7644349cb07139d6a3c1ad1986979647cac99"

_STREAMS = {"subscription": "SubscriptionInfo", "assignment": "AssignmentInfo"}
_DERIVED_SUBSCRIPTION_KEYS = ("wire", "prevTasks", "standbyTasks")
_GROUP_FILES = [
    "JoinGroupRequest.jsonl",
    "JoinGroupResponse.jsonl",
    "SyncGroupRequest.jsonl",
    "SyncGroupResponse.jsonl",
    "ConsumerProtocolSubscription.jsonl",
    "ConsumerProtocolAssignment.jsonl",
    "group_edge.jsonl",
]


def _streams_canonical(kind: str, version: int, data: dict | None) -> bool:
    """Where the vectors' README says Kafka's bytes are reproducible."""
    if kind == "subscription":
        return version >= 10 and len((data or {}).get("clientTags") or {}) <= 1
    return version <= 4


def _edge_description(message: str, rid: str, version) -> str:
    name = rid.rsplit("-v", 1)[0] if rid.rsplit("-v", 1)[-1].isdigit() else rid
    return f"Kafka's {message} classes at v{version}, edge case '{name}', written and decoded by Kafka"


def _streams_vector(r: dict, source_file: str) -> dict:
    message = _STREAMS[r["kind"]]
    rid = r.get("id") or f"v{r['version']}-{r['index']}"
    edge = "id" in r
    data, decoded = r.get("data"), r.get("decoded")
    version = (decoded or data or {}).get("version")
    if version is None and "hex" in r:
        version = int.from_bytes(bytes.fromhex(r["hex"])[:4].rjust(4, b"\0"), "big", signed=True)
    v: dict = {
        "id": f"kj-{r['kind']}-{'edge-' if edge else ''}{rid}".lower(),
        "message": message,
        "version": version,
        "provenance": {"source": "kafka-java", "commit": KAFKA_COMMIT, "record": f"{source_file}:{rid}"},
    }
    flags: list[str] = []
    if "error" in r:
        v["result"] = "invalid"
        err = r["error"]
        if "hex" in r:
            v["wire"] = r["hex"]
            v["error"] = (
                "truncated"
                if "Underflow" in err or "Failed to decode" in err
                else "unsupported-version"
                if "version" in err
                else "invalid-value"
            )
            flags.append("truncated" if v["error"] == "truncated" else "bad-version")
            v["description"] = f"Kafka's {message} decoder rejects these bytes ({err.split(':')[0].split('.')[-1]})"
        else:
            v["expected"] = data
            v["error"] = (
                "unrepresentable"
                if "Named" in err
                else ("inconsistent-version" if "between" in err or "LATEST" in err else "invalid-value")
            )
            flags.append("encode-refused")
            exc = err.split(":", 1)[0].rsplit(".", 1)[-1]
            reason = {
                "unrepresentable": "named topologies need v10",
                "inconsistent-version": "the version is outside 1-11 or above latestSupportedVersion",
            }.get(v["error"], "invalid value")
            v["description"] = f"Kafka's {message} encoder refuses this value with {exc}: {reason}"
        v["canonical"] = False
    else:
        decoded = r["decoded"]  # a record without an error carries Kafka's decoded view, and so its version
        assert version is not None
        expected = dict(decoded)
        if message == "SubscriptionInfo":
            for k in _DERIVED_SUBSCRIPTION_KEYS:
                expected.pop(k, None)
        if data:  # Kafka's decoded view sorts what its encoder wrote in the input's (iteration) order
            expected = _in_input_order(expected, data)
        v["wire"] = r["hex"]
        v["expected"] = expected
        v["result"] = "valid"
        if decoded.get("futureVersion"):
            v["canonical"] = False
            flags.append("version-probe")
            v["description"] = f"A {message} newer than v11 reads as a version probe in Kafka's decoder"
        else:
            v["canonical"] = _streams_canonical(r["kind"], version, data)
            if not v["canonical"]:
                flags.append("java-hash-order")
            v["description"] = (
                _edge_description(message, rid, version)
                if edge
                else f"Kafka's {message} v{version} (random case {r.get('index')}, seed {r.get('seed')}), "
                "written and decoded by Kafka"
            )
        if (
            data
            and data.get("version") == version
            and message == "SubscriptionInfo"
            and (
                (version < 2 and data.get("userEndPoint"))
                or (version < 8 and data.get("uniqueField"))
                or (version < 9 and data.get("errorCode"))
                or (version < 11 and data.get("clientTags"))
            )
        ):
            flags.append("lossy-version")
        if edge:
            name = rid.lower()
            for key, flag in (
                ("sentinel", "sentinel-offsets"),
                ("named", "named-topology"),
                ("unicode", "modified-utf8"),
                ("maxints", "extreme-ints"),
            ):
                if key in name and (flag != "modified-utf8" or message == "AssignmentInfo"):
                    flags.append(flag)
    v["flags"] = sorted(set(flags))
    return v


def _match_key(item) -> str:
    """Identity of a list item for ordering: the JSON with empty topology names read as none (Kafka's
    TaskId downgrades "" to null)."""

    def norm(x):
        if isinstance(x, dict):
            return {k: (None if k == "topologyName" and x[k] == "" else norm(x[k])) for k in sorted(x)}
        if isinstance(x, list):
            return [norm(e) for e in x]
        return x

    return _text.dumps(norm(item), sort_keys=True)


def _reorder(items: list, reference: list) -> list:
    pos: dict[str, int] = {}
    for i, r in enumerate(reference):
        pos.setdefault(_match_key(r), i)
    return sorted(items, key=lambda it: pos.get(_match_key(it), len(reference)))


def _in_input_order(expected: dict, data: dict) -> dict:
    out = dict(expected)
    for key in ("taskOffsetSums", "standbyTasks", "partitionsByHost", "standbyPartitionsByHost"):
        ref = data.get(key)
        if not isinstance(out.get(key), list) or not isinstance(ref, list):
            continue
        if key in ("standbyTasks",):
            by_task = {_match_key(e["taskId"]): e for e in ref}
            items = [
                {
                    **e,
                    "partitions": _reorder(
                        e["partitions"], by_task.get(_match_key(e["taskId"]), {}).get("partitions", [])
                    ),
                }
                for e in out[key]
            ]
            out[key] = sorted(
                items,
                key=lambda e: (
                    [_match_key(r["taskId"]) for r in ref].index(_match_key(e["taskId"]))
                    if _match_key(e["taskId"]) in [_match_key(r["taskId"]) for r in ref]
                    else len(ref)
                ),
            )
        elif key.endswith("ByHost"):
            by_host = {(e["host"], e["port"]): e for e in ref}
            items = [
                {
                    **e,
                    "partitions": _reorder(
                        e["partitions"], by_host.get((e["host"], e["port"]), {}).get("partitions", [])
                    ),
                }
                for e in out[key]
            ]
            hosts = [(e["host"], e["port"]) for e in ref]
            out[key] = sorted(
                items,
                key=lambda e: hosts.index((e["host"], e["port"])) if (e["host"], e["port"]) in hosts else len(hosts),
            )
        else:
            out[key] = _reorder(out[key], ref)
    tags = data.get("clientTags")
    if isinstance(out.get("clientTags"), dict) and isinstance(tags, dict):
        order = list(tags)
        out["clientTags"] = dict(
            sorted(out["clientTags"].items(), key=lambda kv: order.index(kv[0]) if kv[0] in order else len(order))
        )
    return out


def _group_vector(r: dict, source_file: str) -> dict:
    message = r["kind"]
    rid = r.get("id") or f"v{r['version']}-{r['index']}"
    prov = {"source": "kafka-java", "commit": KAFKA_COMMIT, "record": f"{source_file}:{rid}"}
    if "error" in r:  # Kafka's writer refused the value at this version
        exc = r["error"].split(":", 1)[0].rsplit(".", 1)[-1]
        return {
            "id": f"kj-{message}-{rid}".lower(),
            "message": message,
            "version": r["version"],
            "description": f"Kafka's generated {message} class refuses this value at v{r['version']} ({exc}): "
            "a non-default value for a field the version lacks",
            "expected": r["data"],
            "result": "invalid",
            "error": "unrepresentable",
            "canonical": False,
            "flags": ["encode-refused"],
            "provenance": prov,
        }
    if r.get("trailingBytes"):
        return {
            "id": f"kj-{message}-{rid}".lower(),
            "message": message,
            "version": r["version"],
            "description": f"{message} v{r['version']} followed by {r['trailingBytes']} bytes that Kafka's "
            "reader ignores",
            "wire": r["hex"],
            "expected": r["decoded"],
            "result": "valid",
            "canonical": False,
            "flags": ["trailing-bytes"],
            "provenance": prov,
        }
    wire = r.get("hexVersionPrefixed") or r["hex"]
    return {
        "id": f"kj-{message}-{rid}".lower(),
        "message": message,
        "version": r["version"],
        "description": f"Kafka's generated {message} class at v{r['version']}"
        + (f", edge case '{r['id']}'" if "id" in r else f" (random case {r.get('index')})")
        + ", written and read by Kafka",
        "wire": wire,
        "expected": r.get("decoded", r["data"]),
        "result": "valid",
        "canonical": True,
        "flags": [],
        "provenance": {"source": "kafka-java", "commit": KAFKA_COMMIT, "record": f"{source_file}:{rid}"},
    }


def import_kafka_java(shared: Path, out_dir: Path, *, include_group: bool = True) -> dict[str, int]:
    """Write ``kafka-java-*.jsonl`` vector files from ``shared/vectors/kafka-java``; returns counts."""
    src = shared / "vectors" / "kafka-java"
    written: dict[str, int] = {}
    families: dict[str, list[dict]] = {}
    for f in ("subscription.jsonl", "subscription_edge.jsonl", "assignment.jsonl", "assignment_edge.jsonl"):
        for line in (src / f).read_text(encoding="utf-8").splitlines():
            r = json.loads(line)
            families.setdefault(_STREAMS[r["kind"]], []).append(_streams_vector(r, f))
    if include_group:
        for f in _GROUP_FILES:
            for line in (src / f).read_text(encoding="utf-8").splitlines():
                r = json.loads(line)
                families.setdefault("group", []).append(_group_vector(r, f))
        families["connect"] = connect_vectors(src)
        for family, source in (("kio-kafka4", KIO_KAFKA4), ("kio-share", KIO_SHARE)):
            kio4 = shared / "vectors" / "kio" / source
            if kio4.is_file():
                families[family] = kio_kafka4_vectors(kio4)
    names = {
        "SubscriptionInfo": "kafka-java-subscription-info.jsonl",
        "AssignmentInfo": "kafka-java-assignment-info.jsonl",
        "group": "kafka-java-group.jsonl",
        "connect": "kafka-java-connect.jsonl",
        "kio-kafka4": "kio-group-kafka4.jsonl",
        "kio-share": "kio-group-share.jsonl",
    }
    for family, vectors in families.items():
        path = out_dir / names[family]
        path.write_text("".join(_text.dumps(v, sort_keys=False) + "\n" for v in vectors), encoding="utf-8")
        written[path.name] = len(vectors)
    return written


# --- Kafka 4's group RPCs written by kio (../shared/vectors/kio/group-kafka4.jsonl, issue #21, and the share
# groups' group-share.jsonl, issue #30) ------------------------------------------------------------------------
#
# ``expected`` is kio's value translated field by field into Kafka's JSON along the schemas' field tables
# (codec/kafka4/kio.py), never through this project's decoder. Every record fits the schemas' field tables (the
# StreamsGroupHeartbeat schemas follow the released v0 layout, schemas/README.md): a record that does not (kio
# has a field the schemas lack, or lacks one they have) stops the import with one line naming it and its fields,
# so that a schema or kio change is looked at, not silently turned into an unchecked vector.

KIO_KAFKA4 = "group-kafka4.jsonl"
KIO_SHARE = "group-share.jsonl"


def _kio_kafka4_vector(r: dict, source: str = KIO_KAFKA4) -> dict:
    from ..kafka4.kio import kio_to_kafka

    kind, version, idx = r["kind"], r["version"], r["index"]
    expected, problems = kio_to_kafka(kind, version, r["decoded"])
    v: dict = {
        "id": f"kio-{kind}-v{version}-{idx:04d}".lower(),
        "message": kind,
        "version": version,
        "description": f"kio 0.6.5's {kind} v{version} (random case {idx}, seed {r['seed']}), written by kio and read "
        "back by kio to the same value",
        "wire": r["hex"],
        "expected": expected,
        "result": "valid",
        "canonical": True,
        "flags": [],
        "provenance": {
            "source": "kio",
            "producedBy": r["producedBy"],
            "seed": r["seed"],
            "index": idx,
            "record": f"../shared/vectors/kio/{source}:{r['id']}",
        },
    }
    if problems:
        fields = sorted({p.split(":")[0] for p in problems})
        raise InputError(
            f"{source}: record {r['id']}: kio's value does not fit schemas/{kind}.json v{version} "
            f"(schemas/README.md): {'; '.join(fields)}"[:400]
        )
    return v


def kio_kafka4_vectors(path: Path) -> list[dict]:
    """Every record of ``group-kafka4.jsonl`` (or ``group-share.jsonl``) as a golden vector (see above)."""
    return [
        _kio_kafka4_vector(json.loads(line), path.name)
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]


# --- Kafka Connect (connect.jsonl) ----------------------------------------------------------------------
#
# A Connect message is read by the reading worker's deserializer, not by its header's (codec/connect/common.py):
# 0 is ConnectProtocol's, 1 and up IncrementalCooperativeConnectProtocol's. A vector's ``version`` is the
# version the bytes are read at, which the runner hands the decoder: the header for Kafka's own records (the
# reader of the protocol that wrote them), the other reader's version for the ``readBy...Decoder`` views and the
# ``ReadAs...`` records (flag ``other-reader`` where that differs from the header's reader).

_CONNECT_READERS = {"ReadAsEager": 0, "ReadAsIncremental": 1}
_CONNECT_VIEWS = {"readByIncrementalDecoder": 1, "readByEagerDecoder": 0}
_CONNECT_READER_NAMES = {0: "ConnectProtocol's (eager, v0)", 1: "IncrementalCooperativeConnectProtocol's (v1/v2)"}


def _connect_header(hexed: str) -> int | None:
    """The int16 header of Kafka's bytes, read off the hex (None when fewer than two bytes)."""
    raw = bytes.fromhex(hexed)
    return int.from_bytes(raw[:2], "big", signed=True) if len(raw) >= 2 else None


def _connect_read_version(reader: int, header: int | None) -> int:
    return 0 if reader == 0 else (header if header is not None and header >= 1 else 1)


def _connect_other_reader(reader: int, header: int | None) -> bool:
    return header is not None and header >= 0 and (reader == 0) != (header == 0)


def _connect_read(
    r: dict,
    message: str,
    rid: str,
    reader: int,
    header: int | None,
    prov: dict,
    *,
    expected=None,
    error: str | None = None,
    flags: tuple[str, ...] = (),
    what: str,
) -> dict:
    """One vector of bytes handed to one of Kafka's deserializers: valid (Kafka returned ``expected``) or
    invalid (Kafka threw ``error``)."""
    fl = set(flags)
    if _connect_other_reader(reader, header):
        fl.add("other-reader")
    v: dict = {
        "id": rid,
        "message": message,
        "version": _connect_read_version(reader, header),
        "wire": r["hex"],
        "provenance": prov,
    }
    by = _CONNECT_READER_NAMES[reader]
    if error is not None:
        bad_version = "Unsupported subscription version" in error
        if bad_version:
            fl.add("bad-version")
        v.update(
            result="invalid",
            error="unsupported-version" if bad_version else "truncated",
            offset=0 if bad_version else len(r["hex"]) // 2,
            description=f"{what} {by} deserializer rejects ({error.split(':', 1)[0]}: "
            f"{error.split(':', 1)[-1].strip()[:150]})",
        )
    else:
        v.update(result="valid", expected=expected, description=f"{what} as {by} deserializer reads them")
    v["canonical"] = False
    v["flags"] = sorted(fl)
    return v


def connect_vectors(src: Path, source_file: str = "connect.jsonl") -> list[dict]:
    """Golden vectors from Kafka Connect's ``connect.jsonl``: every record's bytes with Kafka's ``decoded`` (or
    its exception) as the expected outcome, and the other deserializer's reading of them as a vector of its own.
    ``canonical`` holds where Kafka's bytes are the only encoding (at most one assigned connector: Kafka groups
    them in HashSet order)."""
    out: list[dict] = []
    for line in (src / source_file).read_text(encoding="utf-8").splitlines():
        r = json.loads(line)
        kind, rid = r["kind"], r["id"]
        message = "ConnectMetadata" if kind.startswith("ConnectMetadata") else "ConnectAssignment"
        prov = {"source": "kafka-java", "commit": KAFKA_COMMIT, "record": f"{source_file}:{rid}"}
        header = _connect_header(r["hex"])
        base_id = f"kj-{rid}".lower()
        if kind in ("ConnectMetadata", "ConnectAssignment"):
            decoded = r["decoded"]
            hash_order = "java-hash-order" in r.get("flags", ())
            out.append(
                {
                    "id": base_id,
                    "message": message,
                    "version": r["version"],
                    "description": f"Kafka's {message} v{r['version']} (protocol {r['protocol']}, random case "
                    f"{r['index']}, seed {r['seed']}), written and read by Kafka",
                    "wire": r["hex"],
                    "expected": {k: x for k, x in decoded.items() if k not in _CONNECT_VIEWS},
                    "result": "valid",
                    "canonical": not hash_order,
                    "flags": ["java-hash-order"] if hash_order else [],
                    "provenance": prov,
                }
            )
            for key, reader in _CONNECT_VIEWS.items():
                view = decoded.get(key)
                if view is None:
                    continue
                failed = isinstance(view.get("error"), str)  # the view of an exception, not an error code
                extra = ["java-hash-order"] if hash_order and (reader or message == "ConnectAssignment") else []
                extra.append("missing-fields" if reader else "trailing-bytes")
                out.append(
                    _connect_read(
                        r,
                        message,
                        f"{base_id}-read-by-{'incremental' if reader else 'eager'}",
                        reader,
                        header,
                        prov,
                        expected=None if failed else view,
                        error=view["error"] if failed else None,
                        flags=tuple(extra) if not failed else (),
                        what=f"The bytes of Kafka's {message} v{r['version']} (case {r['index']})",
                    )
                )
            continue
        reader = _CONNECT_READERS[kind[len(message) :]]
        prefix = "prefix" in r.get("flags", ())
        what = (
            f"A {len(r['hex']) // 2}-byte prefix of a Kafka-written {message}"
            if prefix
            else f"Cut or corrupted {message} bytes ({len(r['hex']) // 2} bytes, header "
            f"{'missing' if header is None else header})"
        )
        if "error" in r:
            out.append(_connect_read(r, message, base_id, reader, header, prov, error=r["error"], what=what))
        else:
            out.append(
                _connect_read(
                    r,
                    message,
                    base_id,
                    reader,
                    header,
                    prov,
                    expected=r["decoded"],
                    flags=("missing-fields",) if reader else (),
                    what=what,
                )
            )
    return out


#: the classic group protocol's APIs by key (codec.group.messages, codec.wire.registry)
_GROUP_KEYS = {k: a.name for k, a in apis().items() if a.request in GROUP_MESSAGES}


def import_captures(shared: Path, out_dir: Path) -> dict[str, int]:
    """Write ``capture-frames.jsonl``: every JoinGroup, SyncGroup, Heartbeat and LeaveGroup frame of
    ``shared/captures/frames.jsonl`` that its README does not mark unusable, with the facts recorded by
    the capture (API key, version, correlation id, client id, error code) as ``expected``."""
    vectors = []
    for line in (shared / "captures" / "frames.jsonl").read_text(encoding="utf-8").splitlines():
        r = json.loads(line)
        if r["api_key"] not in _GROUP_KEYS or "NOT a reference" in r.get("produced_by", ""):
            continue
        request = r["direction"] == "request"
        header: dict = {"correlationId": r["correlation_id"]}
        if request and r.get("client_id") is not None:
            header["clientId"] = r["client_id"]
        expected: dict = {
            "apiKey": r["api_key"],
            "apiVersion": r["api_version"],
            "headerVersion": r["header_version"],
            "header": header,
        }
        if not request and r.get("error_code") is not None:
            expected["body"] = {"errorCode": r["error_code"]}
        port = r["conn"].rsplit(":", 1)[-1]
        v = {
            "id": f"cap-{r['run']}-{r['scenario']}-{port}-{r['direction']}-{r['correlation_id']}".lower(),
            "message": "RequestFrame" if request else "ResponseFrame",
            "version": r["api_version"],
            "description": f"{_GROUP_KEYS[r['api_key']]} v{r['api_version']} {r['direction']} captured from "
            f"{r['produced_by']} ({r['run']}/{r['scenario']}, {r['client_id']})",
            "wire": r["hex"],
            "expected": expected,
            "result": "valid",
            "canonical": False,
            "flags": ["capture-facts", "real-client"],
            "provenance": {
                "source": "capture",
                "client": r["produced_by"],
                "clientVersion": r["client_version"],
                "record": f"frames.jsonl:{r['run']}/{r['scenario']}/{r['conn']}/{r['direction']}/{r['correlation_id']}",
            },
        }
        if not request:
            v["apiKey"] = r["api_key"]
        vectors.append(v)
    path = out_dir / "capture-frames.jsonl"
    path.write_text("".join(_text.dumps(v) + "\n" for v in vectors), encoding="utf-8")
    return {path.name: len(vectors)}
