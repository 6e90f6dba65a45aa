"""Hand-made edge vectors of Kafka 4's group RPCs and __consumer_offsets records (issue #21):
``vectors/handcrafted-kafka4.jsonl``.

Every ``wire`` is assembled here field by field with :mod:`struct` from the message JSON's field tables
(``schemas/``; Kafka's flexible encoding: uvarint compact lengths + 1 with 0 for null, a tagged-field section
after every struct, an int8 marker -1/1 before a nullable struct, a uvarint marker inside a tagged struct;
``../shared/spec/kafka-wire-facts.md``), and every ``expected`` is written out by hand in Kafka's JSON shape.
Nothing here imports this project's codec. Run from the repository root:
``python vectors/tools/handcraft_kafka4.py > vectors/handcrafted-kafka4.jsonl``.
"""

from __future__ import annotations

import base64
import json
import struct
import sys

# --- Kafka's flexible encoding, by hand -----------------------------------------------------------------


def uvarint(n: int) -> bytes:
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def i8(n):
    return struct.pack(">b", n)


def i16(n):
    return struct.pack(">h", n)


def i32(n):
    return struct.pack(">i", n)


def i64(n):
    return struct.pack(">q", n)


def u16(n):
    return struct.pack(">H", n)


def boolean(b):
    return b"\x01" if b else b"\x00"


def cstr(s: str | None) -> bytes:
    """Compact string: uvarint(length + 1), 0 for null."""
    if s is None:
        return b"\x00"
    raw = s.encode("utf-8")
    return uvarint(len(raw) + 1) + raw


def cstr_non_flexible(s: str) -> bytes:
    """A classic (non-flexible) string: int16 length (record keys are version 0, not flexible)."""
    raw = s.encode("utf-8")
    return i16(len(raw)) + raw


def carr(items: list[bytes] | None) -> bytes:
    if items is None:
        return b"\x00"
    return uvarint(len(items) + 1) + b"".join(items)


def ints(xs) -> bytes:
    return carr([i32(x) for x in xs])


def strs(xs) -> bytes:
    return carr([cstr(x) for x in xs])


def tags(fields: dict[int, bytes] | None = None) -> bytes:
    fields = fields or {}
    out = uvarint(len(fields))
    for t in sorted(fields):
        out += uvarint(t) + uvarint(len(fields[t])) + fields[t]
    return out


T0 = bytes(range(0x10, 0x20))  # a topic id: 101112...1f
T1 = bytes(16)  # the zero UUID


def kuuid(b: bytes) -> str:
    """Kafka's Uuid.toString(): URL-safe base64 without padding."""
    return base64.urlsafe_b64encode(b).rstrip(b"=").decode("ascii")


NOTE = "assembled by hand from the message JSON"


class VectorFile:
    """The vectors one of these tools prints (this one's and ``handcraft_share.py``'s): ids under ``prefix``;
    ``cut_version`` says whether a cut's description names the version after the message."""

    def __init__(self, prefix: str, *, cut_version: bool) -> None:
        self.prefix, self.cut_version = prefix, cut_version
        self.vectors: list[dict] = []

    def valid(self, vid, message, version, desc, wire: bytes, expected, *, canonical=True, flags=(), note=NOTE):
        self.vectors.append(
            {
                "id": f"{self.prefix}-{vid}",
                "message": message,
                "version": version,
                "description": desc,
                "wire": wire.hex(),
                "expected": expected,
                "result": "valid",
                "canonical": canonical,
                "flags": list(flags),
                "provenance": {"source": "handcrafted", "note": note},
            }
        )

    def invalid(
        self,
        vid,
        message,
        version,
        desc,
        error,
        *,
        wire: bytes | None = None,
        offset=None,
        expected=None,
        flags=(),
        note=NOTE,
    ):
        v = {"id": f"{self.prefix}-{vid}", "message": message, "version": version, "description": desc}
        if wire is not None:
            v["wire"] = wire.hex()
        if expected is not None:
            v["expected"] = expected
        v.update(result="invalid", error=error)
        if offset is not None:
            v["offset"] = offset
        v.update(canonical=False, flags=list(flags), provenance={"source": "handcrafted", "note": note})
        self.vectors.append(v)

    def cuts(self, vid, message, version, wire: bytes, at: list[int]):
        shown = f"{message} v{version}" if self.cut_version else message
        for n in at:
            self.invalid(
                f"{vid}-cut-{n}",
                message,
                version,
                f"{shown}: the {len(wire)} bytes of {self.prefix}-{vid} cut to {n}",
                "truncated",
                wire=wire[:n],
                offset=n,
                flags=("truncated",),
                note=f"the bytes of {self.prefix}-{vid}, cut",
            )


K4 = VectorFile("hc-k4", cut_version=True)
VECTORS, valid, invalid, cuts = K4.vectors, K4.valid, K4.invalid, K4.cuts


# --- ConsumerGroupHeartbeat (68) -------------------------------------------------------------------------

CGHB_REQ, CGHB_RESP = "ConsumerGroupHeartbeatRequest", "ConsumerGroupHeartbeatResponse"

w = (
    cstr("orders-app")
    + cstr("Zq8aHd2mQy6wYkQ0s1XbJg")
    + i32(0)
    + cstr(None)
    + cstr("rack-a")
    + i32(300000)
    + strs(["orders", "payments"])
    + cstr(None)
    + cstr("uniform")
    + carr([])
    + tags()
)
valid(
    "cghb-request-v1-join",
    CGHB_REQ,
    1,
    "ConsumerGroupHeartbeatRequest v1: a member joins (epoch 0) with two "
    "topics, no regex, the uniform server assignor and no owned partitions (an empty array, not null)",
    w,
    {
        "groupId": "orders-app",
        "memberId": "Zq8aHd2mQy6wYkQ0s1XbJg",
        "memberEpoch": 0,
        "instanceId": None,
        "rackId": "rack-a",
        "rebalanceTimeoutMs": 300000,
        "subscribedTopicNames": ["orders", "payments"],
        "subscribedTopicRegex": None,
        "serverAssignor": "uniform",
        "topicPartitions": [],
    },
)
JOIN = w
cuts("cghb-request-v1-join", CGHB_REQ, 1, w, [0, 1, 11, 40, 45, len(w) - 1])

w = (
    cstr("g")
    + cstr("m")
    + i32(3)
    + cstr(None)
    + cstr(None)
    + i32(-1)
    + carr(None)
    + cstr("^orders-.*")
    + cstr(None)
    + carr([uuidb + ints([0, 2]) + tags() for uuidb in (T0, T1)])
    + tags()
)
valid(
    "cghb-request-v1-regex",
    CGHB_REQ,
    1,
    "ConsumerGroupHeartbeatRequest v1: a subscription by regex, topic names "
    "null (unchanged), owned partitions of two topics, one with the zero topic id",
    w,
    {
        "groupId": "g",
        "memberId": "m",
        "memberEpoch": 3,
        "instanceId": None,
        "rackId": None,
        "rebalanceTimeoutMs": -1,
        "subscribedTopicNames": None,
        "subscribedTopicRegex": "^orders-.*",
        "serverAssignor": None,
        "topicPartitions": [
            {"topicId": kuuid(T0), "partitions": [0, 2]},
            {"topicId": "AAAAAAAAAAAAAAAAAAAAAA", "partitions": [0, 2]},
        ],
    },
)

w = cstr("g") + cstr("m") + i32(-1) + cstr(None) + cstr(None) + i32(-1) + carr(None) + cstr(None) + carr(None) + tags()
valid(
    "cghb-request-v0-leave",
    CGHB_REQ,
    0,
    "ConsumerGroupHeartbeatRequest v0: a dynamic member leaves (epoch -1), every nullable field null",
    w,
    {
        "groupId": "g",
        "memberId": "m",
        "memberEpoch": -1,
        "instanceId": None,
        "rackId": None,
        "rebalanceTimeoutMs": -1,
        "subscribedTopicNames": None,
        "serverAssignor": None,
        "topicPartitions": None,
    },
)

w = (
    cstr("g")
    + cstr("m")
    + i32(-2)
    + cstr("instance-1")
    + cstr(None)
    + i32(-1)
    + carr(None)
    + cstr(None)
    + carr(None)
    + tags()
)
valid(
    "cghb-request-v0-static-leave",
    CGHB_REQ,
    0,
    "ConsumerGroupHeartbeatRequest v0: a static member leaves and will rejoin (epoch -2) under its instance id",
    w,
    {
        "groupId": "g",
        "memberId": "m",
        "memberEpoch": -2,
        "instanceId": "instance-1",
        "rackId": None,
        "rebalanceTimeoutMs": -1,
        "subscribedTopicNames": None,
        "serverAssignor": None,
        "topicPartitions": None,
    },
)

big = "g" * 32767
w = cstr(big) + cstr("") + i32(0) + cstr(None) + cstr(None) + i32(-1) + carr(None) + cstr(None) + carr(None) + tags()
valid(
    "cghb-request-v0-longest-group-id",
    CGHB_REQ,
    0,
    "ConsumerGroupHeartbeatRequest v0 with a 32767-byte group id "
    "(the longest string Kafka reads: its compact length 32768 is the three-byte uvarint 80 80 02)",
    w,
    {
        "groupId": big,
        "memberId": "",
        "memberEpoch": 0,
        "instanceId": None,
        "rackId": None,
        "rebalanceTimeoutMs": -1,
        "subscribedTopicNames": None,
        "serverAssignor": None,
        "topicPartitions": None,
    },
)
w = (
    cstr(big + "g")
    + cstr("")
    + i32(0)
    + cstr(None)
    + cstr(None)
    + i32(-1)
    + carr(None)
    + cstr(None)
    + carr(None)
    + tags()
)
invalid(
    "cghb-request-v0-group-id-too-long",
    CGHB_REQ,
    0,
    "ConsumerGroupHeartbeatRequest v0 with a 32768-byte group "
    "id: Kafka's reader refuses a string longer than 32767 bytes",
    "malformed-string",
    wire=w,
    offset=0,
)
w = cstr("g") + cstr("m") + i32(0) + cstr(None) + cstr(None) + i32(-1) + uvarint(1_000_001) + b"\x02a"
invalid(
    "cghb-request-v0-count-beyond-input",
    CGHB_REQ,
    0,
    "ConsumerGroupHeartbeatRequest v0 whose topic-name count (1000000) exceeds the bytes that remain",
    "invalid-count",
    wire=w,
    offset=14,
)
invalid(
    "cghb-request-v0-refuse-regex",
    CGHB_REQ,
    0,
    "ConsumerGroupHeartbeatRequest v0 with subscribedTopicRegex "
    '"^a", a non-default value for a field v0 lacks (not ignorable): Kafka\'s writer throws '
    "UnsupportedVersionException",
    "unrepresentable",
    flags=("encode-refused",),
    expected={
        "groupId": "g",
        "memberId": "m",
        "memberEpoch": 0,
        "instanceId": None,
        "rackId": None,
        "rebalanceTimeoutMs": -1,
        "subscribedTopicNames": None,
        "subscribedTopicRegex": "^a",
        "serverAssignor": None,
        "topicPartitions": None,
    },
)

w = i32(0) + i16(0) + cstr(None) + cstr("m") + i32(5) + i32(5000) + i8(-1) + tags()
valid(
    "cghb-response-v0-no-assignment",
    CGHB_RESP,
    0,
    "ConsumerGroupHeartbeatResponse v0: epoch 5, assignment null (unchanged; the int8 marker ff)",
    w,
    {
        "throttleTimeMs": 0,
        "errorCode": 0,
        "errorMessage": None,
        "memberId": "m",
        "memberEpoch": 5,
        "heartbeatIntervalMs": 5000,
        "assignment": None,
    },
)
w = (
    i32(10)
    + i16(0)
    + cstr(None)
    + cstr("m")
    + i32(6)
    + i32(3000)
    + i8(1)
    + carr([T0 + ints([0, 1, 2]) + tags(), T1 + ints([]) + tags()])
    + tags()
    + tags()
)
valid(
    "cghb-response-v1-assignment",
    CGHB_RESP,
    1,
    "ConsumerGroupHeartbeatResponse v1: the assignment of epoch 6 "
    "(int8 marker 01), three partitions of one topic and none of the zero topic id",
    w,
    {
        "throttleTimeMs": 10,
        "errorCode": 0,
        "errorMessage": None,
        "memberId": "m",
        "memberEpoch": 6,
        "heartbeatIntervalMs": 3000,
        "assignment": {
            "topicPartitions": [
                {"topicId": kuuid(T0), "partitions": [0, 1, 2]},
                {"topicId": "AAAAAAAAAAAAAAAAAAAAAA", "partitions": []},
            ]
        },
    },
)
cuts("cghb-response-v1-assignment", CGHB_RESP, 1, w, [19, 20, 22, 30, len(w) - 1])
w = i32(0) + i16(110) + cstr("The member epoch is fenced") + cstr(None) + i32(-1) + i32(0) + i8(-1) + tags()
valid(
    "cghb-response-v0-fenced",
    CGHB_RESP,
    0,
    "ConsumerGroupHeartbeatResponse v0: FENCED_MEMBER_EPOCH (110) with its message, member id null",
    w,
    {
        "throttleTimeMs": 0,
        "errorCode": 110,
        "errorMessage": "The member epoch is fenced",
        "memberId": None,
        "memberEpoch": -1,
        "heartbeatIntervalMs": 0,
        "assignment": None,
    },
)
w = (
    i32(0)
    + i16(0)
    + cstr(None)
    + cstr("m")
    + i32(7)
    + i32(5000)
    + i8(1)
    + carr([T0 + ints([4]) + tags({3: b"\x2a"})])
    + tags({0: b"\x01"})
    + tags({0: b"", 300: bytes.fromhex("beef")})
)
valid(
    "cghb-response-v0-unknown-tags",
    CGHB_RESP,
    0,
    "ConsumerGroupHeartbeatResponse v0 with unknown tagged fields at "
    "three levels: the body (tags 0, empty, and 300, a two-byte uvarint tag), the assignment (tag 0) and a topic "
    "(tag 3); Kafka keeps them and writes them back",
    w,
    {
        "throttleTimeMs": 0,
        "errorCode": 0,
        "errorMessage": None,
        "memberId": "m",
        "memberEpoch": 7,
        "heartbeatIntervalMs": 5000,
        "assignment": {
            "topicPartitions": [{"topicId": kuuid(T0), "partitions": [4], "_unknownTaggedFields": {"3": "2a"}}],
            "_unknownTaggedFields": {"0": "01"},
        },
        "_unknownTaggedFields": {"0": "", "300": "beef"},
    },
)

# --- ConsumerGroupDescribe (69) --------------------------------------------------------------------------

w = strs([]) + boolean(False) + tags()
valid(
    "cgd-request-v0-empty",
    "ConsumerGroupDescribeRequest",
    0,
    "ConsumerGroupDescribeRequest v0 naming no group, without authorized operations",
    w,
    {"groupIds": [], "includeAuthorizedOperations": False},
)
member = (
    cstr("m1")
    + cstr(None)
    + cstr("rack-b")
    + i32(4)
    + cstr("consumer-1")
    + cstr("/10.0.0.7")
    + strs(["orders"])
    + cstr(None)
    + (carr([T0 + cstr("orders") + ints([0]) + tags()]) + tags())
    + (carr([T0 + cstr("orders") + ints([0, 1]) + tags()]) + tags())
    + i8(1)
    + tags()
)
w = (
    i32(0)
    + carr(
        [
            i16(0)
            + cstr(None)
            + cstr("orders-app")
            + cstr("Reconciling")
            + i32(5)
            + i32(5)
            + cstr("uniform")
            + carr([member])
            + i32(-2147483648)
            + tags()
        ]
    )
    + tags()
)
asg = lambda ps: {"topicPartitions": [{"topicId": kuuid(T0), "topicName": "orders", "partitions": ps}]}
valid(
    "cgd-response-v1-member-type",
    "ConsumerGroupDescribeResponse",
    1,
    "ConsumerGroupDescribeResponse v1: a "
    "reconciling group whose member (memberType 1, a consumer-protocol member) owns partition 0 and is to own 0 "
    "and 1; authorized operations not asked (INT32_MIN)",
    w,
    {
        "throttleTimeMs": 0,
        "groups": [
            {
                "errorCode": 0,
                "errorMessage": None,
                "groupId": "orders-app",
                "groupState": "Reconciling",
                "groupEpoch": 5,
                "assignmentEpoch": 5,
                "assignorName": "uniform",
                "members": [
                    {
                        "memberId": "m1",
                        "instanceId": None,
                        "rackId": "rack-b",
                        "memberEpoch": 4,
                        "clientId": "consumer-1",
                        "clientHost": "/10.0.0.7",
                        "subscribedTopicNames": ["orders"],
                        "subscribedTopicRegex": None,
                        "assignment": asg([0]),
                        "targetAssignment": asg([0, 1]),
                        "memberType": 1,
                    }
                ],
                "authorizedOperations": -2147483648,
            }
        ],
    },
)

# --- StreamsGroupHeartbeat (88) --------------------------------------------------------------------------

SG_REQ, SG_RESP = "StreamsGroupHeartbeatRequest", "StreamsGroupHeartbeatResponse"
kv = lambda k, v: cstr(k) + cstr(v) + tags()
taskids = lambda sub, ps: cstr(sub) + ints(ps) + tags()
topic_info = cstr("app-store-changelog") + i32(0) + i16(3) + carr([kv("cleanup.policy", "compact")]) + tags()
subtopology = (
    cstr("0")
    + strs(["words"])
    + strs([])
    + carr([topic_info])
    + strs(["app-repartition"])
    + carr([])
    + carr([carr([i16(0)]) + carr([]) + carr([]) + tags()])
    + tags()
)
w = (
    cstr("app")
    + cstr("m1")
    + i32(0)
    + i32(-1)
    + cstr(None)
    + cstr("r1")
    + i32(300000)
    + i8(1)
    + i32(1)
    + carr([subtopology])
    + tags()
    + carr([taskids("0", [0, 1])])
    + carr([])
    + carr([taskids("1", [2])])
    + cstr("3b241101-e2bb-4255-8caf-4136c566a962")
    + i8(1)
    + cstr("host-1")
    + u16(8080)
    + tags()
    + carr([kv("zone", "eu-1a")])
    + carr([cstr("0") + i32(0) + i64(90) + tags()])
    + carr([cstr("0") + i32(0) + i64(100) + tags()])
    + boolean(False)
    + tags()
)
valid(
    "sghb-request-v0-join",
    SG_REQ,
    0,
    "StreamsGroupHeartbeatRequest v0: a member joins with its topology (one "
    "subtopology, a changelog with a config, one copartition group), no endpoint information yet (epoch -1), "
    "active, standby (none) and warm-up tasks, its endpoint on port 8080, a client tag and task offsets",
    w,
    {
        "groupId": "app",
        "memberId": "m1",
        "memberEpoch": 0,
        "endpointInformationEpoch": -1,
        "instanceId": None,
        "rackId": "r1",
        "rebalanceTimeoutMs": 300000,
        "topology": {
            "epoch": 1,
            "subtopologies": [
                {
                    "subtopologyId": "0",
                    "sourceTopics": ["words"],
                    "sourceTopicRegex": [],
                    "stateChangelogTopics": [
                        {
                            "name": "app-store-changelog",
                            "partitions": 0,
                            "replicationFactor": 3,
                            "topicConfigs": [{"key": "cleanup.policy", "value": "compact"}],
                        }
                    ],
                    "repartitionSinkTopics": ["app-repartition"],
                    "repartitionSourceTopics": [],
                    "copartitionGroups": [{"sourceTopics": [0], "sourceTopicRegex": [], "repartitionSourceTopics": []}],
                }
            ],
        },
        "activeTasks": [{"subtopologyId": "0", "partitions": [0, 1]}],
        "standbyTasks": [],
        "warmupTasks": [{"subtopologyId": "1", "partitions": [2]}],
        "processId": "3b241101-e2bb-4255-8caf-4136c566a962",
        "userEndpoint": {"host": "host-1", "port": 8080},
        "clientTags": [{"key": "zone", "value": "eu-1a"}],
        "taskOffsets": [{"subtopologyId": "0", "partition": 0, "offset": 90}],
        "taskEndOffsets": [{"subtopologyId": "0", "partition": 0, "offset": 100}],
        "shutdownApplication": False,
    },
)
cuts("sghb-request-v0-join", SG_REQ, 0, w, [13, 22, 23, 34, 104, len(w) - 1])
w = (
    cstr("app")
    + cstr("m1")
    + i32(7)
    + i32(3)
    + cstr(None)
    + cstr(None)
    + i32(-1)
    + i8(-1)
    + carr(None)
    + carr(None)
    + carr(None)
    + cstr(None)
    + i8(-1)
    + carr(None)
    + carr(None)
    + carr(None)
    + boolean(True)
    + tags()
)
valid(
    "sghb-request-v0-unchanged-shutdown",
    SG_REQ,
    0,
    "StreamsGroupHeartbeatRequest v0: nothing changed since the "
    "last heartbeat (every nullable field null, the topology's and endpoint's markers ff) and the member asks the "
    "whole application to shut down (endpoint information epoch 3)",
    w,
    {
        "groupId": "app",
        "memberId": "m1",
        "memberEpoch": 7,
        "endpointInformationEpoch": 3,
        "instanceId": None,
        "rackId": None,
        "rebalanceTimeoutMs": -1,
        "topology": None,
        "activeTasks": None,
        "standbyTasks": None,
        "warmupTasks": None,
        "processId": None,
        "userEndpoint": None,
        "clientTags": None,
        "taskOffsets": None,
        "taskEndOffsets": None,
        "shutdownApplication": True,
    },
)
w = (
    i32(0)
    + i16(0)
    + cstr(None)
    + cstr("m1")
    + i32(8)
    + i32(5000)
    + i32(10000)
    + i32(60000)
    + carr([i8(1) + cstr("missing source topic words") + tags()])
    + carr([taskids("0", [0])])
    + carr([taskids("0", [1])])
    + carr([])
    + i32(4)
    + carr(
        [
            (cstr("host-1") + u16(65535) + tags())
            + carr([cstr("words") + ints([0]) + tags()])
            + carr([cstr("words") + ints([1]) + tags()])
            + tags(),
            (cstr("host-2") + u16(8080) + tags()) + carr([]) + carr([]) + tags(),
        ]
    )
    + tags()
)
valid(
    "sghb-response-v0-assignment",
    SG_RESP,
    0,
    "StreamsGroupHeartbeatResponse v0: epoch 8, a MISSING_SOURCE_TOPICS "
    "status (1), one active and one standby task, no warm-up task, endpoint information epoch 4, and the active "
    "and standby partitions of an endpoint on port 65535 (the largest uint16) and of one without partitions",
    w,
    {
        "throttleTimeMs": 0,
        "errorCode": 0,
        "errorMessage": None,
        "memberId": "m1",
        "memberEpoch": 8,
        "heartbeatIntervalMs": 5000,
        "acceptableRecoveryLagLegacy": 10000,
        "taskOffsetIntervalMs": 60000,
        "status": [{"statusCode": 1, "statusDetail": "missing source topic words"}],
        "activeTasks": [{"subtopologyId": "0", "partitions": [0]}],
        "standbyTasks": [{"subtopologyId": "0", "partitions": [1]}],
        "warmupTasks": [],
        "endpointInformationEpoch": 4,
        "partitionsByUserEndpoint": [
            {
                "userEndpoint": {"host": "host-1", "port": 65535},
                "activePartitions": [{"topic": "words", "partitions": [0]}],
                "standbyPartitions": [{"topic": "words", "partitions": [1]}],
            },
            {"userEndpoint": {"host": "host-2", "port": 8080}, "activePartitions": [], "standbyPartitions": []},
        ],
    },
)

# --- StreamsGroupDescribe (89) ---------------------------------------------------------------------------

w = (
    i32(0)
    + carr(
        [
            i16(69)
            + cstr("group app not found")
            + cstr("app")
            + cstr("Dead")
            + i32(-1)
            + i32(-1)
            + i8(-1)
            + carr([])
            + i32(-2147483648)
            + tags()
        ]
    )
    + tags()
)
valid(
    "sgd-response-v0-not-found",
    "StreamsGroupDescribeResponse",
    0,
    "StreamsGroupDescribeResponse v0: GROUP_ID_NOT_"
    "FOUND (69) for a group, its topology null (marker ff) and no members",
    w,
    {
        "throttleTimeMs": 0,
        "groups": [
            {
                "errorCode": 69,
                "errorMessage": "group app not found",
                "groupId": "app",
                "groupState": "Dead",
                "groupEpoch": -1,
                "assignmentEpoch": -1,
                "topology": None,
                "members": [],
                "authorizedOperations": -2147483648,
            }
        ],
    },
)

# --- __consumer_offsets records --------------------------------------------------------------------------

valid(
    "record-consumer-group-metadata-key",
    "ConsumerGroupMetadataKey",
    None,
    "The key of a ConsumerGroupMetadata "
    "record: int16 record type 3, then the group id as a classic int16-length string (keys are not flexible)",
    i16(3) + cstr_non_flexible("orders-app"),
    {"groupId": "orders-app"},
)
valid(
    "record-consumer-group-member-metadata-key",
    "ConsumerGroupMemberMetadataKey",
    None,
    "The key of a ConsumerGroupMemberMetadata record: record type 5, group id, member id",
    i16(5) + cstr_non_flexible("g") + cstr_non_flexible("m1"),
    {"groupId": "g", "memberId": "m1"},
)
valid(
    "record-consumer-group-regular-expression-key",
    "ConsumerGroupRegularExpressionKey",
    None,
    "The key of a ConsumerGroupRegularExpression record: record type 16, group id, the regular expression",
    i16(16) + cstr_non_flexible("g") + cstr_non_flexible("orders-.*"),
    {"groupId": "g", "regularExpression": "orders-.*"},
)
valid(
    "record-streams-group-topology-key",
    "StreamsGroupTopologyKey",
    None,
    "The key of a StreamsGroupTopology record: record type 23, then the group id",
    i16(23) + cstr_non_flexible("app"),
    {"groupId": "app"},
)
invalid(
    "record-consumer-group-metadata-key-other-type",
    "ConsumerGroupMetadataKey",
    None,
    "A ConsumerGroupMemberMetadata key (record type 5) read as a ConsumerGroupMetadata key (type 3)",
    "invalid-value",
    wire=i16(5) + cstr_non_flexible("g") + cstr_non_flexible("m1"),
    offset=0,
)
invalid(
    "record-streams-group-metadata-key-type-18",
    "StreamsGroupMetadataKey",
    None,
    "A key of record type 18, "
    "StreamsGroupPartitionMetadata, which only trunk builds before 4.1 wrote (no release knows the type), read "
    "as a StreamsGroupMetadata key (type 17)",
    "invalid-value",
    wire=i16(18) + cstr_non_flexible("app"),
    offset=0,
)
valid(
    "record-consumer-group-metadata-value",
    "ConsumerGroupMetadataValue",
    None,
    "A ConsumerGroupMetadata value: "
    "int16 value version 0, then the flexible body: group epoch 12 and an empty tagged-field section (no "
    "MetadataHash, tag 0: a value of Kafka before 4.1, or a hash of 0, which Kafka does not write)",
    i16(0) + i32(12) + tags(),
    {"valueVersion": 0, "epoch": 12, "metadataHash": 0},
)
valid(
    "record-consumer-group-metadata-value-hash",
    "ConsumerGroupMetadataValue",
    None,
    "A ConsumerGroupMetadata "
    "value as Kafka 4.1+ writes it: group epoch 13 and the topics' MetadataHash in tagged field 0 (size 8, an "
    "int64 with the sign bit set)",
    i16(0) + i32(13) + tags({0: i64(-0x0123456789ABCDEF)}),
    {"valueVersion": 0, "epoch": 13, "metadataHash": -0x0123456789ABCDEF},
)
invalid(
    "record-consumer-group-metadata-value-v1",
    "ConsumerGroupMetadataValue",
    None,
    "A ConsumerGroupMetadata value whose version prefix says 1: the release has version 0 only",
    "unsupported-version",
    wire=i16(1) + i32(12) + tags(),
    offset=0,
)
classic = i32(45000) + carr([cstr("range") + uvarint(3) + b"\x00\x01" + tags()]) + tags()
w = (
    i16(0)
    + cstr(None)
    + cstr(None)
    + cstr("consumer-1")
    + cstr("/10.0.0.7")
    + strs(["orders"])
    + cstr(None)
    + i32(45000)
    + cstr("uniform")
    + tags({0: b"\x01" + classic})
)
valid(
    "record-consumer-group-member-metadata-value-classic",
    "ConsumerGroupMemberMetadataValue",
    None,
    "A ConsumerGroupMemberMetadata value of a classic member in a consumer group (online migration): the tagged "
    "ClassicMemberMetadata (tag 0, a uvarint marker 01 before the struct) with its session timeout and protocols",
    w,
    {
        "valueVersion": 0,
        "instanceId": None,
        "rackId": None,
        "clientId": "consumer-1",
        "clientHost": "/10.0.0.7",
        "subscribedTopicNames": ["orders"],
        "subscribedTopicRegex": None,
        "rebalanceTimeoutMs": 45000,
        "serverAssignor": "uniform",
        "classicMemberMetadata": {
            "sessionTimeoutMs": 45000,
            "supportedProtocols": [{"name": "range", "metadata": base64.b64encode(b"\x00\x01").decode()}],
        },
    },
)
member_value = (
    i16(0)
    + cstr(None)
    + cstr("rack-a")
    + cstr("consumer-2")
    + cstr("/10.0.0.9")
    + strs(["orders"])
    + cstr(None)
    + i32(300000)
    + cstr(None)
)
valid(
    "record-consumer-group-member-metadata-value-consumer",
    "ConsumerGroupMemberMetadataValue",
    None,
    "A ConsumerGroupMemberMetadata value of a consumer-protocol member: ClassicMemberMetadata null, which Kafka "
    'writes (tag 0, size 1, uvarint marker 00), its default being the empty struct ("default": null in '
    "Kafka's JSON)",
    member_value + tags({0: b"\x00"}),
    {
        "valueVersion": 0,
        "instanceId": None,
        "rackId": "rack-a",
        "clientId": "consumer-2",
        "clientHost": "/10.0.0.9",
        "subscribedTopicNames": ["orders"],
        "subscribedTopicRegex": None,
        "rebalanceTimeoutMs": 300000,
        "serverAssignor": None,
        "classicMemberMetadata": None,
    },
)
valid(
    "record-consumer-group-member-metadata-value-no-tag",
    "ConsumerGroupMemberMetadataValue",
    None,
    "A ConsumerGroupMemberMetadata value without tag 0: Kafka's reader gives ClassicMemberMetadata its default, "
    "the empty struct (session timeout 0, no protocols), not null",
    member_value + tags(),
    {
        "valueVersion": 0,
        "instanceId": None,
        "rackId": "rack-a",
        "clientId": "consumer-2",
        "clientHost": "/10.0.0.9",
        "subscribedTopicNames": ["orders"],
        "subscribedTopicRegex": None,
        "rebalanceTimeoutMs": 300000,
        "serverAssignor": None,
        "classicMemberMetadata": {"sessionTimeoutMs": 0, "supportedProtocols": []},
    },
)
w = i16(0) + i32(6) + i32(5) + i8(1) + carr([T0 + ints([0]) + tags()]) + carr([T0 + ints([1]) + tags()]) + tags()
valid(
    "record-consumer-group-current-member-assignment-value",
    "ConsumerGroupCurrentMemberAssignmentValue",
    None,
    "A ConsumerGroupCurrentMemberAssignment value: epoch 6 after 5, state 1, partition 0 assigned and 1 pending "
    "revocation",
    w,
    {
        "valueVersion": 0,
        "memberEpoch": 6,
        "previousMemberEpoch": 5,
        "state": 1,
        "assignedPartitions": [{"topicId": kuuid(T0), "partitions": [0], "assignmentEpochs": []}],
        "partitionsPendingRevocation": [{"topicId": kuuid(T0), "partitions": [1], "assignmentEpochs": []}],
    },
)
w = (
    i16(0)
    + i32(9)
    + i32(8)
    + i8(0)
    + carr([T0 + ints([0, 1]) + tags({0: ints([7, 9])}), T1 + ints([3]) + tags({0: b"\x00"})])
    + carr([])
    + tags()
)
valid(
    "record-consumer-group-current-member-assignment-value-epochs",
    "ConsumerGroupCurrentMemberAssignmentValue",
    None,
    "A ConsumerGroupCurrentMemberAssignment value as Kafka 4.3 writes it: each topic's AssignmentEpochs in "
    "its tagged field 0, parallel to its partitions (0 at epoch 7, 1 at 9), and a null one (marker 00), which "
    "Kafka writes because its default is the empty array",
    w,
    {
        "valueVersion": 0,
        "memberEpoch": 9,
        "previousMemberEpoch": 8,
        "state": 0,
        "assignedPartitions": [
            {"topicId": kuuid(T0), "partitions": [0, 1], "assignmentEpochs": [7, 9]},
            {"topicId": "AAAAAAAAAAAAAAAAAAAAAA", "partitions": [3], "assignmentEpochs": None},
        ],
        "partitionsPendingRevocation": [],
    },
)
w = i16(0) + strs(["orders-1", "orders-2"]) + i64(42) + i64(1732406400000) + tags()
valid(
    "record-consumer-group-regular-expression-value",
    "ConsumerGroupRegularExpressionValue",
    None,
    "A ConsumerGroupRegularExpression value: the topics the regex resolved to, the metadata version and the "
    "timestamp (its field Version, not the value version before it)",
    w,
    {"valueVersion": 0, "topics": ["orders-1", "orders-2"], "version": 42, "timestamp": 1732406400000},
)
w = (
    i16(0)
    + i32(3)
    + i32(2)
    + i8(0)
    + carr([taskids("0", [0])])
    + carr([taskids("0", [1])])
    + carr([])
    + carr([])
    + carr([])
    + carr([taskids("1", [0])])
    + tags()
)
valid(
    "record-streams-group-current-member-assignment-value",
    "StreamsGroupCurrentMemberAssignmentValue",
    None,
    "A StreamsGroupCurrentMemberAssignment value: epoch 3 after 2, state 0, one active and one standby task, "
    "a warm-up task pending revocation",
    w,
    {
        "valueVersion": 0,
        "memberEpoch": 3,
        "previousMemberEpoch": 2,
        "state": 0,
        "activeTasks": [{"subtopologyId": "0", "partitions": [0], "assignmentEpochs": []}],
        "standbyTasks": [{"subtopologyId": "0", "partitions": [1], "assignmentEpochs": []}],
        "warmupTasks": [],
        "activeTasksPendingRevocation": [],
        "standbyTasksPendingRevocation": [],
        "warmupTasksPendingRevocation": [{"subtopologyId": "1", "partitions": [0], "assignmentEpochs": []}],
    },
)
cuts(
    "record-streams-group-current-member-assignment-value",
    "StreamsGroupCurrentMemberAssignmentValue",
    None,
    w,
    [1, 2, 6, 11, len(w) - 1],
)
w = (
    i16(0)
    + i32(4)
    + i32(3)
    + i8(0)
    + carr([cstr("0") + ints([0, 1]) + tags({0: ints([2, 4])})])
    + carr([taskids("0", [2])])
    + carr([])
    + carr([])
    + carr([])
    + carr([])
    + tags()
)
valid(
    "record-streams-group-current-member-assignment-value-epochs",
    "StreamsGroupCurrentMemberAssignmentValue",
    None,
    "A StreamsGroupCurrentMemberAssignment value as Kafka 4.2+ writes it: the active task's AssignmentEpochs "
    "in its tagged field 0, parallel to its partitions (0 at epoch 2, 1 at 4); the standby task has none",
    w,
    {
        "valueVersion": 0,
        "memberEpoch": 4,
        "previousMemberEpoch": 3,
        "state": 0,
        "activeTasks": [{"subtopologyId": "0", "partitions": [0, 1], "assignmentEpochs": [2, 4]}],
        "standbyTasks": [{"subtopologyId": "0", "partitions": [2], "assignmentEpochs": []}],
        "warmupTasks": [],
        "activeTasksPendingRevocation": [],
        "standbyTasksPendingRevocation": [],
        "warmupTasksPendingRevocation": [],
    },
)
w = (
    i16(0)
    + i32(5)
    + i32(4)
    + i8(0)
    + carr([cstr("0") + ints([0]) + tags({0: ints([5])})])
    + carr([])
    + carr([])
    + carr([cstr("1") + ints([3]) + tags({0: b"\x00"})])
    + carr([])
    + carr([])
    + tags()
)
valid(
    "record-streams-group-current-member-assignment-value-null-epochs",
    "StreamsGroupCurrentMemberAssignmentValue",
    None,
    "A StreamsGroupCurrentMemberAssignment value whose active task pending revocation has AssignmentEpochs "
    "null (tag 0, size 1, marker 00), which Kafka writes because its default is the empty array: a reader that "
    "takes the field for non-nullable refuses it",
    w,
    {
        "valueVersion": 0,
        "memberEpoch": 5,
        "previousMemberEpoch": 4,
        "state": 0,
        "activeTasks": [{"subtopologyId": "0", "partitions": [0], "assignmentEpochs": [5]}],
        "standbyTasks": [],
        "warmupTasks": [],
        "activeTasksPendingRevocation": [{"subtopologyId": "1", "partitions": [3], "assignmentEpochs": None}],
        "standbyTasksPendingRevocation": [],
        "warmupTasksPendingRevocation": [],
    },
)

# --- the record kinds without a vector yet (issue #22): a key and a value of each ----------------------------

valid(
    "record-consumer-group-partition-metadata-key",
    "ConsumerGroupPartitionMetadataKey",
    None,
    "The key of a ConsumerGroupPartitionMetadata record: record type 4, then the group id",
    i16(4) + cstr_non_flexible("g"),
    {"groupId": "g"},
)
w = (
    i16(0)
    + carr(
        [
            T0
            + cstr("orders")
            + i32(2)
            + carr([i32(0) + strs(["rack-a", "rack-b"]) + tags(), i32(1) + strs([]) + tags()])
            + tags()
        ]
    )
    + tags()
)
valid(
    "record-consumer-group-partition-metadata-value",
    "ConsumerGroupPartitionMetadataValue",
    None,
    "A ConsumerGroupPartitionMetadata value: one topic of two partitions, the racks of partition 0 and none of 1",
    w,
    {
        "valueVersion": 0,
        "topics": [
            {
                "topicId": kuuid(T0),
                "topicName": "orders",
                "numPartitions": 2,
                "partitionMetadata": [{"partition": 0, "racks": ["rack-a", "rack-b"]}, {"partition": 1, "racks": []}],
            }
        ],
    },
)
valid(
    "record-consumer-group-target-assignment-metadata-key",
    "ConsumerGroupTargetAssignmentMetadataKey",
    None,
    "The key of a ConsumerGroupTargetAssignmentMetadata record: record type 6, then the group id",
    i16(6) + cstr_non_flexible("orders-app"),
    {"groupId": "orders-app"},
)
valid(
    "record-consumer-group-target-assignment-metadata-value",
    "ConsumerGroupTargetAssignmentMetadataValue",
    None,
    "A ConsumerGroupTargetAssignmentMetadata value: assignment epoch 2147483647 (the largest int32)",
    i16(0) + i32(2147483647) + tags(),
    {"valueVersion": 0, "assignmentEpoch": 2147483647, "assignmentTimestamp": 0},
)
valid(
    "record-consumer-group-target-assignment-metadata-value-timestamp",
    "ConsumerGroupTargetAssignmentMetadataValue",
    None,
    "A ConsumerGroupTargetAssignmentMetadata value as Kafka 4.3 writes it: assignment epoch 3 and the "
    "AssignmentTimestamp (ms) in tagged field 0",
    i16(0) + i32(3) + tags({0: i64(1767225600000)}),
    {"valueVersion": 0, "assignmentEpoch": 3, "assignmentTimestamp": 1767225600000},
)
valid(
    "record-consumer-group-target-assignment-member-key",
    "ConsumerGroupTargetAssignmentMemberKey",
    None,
    "The key of a ConsumerGroupTargetAssignmentMember record: record type 7, group id, member id",
    i16(7) + cstr_non_flexible("g") + cstr_non_flexible("m1"),
    {"groupId": "g", "memberId": "m1"},
)
w = i16(0) + carr([T0 + ints([0, 1]) + tags(), T1 + ints([]) + tags()]) + tags()
valid(
    "record-consumer-group-target-assignment-member-value",
    "ConsumerGroupTargetAssignmentMemberValue",
    None,
    "A ConsumerGroupTargetAssignmentMember value: partitions 0 and 1 of one topic and none of the zero topic id",
    w,
    {
        "valueVersion": 0,
        "topicPartitions": [
            {"topicId": kuuid(T0), "partitions": [0, 1]},
            {"topicId": "AAAAAAAAAAAAAAAAAAAAAA", "partitions": []},
        ],
    },
)
valid(
    "record-consumer-group-current-member-assignment-key",
    "ConsumerGroupCurrentMemberAssignmentKey",
    None,
    "The key of a ConsumerGroupCurrentMemberAssignment record: record type 8, group id, member id (empty)",
    i16(8) + cstr_non_flexible("g") + cstr_non_flexible(""),
    {"groupId": "g", "memberId": ""},
)
valid(
    "record-streams-group-metadata-key",
    "StreamsGroupMetadataKey",
    None,
    "The key of a StreamsGroupMetadata record: record type 17, then the group id",
    i16(17) + cstr_non_flexible("app"),
    {"groupId": "app"},
)
valid(
    "record-streams-group-metadata-value",
    "StreamsGroupMetadataValue",
    None,
    "A StreamsGroupMetadata value as "
    "Kafka 4.1's early access writes it: group epoch 9 and the MetadataHash (an int64, not tagged), no tagged "
    "fields (ValidatedTopologyEpoch and 4.4's two description epochs read as -1, LastAssignmentConfigs as [])",
    i16(0) + i32(9) + i64(0x7A3F0C11D2E4B658) + tags(),
    {
        "valueVersion": 0,
        "epoch": 9,
        "metadataHash": 0x7A3F0C11D2E4B658,
        "validatedTopologyEpoch": -1,
        "lastAssignmentConfigs": [],
        "storedDescriptionTopologyEpoch": -1,
        "failedDescriptionTopologyEpoch": -1,
    },
)
w = (
    i16(0)
    + i32(10)
    + i64(-1)
    + tags({0: i32(2), 1: carr([kv("num.standby.replicas", "1"), kv("acceptable.recovery.lag", "10000")])})
)
valid(
    "record-streams-group-metadata-value-ga",
    "StreamsGroupMetadataValue",
    None,
    "A StreamsGroupMetadata value as "
    "Kafka 4.2+ writes it: group epoch 10, MetadataHash -1, ValidatedTopologyEpoch 2 (tag 0) and two "
    "LastAssignmentConfigs (tag 1)",
    w,
    {
        "valueVersion": 0,
        "epoch": 10,
        "metadataHash": -1,
        "validatedTopologyEpoch": 2,
        "lastAssignmentConfigs": [
            {"key": "num.standby.replicas", "value": "1"},
            {"key": "acceptable.recovery.lag", "value": "10000"},
        ],
        "storedDescriptionTopologyEpoch": -1,
        "failedDescriptionTopologyEpoch": -1,
    },
)
cuts("record-streams-group-metadata-value-ga", "StreamsGroupMetadataValue", None, w, [10, 18, len(w) - 1])
valid(
    "record-streams-group-metadata-value-null-configs",
    "StreamsGroupMetadataValue",
    None,
    "A StreamsGroupMetadata "
    "value whose LastAssignmentConfigs is null: Kafka writes it (tag 1, size 1, marker 00), the empty array being "
    "its default",
    i16(0) + i32(1) + i64(0) + tags({1: b"\x00"}),
    {
        "valueVersion": 0,
        "epoch": 1,
        "metadataHash": 0,
        "validatedTopologyEpoch": -1,
        "lastAssignmentConfigs": None,
        "storedDescriptionTopologyEpoch": -1,
        "failedDescriptionTopologyEpoch": -1,
    },
)
invalid(
    "record-streams-group-metadata-value-epoch-only",
    "StreamsGroupMetadataValue",
    None,
    "A StreamsGroupMetadata "
    "value of the pre-4.1 trunk (group epoch 9 alone, then the tagged-field count): released Kafka reads the "
    "MetadataHash int64 next and runs out of bytes",
    "truncated",
    wire=i16(0) + i32(9) + tags(),
    offset=6,
    flags=("truncated",),
)
valid(
    "record-streams-group-member-metadata-key",
    "StreamsGroupMemberMetadataKey",
    None,
    "The key of a StreamsGroupMemberMetadata record: record type 19, group id, member id",
    i16(19) + cstr_non_flexible("app") + cstr_non_flexible("m1"),
    {"groupId": "app", "memberId": "m1"},
)
w = (
    i16(0)
    + cstr("instance-1")
    + cstr(None)
    + cstr("app-client")
    + cstr("/10.0.0.8")
    + i32(300000)
    + i32(1)
    + cstr("3b241101-e2bb-4255-8caf-4136c566a962")
    + i8(1)
    + cstr("host-1")
    + u16(8080)
    + tags()
    + carr([kv("zone", "eu-1a")])
    + tags()
)
valid(
    "record-streams-group-member-metadata-value",
    "StreamsGroupMemberMetadataValue",
    None,
    "A StreamsGroupMemberMetadata value: a static member (instance id) without a rack, topology epoch 1, its "
    "endpoint on port 8080 (int8 marker 01 before the nullable struct) and a client tag",
    w,
    {
        "valueVersion": 0,
        "instanceId": "instance-1",
        "rackId": None,
        "clientId": "app-client",
        "clientHost": "/10.0.0.8",
        "rebalanceTimeoutMs": 300000,
        "topologyEpoch": 1,
        "processId": "3b241101-e2bb-4255-8caf-4136c566a962",
        "userEndpoint": {"host": "host-1", "port": 8080},
        "clientTags": [{"key": "zone", "value": "eu-1a"}],
    },
)
valid(
    "record-streams-group-target-assignment-metadata-key",
    "StreamsGroupTargetAssignmentMetadataKey",
    None,
    "The key of a StreamsGroupTargetAssignmentMetadata record: record type 20, then the group id",
    i16(20) + cstr_non_flexible("app"),
    {"groupId": "app"},
)
valid(
    "record-streams-group-target-assignment-metadata-value",
    "StreamsGroupTargetAssignmentMetadataValue",
    None,
    "A StreamsGroupTargetAssignmentMetadata value: assignment epoch 0",
    i16(0) + i32(0) + tags(),
    {"valueVersion": 0, "assignmentEpoch": 0, "assignmentTimestamp": 0},
)
valid(
    "record-streams-group-target-assignment-metadata-value-timestamp",
    "StreamsGroupTargetAssignmentMetadataValue",
    None,
    "A StreamsGroupTargetAssignmentMetadata value as Kafka 4.3 writes it: assignment epoch 5 and the "
    "AssignmentTimestamp (ms) in tagged field 0",
    i16(0) + i32(5) + tags({0: i64(1767225600123)}),
    {"valueVersion": 0, "assignmentEpoch": 5, "assignmentTimestamp": 1767225600123},
)
valid(
    "record-streams-group-target-assignment-member-key",
    "StreamsGroupTargetAssignmentMemberKey",
    None,
    "The key of a StreamsGroupTargetAssignmentMember record: record type 21, group id, member id",
    i16(21) + cstr_non_flexible("app") + cstr_non_flexible("m1"),
    {"groupId": "app", "memberId": "m1"},
)
w = i16(0) + carr([taskids("0", [0, 1])]) + carr([taskids("1", [0])]) + carr([]) + tags()
valid(
    "record-streams-group-target-assignment-member-value",
    "StreamsGroupTargetAssignmentMemberValue",
    None,
    "A StreamsGroupTargetAssignmentMember value: two active tasks of subtopology 0, a standby task of 1, no "
    "warm-up task",
    w,
    {
        "valueVersion": 0,
        "activeTasks": [{"subtopologyId": "0", "partitions": [0, 1]}],
        "standbyTasks": [{"subtopologyId": "1", "partitions": [0]}],
        "warmupTasks": [],
    },
)
valid(
    "record-streams-group-current-member-assignment-key",
    "StreamsGroupCurrentMemberAssignmentKey",
    None,
    "The key of a StreamsGroupCurrentMemberAssignment record: record type 22, group id, member id",
    i16(22) + cstr_non_flexible("app") + cstr_non_flexible("m1"),
    {"groupId": "app", "memberId": "m1"},
)
w = i16(0) + i32(1) + carr([subtopology]) + tags()
valid(
    "record-streams-group-topology-value",
    "StreamsGroupTopologyValue",
    None,
    "A StreamsGroupTopology value: "
    "topology epoch 1, one subtopology (the same bytes as hc-k4-sghb-request-v0-join's topology: a changelog with "
    "a config, one copartition group)",
    w,
    {
        "valueVersion": 0,
        "epoch": 1,
        "subtopologies": [
            {
                "subtopologyId": "0",
                "sourceTopics": ["words"],
                "sourceTopicRegex": [],
                "stateChangelogTopics": [
                    {
                        "name": "app-store-changelog",
                        "partitions": 0,
                        "replicationFactor": 3,
                        "topicConfigs": [{"key": "cleanup.policy", "value": "compact"}],
                    }
                ],
                "repartitionSinkTopics": ["app-repartition"],
                "repartitionSourceTopics": [],
                "copartitionGroups": [{"sourceTopics": [0], "sourceTopicRegex": [], "repartitionSourceTopics": []}],
            }
        ],
    },
)

# every record kind, cut: the first vector of each key or value without cuts of its own cut to half and to all but its
# last byte (a strict prefix: the key's fields or the value's final tagged-field count are missing)
for kind in dict.fromkeys(v["message"] for v in VECTORS if v["version"] is None):
    if not any(v["message"] == kind and "truncated" in v["flags"] for v in VECTORS):
        v = next(v for v in VECTORS if v["message"] == kind and v["result"] == "valid")
        raw = bytes.fromhex(v["wire"])
        cuts(v["id"].removeprefix("hc-k4-"), kind, None, raw, sorted({len(raw) // 2, len(raw) - 1}))


if __name__ == "__main__":
    for v in VECTORS:
        sys.stdout.write(json.dumps(v, ensure_ascii=False) + "\n")
