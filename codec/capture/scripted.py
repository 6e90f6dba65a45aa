"""Heartbeat-based rebalances written as captures: scripted frames, encoded with :mod:`codec.kafka4`, in pcaps.

:class:`ScriptedCapture` writes request/response exchanges of clients with one broker (each client its own
TCP connection, :class:`~codec.capture.pcapwriter.TcpConnection`) and gives the pcap. Bodies are values in
Kafka's JSON (camelCase, as :func:`codec.kafka4.encode` takes them); frames carry the request header v2 and the
response header v1 of flexible versions (both heartbeat APIs are flexible from v0). Frames of other APIs can
be written as bytes (:meth:`ScriptedCapture.raw`), e.g. a classic member's JoinGroup in a mixed group.

Three scripts, bundled as examples (``codec/examples/kip848-group.pcap``, ``codec/examples/kip1071-streams.pcap``,
``codec/examples/kip932-share.pcap``, written by ``codec/examples/kip848-examples.py``) and read by the tests,
whose expected facts are written from the scripts' steps below, not from the story:

* :func:`kip848_script` — consumer group ``orders-app`` on topic ``orders`` (6 partitions, topic id
  :data:`ORDERS_ID`): members ``member-a``, ``member-b``, ``member-c`` join one after the other and the
  partitions are moved to them through revocations; ``member-b`` leaves (epoch -1); ``member-d`` joins, is
  fenced (FENCED_MEMBER_EPOCH) and rejoins; ``member-e`` is refused (UNRELEASED_INSTANCE_ID) and
  ``member-f`` too (GROUP_MAX_SIZE_REACHED); ``member-c`` leaves as a static member (epoch -2).
* :func:`kip1071_script` — streams group ``wordcount`` (subtopologies ``0`` and ``1``, 3 partitions each):
  ``stream-1`` joins and gets every active task; ``stream-2`` joins, first warming up, then takes active tasks
  over and holds standbys; the responses give the active and standby partitions of each member's endpoint
  (endpoint information epochs 1-3); ``stream-3`` sends a topology of another epoch and is refused
  (STREAMS_INVALID_TOPOLOGY_EPOCH).
* :func:`kip932_script` — share group ``queue-app`` on topics ``orders`` (3 partitions) and ``payments`` (1):
  ``share-a`` and ``share-b`` subscribe to both, ``share-c`` to ``payments`` alone and shares ``payments-0``
  with ``share-a``; ``share-d`` is refused (TOPIC_AUTHORIZATION_FAILED); ``share-b`` leaves; ``share-c`` is
  told it is unknown (UNKNOWN_MEMBER_ID) and joins again; a ShareGroupDescribe names the topics. The
  assignments are those of Kafka 4.1.0's SimpleAssignor for each membership (worked out in the script's
  docstring).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

from ..wire.builder import encode_wire, wire_class
from .metadata import metadata_response_v12
from .pcapwriter import TcpConnection, pcap

__all__ = [
    "ORDERS_ID",
    "PAYMENTS_ID",
    "T0",
    "ScriptedCapture",
    "consumer_request",
    "consumer_response",
    "kip848_script",
    "kip932_script",
    "kip1071_script",
    "share_request",
    "share_response",
    "streams_request",
    "streams_response",
]

T0 = 1_700_000_000.0  # 2023-11-14 22:13:20 UTC
BROKER = ("10.0.0.100", 9092)
ORDERS_ID = "b3JkZXJzLXRvcGljLWlkAA"  # Kafka's short form of the 16 bytes b"orders-topic-id\0"
PAYMENTS_ID = "cGF5bWVudHMtdG9waWNpZA"  # ... of b"payments-topicid"
_KINDS = {
    68: "consumer-group-heartbeat",
    88: "streams-group-heartbeat",
    69: "consumer-group-describe",
    89: "streams-group-describe",
    76: "share-group-heartbeat",
    77: "share-group-describe",
}


@dataclass
class ScriptedCapture:
    """Exchanges of clients with one broker, as a pcap (see the module docstring)."""

    t0: float = T0
    broker: tuple[str, int] = BROKER
    latency: float = 0.002
    conns: dict[str, TcpConnection] = field(default_factory=dict)
    clients: dict[str, str] = field(default_factory=dict)  # name -> client id
    cids: dict[str, int] = field(default_factory=dict)

    def _conn(self, name: str, t: float) -> TcpConnection:
        c = self.conns.get(name)
        if c is None:
            n = len(self.conns) + 1
            c = self.conns[name] = TcpConnection((f"10.0.1.{n}", 50000 + n), self.broker, isn=(1000 * n, 900000 + n))
            c.open(self.t0 + t - 0.001)
        return c

    def exchange(self, t: float, client: str, api_key: int, version: int, request: dict, response: dict) -> None:
        """``client`` sends ``request`` at ``t`` seconds after :attr:`t0`; the broker answers ``response``."""
        from ..kafka4 import encode

        cid = self.cids[client] = self.cids.get(client, 0) + 1
        header = wire_class("RequestHeader", "RequestHeader")(
            request_api_key=api_key,
            request_api_version=version,
            correlation_id=cid,
            client_id=self.clients.get(client, client),
        )
        req = encode_wire("RequestHeader", 2, header) + encode(f"{_KINDS[api_key]}-request", version, request)
        rh = wire_class("ResponseHeader", "ResponseHeader")(correlation_id=cid)
        resp = encode_wire("ResponseHeader", 1, rh) + encode(f"{_KINDS[api_key]}-response", version, response)
        self.raw(t, client, struct.pack(">i", len(req)) + req, struct.pack(">i", len(resp)) + resp)

    def metadata(self, t: float, client: str, topics: dict[str, tuple[bytes, int]]) -> None:
        """A Metadata v12 exchange (all topics asked for) whose response names ``topics`` (name -> (16-byte
        id, partition count))."""
        cid = self.cids[client] = self.cids.get(client, 0) + 1
        header = wire_class("RequestHeader", "RequestHeader")(
            request_api_key=3, request_api_version=12, correlation_id=cid, client_id=self.clients.get(client, client)
        )
        # topics null (all), allowAutoTopicCreation true, includeTopicAuthorizedOperations false, no tagged fields
        req = encode_wire("RequestHeader", 2, header) + b"\x00\x01\x00\x00"
        rh = wire_class("ResponseHeader", "ResponseHeader")(correlation_id=cid)
        resp = encode_wire("ResponseHeader", 1, rh) + metadata_response_v12(topics, broker=self.broker)
        self.raw(t, client, struct.pack(">i", len(req)) + req, struct.pack(">i", len(resp)) + resp)

    def raw(self, t: float, client: str, request: bytes, response: bytes) -> None:
        """Size-prefixed frames written as they are (the response ``latency`` later)."""
        c = self._conn(client, t)
        c.write("c", request, self.t0 + t)
        c.write("s", response, self.t0 + t + self.latency)

    def pcap(self) -> bytes:
        segs = []
        for c in self.conns.values():
            c.close(max(s.ts for s in c.segments) + 0.001)
            segs += c.segments
        return pcap(sorted(segs, key=lambda s: s.ts))


# -- bodies in Kafka's JSON ------------------------------------------------------------------------------


def _tps(assignment: dict[str, list[int]] | None) -> list[dict] | None:
    return None if assignment is None else [{"topicId": t, "partitions": ps} for t, ps in assignment.items()]


def consumer_request(
    group: str,
    member: str,
    epoch: int,
    *,
    owned: dict[str, list[int]] | None = None,
    topics: list[str] | None = None,
    instance: str | None = None,
    rack: str | None = None,
    assignor: str | None = None,
    timeout: int = -1,
) -> dict:
    """A ConsumerGroupHeartbeatRequest (``owned``: topic id -> partitions, None: unchanged)."""
    return {
        "groupId": group,
        "memberId": member,
        "memberEpoch": epoch,
        "instanceId": instance,
        "rackId": rack,
        "rebalanceTimeoutMs": timeout,
        "subscribedTopicNames": topics,
        "serverAssignor": assignor,
        "topicPartitions": _tps(owned),
    }


def consumer_response(
    member: str | None,
    epoch: int,
    assignment: dict[str, list[int]] | None = None,
    *,
    error: int = 0,
    message: str | None = None,
    interval: int = 5000,
) -> dict:
    """A ConsumerGroupHeartbeatResponse (``assignment``: topic id -> partitions, None: unchanged)."""
    return {
        "throttleTimeMs": 0,
        "errorCode": error,
        "errorMessage": message,
        "memberId": member,
        "memberEpoch": epoch,
        "heartbeatIntervalMs": interval,
        "assignment": None if assignment is None else {"topicPartitions": _tps(assignment)},
    }


def share_request(
    group: str, member: str, epoch: int, *, topics: list[str] | None = None, rack: str | None = None
) -> dict:
    """A ShareGroupHeartbeatRequest (``topics`` None: the subscription is unchanged)."""
    return {"groupId": group, "memberId": member, "memberEpoch": epoch, "rackId": rack, "subscribedTopicNames": topics}


def share_response(
    member: str | None,
    epoch: int,
    assignment: dict[str, list[int]] | None = None,
    *,
    error: int = 0,
    message: str | None = None,
) -> dict:
    """A ShareGroupHeartbeatResponse (``assignment``: topic id -> partitions, None: unchanged): the fields of a
    ConsumerGroupHeartbeatResponse."""
    return consumer_response(member, epoch, assignment, error=error, message=message)


def _tasks(tasks: dict[str, list[int]] | None) -> list[dict] | None:
    return None if tasks is None else [{"subtopologyId": s, "partitions": ps} for s, ps in tasks.items()]


def streams_request(
    group: str,
    member: str,
    epoch: int,
    *,
    active=None,
    standby=None,
    warmup=None,
    topology: dict | None = None,
    process: str | None = None,
    endpoint: tuple[str, int] | None = None,
    tags: dict[str, str] | None = None,
    timeout: int = -1,
    endpoint_epoch: int = -1,
) -> dict:
    """A StreamsGroupHeartbeatRequest (task fields: subtopology -> partitions, None: unchanged;
    ``endpoint_epoch``: the last endpoint information epoch the member received, -1 for none yet)."""
    return {
        "groupId": group,
        "memberId": member,
        "memberEpoch": epoch,
        "endpointInformationEpoch": endpoint_epoch,
        "instanceId": None,
        "rackId": None,
        "rebalanceTimeoutMs": timeout,
        "topology": topology,
        "activeTasks": _tasks(active),
        "standbyTasks": _tasks(standby),
        "warmupTasks": _tasks(warmup),
        "processId": process,
        "userEndpoint": None if endpoint is None else {"host": endpoint[0], "port": endpoint[1]},
        "clientTags": None if tags is None else [{"key": k, "value": v} for k, v in tags.items()],
        "taskOffsets": None,
        "taskEndOffsets": None,
        "shutdownApplication": False,
    }


def _endpoint_partitions(parts: dict[str, list[int]]) -> list[dict]:
    return [{"topic": t, "partitions": ps} for t, ps in parts.items()]


def streams_response(
    member: str,
    epoch: int,
    *,
    active=None,
    standby=None,
    warmup=None,
    error: int = 0,
    message: str | None = None,
    endpoint_epoch: int = 0,
    endpoints: dict[tuple[str, int], tuple[dict, dict]] | None = None,
) -> dict:
    """A StreamsGroupHeartbeatResponse (task fields: subtopology -> partitions, None: unchanged;
    ``endpoints``: (host, port) -> (active, standby) partitions by topic, for Interactive Queries, None:
    unchanged since the member's endpoint information epoch; ``endpoint_epoch``: the group's)."""
    return {
        "throttleTimeMs": 0,
        "errorCode": error,
        "errorMessage": message,
        "memberId": member,
        "memberEpoch": epoch,
        "heartbeatIntervalMs": 5000,
        "acceptableRecoveryLagLegacy": 10000,  # v0 (Kafka 4.4 renamed the int32 field; v1 has an int64)
        "taskOffsetIntervalMs": 60000,
        "status": None,
        "activeTasks": _tasks(active),
        "standbyTasks": _tasks(standby),
        "warmupTasks": _tasks(warmup),
        "endpointInformationEpoch": endpoint_epoch,
        "partitionsByUserEndpoint": None
        if endpoints is None
        else [
            {
                "userEndpoint": {"host": h, "port": port},
                "activePartitions": _endpoint_partitions(a),
                "standbyPartitions": _endpoint_partitions(sb),
            }
            for (h, port), (a, sb) in endpoints.items()
        ],
    }


# -- the scripts -------------------------------------------------------------------------------------------


def kip848_script(cap: ScriptedCapture | None = None, *, version: int = 0, metadata: bool = False) -> ScriptedCapture:
    """The KIP-848 consumer group ``orders-app`` (see the module docstring). With ``metadata``, member-a first
    asks for Metadata (at -0.1 s), whose response names topic ``orders`` (id :data:`ORDERS_ID`) and ``payments``.
    Times in seconds after T0:

    0.0 a joins (epoch 0, subscribes orders, assignor uniform) -> epoch 1, orders 0-5; 0.5 a owns 0-5.
    1.0 b joins -> epoch 2, nothing. 1.5 a -> still epoch 1, orders 0-2 (3-5 revoked); 1.6 a owns 0-2 -> epoch 2.
    2.0 b -> epoch 2, orders 3-5; 2.1 b owns 3-5.
    3.0 c joins (instance c-static) -> epoch 3, nothing. 3.5 a -> epoch 2, orders 0-1 (2 revoked); 3.6 a owns
    0-1 -> epoch 3. 3.7 b -> epoch 2, orders 3-4 (5 revoked); 3.8 b owns 3-4 -> epoch 3. 4.0 c -> epoch 3,
    orders 2, 5; 4.1 c owns 2, 5.
    5.0 b leaves (epoch -1). 5.5 a -> epoch 4, orders 0, 1, 3; 5.6 c -> epoch 4, orders 2, 4, 5; a owns 0, 1, 3
    at 5.7, c owns 2, 4, 5 at 5.8.
    6.0 d joins -> epoch 5, nothing. 6.5 a -> epoch 4, orders 0-1 (3 revoked); 6.6 a owns 0-1 -> epoch 5.
    7.0 d -> epoch 5, orders 3; 7.1 d owns 3. 8.0 d heartbeats with epoch 3 -> FENCED_MEMBER_EPOCH (110);
    8.1 d joins again -> epoch 6, nothing.
    8.5 e joins (instance c-static) -> UNRELEASED_INSTANCE_ID (111). 8.6 f joins -> GROUP_MAX_SIZE_REACHED (81).
    9.0 c leaves as a static member (epoch -2).
    """
    cap = cap or ScriptedCapture()
    g, o = "orders-app", ORDERS_ID
    for name in "abcdef":
        cap.clients[f"member-{name}"] = f"consumer-{name}"
    if metadata:
        cap.metadata(-0.1, "member-a", {"orders": (b"orders-topic-id\0", 6), "payments": (b"payments-topicid", 2)})

    def hb(t, m, req, resp):
        cap.exchange(t, f"member-{m}", 68, version, req, resp)

    def join(t, m, resp, **kw):
        hb(
            t,
            m,
            consumer_request(
                g, f"member-{m}", 0, owned={}, topics=["orders"], assignor="uniform", timeout=300000, **kw
            ),
            resp,
        )

    def beat(t, m, epoch, resp, owned=None):
        hb(t, m, consumer_request(g, f"member-{m}", epoch, owned=owned), resp)

    join(0.0, "a", consumer_response("member-a", 1, {o: [0, 1, 2, 3, 4, 5]}))
    beat(0.5, "a", 1, consumer_response("member-a", 1), owned={o: [0, 1, 2, 3, 4, 5]})
    join(1.0, "b", consumer_response("member-b", 2, {}))
    beat(1.5, "a", 1, consumer_response("member-a", 1, {o: [0, 1, 2]}))
    beat(1.6, "a", 1, consumer_response("member-a", 2), owned={o: [0, 1, 2]})
    beat(2.0, "b", 2, consumer_response("member-b", 2, {o: [3, 4, 5]}))
    beat(2.1, "b", 2, consumer_response("member-b", 2), owned={o: [3, 4, 5]})
    join(3.0, "c", consumer_response("member-c", 3, {}), instance="c-static")
    beat(3.5, "a", 2, consumer_response("member-a", 2, {o: [0, 1]}))
    beat(3.6, "a", 2, consumer_response("member-a", 3), owned={o: [0, 1]})
    beat(3.7, "b", 2, consumer_response("member-b", 2, {o: [3, 4]}))
    beat(3.8, "b", 2, consumer_response("member-b", 3), owned={o: [3, 4]})
    beat(4.0, "c", 3, consumer_response("member-c", 3, {o: [2, 5]}))
    beat(4.1, "c", 3, consumer_response("member-c", 3), owned={o: [2, 5]})
    beat(5.0, "b", -1, consumer_response("member-b", -1))
    beat(5.5, "a", 3, consumer_response("member-a", 4, {o: [0, 1, 3]}))
    beat(5.6, "c", 3, consumer_response("member-c", 4, {o: [2, 4, 5]}))
    beat(5.7, "a", 4, consumer_response("member-a", 4), owned={o: [0, 1, 3]})
    beat(5.8, "c", 4, consumer_response("member-c", 4), owned={o: [2, 4, 5]})
    join(6.0, "d", consumer_response("member-d", 5, {}))
    beat(6.5, "a", 4, consumer_response("member-a", 4, {o: [0, 1]}))
    beat(6.6, "a", 4, consumer_response("member-a", 5), owned={o: [0, 1]})
    beat(7.0, "d", 5, consumer_response("member-d", 5, {o: [3]}))
    beat(7.1, "d", 5, consumer_response("member-d", 5), owned={o: [3]})
    beat(
        8.0,
        "d",
        3,
        consumer_response(
            None,
            3,
            error=110,
            message="The consumer group member has a smaller "
            "member epoch (3) than the one known by the "
            "group coordinator (5).",
        ),
    )
    join(8.1, "d", consumer_response("member-d", 6, {}))
    join(
        8.5,
        "e",
        consumer_response(
            None,
            0,
            error=111,
            message="Static member with unknown member id and instance id c-static cannot join the group.",
        ),
        instance="c-static",
    )
    join(
        8.6,
        "f",
        consumer_response(
            None, 0, error=81, message="The consumer group has reached its maximum capacity of 4 members."
        ),
    )
    beat(9.0, "c", -2, consumer_response("member-c", -2))
    return cap


TOPOLOGY = {
    "epoch": 1,
    "subtopologies": [
        {
            "subtopologyId": "0",
            "sourceTopics": ["words"],
            "sourceTopicRegex": [],
            "stateChangelogTopics": [],
            "repartitionSinkTopics": ["wordcount-counts-repartition"],
            "repartitionSourceTopics": [],
            "copartitionGroups": [],
        },
        {
            "subtopologyId": "1",
            "sourceTopics": [],
            "sourceTopicRegex": [],
            "stateChangelogTopics": [
                {"name": "wordcount-counts-changelog", "partitions": 0, "replicationFactor": 0, "topicConfigs": []}
            ],
            "repartitionSinkTopics": [],
            "repartitionSourceTopics": [
                {"name": "wordcount-counts-repartition", "partitions": 3, "replicationFactor": 0, "topicConfigs": []}
            ],
            "copartitionGroups": [],
        },
    ],
}


def kip1071_script(cap: ScriptedCapture | None = None, *, version: int = 0) -> ScriptedCapture:
    """The KIP-1071 streams group ``wordcount`` (see the module docstring). Times in seconds after T0:

    0.0 stream-1 joins (topology epoch 1, process p-1, endpoint host1:8080) -> epoch 1, active 0_0-0_2 and
    1_0-1_2; 0.5 it owns them.
    1.0 stream-2 joins (process p-2, endpoint host2:8080) -> epoch 2, warm-up 1_1, 1_2, standby 1_0.
    1.5 stream-1 -> epoch 1, active 0_0-0_2 and 1_0 (1_1, 1_2 revoked), standby none; 1.6 it owns those ->
    epoch 2, standby 1_1, 1_2. 2.0 stream-2 -> epoch 2, active 1_1, 1_2, standby 1_0, warm-up none;
    2.1 stream-2 owns them.
    3.0 stream-3 joins with topology epoch 2 -> STREAMS_INVALID_TOPOLOGY_EPOCH (131).
    4.0 stream-2 leaves (epoch -1).
    ``version`` 1 (Kafka 4.4's StreamsGroupHeartbeat v1): the same exchanges, each response with the int64
    ``acceptableRecoveryLag`` (10000) and ``topologyDescriptionRequired`` (true in the answer to stream-1's first
    heartbeat, 0.0), and the answer at 1.6 carrying status 6 MISSING_CLIENT_TAGS, which only v1 clients are sent.
    Partitions by endpoint (Interactive Queries; requests carry the last endpoint information epoch the member
    received, -1 before any): at 0.0 epoch 1, host1:8080 active words 0-2 and wordcount-counts-repartition
    0-2; at 1.0 and 1.5 epoch 2, the same and host2:8080 standby repartition 0; at 2.0 epoch 3, host1 active
    words 0-2 and repartition 0, standby repartition 1, 2; host2 active repartition 1, 2, standby 0.
    """
    cap = cap or ScriptedCapture()
    g = "wordcount"
    for n in (1, 2, 3):
        cap.clients[f"stream-{n}"] = f"wordcount-{n}-StreamThread-1-consumer"

    def hb(t, m, req, resp):
        if version >= 1:  # v1's response: the lag as int64, whether the group wants the topology described
            resp = {k: v for k, v in resp.items() if k != "acceptableRecoveryLagLegacy"}
            resp["acceptableRecoveryLag"] = 10000
            resp["topologyDescriptionRequired"] = t == 0.0
            if t == 1.6:
                detail = "the group's assignor uses client tags (rack.aware.assignment.tags) the member lacks"
                resp["status"] = [{"statusCode": 6, "statusDetail": detail}]
        cap.exchange(t, m, 88, version, req, resp)

    def join(t, m, resp, n, topology=TOPOLOGY):
        hb(
            t,
            m,
            streams_request(
                g,
                m,
                0,
                active={},
                standby={},
                warmup={},
                topology=topology,
                process=f"p-{n}",
                endpoint=(f"host{n}", 8080),
                tags={"zone": f"z{n}"},
                timeout=300000,
            ),
            resp,
        )

    all_active = {"0": [0, 1, 2], "1": [0, 1, 2]}
    words, rep = "words", "wordcount-counts-repartition"
    h1, h2 = ("host1", 8080), ("host2", 8080)
    iq1: dict[tuple[str, int], tuple[dict, dict]] = {h1: ({words: [0, 1, 2], rep: [0, 1, 2]}, {})}
    iq2 = {**iq1, h2: ({}, {rep: [0]})}
    iq3 = {h1: ({words: [0, 1, 2], rep: [0]}, {rep: [1, 2]}), h2: ({rep: [1, 2]}, {rep: [0]})}
    join(
        0.0,
        "stream-1",
        streams_response("stream-1", 1, active=all_active, standby={}, warmup={}, endpoint_epoch=1, endpoints=iq1),
        1,
    )
    hb(
        0.5,
        "stream-1",
        streams_request(g, "stream-1", 1, active=all_active, standby={}, warmup={}, endpoint_epoch=1),
        streams_response("stream-1", 1, endpoint_epoch=1),
    )
    join(
        1.0,
        "stream-2",
        streams_response(
            "stream-2", 2, active={}, standby={"1": [0]}, warmup={"1": [1, 2]}, endpoint_epoch=2, endpoints=iq2
        ),
        2,
    )
    hb(
        1.5,
        "stream-1",
        streams_request(g, "stream-1", 1, endpoint_epoch=1),
        streams_response(
            "stream-1", 1, active={"0": [0, 1, 2], "1": [0]}, standby={}, warmup={}, endpoint_epoch=2, endpoints=iq2
        ),
    )
    hb(
        1.6,
        "stream-1",
        streams_request(g, "stream-1", 1, active={"0": [0, 1, 2], "1": [0]}, endpoint_epoch=2),
        streams_response("stream-1", 2, standby={"1": [1, 2]}, endpoint_epoch=2),
    )
    hb(
        2.0,
        "stream-2",
        streams_request(g, "stream-2", 2, endpoint_epoch=2),
        streams_response(
            "stream-2", 2, active={"1": [1, 2]}, standby={"1": [0]}, warmup={}, endpoint_epoch=3, endpoints=iq3
        ),
    )
    hb(
        2.1,
        "stream-2",
        streams_request(g, "stream-2", 2, active={"1": [1, 2]}, standby={"1": [0]}, warmup={}, endpoint_epoch=3),
        streams_response("stream-2", 2, endpoint_epoch=3),
    )
    join(
        3.0,
        "stream-3",
        streams_response("stream-3", 0, error=131, message="The topology epoch 2 does not match the group's epoch 1."),
        3,
        topology={**TOPOLOGY, "epoch": 2},
    )
    hb(
        4.0,
        "stream-2",
        streams_request(g, "stream-2", -1, endpoint_epoch=3),
        streams_response("stream-2", -1, endpoint_epoch=3),
    )
    return cap


def kip932_script(cap: ScriptedCapture | None = None) -> ScriptedCapture:
    """The KIP-932 share group ``queue-app`` (see the module docstring): topics ``orders`` (3 partitions, id
    :data:`ORDERS_ID`) and ``payments`` (1, :data:`PAYMENTS_ID`). Times in seconds after T0:

    0.0 share-a joins (rack r1, subscribes orders and payments) -> epoch 1, orders 0-2 and payments 0.
    0.5 a heartbeats -> epoch 1, assignment unchanged (null).
    1.0 share-b joins (orders and payments) -> epoch 2, orders 0. 1.5 a -> epoch 2, orders 1, 2 and payments 0.
    2.0 share-c joins (payments only) -> epoch 3, payments 0 (shared with a). 2.5 a -> epoch 3, unchanged;
    2.6 b -> epoch 3, unchanged.
    3.0 share-d joins (subscribes secret) -> TOPIC_AUTHORIZATION_FAILED (29).
    4.0 b leaves (epoch -1). 4.5 a -> epoch 4, orders 0-2 and payments 0. 4.6 c -> epoch 4, unchanged.
    5.0 c heartbeats at epoch 4 -> UNKNOWN_MEMBER_ID (25): the coordinator removed it (group epoch 5);
    5.1 c joins again -> epoch 6, payments 0. 5.5 a -> epoch 6, unchanged.
    6.0 a describes the group: Stable, group and assignment epoch 6, assignor simple, a holds orders 0-2 and
    payments 0, c payments 0 (the Describe names the topics).

    The assignments are SimpleAssignor's (Kafka 4.1.0): hashCode("share-a") = 2054216179, "share-b" +1, "share-c"
    +2. At epoch 2 (a, b on orders 0-2 and payments 0: 4 targets, 2 each) a hashes onto target 3 (payments-0),
    b onto 0 (orders-0); a keeps one more of its partitions (orders-1) and takes the one left (orders-2) round
    robin, as it may hold one more than 2. At epoch 3 (c subscribes payments alone: heterogeneous) c hashes onto
    payments-0; a and b keep what they hold. At epoch 4 (a, c) a hashes onto payments-0 and takes orders-0, which
    nobody holds, round robin; at epochs 5 and 6 the same holdings stand.
    """
    cap = cap or ScriptedCapture()
    g, o, p = "queue-app", ORDERS_ID, PAYMENTS_ID
    for name in "abcd":
        cap.clients[f"share-{name}"] = f"share-consumer-{name}"

    def hb(t, m, epoch, resp, **kw):
        cap.exchange(t, f"share-{m}", 76, 1, share_request(g, f"share-{m}", epoch, **kw), resp)

    hb(0.0, "a", 0, share_response("share-a", 1, {o: [0, 1, 2], p: [0]}), topics=["orders", "payments"], rack="r1")
    hb(0.5, "a", 1, share_response("share-a", 1))
    hb(1.0, "b", 0, share_response("share-b", 2, {o: [0]}), topics=["orders", "payments"])
    hb(1.5, "a", 1, share_response("share-a", 2, {o: [1, 2], p: [0]}))
    hb(2.0, "c", 0, share_response("share-c", 3, {p: [0]}), topics=["payments"])
    hb(2.5, "a", 2, share_response("share-a", 3))
    hb(2.6, "b", 2, share_response("share-b", 3))
    hb(
        3.0,
        "d",
        0,
        share_response(None, 0, error=29, message="Not authorized to access topics: [secret]"),
        topics=["secret"],
    )
    hb(4.0, "b", -1, share_response("share-b", -1))
    hb(4.5, "a", 3, share_response("share-a", 4, {o: [0, 1, 2], p: [0]}))
    hb(4.6, "c", 3, share_response("share-c", 4))
    hb(5.0, "c", 4, share_response(None, 0, error=25, message="Member share-c is not a member of group queue-app."))
    hb(5.1, "c", 0, share_response("share-c", 6, {p: [0]}), topics=["payments"])
    hb(5.5, "a", 4, share_response("share-a", 6))

    def member(m, epoch, rack, parts):
        return {
            "memberId": f"share-{m}",
            "rackId": rack,
            "memberEpoch": epoch,
            "clientId": f"share-consumer-{m}",
            "clientHost": f"/10.0.1.{'abc'.index(m) + 1}",
            "subscribedTopicNames": ["orders", "payments"] if m == "a" else ["payments"],
            "assignment": {
                "topicPartitions": [{"topicId": tid, "topicName": name, "partitions": ps} for tid, name, ps in parts]
            },
        }

    cap.exchange(
        6.0,
        "share-a",
        77,
        1,
        {"groupIds": [g], "includeAuthorizedOperations": False},
        {
            "throttleTimeMs": 0,
            "groups": [
                {
                    "errorCode": 0,
                    "errorMessage": None,
                    "groupId": g,
                    "groupState": "Stable",
                    "groupEpoch": 6,
                    "assignmentEpoch": 6,
                    "assignorName": "simple",
                    "members": [
                        member("a", 6, "r1", [(o, "orders", [0, 1, 2]), (p, "payments", [0])]),
                        member("c", 6, None, [(p, "payments", [0])]),
                    ],
                    "authorizedOperations": -2147483648,
                }
            ],
        },
    )
    return cap
