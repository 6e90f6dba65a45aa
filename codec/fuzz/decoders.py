"""The fuzz targets: every decoding entry point of the codec, by name, as a function of one ``bytes``.

The invariant they are held to (docs/explanations/input-policy.md): whatever bytes come in, each returns a value
or raises :class:`~codec.errors.DecodeError` — nothing else — in bounded time and memory. The record-level
readers (the frame stream, captures, ``__consumer_offsets`` segments) report bad input as records instead of
raising, so there the invariant is simply "no exception"."""

from __future__ import annotations

import functools
import io
from typing import Callable

__all__ = ["Target", "targets", "frame_stream", "share_state_record", "CONNECT_READERS"]

#: A target: one decoding entry point, as a function of the input's bytes.
Target = Callable[[bytes], object]

#: Connect's readers: 0 is ConnectProtocol's, 1 IncrementalCooperativeConnectProtocol's (which reads version 2
#: alike: codec/connect/common.py reader_layout); each is a target of its own (``connect-metadata/r0``, ...).
CONNECT_READERS = (0, 1)


def _group_targets() -> dict[str, Target]:
    from ..group import MESSAGES, decode_consumer, decode_message, decode_request_frame, decode_response_frame
    from ..wire.registry import apis
    from ..wire.schema import load_message

    out: dict[str, Target] = {
        "consumer-subscription": lambda b: decode_consumer("ConsumerProtocolSubscription", b),
        "consumer-assignment": lambda b: decode_consumer("ConsumerProtocolAssignment", b),
        "request-frame": lambda b: decode_request_frame(b, nested=True),
    }
    for name in MESSAGES:
        for v in load_message(name).versions:
            out[f"{name}/v{v}"] = (lambda n, ver: lambda b: decode_message(n, ver, b, nested=True))(name, v)
    for key, api in apis().items():
        if api.response is None:
            continue
        for v in load_message(api.response).versions:
            out[f"response-frame/{key}/v{v}"] = (
                lambda k, ver: lambda b: decode_response_frame(b, k, ver, nested=True)
            )(key, v)
    for name in ("RequestHeader", "ResponseHeader"):
        for v in load_message(name).versions:
            out[f"{name}/v{v}"] = (lambda n, ver: lambda b: decode_message(n, ver, b))(name, v)

    out["frame-stream"] = frame_stream
    out["share-state-record"] = share_state_record
    # the sticky assignors' user data, as their kinds read it (Kafka's reading: codec.group.sticky)
    from ..group.sticky import COOPERATIVE_STICKY, STICKY, decode_sticky_user_data

    out["sticky-assignor-user-data"] = lambda b: decode_sticky_user_data(STICKY, b)
    out["cooperative-sticky-assignor-user-data"] = lambda b: decode_sticky_user_data(COOPERATIVE_STICKY, b)
    return out


def share_state_record(b: bytes) -> object:
    """The ``share-state-record`` target: a ``__share_group_state`` record, ``[uint16 key length][key][value]``, read
    as the share coordinator's (its record types, 0 ShareSnapshot and 1 ShareUpdate, are its own)."""
    from ..wire.records import decode_record

    n = int.from_bytes(b[:2], "big")
    return decode_record(b[2 : 2 + n], b[2 + n :], coordinator="share")


def frame_stream(b: bytes) -> list[bytes]:
    """The ``frame-stream`` target: the frames a :class:`~codec.group.stream.FrameReader` splits ``b`` into, fed
    in an odd chunking (7 bytes) to cross every boundary."""
    from ..group.stream import FrameReader

    reader = FrameReader()
    frames: list[bytes] = []
    for i in range(0, len(b), 7):
        reader.feed(b[i : i + 7])
        frames.extend(reader)
    reader.close()
    return frames


def _record_targets() -> dict[str, Target]:
    """Readers that report bad input as records: any exception at all is a violation."""
    from ..capture import kafka_frames
    from ..capture.offsets import decode_key, decode_value, read_segment

    def pcap(b: bytes) -> object:
        return list(kafka_frames(io.BytesIO(b)))

    def segment(b: bytes) -> object:
        return list(read_segment(io.BytesIO(b)))

    def offsets_record(b: bytes) -> object:  # [uint16 key length][key][value]
        n = int.from_bytes(b[:2], "big")
        version, *_ = decode_key(b[2 : 2 + n])
        return decode_value(version, b[2 + n :])

    return {"pcap": pcap, "offsets-segment": segment, "offsets-key-value": offsets_record}


def _connect_targets() -> dict[str, Target]:
    """Kafka Connect's worker metadata and assignment, each as both of Kafka's deserializers read it: ``/r0``
    ConnectProtocol's (reader version 0), ``/r1`` IncrementalCooperativeConnectProtocol's (1; 2 reads alike)."""
    from ..connect import decode_connect_assignment, decode_connect_metadata

    out: dict[str, Target] = {}
    for kind, decode in (
        ("connect-metadata", decode_connect_metadata),
        ("connect-assignment", decode_connect_assignment),
    ):
        for reader in CONNECT_READERS:
            out[f"{kind}/r{reader}"] = (lambda d, r: lambda b: d(b, reader_version=r))(decode, reader)
    return out


@functools.cache
def _targets() -> dict[str, Target]:
    from ..streams import decode_assignment, decode_subscription

    out: dict[str, Target] = {"subscription-info": decode_subscription, "assignment-info": decode_assignment}
    out.update(_group_targets())
    out.update(_record_targets())
    out.update(_connect_targets())
    return out


def targets() -> dict[str, Target]:
    """Every decoding entry point by name (a new dict each call)."""
    return dict(_targets())
