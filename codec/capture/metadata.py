"""Topic names from Metadata responses (api key 3), so that a capture's topic ids can be named.

KIP-848 and KIP-1071 assignments name topics by id. A client learns the names from Metadata responses,
which carry both from version 10 on (Kafka's MetadataResponse.json: flexible from v9, ``TopicId`` from v10,
``Name`` nullable from v12). :func:`topic_names` decodes a response body with the schema codec
(``schemas/MetadataResponse.json``: the lowering decides every field's layout) and returns
``{topic id in Kafka's short form: name}``. It raises :class:`~codec.errors.DecodeError` on bytes that do not
fit; the story then simply names no topic from that frame.
"""

from __future__ import annotations

import base64
import uuid

from ..wire.builder import decode_wire
from ..wire.message import encode, from_json

__all__ = ["METADATA", "metadata_response_v12", "topic_names", "topic_partitions"]

METADATA = 3
_NO_ID = uuid.UUID(int=0)


def topic_names(body: bytes, version: int) -> dict[str, str]:
    """``{topic id: name}`` of a MetadataResponse body at ``version`` (10 and up; an older one names no id)."""
    if version < 10:
        return {}
    response, _ = decode_wire("MetadataResponse", version, bytes(body))
    return {
        base64.urlsafe_b64encode(t.topic_id.bytes).decode("ascii").rstrip("="): t.name
        for t in response.topics
        if t.name and t.topic_id != _NO_ID
    }


def topic_partitions(body: bytes, version: int) -> list[tuple[str | None, str, int, list[list[str]]]]:
    """The topics of a MetadataResponse body at ``version`` as a consumer's leader sees them (Kafka's
    ``MetadataResponse.buildCluster``: a topic answered with an error is left out): ``(topic id in Kafka's short
    form, or None below v10, name, partition count, each partition's replica racks)``, the racks those of the
    response's brokers that name one (``Cluster``'s nodes), sorted; the partitions in the response's order."""
    response, _ = decode_wire("MetadataResponse", version, bytes(body))
    racks = {b.node_id: b.rack for b in response.brokers if getattr(b, "rack", None)}
    out = []
    for t in response.topics:
        if t.error_code or t.name is None:
            continue
        tid = getattr(t, "topic_id", None)
        short = base64.urlsafe_b64encode(tid.bytes).decode("ascii").rstrip("=") if tid and tid != _NO_ID else None
        by_index = sorted(t.partitions, key=lambda p: p.partition_index)
        out.append(
            (
                short,
                t.name,
                len(t.partitions),
                [sorted({racks[n] for n in p.replica_nodes if n in racks}) for p in by_index],
            )
        )
    return out


def metadata_response_v12(
    topics: dict[str, tuple[bytes, int]], *, broker: tuple[str, int] = ("10.0.0.100", 9092)
) -> bytes:
    """A MetadataResponse v12 body naming ``topics`` (name -> (16-byte id, partition count)), one broker (id 1)
    leading every partition; for scripted captures."""
    partition = {"errorCode": 0, "leaderId": 1, "leaderEpoch": 0, "replicaNodes": [1], "isrNodes": [1]}
    value = from_json(
        "MetadataResponse",
        12,
        {
            "throttleTimeMs": 0,
            "brokers": [{"nodeId": 1, "host": broker[0], "port": broker[1], "rack": None}],
            "clusterId": "cluster",
            "controllerId": 1,
            "topics": [
                {
                    "errorCode": 0,
                    "name": name,
                    "topicId": str(uuid.UUID(bytes=tid)),
                    "isInternal": False,
                    "partitions": [{**partition, "partitionIndex": p, "offlineReplicas": []} for p in range(n)],
                    "topicAuthorizedOperations": -2147483648,
                }
                for name, (tid, n) in topics.items()
            ],
        },
    )
    return encode("MetadataResponse", 12, value)
