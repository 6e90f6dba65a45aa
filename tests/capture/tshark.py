"""tshark's Kafka dissector as the oracle for the frames of a capture, and the reader's frames in the same shape.

Both give one ``(connection, direction, api_key, correlation_id)`` per Kafka frame, sorted. tshark's come from
``tshark -T json`` with ``-d tcp.port==PORT,kafka`` (so a non-default port is dissected too): the connection is
``tcp.stream``, a frame with ``kafka.request_key`` is a request, any other a response, whose API key is
``kafka.response_key`` (absent when tshark matched no request). tshark registers no request whose frame the
capture's snap length cut, so it leaves the responses to them unmatched although it showed the request: such a
response takes the API key tshark gave the request with its correlation id on its connection (tshark's own
reading, one step further). tshark's JSON repeats a key for each PDU of a packet; all are read.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

from codec.capture import CaptureStats, KafkaFrame, kafka_frames

TSHARK = shutil.which("tshark")

Frame = tuple[int, str, "int | None", int]


def _pairs(pairs: list[tuple[str, object]]) -> dict:
    """A JSON object keeping repeated keys: a repeated key's values as a list under ``key``."""
    out: dict = {}
    for k, v in pairs:
        if k in out:
            prev = out[k]
            out[k] = (prev if isinstance(prev, _Many) else _Many([prev])) + [v]
        else:
            out[k] = v
    return out


class _Many(list):
    """Values of a key tshark repeated."""

    def __add__(self, other):  # type: ignore[override]
        return _Many(list.__add__(self, other))


def _all(value) -> list:
    return list(value) if isinstance(value, _Many) else [value]


def tshark_frames(path: str | Path, port: int, args: tuple[str, ...] = ()) -> list[Frame]:
    """tshark's Kafka frames of ``path`` (see the module docstring); ``args``: more of tshark's options."""
    assert TSHARK is not None
    done = subprocess.run(
        [TSHARK, "-r", str(path), "-d", f"tcp.port=={port},kafka", *args, "-T", "json", "-j", "tcp kafka"],
        capture_output=True,
        timeout=300,
        check=True,
    )
    packets = json.loads(done.stdout, object_pairs_hook=_pairs)
    frames: list[Frame] = []
    requests: dict[tuple[int, int], int] = {}
    for packet in packets:
        layers = packet["_source"]["layers"]
        if "kafka" not in layers:
            continue
        stream = int(_all(layers["tcp"])[0]["tcp.stream"])
        for pdu in _all(layers["kafka"]):
            if "kafka.correlation_id" not in pdu:
                continue  # (a PDU cut before its correlation id, or the padding of a short packet)
            cid = int(pdu["kafka.correlation_id"])
            if "kafka.request_key" in pdu:
                key = int(pdu["kafka.request_key"])
                requests[(stream, cid)] = key
                frames.append((stream, "request", key, cid))
            else:
                key = pdu.get("kafka.response_key")
                frames.append((stream, "response", int(key) if key is not None else requests.get((stream, cid)), cid))
    return sorted(frames, key=repr)


def our_frames(path: str | Path, ports: set[int] | None = None, stats: CaptureStats | None = None) -> list[Frame]:
    """The reader's Kafka frames of ``path`` (``ports``: its ``--port``; None: none given)."""
    kwargs = {} if ports is None else {"ports": ports}
    frames = [
        (e.flow.conn, e.direction, e.api_key, e.correlation_id)
        for e in kafka_frames(path, stats=stats, **kwargs)
        if isinstance(e, KafkaFrame)
    ]
    return sorted(frames, key=repr)
