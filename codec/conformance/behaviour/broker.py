"""The scripted coordinator's broker: one Kafka broker on loopback, speaking the project's codec.

It serves what a group consumer needs around its group — ApiVersions, Metadata, FindCoordinator, ListOffsets, an
empty Fetch, OffsetFetch and OffsetCommit — and hands every group request (JoinGroup, SyncGroup, Heartbeat,
LeaveGroup, ConsumerGroupHeartbeat) to the scenario's group (:mod:`~codec.conformance.behaviour.classic`,
:mod:`~codec.conformance.behaviour.consumer`). Like Kafka's broker it answers the requests of one connection one
at a time and in order (Kafka mutes a channel while a request is in flight), so a response held back holds back
the connection's next ones too.

Every request is kept in the scenario's :class:`~.trace.Trace` as Kafka's JSON (the ConsumerProtocol subscription
inside a JoinGroup decoded beside it), with the error it was answered: the judges read nothing else.
"""

from __future__ import annotations

import asyncio
import struct
import uuid
from dataclasses import dataclass
from typing import Any, Callable

from ...errors import DecodeError, EncodeError
from ...wire.registry import api_key, apis
from ...group.frames import decode_request_frame, encode_response_frame, response_frame
from ...group.jsonview import body_json
from ...wire.builder import from_json
from ...wire.schema import StructSpec, load_message, raw_message
from .trace import Trace

__all__ = ["Broker", "Reply", "SERVED", "advertised_versions", "make_body", "topic_id"]

#: The APIs the broker answers (their keys, the schemas': codec.wire.registry); ConsumerGroupHeartbeat is answered by
#: a consumer-protocol group
SERVED = tuple(
    api_key(name)
    for name in (
        "ApiVersions",
        "Metadata",
        "FindCoordinator",
        "ListOffsets",
        "Fetch",
        "OffsetFetch",
        "OffsetCommit",
        "JoinGroup",
        "SyncGroup",
        "Heartbeat",
        "LeaveGroup",
        "ConsumerGroupHeartbeat",
    )
)
MAX_FRAME = 1 << 20  # a consumer's requests here are small: anything larger is not one of them
FETCH_HOLD_CAP = 0.2  # seconds: an empty Fetch is held for its MaxWaitMs, at most this long
_SIZE = struct.Struct(">i")


def advertised_versions() -> dict[int, tuple[int, int]]:
    """API key -> (lowest, highest) version served: each schema's ``validVersions``, less a newest version Kafka
    marks unstable (``latestVersionUnstable``, which a broker does not advertise by default)."""
    out = {}
    for key in SERVED:
        name = apis()[key].request
        assert name is not None
        spec = load_message(name)
        high = spec.valid.high
        if raw_message(name).get("latestVersionUnstable"):
            high -= 1
        out[key] = (spec.valid.low, high)
    return out


def topic_id(topic: str) -> str:
    """The topic's id, the same in every run (Kafka's base64 form, as its JSON writes a Uuid)."""
    import base64

    u = uuid.uuid5(uuid.NAMESPACE_URL, f"rebalance-codec-behaviour:{topic}")
    return base64.urlsafe_b64encode(u.bytes).decode("ascii").rstrip("=")


def _prune(data: Any, spec: StructSpec, version: int) -> Any:
    """``data`` (Kafka JSON) without the fields ``version`` does not have (a struct that differs between versions
    takes the union of their fields), and without the nulls it cannot carry, recursively."""
    if not isinstance(data, dict):
        return data
    out = {}
    fields = {f.json_name: f for f in spec.fields}
    for key, value in data.items():
        f = fields.get(key)
        if f is None or version not in f.versions:  # (a field of another version's struct, or of this one's)
            continue
        if value is None and version not in f.nullable:
            continue  # (a null where this version cannot carry one: the field's default, "" for a string)
        if f.struct is not None and value is not None:
            value = [_prune(v, f.struct, version) for v in value] if f.is_array else _prune(value, f.struct, version)
        out[key] = value
    return out


def make_body(schema: str, version: int, data: dict) -> Any:
    """The wire model of ``schema`` at ``version`` from Kafka JSON; the fields that version lacks are left out
    (so one dict serves every version)."""
    spec = load_message(schema)
    return from_json(_prune(data, spec.root, version), schema, version)


@dataclass
class Reply:
    """What the broker does with a request: answer ``body`` (Kafka JSON of the response, every version's fields
    welcome) after ``delay`` seconds, or, with ``drop``, close the connection without answering (a lost response).
    ``error`` names the error code the body carries, for the trace."""

    body: dict | None = None
    delay: float = 0.0
    drop: bool = False
    error: int = 0


Handler = Callable[[Any, dict], "Reply | asyncio.Future[Reply] | Any"]


class Broker:
    """A broker on 127.0.0.1 (an ephemeral port), node 0, the leader of every partition and the group's
    coordinator. ``group`` answers the group APIs and may override the others (:meth:`group.handle`)."""

    NODE = 0

    def __init__(self, trace: Trace, topics: dict[str, int], group: Any) -> None:
        self.trace = trace
        self.topics = topics
        self.group = group
        self.port = 0
        self.versions = advertised_versions()
        self._server: asyncio.AbstractServer | None = None
        self._conns: dict[int, _Connection] = {}
        self._next_conn = 0
        self.commits: dict[tuple[str, int], int] = {}

    async def start(self) -> None:
        loop = asyncio.get_running_loop()
        self._server = await loop.create_server(lambda: _Connection(self), "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
        for c in list(self._conns.values()):
            c.close()
        if self._server is not None:
            try:
                await asyncio.wait_for(self._server.wait_closed(), 2)
            except (asyncio.TimeoutError, Exception):
                pass

    def drop_all(self) -> None:
        """Close every client connection (the coordinator went away)."""
        for c in list(self._conns.values()):
            c.close()

    async def serve(self, conn: "_Connection") -> None:
        """Answer a connection's requests one at a time, in order."""
        while True:
            got = await conn.frames.get()
            if got is None:
                break
            arrived, data = got
            if not await self._request(conn.id, data, conn, arrived):
                conn.close("closed by the broker")
                break

    async def _request(self, conn: int, data: bytes, writer: "_Connection", arrived: float) -> bool:
        """Answer one request; False closes the connection."""
        try:
            key, version = struct.unpack_from(">hh", data)
        except struct.error:
            self.trace.note("protocol-error", conn=conn, detail="a frame too short for a request header")
            return False
        if key not in self.versions:
            # Kafka closes the connection on a request of an API it does not serve
            self.trace.note("protocol-error", conn=conn, detail=f"a request of API key {key}, which is not served")
            return False
        low, high = self.versions[key]
        if key == 18 and not low <= version <= high:
            # KIP-511: a newer ApiVersions than served is answered in v0's layout, UNSUPPORTED_VERSION, with the
            # versions served (ApiVersionsResponse.parse reads it back as v0)
            corr = struct.unpack_from(">i", data, 4)[0]
            body = make_body("ApiVersionsResponse", 0, self._api_versions_body(35))
            self.trace.request(conn, "ApiVersions", version, corr, {}, error=35, at=arrived)
            writer.write(encode_response_frame(response_frame(18, 0, corr, body), size_prefixed=True))
            return True
        try:
            frame = decode_request_frame(data, nested=False)
        except DecodeError as e:
            self.trace.note("protocol-error", conn=conn, detail=f"an undecodable request: {e}")
            return False
        api = apis()[key]
        if not low <= version <= high:
            self.trace.note("protocol-error", conn=conn, detail=f"{api.name} v{version}: not advertised ({low}-{high})")
            return False
        assert api.request is not None and api.response is not None
        req = body_json(api.request, version, frame.body)
        entry = self.trace.request(
            conn, api.name, version, frame.correlation_id, req, client_id=frame.client_id, at=arrived
        )
        try:
            got = self.group.handle(self, api.name, version, req, entry)
            if got is None:
                got = self.default(api.name, version, req)
            reply = (await got) if asyncio.iscoroutine(got) else got
        except Exception as e:  # a scenario's own mistake: say so in the trace, and drop the connection
            self.trace.note("broker-error", conn=conn, detail=f"{api.name} v{version}: {type(e).__name__}: {e}")
            return False
        entry.error = reply.error
        if reply.delay:
            await asyncio.sleep(reply.delay)
        if reply.drop or reply.body is None:
            entry.dropped = True
            return False
        try:
            body = make_body(api.response, version, reply.body)
            out = encode_response_frame(response_frame(key, version, frame.correlation_id, body), size_prefixed=True)
        except (EncodeError, KeyError, ValueError) as e:
            self.trace.note("broker-error", conn=conn, detail=f"{api.response} v{version}: {e}")
            return False
        entry.answered = self.trace.now()
        if writer.closed:
            return False
        writer.write(out)
        return True

    # --- the APIs around the group --------------------------------------------------------------------------

    def default(self, api: str, version: int, req: dict) -> Reply | Any:
        if api == "ApiVersions":
            return Reply(self._api_versions_body(0))
        if api == "Metadata":
            return Reply(self._metadata(version, req))
        if api == "FindCoordinator":
            return Reply(self.find_coordinator(req, 0))
        if api == "ListOffsets":
            return Reply(self._list_offsets(req))
        if api == "Fetch":
            return self._fetch(req)
        if api == "OffsetFetch":
            return Reply(self._offset_fetch(version, req))
        if api == "OffsetCommit":
            return Reply(self._offset_commit(req))
        raise KeyError(f"no default answer to {api}")

    def _api_versions_body(self, error: int) -> dict:
        return {
            "errorCode": error,
            "apiKeys": [
                {"apiKey": k, "minVersion": lo, "maxVersion": hi} for k, (lo, hi) in sorted(self.versions.items())
            ],
            "throttleTimeMs": 0,
        }

    def find_coordinator(self, req: dict, error: int) -> dict:
        node = (
            {"nodeId": self.NODE, "host": "127.0.0.1", "port": self.port}
            if not error
            else {
                "nodeId": -1,
                "host": "",
                "port": -1,
            }
        )
        keys = req.get("coordinatorKeys") or [req.get("key", "")]
        return {
            "throttleTimeMs": 0,
            "errorCode": error,
            "errorMessage": None,
            **node,
            "coordinators": [{"key": k, **node, "errorCode": error, "errorMessage": None} for k in keys],
        }

    def _topic_names(self, req_topics: list[dict] | None) -> list[tuple[str | None, str | None]]:
        if req_topics is None:
            return [(t, topic_id(t)) for t in self.topics]
        by_id = {topic_id(t): t for t in self.topics}
        out = []
        for t in req_topics:
            name = t.get("name")
            if not name and t.get("topicId") and t["topicId"] != "AAAAAAAAAAAAAAAAAAAAAA":
                name = by_id.get(t["topicId"])
            out.append((name, topic_id(name) if name in self.topics else t.get("topicId")))
        return out

    def _metadata(self, version: int, req: dict) -> dict:
        topics = []
        wanted = req.get("topics")
        if version == 0 and wanted == []:  # v0: an empty list is every topic (v1+: null is)
            wanted = None
        for name, tid in self._topic_names(wanted):
            known = name in self.topics
            topics.append(
                {
                    "errorCode": 0 if known else 3,  # UNKNOWN_TOPIC_OR_PARTITION
                    "name": name,
                    "topicId": tid if known else "AAAAAAAAAAAAAAAAAAAAAA",
                    "isInternal": False,
                    "partitions": [
                        {
                            "errorCode": 0,
                            "partitionIndex": p,
                            "leaderId": self.NODE,
                            "leaderEpoch": 0,
                            "replicaNodes": [self.NODE],
                            "isrNodes": [self.NODE],
                            "offlineReplicas": [],
                        }
                        for p in range(self.topics.get(name or "", 0))
                    ],
                    "topicAuthorizedOperations": -2147483648,
                }
            )
        return {
            "throttleTimeMs": 0,
            "brokers": [{"nodeId": self.NODE, "host": "127.0.0.1", "port": self.port, "rack": None}],
            "clusterId": "behaviour-gate",
            "controllerId": self.NODE,
            "topics": topics,
            "clusterAuthorizedOperations": -2147483648,
            "errorCode": 0,
        }

    def _list_offsets(self, req: dict) -> dict:
        return {
            "throttleTimeMs": 0,
            "topics": [
                {
                    "name": t["name"],
                    "partitions": [
                        {
                            "partitionIndex": p["partitionIndex"],
                            "errorCode": 0,
                            "timestamp": -1,
                            "offset": 0,
                            "leaderEpoch": 0,
                        }
                        for p in t["partitions"]
                    ],
                }
                for t in req.get("topics", [])
            ],
        }

    async def _fetch(self, req: dict) -> Reply:
        await asyncio.sleep(min(max(req.get("maxWaitMs", 0), 0) / 1000, FETCH_HOLD_CAP))
        responses = []
        for t in req.get("topics", []):
            responses.append(
                {
                    "topic": t.get("topic", ""),
                    "topicId": t.get("topicId", "AAAAAAAAAAAAAAAAAAAAAA"),
                    "partitions": [
                        {
                            "partitionIndex": p["partition"],
                            "errorCode": 0,
                            "highWatermark": 0,
                            "lastStableOffset": 0,
                            "logStartOffset": 0,
                            "abortedTransactions": [],
                            "preferredReadReplica": -1,
                            "records": "",
                        }
                        for p in t.get("partitions", [])
                    ],
                }
            )
        return Reply({"throttleTimeMs": 0, "errorCode": 0, "sessionId": 0, "responses": responses})

    def _offset_fetch(self, version: int, req: dict) -> dict:
        def partitions(name: str | None, indexes: list[int]) -> list[dict]:
            return [
                {
                    "partitionIndex": p,
                    "committedOffset": self.commits.get((name or "", p), -1),
                    "committedLeaderEpoch": -1,
                    "metadata": "",
                    "errorCode": 0,
                }
                for p in indexes
            ]

        def topics(ts: list[dict] | None) -> list[dict]:
            out = []
            by_id = {topic_id(t): t for t in self.topics}
            for t in ts or []:
                name = t.get("name") or by_id.get(t.get("topicId", ""))
                out.append(
                    {
                        "name": name,
                        "topicId": t.get("topicId", "AAAAAAAAAAAAAAAAAAAAAA"),
                        "partitions": partitions(name, t.get("partitionIndexes", [])),
                    }
                )
            return out

        if version >= 8:
            return {
                "throttleTimeMs": 0,
                "groups": [
                    {"groupId": g["groupId"], "topics": topics(g.get("topics")), "errorCode": 0}
                    for g in req.get("groups", [])
                ],
            }
        return {"throttleTimeMs": 0, "topics": topics(req.get("topics")), "errorCode": 0}

    def _offset_commit(self, req: dict, error: int = 0) -> dict:
        by_id = {topic_id(t): t for t in self.topics}
        out = []
        for t in req.get("topics", []):
            name = t.get("name") or by_id.get(t.get("topicId", ""), "")
            if not error:
                for p in t.get("partitions", []):
                    self.commits[(name, p["partitionIndex"])] = p["committedOffset"]
            out.append(
                {
                    "name": t.get("name", ""),
                    "topicId": t.get("topicId", "AAAAAAAAAAAAAAAAAAAAAA"),
                    "partitions": [
                        {"partitionIndex": p["partitionIndex"], "errorCode": error} for p in t["partitions"]
                    ],
                }
            )
        return {"throttleTimeMs": 0, "topics": out}


class _Connection(asyncio.Protocol):
    """One client connection. Bytes are cut into frames as they arrive; each frame is stamped with its arrival
    time after the drivers' output has been read, so that a driver line written before the request was sent is
    recorded before it."""

    def __init__(self, broker: Broker) -> None:
        self.broker = broker
        self.id = broker._next_conn
        broker._next_conn += 1
        self.frames: asyncio.Queue[tuple[float, bytes] | None] = asyncio.Queue()
        self.buf = b""
        self.closed = False
        self.transport: asyncio.Transport | None = None
        self.why = "closed by the client"

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        self.broker._conns[self.id] = self
        self.broker.trace.note("connect", conn=self.id)
        self.task = asyncio.get_running_loop().create_task(self.broker.serve(self))

    def data_received(self, data: bytes) -> None:
        trace = self.broker.trace
        for drain in trace.drains:
            drain()
        arrived = trace.now()
        self.buf += data
        while len(self.buf) >= 4:
            (size,) = _SIZE.unpack_from(self.buf)
            if not 0 < size <= MAX_FRAME:
                trace.note("protocol-error", conn=self.id, detail=f"a frame of {size} bytes: not a request read here")
                self.close("closed by the broker")
                return
            if len(self.buf) < 4 + size:
                break
            self.frames.put_nowait((arrived, self.buf[4 : 4 + size]))
            arrived += 1e-6  # frames of one read keep their order
            self.buf = self.buf[4 + size :]

    def write(self, data: bytes) -> None:
        if self.transport is not None and not self.closed:
            self.transport.write(data)

    def close(self, why: str | None = None) -> None:
        if why and not self.closed:
            self.why = why
        if self.transport is not None and not self.transport.is_closing():
            self.transport.close()

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.closed:
            self.closed = True
            if self.buf:
                self.why = "closed in the middle of a frame"
            self.broker._conns.pop(self.id, None)
            self.broker.trace.note("disconnect", conn=self.id, detail=self.why)
            self.frames.put_nowait(None)
