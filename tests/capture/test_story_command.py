"""The ``capture`` subcommand itself: input detection, ``--group``, ``--port``, the progress line."""

from __future__ import annotations

import argparse
import gzip
import io

from codec.capture.command import detect, register, run
from codec.capture.pcapwriter import conversation, pcap, pcapng

from .storyfixtures import generation_frames, json_lines, run_capture, streams_pcap, streams_records

RECORDS = streams_records()[:2]


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_detect(tmp_path):
    cases = {
        "a.pcap": streams_pcap(RECORDS),
        "b.pcapng.gz": gzip.compress(pcapng(conversation([]))),
        "c.log": b"",
        "d.bin": b"\x00" * 8 + b"\x00\x00\x00\x31" + b"\x00" * 4 + b"\x02" + b"\x00" * 40,
        "e.txt": b"0002000167\tnull\n",
    }
    want = {"a.pcap": "pcap", "b.pcapng.gz": "pcap", "c.log": "segment", "d.bin": "segment", "e.txt": "text"}
    for name, data in cases.items():
        (tmp_path / name).write_bytes(data)
        assert detect(tmp_path / name) == want[name], name


def test_port_makes_a_connection_kafka(tmp_path):
    # no handshake and a port other than 9092: found by sniffing, or named with --port
    frames = generation_frames(RECORDS[0])
    p = tmp_path / "p.pcap"
    p.write_bytes(pcap(conversation(frames, server=("10.0.0.2", 19092), syn=False, mss=1 << 16)))
    for argv in ((), ("--port", "19092")):
        lines = json_lines(p, *argv)
        assert lines[-1]["group_frames"] == 6


def test_group_filter(tmp_path):
    p = tmp_path / "s.pcap"
    p.write_bytes(streams_pcap(RECORDS))
    assert [x["type"] for x in json_lines(p, "--group", "other")] == ["summary"]
    assert len([x for x in json_lines(p, "--group", "streams-app") if x["type"] == "frame"]) == 12


def test_the_group_filter_accounts_for_what_it_leaves_out(tmp_path):
    # --group keeps one group's frames; the others are counted as left out, and a group that is not there is
    # said to be absent from an input that has traffic (not "no consumer group traffic")
    p = tmp_path / "s.pcap"
    p.write_bytes(streams_pcap(RECORDS))
    (summary,) = json_lines(p, "--group", "other")
    assert (summary["kafka_frames"], summary["group_frames"], summary["other_groups"]) == (12, 0, 12)
    assert json_lines(p, "--group", "streams-app")[-1]["other_groups"] == 0
    status, text = run_capture(p, "--group", "other")
    assert status == 0
    assert text.startswith("no traffic of group 'other' (--group); the input has 1 other group: streams-app\n")
    assert "  Kafka frames   12: 0 group frames decoded, 12 of other groups left out (--group), 0 of other APIs" in text
    # a text dump: three GroupMetadataKey tombstones of group "g" (key version 2, group "g", no value)
    dump = tmp_path / "d.txt"
    dump.write_text("0002000167\tnull\n" * 3)
    status, text = run_capture(dump, "--group", "other")
    assert status == 0 and text.startswith("no traffic of group 'other' (--group); the input has 1 other group: g\n")
    assert "  records        3 (3 of other groups left out: --group)\n" in text
    assert json_lines(dump, "--group", "other")[-1]["other_groups"] == 3


def test_progress_only_on_a_terminal(tmp_path):
    p = tmp_path / "s.pcap"
    p.write_bytes(streams_pcap(RECORDS))
    parser = argparse.ArgumentParser()
    register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["capture", str(p), "--json"])
    tty, plain = _Tty(), io.StringIO()
    assert run(args, out=io.StringIO(), err=tty) == 0 and run(args, out=io.StringIO(), err=plain) == 0
    assert "reading" in tty.getvalue() and f"of {p.stat().st_size / 1e6:,.1f} MB" in tty.getvalue()
    assert plain.getvalue() == ""


def test_group_filter_leaves_out_other_groups_unanswered_requests(tmp_path):
    # the generation's last frame (the SyncGroup response) cut: one SyncGroup request of group streams-app unanswered
    frames = generation_frames(RECORDS[0])
    assert frames[-1][0] == "s"
    p = tmp_path / "u.pcap"
    p.write_bytes(pcap(conversation(frames[:-1])))
    assert json_lines(p)[-1]["unanswered_requests"] == 1
    assert json_lines(p, "--group", "streams-app")[-1]["unanswered_requests"] == 1
    (summary,) = json_lines(p, "--group", "other")  # another group's: left out with the rest of its frames
    assert summary["unanswered_requests"] == 0 and summary["other_groups"] == len(frames) - 1
