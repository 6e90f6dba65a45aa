"""The amplification check's cases (:mod:`codec.fuzz.amplification`): a :class:`Case` (one run of a command on one
input) and the generators of :data:`SHAPES`, biased towards the shapes that amplify, with :func:`cases`, the
deterministic sequence of a seed."""

from __future__ import annotations

import base64
import functools
import gzip
import json
import random
import struct
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from ..budget import BUDGETS
from ..errors import CodecError

__all__ = ["COMMANDS", "SHAPES", "MAX_INPUT", "Case", "case_from_json", "cases"]

#: The commands checked: those of :data:`codec.budget.BUDGETS`.
COMMANDS = tuple(BUDGETS)
_FILE = "{file}"  # in a case's argv: the path of its input file


@dataclass(frozen=True)
class Case:
    """One run: ``command`` with ``argv`` after it (``{file}`` stands for ``file`` written out), ``stdin``;
    ``size`` is the input's size as the budget counts it; ``shape`` the generator that made it."""

    command: str
    argv: tuple[str, ...]
    size: int
    shape: str
    stdin: bytes = b""
    file: bytes | None = None

    def to_json(self) -> dict:
        pack = lambda b: None if b is None else base64.b64encode(zlib.compress(b, 9)).decode("ascii")  # noqa: E731
        return {
            "command": self.command,
            "argv": list(self.argv),
            "size": self.size,
            "shape": self.shape,
            "stdin_z": pack(self.stdin),
            "file_z": pack(self.file),
        }


def case_from_json(d: dict) -> Case:
    unpack = lambda s: None if s is None else zlib.decompress(base64.b64decode(s))  # noqa: E731
    return Case(d["command"], tuple(d["argv"]), d["size"], d["shape"], unpack(d["stdin_z"]) or b"", unpack(d["file_z"]))


# --- the inputs ----------------------------------------------------------------------------------------------

#: String lengths and element counts the generators draw, the small ones far more often (:func:`_pick`).
_LENGTHS = (0, 1, 3, 10, 40, 250, 1000, 3000, 30_000)
_COUNTS = (0, 1, 2, 16, 100, 1000, 5000, 20_000)
#: The largest input a generator makes (the budgets are proportional: bigger inputs only take longer).
MAX_INPUT = 256 * 1024


def _pick(rng: random.Random, values: tuple[int, ...], top: int | None = None) -> int:
    """One of ``values`` (at most ``top``), each half as likely as the one before: the largest come rarely."""
    values = tuple(v for v in values if top is None or v <= top)
    return rng.choices(values, weights=[1 << (len(values) - i) for i in range(len(values))])[0]


def _name(style: int, n: int) -> str:
    """A name of ``n`` characters: one ASCII character repeated (styles 0-6), or non-ASCII text (style 7; a
    third as long: a Kafka string holds at most 32,767 bytes)."""
    return "xyz0_-."[style] * n if style < 7 else ("ab\u00e9\u2603" * n)[: n // 3]


def _style(rng: random.Random) -> int:
    return rng.randrange(8)


def _fitting(make: Callable[[int], bytes], n: int) -> bytes:
    """``make(n)``, with ``n`` cut by ten until the result is at most :data:`MAX_INPUT` bytes."""
    while True:
        data = make(n)
        if len(data) <= MAX_INPUT or n == 0:
            return data
        n //= 10


def _decode_case(shape: str, kind: str, data: bytes, rng: random.Random, *opts: str) -> Case:
    fmt = ("--format", "pretty") if rng.random() < 0.4 else (("--compact",) if rng.random() < 0.5 else ())
    style = ("--style", "snake") if rng.random() < 0.2 else ()
    if rng.random() < 0.15:  # one line of --lines
        return Case(
            "decode", ("--kind", kind, *opts, *style, "--lines"), len(data), shape, stdin=data.hex().encode() + b"\n"
        )
    return Case("decode", ("--kind", kind, *opts, *fmt, *style, f"@{_FILE}"), len(data), shape, file=data)


@functools.lru_cache(maxsize=256)
def _streams_bytes(request: bool, style: int, n: int, parts: int, entries: int, extra: int) -> bytes:
    """A StreamsGroupHeartbeat body: ``entries`` TaskIds of a subtopology named by ``n`` characters over
    ``parts`` partitions, and (``extra``) standbys, statuses, an endpoint's partitions, task offsets with one
    long subtopology among short ones, or client tags."""
    from ..kafka4 import encode

    def make(k: int) -> bytes:
        tasks = [{"subtopologyId": _name(style, n), "partitions": list(range(k))}] * entries
        body: dict[str, object]
        if request:
            offsets = [
                {"subtopologyId": _name(style, n if i == 0 else 1), "partition": i, "offset": i}
                for i in range(k if extra & 1 else 0)
            ]
            body = {
                "groupId": "g",
                "memberId": "m",
                "activeTasks": tasks,
                "taskOffsets": offsets,
                "taskEndOffsets": offsets if extra & 2 else None,
                "clientTags": [{"key": "k", "value": "v"}] * k if extra & 4 else None,
            }
            return encode("streams-group-heartbeat-request", 0, body)
        body = {
            "memberId": "m",
            "activeTasks": tasks,
            "standbyTasks": tasks if extra & 1 else None,
            "status": [{"statusCode": 1, "statusDetail": str(i)} for i in range(k)] if extra & 2 else None,
            "partitionsByUserEndpoint": [
                {
                    "userEndpoint": {"host": _name(style, n), "port": 1},
                    "activePartitions": [{"topic": _name(style, n), "partitions": list(range(k))}],
                    "standbyPartitions": [],
                }
            ]
            if extra & 4
            else None,
        }
        return encode("streams-group-heartbeat-response", 0, body)

    return _fitting(make, parts)


def _streams_tasks(rng: random.Random) -> Case:
    request = rng.random() < 0.4
    data = _streams_bytes(
        request, _style(rng), _pick(rng, _LENGTHS), _pick(rng, _COUNTS), rng.choice((1, 1, 2, 8)), rng.randrange(8)
    )
    kind = "streams-group-heartbeat-request" if request else "streams-group-heartbeat-response"
    return _decode_case("streams heartbeat tasks", kind, data, rng, "--version", "0")


@functools.lru_cache(maxsize=256)
def _assignment_bytes(version: int, style: int, n: int, host: int, parts: int, extra: int) -> bytes:
    """An AssignmentInfo whose topic dictionary names one topic of ``n`` characters for ``parts`` partitions
    (of a host of ``host`` characters), with (``extra``) standby tasks and standby partitions by host."""
    from ..streams import AssignmentInfo, encode_assignment
    from ..types import HostInfo, TaskId, TopicPartition

    def make(k: int) -> bytes:
        topic = _name(style, n)
        hosts = {HostInfo(_name(style, host) or "h", 1): tuple(TopicPartition(topic, p) for p in range(k))}
        standby: dict[TaskId, tuple[TopicPartition, ...]] = (
            {TaskId(0, i): (TopicPartition(topic, i),) for i in range(k)} if extra & 1 else {}
        )
        info = AssignmentInfo(
            version=version,
            partitions_by_host=hosts,
            standby_tasks=standby,
            standby_partitions_by_host=hosts if version >= 6 and extra & 2 else {},
        )
        return encode_assignment(info, version)

    return _fitting(make, parts)


def _assignment_dictionary(rng: random.Random) -> Case:
    data = _assignment_bytes(
        rng.choice((5, 6, 7, 8, 9, 10, 11)),
        _style(rng),
        _pick(rng, _LENGTHS, 3000),
        _pick(rng, _LENGTHS, 3000),
        _pick(rng, _COUNTS, 5000),
        rng.randrange(4),
    )
    return _decode_case("assignment-info topic dictionary", "assignment-info", data, rng)


@functools.lru_cache(maxsize=256)
def _connect_bytes(version: int, style: int, n: int, leader: int, tasks: int) -> bytes:
    from ..connect import ConnectAssignment, ConnectorTaskId, encode_connect_assignment

    def make(k: int) -> bytes:
        name = _name(style, n)
        a = ConnectAssignment(
            version=version,
            leader=_name(style, leader),
            leader_url="u",
            config_offset=1,
            connectors=(name,) * min(k, 100),
            tasks=tuple(ConnectorTaskId(name, i) for i in range(k)),
        )
        return encode_connect_assignment(a)

    return _fitting(make, tasks)


def _connect_names(rng: random.Random) -> Case:
    data = _connect_bytes(
        rng.choice((0, 1, 2)),
        _style(rng),
        _pick(rng, _LENGTHS, 3000),
        _pick(rng, _LENGTHS, 3000),
        _pick(rng, _COUNTS, 10_000),
    )
    return _decode_case("connect assignment names", "connect-assignment", data, rng)


#: Messages with arrays of tiny elements: (kind, version, a body of n elements).
_TINY: tuple[tuple[str, int, Callable[[int], dict]], ...] = (
    ("consumer-group-describe-response", 1, lambda n: {"groups": [{}] * n}),
    ("streams-group-describe-response", 0, lambda n: {"groups": [{"members": [{}] * 3}] * n}),
    ("streams-group-heartbeat-request", 0, lambda n: {"topology": {"subtopologies": [{}] * n}}),
    ("streams-group-heartbeat-response", 0, lambda n: {"activeTasks": [{}] * n, "warmupTasks": [{}] * n}),
    ("consumer-group-heartbeat-response", 1, lambda n: {"assignment": {"topicPartitions": [{}] * n}}),
    ("consumer-group-heartbeat-request", 0, lambda n: {"_unknownTaggedFields": {str(i): "" for i in range(n)}}),
    ("join-group-response", 5, lambda n: {"members": [{"memberId": "", "metadata": ""}] * n}),
    ("join-group-request", 5, lambda n: {"protocols": [{"name": "", "metadata": ""}] * n}),
    ("sync-group-request", 3, lambda n: {"assignments": [{"memberId": "", "assignment": ""}] * n}),
)


@functools.lru_cache(maxsize=256)
def _tiny_bytes(which: int, n: int, as_json: bool) -> bytes:
    from ..catalog import get_kind

    kind, version, body = _TINY[which]
    if as_json:
        return _fitting(lambda k: json.dumps(body(k)).encode(), n)
    return _fitting(lambda k: get_kind(kind).encode(body(k), style="kafka", version=version), n)


def _tiny_elements(rng: random.Random) -> Case:
    which = rng.randrange(len(_TINY))
    kind, version, _ = _TINY[which]
    if rng.random() < 0.4:  # the same, as JSON to encode (defaults fill each {})
        value = _tiny_bytes(which, _pick(rng, _COUNTS), True)
        return Case(
            "encode",
            ("--kind", kind, "--version", str(version), f"@{_FILE}"),
            len(value),
            "tiny elements (encode)",
            file=value,
        )
    data = _tiny_bytes(which, _pick(rng, _COUNTS), False)
    return _decode_case("tiny elements", kind, data, rng, "--version", str(version))


_SEEDS: dict[str, list[bytes]] | None = None


def _seeds() -> dict[str, list[bytes]]:
    global _SEEDS
    if _SEEDS is None:
        from .corpus import seeds

        _SEEDS = {k: v for k, v in seeds().items() if v}
    return _SEEDS


def _mutated(rng: random.Random) -> Case:
    """A fuzz seed of a decode target, mutated (or not)."""
    from .cli_inputs import _kind_args
    from .mutations import mutate

    seeds = _seeds()
    while True:
        target = rng.choice(sorted(seeds))
        ka = _kind_args(target)
        if ka is not None:
            break
    kind, opts = ka
    pool = seeds[target]
    data = rng.choice(pool)
    for _ in range(rng.choice((0, 1, 1, 2, 4))):
        data = mutate(data, rng, pool)
    return _decode_case("mutated seed", kind, data, rng, *opts)


def _encode_mutated(rng: random.Random) -> Case:
    """The JSON of a decoded seed, mutated as values (wrong types, huge numbers, deep nesting ...)."""
    from ..catalog import get_kind
    from .cli_inputs import _kind_args, json_text, mutate_value

    seeds = _seeds()
    for _ in range(20):
        target = rng.choice(sorted(seeds))
        ka = _kind_args(target)
        if ka is None:
            continue
        kind, opts = ka
        options = dict(zip(opts[::2], opts[1::2]))
        try:
            value = (
                get_kind(kind)
                .decode(
                    rng.choice(seeds[target]),
                    style="kafka",
                    version=int(options["--version"]) if "--version" in options else None,
                    **({"api_key": int(options["--api-key"])} if "--api-key" in options else {}),
                )
                .value
            )
        except Exception:  # noqa: BLE001 - a seed this kind refuses: try another
            continue
        value = mutate_value(value, rng) if rng.random() < 0.7 else value
        text = json_text(value, rng)
        return Case("encode", ("--kind", kind, *opts, f"@{_FILE}"), len(text), "mutated json", file=text)
    return _mutated(rng)


def _assign_streams(rng: random.Random) -> Case:
    from .cli_inputs import _random_group, json_text, mutate_value

    doc = _random_group(rng)
    if rng.random() < 0.3:
        doc["configs"]["numStandbyReplicas"] = rng.choice((5, 100))
    if rng.random() < 0.5:
        doc = mutate_value(doc, rng)
    text = json_text(doc, rng)
    fmt = ("--format", "table") if rng.random() < 0.2 else ()
    return Case("assign", (*fmt, f"{_FILE}"), len(text), "streams group", file=text)


def _assign_share(rng: random.Random) -> Case:
    """A share group for ``assign --share``: long topic and member names, partition counts up to past the cap,
    members subscribed to every topic or to one, with current assignments."""
    style = _style(rng)
    topics = {
        _name(style, _pick(rng, _LENGTHS, 3000)) + str(i): _pick(rng, (0, 1, 10, 1000, 20_000, 200_000))
        for i in range(_pick(rng, (1, 2, 10, 100)))
    }
    names = list(topics)
    n = _pick(rng, _LENGTHS, 3000)
    members = []
    for i in range(_pick(rng, (0, 1, 2, 10, 100, 1000))):
        subscribed = names if rng.random() < 0.5 else [rng.choice(names)]
        current = {t: list(range(min(topics[t], _pick(rng, (0, 1, 100))))) for t in subscribed[:2]}
        members.append(
            {"memberId": _name(style, n) + str(i), "subscribedTopicNames": subscribed, "assignment": current}
        )
    doc = {"topics": topics, "members": members}
    if rng.random() < 0.2:
        doc["assignablePartitions"] = {t: list(range(min(c, 10))) for t, c in topics.items()}
    text = json.dumps(doc).encode()
    return Case("assign", ("--share", f"{_FILE}"), len(text), "share group", file=text)


def _assign_connect(rng: random.Random) -> Case:
    style, n = _style(rng), _pick(rng, _LENGTHS, 1000)
    connectors = {
        _name(style, n) + str(i): _pick(rng, (0, 1, 10, 100, 1000, 10_000))
        for i in range(_pick(rng, (1, 10, 100, 1000)))
    }
    leader = _name(style, _pick(rng, _LENGTHS, 3000)) or "w0"
    workers = [{"memberId": leader, "url": _name(style, _pick(rng, _LENGTHS, 1000))}] + [
        {"memberId": f"w{i}"} for i in range(_pick(rng, (0, 1, 10, 100)))
    ]
    doc = {
        "connectors": connectors,
        "workers": workers,
        "leader": leader,
        "protocol": rng.choice(("default", "compatible", "sessioned")),
    }
    text = json.dumps(doc).encode()
    extra = ("--emit-bytes",) if rng.random() < 0.5 else ()
    return Case("assign", ("--connect", *extra, f"{_FILE}"), len(text), "connect names", file=text)


def _segment(
    records: list[tuple[bytes, bytes | None]] | tuple[int, bytes, bytes | None], codec: int, distinct: bool
) -> bytes:
    """A one-batch segment; ``records`` may be (count, key, value): that many copies."""
    import cramjam
    import crc32c

    from .corpus import _zigzag

    def record(i: int, k: bytes, v: bytes | None) -> bytes:
        body = b"\x00" + _zigzag(0) + _zigzag(i if distinct else 0) + _zigzag(len(k)) + k
        body += (_zigzag(-1) if v is None else _zigzag(len(v)) + v) + _zigzag(0)
        return _zigzag(len(body)) + body

    if isinstance(records, tuple):  # (count, key, value): the same record that many times
        n, key, value = records
        recs, count = record(0, key, value) * n, n
    else:
        recs, count = b"".join(record(i, k, v) for i, (k, v) in enumerate(records)), len(records)
    payload = {
        0: lambda b: b,
        1: lambda b: gzip.compress(b, mtime=0),
        4: lambda b: bytes(cramjam.zstd.compress(b, level=3)),
    }[codec](recs)
    after = (
        struct.pack(">hiqqqhii", codec, count - 1, 1_700_000_000_000, 1_700_000_000_000, -1, -1, -1, count) + payload
    )
    body = struct.pack(">ibI", 0, 2, crc32c.crc32c(after)) + after
    return struct.pack(">qi", 0, len(body)) + body


@functools.lru_cache(maxsize=128)
def _tiny_records(n: int, codec: int, distinct: bool) -> bytes:
    """A batch of ``n`` tiny ConsumerGroupMetadata records: the same record, or (at most 100,000) one epoch
    each (the value's int32 epoch follows its int16 version)."""
    from ..kafka4 import encode_record

    key, value = encode_record({"record": "ConsumerGroupMetadata", "key": {"groupId": "g"}, "value": {"epoch": 0}})
    assert value is not None  # a value given is never a tombstone
    if not distinct:
        return _segment((n, key, value), codec, False)
    return _segment([(key, value[:2] + struct.pack(">i", i) + value[6:]) for i in range(min(n, 100_000))], codec, True)


@functools.lru_cache(maxsize=64)
def _member_records(n: int, codec: int) -> bytes:
    """A batch of ``n`` current-assignment records, each of its own member."""
    from ..kafka4 import encode_record

    return _segment(
        [
            encode_record(
                {
                    "record": "ConsumerGroupCurrentMemberAssignment",
                    "key": {"groupId": "g", "memberId": f"m{i}"},
                    "value": {"memberEpoch": i, "previousMemberEpoch": i - 1, "state": 0},
                }
            )
            for i in range(n)
        ],
        codec,
        True,
    )


@functools.lru_cache(maxsize=8)
def _bomb(size: int) -> bytes:
    """A zstd batch of one record whose value is ``size`` zero bytes."""
    return _segment([(b"\x00\x02" + b"\x00" * 10, b"\x00" * size)], 4, False)


def _capture_segment(rng: random.Random) -> Case:
    which = rng.random()
    if which < 0.4:  # many tiny records
        data = _tiny_records(
            _pick(rng, (10, 1000, 10_000, 100_000, 1_000_000)), rng.choice((1, 4, 4)), rng.random() < 0.3
        )
    elif which < 0.6:  # distinct members
        data = _member_records(_pick(rng, (10, 1000, 5000)), rng.choice((0, 4)))
    elif which < 0.7:  # a decompression bomb: one record of zeros
        data = _bomb(_pick(rng, (10, 1 << 20, 8 << 20)))
    else:  # a fuzz seed segment, mutated
        from .mutations import mutate

        pool = _seeds().get("offsets-segment") or [b""]
        data = rng.choice(pool)
        for _ in range(rng.choice((0, 1, 3))):
            data = mutate(data, rng, pool)
    json_flag = ("--json",) if rng.random() < 0.5 else ()
    return Case("capture", (*json_flag, _FILE), len(data), "offsets segment", file=data)


def _exchanges_pcap(exchanges: list[tuple[int, int, bytes, bytes]]) -> bytes:
    """A pcap of one connection's exchanges (api key, version, request body, response body), request header v2
    and response header v1."""
    from ..capture.pcapwriter import conversation, pcap

    frames = []
    for cid, (api_key, version, request, response) in enumerate(exchanges, 1):
        request = struct.pack(">hhih", api_key, version, cid, 1) + b"c\x00" + request
        response = struct.pack(">i", cid) + b"\x00" + response
        frames += [("c", struct.pack(">i", len(request)) + request), ("s", struct.pack(">i", len(response)) + response)]
    return pcap(conversation(frames))


@functools.lru_cache(maxsize=256)
def _heartbeat_pcap(response: bytes) -> bytes:
    """A pcap of one StreamsGroupHeartbeat exchange answered by ``response`` (a body)."""
    from ..kafka4 import encode

    request = encode("streams-group-heartbeat-request", 0, {"groupId": "g", "memberId": "m", "memberEpoch": 1})
    return _exchanges_pcap([(88, 0, request, response)])


#: a topic id in Kafka's form (the zero UUID's canonical text)
_TOPIC_ID = "A" * 22


@functools.lru_cache(maxsize=256)
def _share_describe_bytes(style: int, n: int, members: int, parts: int) -> bytes:
    """A ShareGroupDescribeResponse: ``members`` members, ids of ``n`` characters, each holding the same ``parts``
    partitions of one topic named by ``n`` characters (every partition shared by every member)."""
    from ..kafka4 import encode

    def make(k: int) -> bytes:
        tps = [{"topicId": _TOPIC_ID, "topicName": _name(style, n), "partitions": list(range(k))}]
        ms = [
            {
                "memberId": f"{_name(style, n)}{i}",
                "rackId": None,
                "memberEpoch": 1,
                "clientId": "c",
                "clientHost": "h",
                "subscribedTopicNames": [_name(style, n)],
                "assignment": {"topicPartitions": tps},
            }
            for i in range(members)
        ]
        return encode(
            "share-group-describe-response",
            1,
            {
                "groups": [
                    {
                        "groupId": "g",
                        "groupState": "Stable",
                        "groupEpoch": 1,
                        "assignmentEpoch": 1,
                        "assignorName": "simple",
                        "members": ms,
                    }
                ]
            },
        )

    return _fitting(make, parts)


def _share_sharers(rng: random.Random) -> Case:
    data = _share_describe_bytes(
        _style(rng), _pick(rng, _LENGTHS), _pick(rng, (1, 2, 16, 100, 1000)), _pick(rng, _COUNTS)
    )
    return _decode_case(
        "share describe, every partition shared", "share-group-describe-response", data, rng, "--version", "1"
    )


@functools.lru_cache(maxsize=64)
def _share_pcap(style: int, n: int, members: int, parts: int) -> bytes:
    """A pcap of ``members`` ShareGroupHeartbeat joins (ids of ``n`` characters), each answered with the same
    ``parts`` partitions, then the group's Describe response naming the topic (:func:`_share_describe_bytes`)."""
    from ..kafka4 import encode

    def make(k: int) -> bytes:
        tps = [{"topicId": _TOPIC_ID, "partitions": list(range(k))}]
        exchanges = [
            (
                76,
                1,
                encode(
                    "share-group-heartbeat-request",
                    1,
                    {
                        "groupId": "g",
                        "memberId": f"{_name(style, n)}{i}",
                        "memberEpoch": 0,
                        "subscribedTopicNames": ["t"],
                    },
                ),
                encode(
                    "share-group-heartbeat-response",
                    1,
                    {
                        "memberId": f"{_name(style, n)}{i}",
                        "memberEpoch": 1,
                        "heartbeatIntervalMs": 5000,
                        "assignment": {"topicPartitions": tps},
                    },
                ),
            )
            for i in range(members)
        ]
        describe = encode("share-group-describe-request", 1, {"groupIds": ["g"]})
        return _exchanges_pcap(exchanges + [(77, 1, describe, _share_describe_bytes(style, n, members, k))])

    return _fitting(make, parts)


def _capture_share(rng: random.Random) -> Case:
    data = _share_pcap(_style(rng), _pick(rng, _LENGTHS, 3000), _pick(rng, (1, 2, 16, 100)), _pick(rng, _COUNTS))
    json_flag = ("--json",) if rng.random() < 0.5 else ()
    return Case("capture", (*json_flag, _FILE), len(data), "pcap of a share group, every partition shared", file=data)


def _capture_frames(rng: random.Random) -> Case:
    """A pcap of one StreamsGroupHeartbeat exchange whose response carries the amplifying shapes of
    :func:`_streams_bytes`: tasks of a long subtopology over many partitions, thousands of distinct statuses."""
    data = _heartbeat_pcap(
        _streams_bytes(
            False, _style(rng), _pick(rng, _LENGTHS), _pick(rng, _COUNTS), rng.choice((1, 2)), rng.randrange(8)
        )
    )
    json_flag = ("--json",) if rng.random() < 0.5 else ()
    return Case("capture", (*json_flag, _FILE), len(data), "pcap of amplifying frames", file=data)


def _capture_mutated(rng: random.Random) -> Case:
    from .mutations import mutate

    pool = _seeds().get("pcap") or [b""]
    data = rng.choice(pool)
    for _ in range(rng.choice((0, 1, 2, 4))):
        data = mutate(data, rng, pool)
    json_flag = ("--json",) if rng.random() < 0.5 else ()
    return Case("capture", (*json_flag, _FILE), len(data), "mutated pcap", file=data)


@functools.lru_cache(maxsize=1)
def _vector_lines() -> tuple[tuple[str, ...], ...]:
    """The lines of each of the project's vector files (the gate's input)."""
    from ..conformance.vectors import vectors_dir

    return tuple(tuple(p.read_text(encoding="utf-8").splitlines()) for p in sorted(vectors_dir().glob("*.jsonl")))


def _conformance(rng: random.Random) -> Case:
    """A vector file for ``conformance`` (the built-in codec): a run of one of the project's files, some lines
    mutated (a field's type, a huge or nested value, a key twice...), some repeated."""
    from .cli_inputs import json_text, mutate_value

    lines = rng.choice(_vector_lines())
    start = rng.randrange(len(lines))
    chosen = list(lines[start : start + _pick(rng, (1, 10, 100, 1000))])
    for i in rng.sample(range(len(chosen)), min(len(chosen), rng.choice((0, 1, 3)))):
        value = json.loads(chosen[i])
        for _ in range(rng.choice((1, 2))):
            value = mutate_value(value, rng)
        chosen[i] = json_text(value, rng).decode("utf-8", "surrogateescape")
    if rng.random() < 0.2:
        chosen *= _pick(rng, (2, 10, 100))
    text = "\n".join(chosen).encode("utf-8", "surrogateescape")[:MAX_INPUT] + b"\n"
    opts = ("--show-failures", str(_pick(rng, (0, 20, 1000)))) if rng.random() < 0.3 else ()
    return Case("conformance", (*opts, _FILE), len(text), "vector file", file=text)


def _negotiate(rng: random.Random) -> Case:
    from importlib import resources

    from .cli_inputs import json_text, mutate_value

    root = resources.files("codec") / "examples" / "negotiation"
    names = sorted(p.name for p in root.iterdir() if p.name.endswith(".json"))
    doc = json.loads((root / rng.choice(names)).read_text(encoding="utf-8"))
    for _ in range(rng.choice((0, 1, 2))):
        doc = mutate_value(doc, rng)
    text = json_text(doc, rng)
    fmt = ("--format", "json") if rng.random() < 0.5 else ()
    return Case("negotiate", ("--scenario", _FILE, *fmt), len(text), "mutated scenario", file=text)


def _simulate(rng: random.Random) -> Case:
    from importlib import resources

    root = resources.files("codec") / "examples" / "scenarios"
    name = rng.choice(("scale-out.json", "rolling-bounce.json", "connect-bounce.json", "connect-scale-out.json"))
    doc = json.loads((root / name).read_text(encoding="utf-8"))
    if rng.random() < 0.5 and "connectors" in doc:
        doc["connectors"] = {_name(_style(rng), _pick(rng, _LENGTHS, 3000)) + str(i): 10 for i in range(3)}
    text = json.dumps(doc).encode()
    return Case("simulate", (_FILE, "--no-plots", "--no-frames", "--out", "{out}"), len(text), "scenario", file=text)


def _fixed(rng: random.Random) -> Case:
    command, argv = rng.choice(
        (
            ("kinds", ()),
            ("demo", ()),
            ("compat", ("--format", rng.choice(("table", "json", "markdown")))),
            (
                "size",
                (
                    "--members",
                    str(_pick(rng, (1, 100, 65536))),
                    "--tasks",
                    str(_pick(rng, (1, 1000, 1_000_000))),
                    "--standbys",
                    str(rng.choice((0, 16))),
                    "--format",
                    "json",
                ),
            ),
            ("size", ("--find-limit",)),
        )
    )
    return Case(command, argv, 0, "options")


#: The generators, by command, with their weights (the share of the inputs each gets).
SHAPES: dict[str, tuple[tuple[Callable[[random.Random], Case], float], ...]] = {
    "decode": (
        (_mutated, 30),
        (_streams_tasks, 4),
        (_assignment_dictionary, 3),
        (_connect_names, 3),
        (_tiny_elements, 6),
        (_share_sharers, 3),
    ),
    "encode": ((_encode_mutated, 25),),
    "assign": ((_assign_streams, 6), (_assign_connect, 3), (_assign_share, 3)),
    "capture": ((_capture_segment, 3), (_capture_frames, 2), (_capture_mutated, 3), (_capture_share, 2)),
    "negotiate": ((_negotiate, 2),),
    "conformance": ((_conformance, 2),),
    "simulate": ((_simulate, 0.01),),
    "compat": ((_fixed, 0.02),),
}


#: The commands a generator's cases may run, where they are not (only) the command it is listed under.
_PRODUCES: dict[Callable[[random.Random], Case], tuple[str, ...]] = {
    _tiny_elements: ("decode", "encode"),
    _fixed: ("compat", "size", "kinds", "demo"),
}


def cases(n: int, *, seed: int = 0, commands: tuple[str, ...] = COMMANDS, start: int = 0) -> Iterator[Case]:
    """Cases ``start`` .. ``start + n - 1`` of the sequence for ``seed`` (each from its own random stream, so any
    slice is the same whoever makes it) of the generators that make cases of ``commands``."""
    table = [(g, w) for c, gens in SHAPES.items() for g, w in gens if set(_PRODUCES.get(g, (c,))) & set(commands)]
    gens = [g for g, _ in table]
    weights = [w for _, w in table]
    for i in range(start, start + n):
        rng = random.Random(f"amplification:{seed}:{i}")
        for _ in range(100):
            try:
                case = rng.choices(gens, weights)[0](rng)
            except (CodecError, ValueError):  # a combination the encoders refuse (a string past 32,767 bytes)
                continue
            if case.command in commands:
                yield case
                break
