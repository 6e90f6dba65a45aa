"""A SyncGroup answer the codec refuses still says its error: librdkafka's mock answers a follower's SyncGroup that
comes after the leader's with INVALID_REQUEST (42) and a null assignment (rdkafka_mock_cgrp.c: the group is Up, where
a SyncGroup is no request it takes; rdkafka_mock_handlers.c writes the error and null bytes), which Kafka's schema
does not allow. The member rejoins; the cause of the generation that follows names the error -- as tshark's Kafka
dissector reads it from the same frame, not as the codec does."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from codec.errors import DecodeError
from codec.group.frames import decode_response_frame, refused_error_code

from .realruns import load, told
from .test_real_captures import RUNS

INVALID_REQUEST = 42


def _refused(frame: bytes, version: int) -> tuple[int | None, DecodeError]:
    with pytest.raises(DecodeError) as e:
        decode_response_frame(frame, 14, version)
    return refused_error_code(frame, 14, version, e.value), e.value


@pytest.mark.parametrize("version", [0, 1, 2, 3, 4, 5])
def test_the_error_of_a_sync_answer_with_a_null_assignment_is_read(version):
    """The answer as the mock writes it: correlation id (and, flexible, the header's empty tagged fields), throttle
    time from v1, the error, null bytes (int32 -1; compact: varint 0); v5 adds ProtocolType and ProtocolName
    (nullable strings, null) before the assignment."""
    flexible = version >= 4
    frame = (7).to_bytes(4, "big") + (b"\x00" if flexible else b"")
    frame += b"\x00\x00\x00\x00" if version >= 1 else b""
    frame += INVALID_REQUEST.to_bytes(2, "big")
    frame += b"\x00\x00" if version >= 5 else b""  # compact null strings
    frame += b"\x00" if flexible else b"\xff\xff\xff\xff"
    frame += b"\x00" if flexible else b""
    code, error = _refused(frame, version)
    assert code == INVALID_REQUEST, error
    # cut inside the error code: the frame cannot tell it
    cut = frame[: 4 + (1 if flexible else 0) + (4 if version >= 1 else 0) + 1]
    assert _refused(cut, version)[0] is None


def _tshark_sync_errors(pcap, port: int) -> dict[float, int]:
    """tshark's reading: the SyncGroup answers with an error, by their time."""
    done = subprocess.run(
        [
            "tshark",
            "-r",
            str(pcap),
            "-d",
            f"tcp.port=={port},kafka",
            "-Y",
            "kafka.response_key==14 && kafka.error!=0",
            "-T",
            "fields",
            "-e",
            "frame.time_epoch",
            "-e",
            "kafka.error",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    out = {}
    for line in done.stdout.splitlines():
        ts, code = line.split("\t")
        out[round(float(ts), 6)] = int(code)
    return out


@pytest.mark.skipif(shutil.which("tshark") is None, reason="tshark's Kafka dissector is the oracle")
@pytest.mark.parametrize("run", RUNS, ids=[r.name.removesuffix(".run.json") for r in RUNS])
def test_a_rejoin_after_a_refused_sync_names_the_error_tshark_reads(run):
    rec = load(run)
    pcap = run.with_name(run.name.replace(".run.json", ".pcap.gz"))
    said = {}
    for r in told(pcap, rec["ports"]):
        for c in r.causes:
            for e in c.evidence:
                if e.what.startswith("SyncGroup answer to "):
                    assert "cannot read" not in e.what, e.what
                    m = re.search(r": error (-?\d+) ", e.what)
                    assert m is not None, e.what
                    said[round(e.ts, 6)] = int(m.group(1))
    oracle = _tshark_sync_errors(pcap, rec["ports"][0])
    assert set(said) <= set(oracle)
    assert {ts: oracle[ts] for ts in said} == said
    if run.name.startswith(("ck-joins-leaves", "ck-kill", "ck-stall", "ck-static")):
        assert said and set(said.values()) == {INVALID_REQUEST}
