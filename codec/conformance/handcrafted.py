"""Handcrafted vectors for the design card's core versions (SubscriptionInfo and AssignmentInfo 4-7).

The bytes are assembled here by hand, field by field, from the layouts of kafka-wire-facts.md §2-§3 (not by
this project's encoder), and ``expected`` is written out literally; each valid message yields truncations at
every field boundary. ``rebalance-codec vectors handcraft`` rewrites ``vectors/handcrafted-*.jsonl``; a test
checks the committed files are what this module produces.
"""

from __future__ import annotations

import struct

__all__ = ["handcrafted_vectors"]

PID = "11111111-2222-3333-4444-555555555555"
PID_BYTES = bytes.fromhex(PID.replace("-", ""))
HOST, PORT = "host-a", 9090
PROV = {"source": "handcrafted"}


def i32(n: int) -> bytes:
    return struct.pack(">i", n)


def i64(n: int) -> bytes:
    return struct.pack(">q", n)


def utf(s: str) -> bytes:  # writeUTF for ASCII text: uint16 length + the bytes
    b = s.encode("ascii")
    return struct.pack(">H", len(b)) + b


def kbytes(s: str) -> bytes:  # SubscriptionInfoData bytes field: int32 length + the bytes
    b = s.encode("utf-8")
    return i32(len(b)) + b


def task(sub: int, part: int) -> dict:
    return {"subtopology": sub, "partition": part, "topologyName": None}


# --- SubscriptionInfo 4-7: task 0_1 running active; task 1_0 with local state (offset sum 1234 from v7) ---


def subscription_segments(v: int) -> list[tuple[str, bytes]]:
    head = [("version", i32(v)), ("latest_supported_version", i32(11)), ("process_id", PID_BYTES)]
    if v <= 6:
        return head + [
            ("prev_tasks", i32(1) + i32(0) + i32(1)),
            ("standby_tasks", i32(1) + i32(1) + i32(0)),
            ("user_end_point", kbytes(f"{HOST}:{PORT}")),
        ]
    return head + [
        ("user_end_point", kbytes(f"{HOST}:{PORT}")),
        ("task_offset_sums", i32(2) + i32(0) + i32(1) + i32(1) + i64(-2) + i32(1) + i32(1) + i32(0) + i64(1234)),
    ]


def subscription_expected(v: int) -> dict:
    return {
        "version": v,
        "latestSupportedVersion": 11,
        "processId": PID,
        "userEndPoint": f"{HOST}:{PORT}",
        "taskOffsetSums": [
            {"taskId": task(0, 1), "offsetSum": -2},
            {"taskId": task(1, 0), "offsetSum": -3 if v <= 6 else 1234},
        ],
        "uniqueField": 0,
        "errorCode": 0,
        "clientTags": {},
    }


# --- AssignmentInfo 4-7: active 0_1 (src-1), standby 1_0 (rep-0), host-a:9090 serving both ---


def assignment_segments(v: int) -> list[tuple[str, bytes]]:
    segs = [
        ("version", i32(v)),
        ("commonly_supported_version", i32(11)),
        ("active_tasks", i32(1) + i32(0) + i32(1)),
        ("standby_tasks", i32(1) + i32(1) + i32(0) + i32(1) + utf("rep") + i32(0)),
    ]
    if v == 4:
        segs.append(("partitions_by_host", i32(1) + utf(HOST) + i32(PORT) + i32(1) + utf("src") + i32(1)))
    else:
        topics = [(0, "src")] + ([(1, "rep")] if v >= 6 else [])
        segs.append(("topic_dictionary", i32(len(topics)) + b"".join(i32(i) + utf(t) for i, t in topics)))
        segs.append(("partitions_by_host", i32(1) + utf(HOST) + i32(PORT) + i32(1) + i32(0) + i32(1)))
        if v >= 6:
            segs.append(("standby_partitions_by_host", i32(1) + utf(HOST) + i32(PORT) + i32(1) + i32(1) + i32(0)))
    segs.append(("err_code", i32(0)))
    if v >= 7:
        segs.append(("next_scheduled_rebalance_ms", i64(1_700_000_000_000)))
    return segs


def assignment_expected(v: int) -> dict:
    host = lambda parts: [{"host": HOST, "port": PORT, "partitions": parts}]
    return {
        "version": v,
        "commonlySupportedVersion": 11,
        "activeTasks": [task(0, 1)],
        "standbyTasks": [{"taskId": task(1, 0), "partitions": [{"topic": "rep", "partition": 0}]}],
        "partitionsByHost": host([{"topic": "src", "partition": 1}]),
        "standbyPartitionsByHost": host([{"topic": "rep", "partition": 0}]) if v >= 6 else [],
        "errCode": 0,
        "nextRebalanceMs": 1_700_000_000_000 if v >= 7 else 2**63 - 1,
    }


def _valid(
    message: str, v: int, segs, expected, canonical: bool, flags, desc: str, suffix: str = "", extra: bytes = b""
) -> dict:
    return {
        "id": f"hc-{message.lower()}-v{v}{suffix}",
        "message": message,
        "version": v,
        "description": desc,
        "wire": (b"".join(b for _, b in segs) + extra).hex(),
        "expected": expected,
        "result": "valid",
        "canonical": canonical,
        "flags": sorted(flags),
        "provenance": PROV,
    }


def _invalid(message: str, v, vid: str, wire: bytes, error: str, offset: int | None, desc: str, flags) -> dict:
    return {
        "id": vid,
        "message": message,
        "version": v,
        "description": desc,
        "wire": wire.hex(),
        "result": "invalid",
        "error": error,
        "offset": offset,
        "canonical": False,
        "flags": sorted(flags),
        "provenance": PROV,
    }


def _truncations(message: str, v: int, segs) -> list[dict]:
    out, pos = [], 0
    data = b"".join(b for _, b in segs)
    for name, b in segs:
        for cut in sorted({pos, pos + len(b) // 2} - {len(data)}):
            where = "before" if cut == pos else "inside"
            out.append(
                _invalid(
                    message,
                    v,
                    f"hc-{message.lower()}-v{v}-cut-{cut}",
                    data[:cut],
                    "truncated",
                    cut,
                    f"{message} v{v} cut at byte {cut}, {where} field {name}",
                    ["truncated"],
                )
            )
        pos += len(b)
    return out


def handcrafted_vectors() -> dict[str, list[dict]]:
    sub: list[dict] = []
    asg: list[dict] = []
    for v in (4, 5, 6, 7):
        segs = subscription_segments(v)
        sub.append(
            _valid(
                "SubscriptionInfo",
                v,
                segs,
                subscription_expected(v),
                v <= 6,
                ["version-boundary"] + (["java-hash-order"] if v == 7 else []),
                f"SubscriptionInfo v{v} with a running active task and a task with local state; "
                + (
                    "prevTasks/standbyTasks layout (the standby reads as offset sum -3)"
                    if v <= 6
                    else "grouped taskOffsetSums (KIP-441)"
                ),
            )
        )
        sub.append(
            _valid(
                "SubscriptionInfo",
                v,
                segs,
                subscription_expected(v),
                False,
                ["trailing-bytes"],
                f"SubscriptionInfo v{v} followed by 3 bytes that Kafka's reader ignores",
                "-trailing",
                b"\x01\x02\x03",
            )
        )
        sub += _truncations("SubscriptionInfo", v, segs)
        segs = assignment_segments(v)
        asg.append(
            _valid(
                "AssignmentInfo",
                v,
                segs,
                assignment_expected(v),
                v == 4,
                ["version-boundary"] + (["java-hash-order"] if v >= 5 else []),
                f"AssignmentInfo v{v}: one active, one standby, one endpoint"
                + {
                    4: " (plain host map, errCode)",
                    5: " (topic dictionary)",
                    6: " (standby host map)",
                    7: " (nextScheduledRebalanceMs)",
                }[v],
            )
        )
        asg.append(
            _valid(
                "AssignmentInfo",
                v,
                segs,
                assignment_expected(v),
                False,
                ["trailing-bytes"],
                f"AssignmentInfo v{v} followed by 2 bytes that Kafka's reader ignores",
                "-trailing",
                b"\xff\xff",
            )
        )
        asg += _truncations("AssignmentInfo", v, segs)

    base6 = b"".join(b for _, b in subscription_segments(6))
    sub.append(
        _invalid(
            "SubscriptionInfo",
            6,
            "hc-subscriptioninfo-v6-null-prev-tasks",
            base6[:24] + i32(-1) + base6[36:],
            "invalid-count",
            24,
            "SubscriptionInfo v6 whose non-nullable prevTasks array has count -1",
            ["bad-count"],
        )
    )
    base7 = b"".join(b for _, b in subscription_segments(7))
    sub.append(
        _invalid(
            "SubscriptionInfo",
            7,
            "hc-subscriptioninfo-v7-huge-count",
            base7[:39] + i32(2**31 - 1),
            "invalid-count",
            39,
            "SubscriptionInfo v7 claiming 2147483647 taskOffsetSums with no bytes left",
            ["bad-count"],
        )
    )
    sub.append(
        _invalid(
            "SubscriptionInfo",
            7,
            "hc-subscriptioninfo-v7-latest-below-version",
            i32(7) + i32(6) + base7[8:],
            "inconsistent-version",
            4,
            "SubscriptionInfo v7 whose latestSupportedVersion is 6",
            ["bad-version"],
        )
    )
    for bad in (0, -5):
        sub.append(
            _invalid(
                "SubscriptionInfo",
                bad,
                f"hc-subscriptioninfo-version-{bad}".replace("--", "-minus-"),
                i32(bad) + base6[4:],
                "unsupported-version",
                0,
                f"SubscriptionInfo with version word {bad}",
                ["bad-version"],
            )
        )
    for fv, lsv in ((12, 12), (100, 101)):
        sub.append(
            {
                "id": f"hc-subscriptioninfo-v{fv}-probe",
                "message": "SubscriptionInfo",
                "version": fv,
                "description": f"A v{fv} SubscriptionInfo (newer than v11) reads as a version probe: only the "
                "version and latestSupportedVersion words",
                "wire": (i32(fv) + i32(lsv) + b"\xde\xad\xbe\xef" * 5).hex(),
                "expected": {
                    "version": fv,
                    "latestSupportedVersion": lsv,
                    "processId": "00000000-0000-0000-0000-000000000000",
                    "userEndPoint": None,
                    "taskOffsetSums": [],
                    "uniqueField": 0,
                    "errorCode": 0,
                    "clientTags": {},
                    "futureVersion": True,
                },
                "result": "valid",
                "canonical": False,
                "flags": ["version-probe"],
                "provenance": PROV,
            }
        )

    base5 = b"".join(b for _, b in assignment_segments(5))
    asg.append(
        _invalid(
            "AssignmentInfo",
            5,
            "hc-assignmentinfo-v5-negative-active-count",
            base5[:8] + i32(-1) + base5[12:],
            "invalid-count",
            8,
            "AssignmentInfo v5 whose activeTasks count is -1",
            ["bad-count"],
        )
    )
    asg.append(
        _invalid(
            "AssignmentInfo",
            5,
            "hc-assignmentinfo-v5-huge-active-count",
            base5[:8] + i32(2**31 - 1) + base5[12:],
            "invalid-count",
            8,
            "AssignmentInfo v5 claiming 2147483647 active tasks in a 70-byte message",
            ["bad-count"],
        )
    )
    for bad in (0, 12, -1):
        asg.append(
            _invalid(
                "AssignmentInfo",
                bad,
                f"hc-assignmentinfo-version-{bad}".replace("--", "-minus-"),
                i32(bad) + base5[4:],
                "unsupported-version",
                0,
                f"AssignmentInfo with version word {bad}: Kafka reads only versions 1-11",
                ["bad-version"],
            )
        )
    segs6 = assignment_segments(6)
    base6a = b"".join(b for _, b in segs6)
    host_at = base6a.index(utf(HOST))
    mutated = bytearray(base6a)
    mutated[host_at + 2] = 0xF0  # a 4-byte UTF-8 lead byte: not modified UTF-8
    asg.append(
        _invalid(
            "AssignmentInfo",
            6,
            "hc-assignmentinfo-v6-bad-mutf8",
            bytes(mutated),
            "malformed-string",
            host_at + 2,
            "AssignmentInfo v6 whose host string starts with byte F0, which readUTF rejects",
            ["modified-utf8"],
        )
    )
    mutated = bytearray(base6a)
    mutated[host_at + 6] = 0xE3  # a 3-byte lead with only one byte left in the string
    asg.append(
        _invalid(
            "AssignmentInfo",
            6,
            "hc-assignmentinfo-v6-cut-mutf8",
            bytes(mutated),
            "malformed-string",
            host_at + 6,
            "AssignmentInfo v6 whose host string ends in the middle of a 3-byte sequence",
            ["modified-utf8"],
        )
    )
    pbh = base6a.index(i32(1) + utf(HOST))
    mutated = bytearray(base6a)
    index_at = pbh + 4 + 2 + len(HOST) + 4 + 4
    mutated[index_at : index_at + 4] = i32(9)
    # Kafka's readTopicPartitions: new TopicPartition(topicIndexDict.get(index), partition), a null topic
    null_topic = assignment_expected(6)
    null_topic["partitionsByHost"][0]["partitions"] = [{"topic": None, "partition": 1}]
    asg.append(
        {
            "id": "hc-assignmentinfo-v6-unknown-topic-index",
            "message": "AssignmentInfo",
            "version": 6,
            "description": "AssignmentInfo v6 whose host map names topic index 9, absent from the dictionary "
            "(Kafka builds a partition with a null topic; rebalance-codec rejects it)",
            "wire": bytes(mutated).hex(),
            "expected": null_topic,
            "result": "acceptable",
            "error": "unknown-topic-index",
            "offset": index_at,
            "canonical": False,
            "flags": [],
            "provenance": PROV,
        }
    )
    asg.append(
        {
            "id": "hc-assignmentinfo-v9-named-topology",
            "message": "AssignmentInfo",
            "version": 9,
            "description": "A named-topology task at v9: Kafka refuses to encode it (named topologies need v10)",
            "expected": {
                **assignment_expected(7),
                "version": 9,
                "activeTasks": [{"subtopology": 0, "partition": 1, "topologyName": "app"}],
            },
            "result": "invalid",
            "error": "unrepresentable",
            "canonical": False,
            "flags": ["encode-refused"],
            "provenance": PROV,
        }
    )
    from .handcrafted_group import GROUP_FILE, group_vectors
    from .handcrafted_case import split_rules
    from .handcrafted_rules import rule_vectors
    from .vectors import vectors_dir

    return {
        "handcrafted-subscription-info.jsonl": sub,
        "handcrafted-assignment-info.jsonl": asg,
        GROUP_FILE: group_vectors(vectors_dir()),
        **split_rules(rule_vectors(vectors_dir())),  # (one file a family: handcrafted_case.rules_part)
    }
