"""What ``rebalance-codec --version`` says: the package's version, which codec is in use (native or pure
Python), the version ranges of the messages (read from ``schemas/``) and the Kafka releases the schemas follow
(read from the ``releases`` block of ``schemas/README.md``: the facts are kept there, in one place)."""

from __future__ import annotations

import sys

from . import __version__

__all__ = ["version_text", "codec_text", "releases"]

_FAMILIES = (
    ("classic group APIs", ("JoinGroupRequest", "SyncGroupRequest", "HeartbeatRequest", "LeaveGroupRequest")),
    ("ConsumerProtocol", ("ConsumerProtocolSubscription", "ConsumerProtocolAssignment")),
    ("Kafka Streams", ("SubscriptionInfo", "AssignmentInfo")),
    ("Kafka Connect", ("ConnectMetadata", "ConnectAssignment")),
    (
        "Kafka 4 group RPCs",
        (
            "ConsumerGroupHeartbeatRequest",
            "ConsumerGroupDescribeRequest",
            "StreamsGroupHeartbeatRequest",
            "StreamsGroupDescribeRequest",
        ),
    ),
    ("share group RPCs", ("ShareGroupHeartbeatRequest", "ShareGroupDescribeRequest")),
    ("classic __consumer_offsets records", ("GroupMetadataValue", "OffsetCommitValue")),
    (
        "around the group (the behaviour gate's broker)",
        (
            "ApiVersionsRequest",
            "FindCoordinatorRequest",
            "MetadataRequest",
            "OffsetFetchRequest",
            "OffsetCommitRequest",
            "ListOffsetsRequest",
            "FetchRequest",
        ),
    ),
)


def codec_text() -> str:
    """Which codec decodes and encodes, and why when it is not the native one."""
    from .wire import native

    if native.active():
        return "native (the C engine built from codec/wire/_native.c; REBALANCE_CODEC_NATIVE=0 selects pure Python)"
    if native.available():
        return "python (pure Python, selected by REBALANCE_CODEC_NATIVE=0; the native codec is installed)"
    return f"python (pure Python: {native.unavailable_reason()})"


def releases() -> list[str]:
    """The bullet lines of ``schemas/README.md``'s releases block."""
    from .wire.schema import _schema_dir

    text = (_schema_dir() / "README.md").read_text(encoding="utf-8")
    block = text[text.index("<!-- releases:start -->") + 23 : text.index("<!-- releases:end -->")]
    lines: list[str] = []
    for line in block.strip().splitlines():
        if line.startswith("* "):
            lines.append(line[2:].strip())
        elif lines:
            lines[-1] += " " + line.strip()
    return lines


def version_text() -> str:
    from .wire.schema import load_message

    out = [
        f"rebalance-codec {__version__}",
        f"codec: {codec_text()}",
        f"Python {sys.version.split()[0]}",
        "messages (schemas/):",
    ]
    for family, names in _FAMILIES:
        ranges = ", ".join(f"{n.removesuffix('Request')} v{load_message(n).valid}" for n in names)
        out.append(f"  {family}: {ranges}")
    out.append("Kafka releases the schemas follow (schemas/README.md):")
    out += [f"  * {line}" for line in releases()]
    return "\n".join(out)
