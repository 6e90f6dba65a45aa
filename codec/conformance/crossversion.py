"""``conformance --cross-version``: write each Streams message at every version and ask an implementation
to read it as a reader of every version, against what Kafka's rules imply (wire-facts §2, §3, §5):

* SubscriptionInfo written at W, read by a reader whose newest version is R: W <= R decodes in full;
  W > R is a version probe (only the version and latestSupportedVersion words);
* AssignmentInfo: W <= R decodes; W > R is an error (no future-version leniency).
"""

from __future__ import annotations

import uuid

from ..streams import AssignmentInfo, SubscriptionInfo, encode_assignment, encode_subscription
from ..types import HostInfo, TaskId, TopicPartition
from .impl import Implementation

__all__ = ["cross_version_matrix", "render_matrix"]

VERSIONS = range(1, 12)


def _samples():
    pid = uuid.UUID("6f1c2f0e-8d2b-4c6a-9e4e-0123456789ab")
    for w in VERSIONS:
        sub = SubscriptionInfo(version=w, latest_supported_version=w if w >= 3 else -1, process_id=pid,
                               user_endpoint="h:1" if w >= 2 else None, task_offset_sums={TaskId(0, 0): -2})
        asg = AssignmentInfo(version=w, commonly_supported_version=w if w >= 3 else -1, active_tasks=(TaskId(0, 0),),
                             partitions_by_host={HostInfo("h", 1): (TopicPartition("t", 0),)} if w >= 2 else {})
        yield w, encode_subscription(sub), encode_assignment(asg)


def implied(message: str, writer: int, reader: int) -> str:
    if writer <= reader:
        return "ok"
    return "probe" if message == "SubscriptionInfo" else "error"


def cross_version_matrix(impl: Implementation) -> list[dict]:
    cells = []
    for w, sub, asg in _samples():
        for message, wire in (("SubscriptionInfo", sub), ("AssignmentInfo", asg)):
            for r in VERSIONS:
                out = impl.decode(message, w, wire, reader_version=r)
                if out.declined is not None:
                    got = "skip"  # declined: not checked, so it never agrees (nor does a rejection it is not)
                elif out.failure or (out.ok and not isinstance(out.value, dict)):
                    got = "wrong"  # an adapter failure, or a value that is not an object, never agrees
                elif not out.ok:
                    got = "error"
                elif message == "SubscriptionInfo" and out.value.get("futureVersion"):
                    got = "probe" if out.value.get("version") == w else "wrong"
                else:
                    got = "ok" if out.value.get("version") == w else "wrong"
                want = implied(message, w, r)
                cells.append({"message": message, "writer": w, "reader": r, "got": got, "kafka": want,
                              "agrees": got == want})
    return cells


def render_matrix(cells: list[dict]) -> str:
    sym = {"ok": "ok", "probe": "pr", "error": "--", "wrong": "!!", "skip": "sk"}
    lines = []
    for message in ("SubscriptionInfo", "AssignmentInfo"):
        lines.append(f"{message}: rows = written at, columns = reader's newest version "
                     "(ok decoded, pr version probe, -- error, sk declined, * disagrees with Kafka)")
        lines.append("      " + " ".join(f"{r:>3}" for r in VERSIONS))
        for w in VERSIONS:
            row = [c for c in cells if c["message"] == message and c["writer"] == w]
            lines.append(f"  v{w:<3}" + " ".join(f"{sym[c['got']] + ('*' if not c['agrees'] else ''):>3}" for c in row))
        lines.append("")
    bad = sum(not c["agrees"] for c in cells)
    lines.append(f"{len(cells) - bad} of {len(cells)} cells agree with Kafka")
    return "\n".join(lines)
