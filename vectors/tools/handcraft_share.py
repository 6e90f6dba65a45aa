"""Hand-made edge vectors of KIP-932 share groups (issue #30): ShareGroupHeartbeat (76) v1, ShareGroupDescribe
(77) v1 and the share groups' ``__consumer_offsets`` records (types 9-15): ``vectors/handcrafted-share.jsonl``.

The same style as ``handcraft_kafka4.py`` (whose byte helpers it uses): every ``wire`` is assembled field by field
with :mod:`struct` from the message JSON's field tables (``schemas/``: Kafka's 4.1.0 release, type 9 from 4.0's
early access) and Kafka's flexible encoding (``../shared/spec/kafka-wire-facts.md``), every ``expected`` is written
out by hand in Kafka's JSON shape, and nothing here imports this project's codec.

The refusals are those Kafka's generated readers and writers make (``MessageDataGenerator``'s code at the
release): a null (compact length 0) in a non-nullable string or array ("non-nullable field ... was serialized as
null"), also as a value an encoder must refuse; a count whose uvarint reads as a negative Java int (Kafka's
``readUnsignedVarint`` keeps 32 bits: ``ff ff ff ff 0f`` is -1, so the count is -2) in a non-nullable array; a
varint of more than five bytes ("Varint is too long"); a string longer than 32767 bytes; lengths past the input;
a value version below the lowest and above the highest; a key of another record type; v0 of the RPCs (Kafka 4.0's
early access, gone in 4.1). Also valid edges: nulls against empty arrays, absent (marker ``ff``), empty and present
assignments, a negative marker other than -1 (Kafka reads any negative marker as null), unknown tagged fields
with their sizes at several levels (kept, and written back), and Kafka 4.0's ShareGroupMetadataValue (no
MetadataHash) cut short for the release's reader. Run from the repository root:
``python vectors/tools/handcraft_share.py > vectors/handcrafted-share.jsonl``.
"""

from __future__ import annotations

import json
import sys

from handcraft_kafka4 import (
    T0,
    T1,
    VectorFile,
    boolean,
    carr,
    cstr,
    cstr_non_flexible,
    i8,
    i16,
    i32,
    i64,
    ints,
    kuuid,
    strs,
    tags,
    uvarint,
)

T2 = bytes(range(0xA0, 0xB0))  # a second topic id
ZERO = "AAAAAAAAAAAAAAAAAAAAAA"  # the zero UUID in Kafka's form

SHARE = VectorFile("hc-share", cut_version=False)
VECTORS, valid, invalid, cuts = SHARE.vectors, SHARE.valid, SHARE.invalid, SHARE.cuts


def refused(vid, message, version, desc, expected):
    """A value Kafka's generated writer refuses (a null in a non-nullable field: NullPointerException or
    "... was serialized as null"): an invalid vector without wire."""
    invalid(vid, message, version, desc, "invalid-value", expected=expected, flags=("encode-refused",))


NEG2 = bytes.fromhex("ffffffff0f")  # uvarint 2^32 - 1: Kafka's readUnsignedVarint gives -1, a count of -2
LONG_VARINT = bytes.fromhex("808080808001")  # six bytes: Kafka throws "Varint is too long"

# --- ShareGroupHeartbeat (76) v1 -------------------------------------------------------------------------

REQ, RESP = "ShareGroupHeartbeatRequest", "ShareGroupHeartbeatResponse"


def hb_request(group="g", member="m", epoch=0, rack=None, topics=None, tagged=None) -> bytes:
    return (
        cstr(group)
        + cstr(member)
        + i32(epoch)
        + cstr(rack)
        + (carr(None) if topics is None else strs(topics))
        + tags(tagged)
    )


def hb_request_json(group="g", member="m", epoch=0, rack=None, topics=None) -> dict:
    return {"groupId": group, "memberId": member, "memberEpoch": epoch, "rackId": rack, "subscribedTopicNames": topics}


w = hb_request("queue-app", "Zq8aHd2mQy6wYkQ0s1XbJg", 0, "rack-a", ["orders", "payments"])
valid(
    "sghb-request-join",
    REQ,
    1,
    "ShareGroupHeartbeatRequest v1: a member joins (epoch 0) with its rack and two "
    "subscribed topics (a share member reports no owned partitions)",
    w,
    hb_request_json("queue-app", "Zq8aHd2mQy6wYkQ0s1XbJg", 0, "rack-a", ["orders", "payments"]),
)
JOIN = w
cuts("sghb-request-join", REQ, 1, w, [0, 1, 10, 33, 37, 45, len(w) - 1])
invalid(
    "sghb-request-v0",
    REQ,
    0,
    "The bytes of hc-share-sghb-request-join read as ShareGroupHeartbeatRequest v0: "
    "v0 was Kafka 4.0's early access and is gone from 4.1 (validVersions 1)",
    "unsupported-version",
    wire=JOIN,
    offset=0,
    flags=("bad-version",),
)
valid(
    "sghb-request-heartbeat",
    REQ,
    1,
    "ShareGroupHeartbeatRequest v1: a plain heartbeat at epoch 5, rack and "
    "topics null (unchanged since the last heartbeat)",
    hb_request(epoch=5),
    hb_request_json(epoch=5),
)
valid(
    "sghb-request-leave",
    REQ,
    1,
    "ShareGroupHeartbeatRequest v1: the member leaves (epoch -1)",
    hb_request(epoch=-1),
    hb_request_json(epoch=-1),
)
valid(
    "sghb-request-empty-subscription",
    REQ,
    1,
    "ShareGroupHeartbeatRequest v1: the subscription is now no topic (an empty array, not null: compact length 01)",
    hb_request(epoch=3, topics=[]),
    hb_request_json(epoch=3, topics=[]),
)
w = hb_request(epoch=2, tagged={0: b"", 300: bytes.fromhex("beef")})
valid(
    "sghb-request-unknown-tags",
    REQ,
    1,
    "ShareGroupHeartbeatRequest v1 with two unknown tagged fields (tag 0, "
    "empty, and tag 300, a two-byte uvarint tag, two bytes): kept and written back",
    w,
    {**hb_request_json(epoch=2), "_unknownTaggedFields": {"0": "", "300": "beef"}},
)
invalid(
    "sghb-request-null-group-id",
    REQ,
    1,
    "ShareGroupHeartbeatRequest v1 whose groupId is null (compact length "
    '00): Kafka\'s reader throws "non-nullable field groupId was serialized as null"',
    "invalid-value",
    wire=b"\x00" + hb_request()[2:],
    offset=0,
)
invalid(
    "sghb-request-null-member-id",
    REQ,
    1,
    "ShareGroupHeartbeatRequest v1 whose memberId is null: refused like any null in a non-nullable string",
    "invalid-value",
    wire=cstr("g") + b"\x00" + hb_request()[4:],
    offset=2,
)
refused(
    "sghb-request-encode-null-group-id",
    REQ,
    1,
    "ShareGroupHeartbeatRequest v1 with groupId null: a non-nullable string, which Kafka's writer cannot write",
    {**hb_request_json(), "groupId": None},
)
refused(
    "sghb-request-encode-null-member-id",
    REQ,
    1,
    "ShareGroupHeartbeatRequest v1 with memberId null: a non-nullable string, which Kafka's writer cannot write",
    {**hb_request_json(), "memberId": None},
)
w = cstr("g") + cstr("m") + i32(0) + cstr(None) + LONG_VARINT + b"\x02a" + tags()
invalid(
    "sghb-request-long-varint",
    REQ,
    1,
    "ShareGroupHeartbeatRequest v1 whose topic count is a six-byte uvarint: "
    'Kafka reads at most five ("Varint is too long")',
    "invalid-count",
    wire=w,
    offset=9,
)
invalid(
    "sghb-request-string-past-input",
    REQ,
    1,
    "ShareGroupHeartbeatRequest v1 whose groupId says 9 bytes and 1 remains",
    "truncated",
    wire=b"\x0ag",
    offset=1,
)
big = "q" * 32767
valid(
    "sghb-request-longest-group-id",
    REQ,
    1,
    "ShareGroupHeartbeatRequest v1 with a 32767-byte group id (the longest "
    "string Kafka reads; compact length 32768 is the uvarint 80 80 02)",
    hb_request(big, ""),
    hb_request_json(big, ""),
)
invalid(
    "sghb-request-group-id-too-long",
    REQ,
    1,
    "ShareGroupHeartbeatRequest v1 with a 32768-byte group id: Kafka's reader refuses a string longer than 32767 bytes",
    "malformed-string",
    wire=hb_request(big + "q", ""),
    offset=0,
)


def assignment(items: list[tuple[bytes, list[int]]]) -> bytes:
    return carr([t + ints(ps) + tags() for t, ps in items]) + tags()


def hb_response(epoch=5, asg: bytes | None = None, error=0, message=None, member="m", interval=5000) -> bytes:
    body = i32(0) + i16(error) + cstr(message) + cstr(member) + i32(epoch) + i32(interval)
    return body + (i8(-1) if asg is None else i8(1) + asg) + tags()


def hb_response_json(epoch=5, asg=None, error=0, message=None, member="m", interval=5000) -> dict:
    return {
        "throttleTimeMs": 0,
        "errorCode": error,
        "errorMessage": message,
        "memberId": member,
        "memberEpoch": epoch,
        "heartbeatIntervalMs": interval,
        "assignment": asg,
    }


valid(
    "sghb-response-no-assignment",
    RESP,
    1,
    "ShareGroupHeartbeatResponse v1: epoch 5, assignment null (unchanged; the int8 marker ff)",
    hb_response(),
    hb_response_json(),
)
valid(
    "sghb-response-empty-assignment",
    RESP,
    1,
    "ShareGroupHeartbeatResponse v1: an assignment of no partition "
    "(marker 01, then an empty topic array): the member holds nothing, which is not the same as null",
    hb_response(asg=assignment([])),
    hb_response_json(asg={"topicPartitions": []}),
)
w = hb_response(6, assignment([(T0, [0, 1, 2]), (T1, [])]))
valid(
    "sghb-response-assignment",
    RESP,
    1,
    "ShareGroupHeartbeatResponse v1: the assignment of epoch 6, three "
    "partitions of one topic and none of the zero topic id",
    w,
    hb_response_json(
        6, {"topicPartitions": [{"topicId": kuuid(T0), "partitions": [0, 1, 2]}, {"topicId": ZERO, "partitions": []}]}
    ),
)
cuts("sghb-response-assignment", RESP, 1, w, [19, 20, 22, 30, len(w) - 1])
w = hb_response(6, None)[:-2] + i8(-2) + tags()
valid(
    "sghb-response-marker-fe",
    RESP,
    1,
    "ShareGroupHeartbeatResponse v1 whose assignment marker is fe (-2): Kafka "
    "reads any negative marker as null; written back as ff",
    w,
    hb_response_json(6),
    canonical=False,
    flags=("negative-marker",),
)
for code, name, msg in (
    (25, "unknown-member-id", "The member is not in the group."),
    (81, "group-max-size-reached", "The group has reached its maximum size."),
    (29, "topic-authorization-failed", None),
):
    valid(
        f"sghb-response-{name}",
        RESP,
        1,
        f"ShareGroupHeartbeatResponse v1: error {code} "
        f"({name.upper().replace('-', '_')}), member id null, epoch 0, no assignment",
        hb_response(0, None, code, msg, None, 0),
        hb_response_json(0, None, code, msg, None, 0),
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
    + tags({5: bytes.fromhex("cafe")})
)
valid(
    "sghb-response-unknown-tags",
    RESP,
    1,
    "ShareGroupHeartbeatResponse v1 with unknown tagged fields at three "
    "levels: a topic (tag 3), the assignment (tag 0) and the body (tag 5, two bytes); kept and written back",
    w,
    {
        **hb_response_json(
            7,
            {
                "topicPartitions": [{"topicId": kuuid(T0), "partitions": [4], "_unknownTaggedFields": {"3": "2a"}}],
                "_unknownTaggedFields": {"0": "01"},
            },
        ),
        "_unknownTaggedFields": {"5": "cafe"},
    },
)
head = i32(0) + i16(0) + cstr(None) + cstr("m") + i32(6) + i32(5000) + i8(1)
invalid(
    "sghb-response-null-topic-partitions",
    RESP,
    1,
    "ShareGroupHeartbeatResponse v1: an assignment (marker 01) "
    "whose topicPartitions is null (compact length 00): a non-nullable array",
    "invalid-value",
    wire=head + b"\x00" + tags() + tags(),
    offset=len(head),
)
invalid(
    "sghb-response-negative-count",
    RESP,
    1,
    "ShareGroupHeartbeatResponse v1: topicPartitions' count is the "
    "uvarint ff ff ff ff 0f, which Kafka's readUnsignedVarint reads as -1 (32 bits), a length of -2: refused in "
    "a non-nullable array",
    "invalid-count",
    wire=head + NEG2 + tags() + tags(),
    offset=len(head),
)
invalid(
    "sghb-response-null-partitions",
    RESP,
    1,
    "ShareGroupHeartbeatResponse v1: a topic whose partitions are null (compact length 00): a non-nullable array",
    "invalid-value",
    wire=head + carr([T0 + b"\x00" + tags()]) + tags() + tags(),
    offset=len(head) + 17,
)
refused(
    "sghb-response-encode-null-topic-partitions",
    RESP,
    1,
    "ShareGroupHeartbeatResponse v1 with an assignment whose topicPartitions is null: a non-nullable array",
    hb_response_json(6, {"topicPartitions": None}),
)
refused(
    "sghb-response-encode-null-partitions",
    RESP,
    1,
    "ShareGroupHeartbeatResponse v1 with a topic whose partitions are null: a non-nullable array",
    hb_response_json(6, {"topicPartitions": [{"topicId": kuuid(T0), "partitions": None}]}),
)

# --- ShareGroupDescribe (77) v1 --------------------------------------------------------------------------

DREQ, DRESP = "ShareGroupDescribeRequest", "ShareGroupDescribeResponse"
w = strs(["queue-app", "other"]) + boolean(True) + tags()
valid(
    "sgd-request-two-groups",
    DREQ,
    1,
    "ShareGroupDescribeRequest v1: two group ids, with authorized operations",
    w,
    {"groupIds": ["queue-app", "other"], "includeAuthorizedOperations": True},
)
cuts("sgd-request-two-groups", DREQ, 1, w, [1, 11, len(w) - 1])
valid(
    "sgd-request-empty",
    DREQ,
    1,
    "ShareGroupDescribeRequest v1 naming no group",
    strs([]) + boolean(False) + tags(),
    {"groupIds": [], "includeAuthorizedOperations": False},
)
invalid(
    "sgd-request-null-group-ids",
    DREQ,
    1,
    "ShareGroupDescribeRequest v1 whose groupIds is null (compact length 00): a non-nullable array",
    "invalid-value",
    wire=b"\x00" + boolean(False) + tags(),
    offset=0,
)
refused(
    "sgd-request-encode-null-group-ids",
    DREQ,
    1,
    "ShareGroupDescribeRequest v1 with groupIds null: a non-nullable array",
    {"groupIds": None, "includeAuthorizedOperations": False},
)


def d_member(
    mid, epoch, topics, parts: list[tuple[bytes, str, list[int]]], rack=None, client="share-consumer", host="/10.0.0.7"
) -> bytes:
    return (
        cstr(mid)
        + cstr(rack)
        + i32(epoch)
        + cstr(client)
        + cstr(host)
        + strs(topics)
        + carr([t + cstr(n) + ints(ps) + tags() for t, n, ps in parts])
        + tags()
        + tags()
    )


def d_member_json(mid, epoch, topics, parts, rack=None, client="share-consumer", host="/10.0.0.7") -> dict:
    return {
        "memberId": mid,
        "rackId": rack,
        "memberEpoch": epoch,
        "clientId": client,
        "clientHost": host,
        "subscribedTopicNames": topics,
        "assignment": {
            "topicPartitions": [{"topicId": kuuid(t), "topicName": n, "partitions": ps} for t, n, ps in parts]
        },
    }


def d_group(
    members: list[bytes],
    error=0,
    message=None,
    group="queue-app",
    state="Stable",
    epoch=4,
    asg_epoch=4,
    assignor="simple",
    ops=-2147483648,
) -> bytes:
    return (
        i16(error)
        + cstr(message)
        + cstr(group)
        + cstr(state)
        + i32(epoch)
        + i32(asg_epoch)
        + cstr(assignor)
        + carr(members)
        + i32(ops)
        + tags()
    )


def d_group_json(
    members,
    error=0,
    message=None,
    group="queue-app",
    state="Stable",
    epoch=4,
    asg_epoch=4,
    assignor="simple",
    ops=-2147483648,
) -> dict:
    return {
        "errorCode": error,
        "errorMessage": message,
        "groupId": group,
        "groupState": state,
        "groupEpoch": epoch,
        "assignmentEpoch": asg_epoch,
        "assignorName": assignor,
        "members": members,
        "authorizedOperations": ops,
    }


a_parts, b_parts = [(T0, "orders", [0, 1])], [(T0, "orders", [1, 2]), (T2, "payments", [0])]
w = (
    i32(0)
    + carr(
        [
            d_group(
                [d_member("m1", 4, ["orders"], a_parts, "rack-a"), d_member("m2", 4, ["orders", "payments"], b_parts)]
            )
        ]
    )
    + tags()
)
valid(
    "sgd-response-sharing",
    DRESP,
    1,
    "ShareGroupDescribeResponse v1: a stable share group at epoch 4 whose two "
    "members both hold partition orders-1 (share groups let several members consume one partition)",
    w,
    {
        "throttleTimeMs": 0,
        "groups": [
            d_group_json(
                [
                    d_member_json("m1", 4, ["orders"], a_parts, "rack-a"),
                    d_member_json("m2", 4, ["orders", "payments"], b_parts),
                ]
            )
        ],
    },
)
cuts("sgd-response-sharing", DRESP, 1, w, [4, 5, 40, 60, len(w) - 1])
w = (
    i32(0)
    + carr([d_group([], 69, "Group queue-app not found.", state="Dead", epoch=-1, asg_epoch=-1, assignor="")])
    + tags()
)
valid(
    "sgd-response-not-found",
    DRESP,
    1,
    "ShareGroupDescribeResponse v1: GROUP_ID_NOT_FOUND (69) with its message, state Dead, no members",
    w,
    {
        "throttleTimeMs": 0,
        "groups": [
            d_group_json([], 69, "Group queue-app not found.", state="Dead", epoch=-1, asg_epoch=-1, assignor="")
        ],
    },
)
w = i32(0) + carr([d_group([d_member("m1", 1, [], [])], state="Empty", epoch=1, asg_epoch=1, ops=0x1F8)]) + tags()
valid(
    "sgd-response-empty-assignment",
    DRESP,
    1,
    "ShareGroupDescribeResponse v1: a member subscribed to no topic "
    "whose assignment (a non-nullable struct, no marker) holds no partition; authorized operations a bitfield",
    w,
    {
        "throttleTimeMs": 0,
        "groups": [d_group_json([d_member_json("m1", 1, [], [])], state="Empty", epoch=1, asg_epoch=1, ops=0x1F8)],
    },
)
pre = (
    i32(0)
    + uvarint(2)
    + i16(0)
    + cstr(None)
    + cstr("queue-app")
    + cstr("Stable")
    + i32(4)
    + i32(4)
    + cstr("simple")
    + uvarint(2)
    + cstr("m1")
    + cstr(None)
    + i32(4)
    + cstr("c")
    + cstr("/h")
)
invalid(
    "sgd-response-null-subscribed-topics",
    DRESP,
    1,
    "ShareGroupDescribeResponse v1: a member whose "
    "subscribedTopicNames is null: non-nullable in Describe (unlike the heartbeat's)",
    "invalid-value",
    wire=pre + b"\x00" + carr([]) + tags() + tags() + i32(0) + tags() + tags(),
    offset=len(pre),
)
cut = len(
    i32(0)
    + uvarint(2)
    + i16(0)
    + cstr(None)
    + cstr("queue-app")
    + cstr("Stable")
    + i32(4)
    + i32(4)
    + cstr("simple")
    + uvarint(2)
    + cstr("m1")
    + cstr(None)
    + i32(4)
)
invalid(
    "sgd-response-null-client-id",
    DRESP,
    1,
    "ShareGroupDescribeResponse v1: a member whose clientId is null: a non-nullable string",
    "invalid-value",
    wire=pre[:cut] + b"\x00" + pre[cut + 2 :] + strs([]) + carr([]) + tags() + tags() + i32(0) + tags() + tags(),
    offset=cut,
)
refused(
    "sgd-response-encode-null-subscribed-topics",
    DRESP,
    1,
    "ShareGroupDescribeResponse v1 with a member's subscribedTopicNames null: a non-nullable array in Describe",
    {"throttleTimeMs": 0, "groups": [d_group_json([{**d_member_json("m1", 4, [], []), "subscribedTopicNames": None}])]},
)
refused(
    "sgd-response-encode-null-assignment",
    DRESP,
    1,
    "ShareGroupDescribeResponse v1 with a member's assignment "
    "null: a non-nullable struct in Describe (no marker on the wire)",
    {"throttleTimeMs": 0, "groups": [d_group_json([{**d_member_json("m1", 4, [], []), "assignment": None}])]},
)

# --- __consumer_offsets records (types 9-15) -------------------------------------------------------------

RECORDS = {
    9: "ShareGroupPartitionMetadata",
    10: "ShareGroupMemberMetadata",
    11: "ShareGroupMetadata",
    12: "ShareGroupTargetAssignmentMetadata",
    13: "ShareGroupTargetAssignmentMember",
    14: "ShareGroupCurrentMemberAssignment",
    15: "ShareGroupStatePartitionMetadata",
}
WITH_MEMBER = {10, 13, 14}
for t, name in RECORDS.items():
    key = i16(t) + cstr_non_flexible("queue-app") + (cstr_non_flexible("m1") if t in WITH_MEMBER else b"")
    valid(
        f"record-{name.lower()}-key",
        f"{name}Key",
        None,
        f"The key of a {name} record: int16 record type {t}, "
        "then the group id" + (" and the member id" if t in WITH_MEMBER else "") + " as int16-length strings "
        "(keys are not flexible)",
        key,
        {"groupId": "queue-app", **({"memberId": "m1"} if t in WITH_MEMBER else {})},
    )
invalid(
    "record-sharegroupmetadata-key-other-type",
    "ShareGroupMetadataKey",
    None,
    "A ShareGroupTargetAssignmentMetadata key (record type 12) read as a ShareGroupMetadata key (type 11)",
    "invalid-value",
    wire=i16(12) + cstr_non_flexible("queue-app"),
    offset=0,
)
invalid(
    "record-sharegroupmetadata-key-null-group-id",
    "ShareGroupMetadataKey",
    None,
    "A ShareGroupMetadata key "
    "whose group id has the int16 length -1: Kafka's reader throws \"non-nullable field groupId was serialized "
    'as null"',
    "invalid-value",
    wire=i16(11) + i16(-1),
    offset=2,
)
refused(
    "record-sharegroupmembermetadata-key-encode-null-member-id",
    "ShareGroupMemberMetadataKey",
    None,
    "A ShareGroupMemberMetadata key with memberId null: a non-nullable string",
    {"groupId": "queue-app", "memberId": None},
)

w = i16(0) + carr([T0 + cstr("orders") + i32(3) + carr([i32(0) + strs(["rack-a"]) + tags()]) + tags()]) + tags()
valid(
    "record-sharegrouppartitionmetadata-value",
    "ShareGroupPartitionMetadataValue",
    None,
    "A ShareGroupPartition"
    "Metadata value (record type 9, written by Kafka 4.0's early-access share groups): a topic of three partitions, "
    "the racks of partition 0",
    w,
    {
        "valueVersion": 0,
        "topics": [
            {
                "topicId": kuuid(T0),
                "topicName": "orders",
                "numPartitions": 3,
                "partitionMetadata": [{"partition": 0, "racks": ["rack-a"]}],
            }
        ],
    },
)
w = i16(0) + cstr("rack-a") + cstr("share-consumer-1") + cstr("/10.0.0.7") + strs(["orders", "payments"]) + tags()
valid(
    "record-sharegroupmembermetadata-value",
    "ShareGroupMemberMetadataValue",
    None,
    "A ShareGroupMemberMetadata value: rack, client id and host, two subscribed topics",
    w,
    {
        "valueVersion": 0,
        "rackId": "rack-a",
        "clientId": "share-consumer-1",
        "clientHost": "/10.0.0.7",
        "subscribedTopicNames": ["orders", "payments"],
    },
)
w = i16(0) + cstr(None) + cstr("c") + cstr("/h") + strs([]) + tags()
valid(
    "record-sharegroupmembermetadata-value-no-rack",
    "ShareGroupMemberMetadataValue",
    None,
    "A ShareGroupMemberMetadata value without a rack (null) subscribed to no topic (an empty array)",
    w,
    {"valueVersion": 0, "rackId": None, "clientId": "c", "clientHost": "/h", "subscribedTopicNames": []},
)
invalid(
    "record-sharegroupmembermetadata-value-null-topics",
    "ShareGroupMemberMetadataValue",
    None,
    "A ShareGroupMemberMetadata value whose subscribedTopicNames is null: a non-nullable array in the record",
    "invalid-value",
    wire=i16(0) + cstr(None) + cstr("c") + cstr("/h") + b"\x00" + tags(),
    offset=8,
)
refused(
    "record-sharegroupmembermetadata-value-encode-null-client-id",
    "ShareGroupMemberMetadataValue",
    None,
    "A ShareGroupMemberMetadata value with clientId null: a non-nullable string",
    {"valueVersion": 0, "rackId": None, "clientId": None, "clientHost": "/h", "subscribedTopicNames": []},
)
w = i16(0) + i32(7) + i64(-6075553813464633734) + tags()
valid(
    "record-sharegroupmetadata-value",
    "ShareGroupMetadataValue",
    None,
    "A ShareGroupMetadata value: group epoch 7 and the hash of the subscribed topics' metadata (a negative int64)",
    w,
    {"valueVersion": 0, "epoch": 7, "metadataHash": -6075553813464633734},
)
invalid(
    "record-sharegroupmetadata-value-4-0-layout",
    "ShareGroupMetadataValue",
    None,
    "A ShareGroupMetadata value "
    "as Kafka 4.0's early access wrote it (the epoch, no MetadataHash): the 4.1 reader runs out of bytes in "
    "metadataHash",
    "truncated",
    wire=i16(0) + i32(7) + tags(),
    offset=6,
    flags=("truncated",),
)
invalid(
    "record-sharegroupmetadata-value-version-minus-1",
    "ShareGroupMetadataValue",
    None,
    "A ShareGroupMetadata value whose version prefix is -1, below the lowest (0)",
    "unsupported-version",
    wire=i16(-1) + i32(7) + i64(0) + tags(),
    offset=0,
    flags=("bad-version",),
)
invalid(
    "record-sharegroupmetadata-value-version-1",
    "ShareGroupMetadataValue",
    None,
    "A ShareGroupMetadata value whose version prefix says 1: the release has version 0 only",
    "unsupported-version",
    wire=i16(1) + i32(7) + i64(0) + tags(),
    offset=0,
    flags=("bad-version",),
)
valid(
    "record-sharegrouptargetassignmentmetadata-value",
    "ShareGroupTargetAssignmentMetadataValue",
    None,
    "A ShareGroupTargetAssignmentMetadata value: assignment epoch 7, no AssignmentTimestamp (tag 0 since 4.3: read "
    "as 0)",
    i16(0) + i32(7) + tags(),
    {"valueVersion": 0, "assignmentEpoch": 7, "assignmentTimestamp": 0},
)
w = i16(0) + carr([T0 + ints([0, 1]) + tags(), T2 + ints([]) + tags()]) + tags()
valid(
    "record-sharegrouptargetassignmentmember-value",
    "ShareGroupTargetAssignmentMemberValue",
    None,
    "A ShareGroupTargetAssignmentMember value: partitions 0 and 1 of one topic and none of another",
    w,
    {
        "valueVersion": 0,
        "topicPartitions": [{"topicId": kuuid(T0), "partitions": [0, 1]}, {"topicId": kuuid(T2), "partitions": []}],
    },
)
valid(
    "record-sharegrouptargetassignmentmember-value-empty",
    "ShareGroupTargetAssignmentMemberValue",
    None,
    "A ShareGroupTargetAssignmentMember value that assigns nothing (an empty array)",
    i16(0) + carr([]) + tags(),
    {"valueVersion": 0, "topicPartitions": []},
)
w = i16(0) + i32(7) + i32(6) + i8(0) + carr([T0 + ints([1, 2]) + tags({1: b"\x00\x01"})]) + tags({2: b""})
valid(
    "record-sharegroupcurrentmemberassignment-value",
    "ShareGroupCurrentMemberAssignmentValue",
    None,
    "A ShareGroupCurrentMemberAssignment value: epoch 7 after 6, state 0 (STABLE), partitions 1 and 2; unknown "
    "tagged fields on the topic (tag 1, two bytes) and the body (tag 2, empty), kept",
    w,
    {
        "valueVersion": 0,
        "memberEpoch": 7,
        "previousMemberEpoch": 6,
        "state": 0,
        "assignedPartitions": [{"topicId": kuuid(T0), "partitions": [1, 2], "_unknownTaggedFields": {"1": "0001"}}],
        "_unknownTaggedFields": {"2": ""},
    },
)
invalid(
    "record-sharegroupcurrentmemberassignment-value-long-varint",
    "ShareGroupCurrentMemberAssignmentValue",
    None,
    "A ShareGroupCurrentMemberAssignment value whose partition count is a six-byte uvarint (Kafka reads at most five)",
    "invalid-count",
    wire=i16(0) + i32(7) + i32(6) + i8(0) + uvarint(2) + T0 + LONG_VARINT,
    offset=28,
)
w = (
    i16(0)
    + carr([T0 + cstr("orders") + ints([0, 1, 2]) + tags()])
    + carr([T2 + cstr("payments") + ints([0]) + tags()])
    + carr([T1 + cstr("old") + tags()])
    + tags()
)
valid(
    "record-sharegroupstatepartitionmetadata-value",
    "ShareGroupStatePartitionMetadataValue",
    None,
    "A ShareGroupStatePartitionMetadata value: a topic whose share-group state is being initialized (3 partitions), "
    "one initialized, one being deleted (topic id and name only)",
    w,
    {
        "valueVersion": 0,
        "initializingTopics": [{"topicId": kuuid(T0), "topicName": "orders", "partitions": [0, 1, 2]}],
        "initializedTopics": [{"topicId": kuuid(T2), "topicName": "payments", "partitions": [0]}],
        "deletingTopics": [{"topicId": ZERO, "topicName": "old"}],
    },
)
valid(
    "record-sharegroupstatepartitionmetadata-value-empty",
    "ShareGroupStatePartitionMetadataValue",
    None,
    "A ShareGroupStatePartitionMetadata value with nothing initializing, initialized or deleting",
    i16(0) + carr([]) + carr([]) + carr([]) + tags(),
    {"valueVersion": 0, "initializingTopics": [], "initializedTopics": [], "deletingTopics": []},
)

# every record kind, cut: its first valid vector cut to half and to all but its last byte
for kind in dict.fromkeys(v["message"] for v in VECTORS if v["version"] is None):
    v = next((v for v in VECTORS if v["message"] == kind and v["result"] == "valid"), None)
    if v is not None:
        raw = bytes.fromhex(v["wire"])
        cuts(v["id"].removeprefix("hc-share-"), kind, None, raw, sorted({len(raw) // 2, len(raw) - 1}))


if __name__ == "__main__":
    for v in VECTORS:
        sys.stdout.write(json.dumps(v, ensure_ascii=False) + "\n")
