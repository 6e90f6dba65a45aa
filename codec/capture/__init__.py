"""Reading users' captured bytes (issue #8): packet captures and ``__consumer_offsets`` records.

* :mod:`~codec.capture.pcapfile` — pcap/pcapng (gzipped or not) packets, streamed;
* :mod:`~codec.capture.packet` — link/IP/TCP headers;
* :mod:`~codec.capture.tcp` — sans-IO TCP reassembly: chunks with stream offsets, gaps, closes;
* :mod:`~codec.capture.framing` — Kafka framing of a byte stream, resynchronising after gaps;
* :mod:`~codec.capture.kafka` — broker-side detection, request/response pairing, with
  :mod:`~codec.capture.direction` judging connections no port settles (do their responses answer their
  requests?), said in words by :mod:`~codec.capture.judgement`;
* :mod:`~codec.capture.scan` — the whole pipeline over a file;
* :mod:`~codec.capture.offsets` — ``__consumer_offsets`` keys and values, from text dumps or log segments;
* :mod:`~codec.capture.story` — the rebalance story of classic groups (generations; its records in
  :mod:`~codec.capture.storymodel`, a group's generations settled by :mod:`~codec.capture.storygroups`), with
  :mod:`~codec.capture.heartbeat` for heartbeat-based ones (KIP-848, KIP-1071: member epochs), told as text by
  :mod:`~codec.capture.storytext`; :mod:`~codec.capture.metadata` names topic ids from Metadata responses;
* :mod:`~codec.capture.pcapwriter`, :mod:`~codec.capture.scripted` — captures written by hand, and scripted
  heartbeat-based rebalances.
"""

from .framing import FrameLoss, RawFrame, Unframed
from .kafka import KafkaFrame, KafkaTraffic
from .scan import BadFile, BadPacket, CaptureStats, kafka_frames, tcp_streams
from .tcp import Chunk, Closed, Flow, Gap, Late, Reassembler

__all__ = [
    "kafka_frames",
    "tcp_streams",
    "CaptureStats",
    "BadPacket",
    "BadFile",
    "KafkaFrame",
    "KafkaTraffic",
    "RawFrame",
    "Unframed",
    "FrameLoss",
    "Chunk",
    "Gap",
    "Late",
    "Closed",
    "Flow",
    "Reassembler",
]
