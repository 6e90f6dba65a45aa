"""``conformance --cross-version``: write each Streams message at every version and ask an implementation
to read it as a reader of every version, against what Kafka's rules imply (wire-facts §2, §3, §5):

* SubscriptionInfo written at W, read by a reader whose newest version is R: W <= R decodes in full;
  W > R is a version probe (only the version and latestSupportedVersion words) from 2.0 on (R >= 3), an error
  before (R 1 or 2: those readers throw);
* AssignmentInfo: W <= R decodes; W > R is an error (no future-version leniency).

The rules are :mod:`codec.streams.readers`, checked against what each release's own reader did with these samples
(``vectors/releases/streams-readers.jsonl``).

The samples are drawn from the run's seed (process id, endpoint, tasks and offset sums, host maps, the
latest supported version), and a cell agrees only when the answer is the one Kafka implies *and* the value
read is the sample's, field by field, as the vector runner compares (the built-in codec's reading as a
reader of that version is the value expected): an answer made from the request's ``version`` and
``readerVersion`` alone agrees nowhere.
"""

from __future__ import annotations

import random
import uuid

from ..streams.readers import reads
from ..streams import AssignmentInfo, SubscriptionInfo, encode_assignment, encode_subscription
from ..types import HostInfo, TaskId, TopicPartition
from .generate import kafka_shape
from .impl import BuiltinImplementation, Implementation
from .messages import normalize
from .runner import first_difference

__all__ = ["cross_version_matrix", "render_matrix"]

VERSIONS = range(1, 12)
_REFERENCE = BuiltinImplementation()


def _samples(seed: int):
    rng = random.Random(f"rebalance-codec cross-version {seed}")
    for w in VERSIONS:

        def task() -> TaskId:
            return TaskId(rng.randint(0, 50), rng.randint(0, 500))

        sub = SubscriptionInfo(
            version=w,
            latest_supported_version=rng.randint(w, 2**31 - 1) if w >= 3 else -1,
            process_id=uuid.UUID(int=rng.getrandbits(128)),
            user_endpoint=f"host-{rng.randint(0, 999)}:{rng.randint(1, 65535)}" if w >= 2 else None,
            task_offset_sums={task(): -2, task(): rng.randint(0, 2**40) if w >= 7 else -3},
            unique_field=rng.randint(-128, 127) if w >= 8 else 0,
            error_code=rng.randint(0, 4) if w >= 9 else 0,
        )
        topic = f"topic-{rng.randint(0, 999)}"
        asg = AssignmentInfo(
            version=w,
            commonly_supported_version=rng.randint(w, 11) if w >= 3 else -1,
            active_tasks=(task(), task()),
            partitions_by_host={
                HostInfo(f"h{rng.randint(0, 99)}", rng.randint(1, 65535)): (TopicPartition(topic, rng.randint(0, 99)),)
            }
            if w >= 2
            else {},
            error_code=rng.randint(0, 4) if w >= 4 else 0,
            next_rebalance_ms=rng.randint(0, 2**62) if w >= 7 else 2**63 - 1,
        )
        yield w, encode_subscription(sub), encode_assignment(asg)


def implied(message: str, writer: int, reader: int) -> str:
    """What Kafka's reader does: :func:`codec.streams.readers.reads`, the model ``compat`` and the codec share."""
    return reads(message, writer, reader)


def _got(message: str, w: int, r: int, wire: bytes, out) -> str:
    """What an answer is: ok, probe, error, skip (declined), or wrong (a failure, not an object, or a value
    that is not what the bytes hold)."""
    if out.declined is not None:
        return "skip"  # declined: not checked, so it never agrees (nor does a rejection it is not)
    if out.failure or (out.ok and not isinstance(out.value, dict)):
        return "wrong"
    if not out.ok:
        return "error"
    probe = message == "SubscriptionInfo" and bool(out.value.get("futureVersion"))
    ref = _REFERENCE.decode(message, w, wire, reader_version=r)
    if not ref.ok:
        return "wrong"  # the reference refuses these bytes at this reader: no value agrees
    expected = kafka_shape(message, ref.value)
    same = first_difference(normalize(message, expected), normalize(message, out.value)) is None
    return ("probe" if probe else "ok") if same else "wrong"


def cross_version_matrix(impl: Implementation, seed: int = 0) -> list[dict]:
    cells = []
    for w, sub, asg in _samples(seed):
        for message, wire in (("SubscriptionInfo", sub), ("AssignmentInfo", asg)):
            for r in VERSIONS:
                got = _got(message, w, r, wire, impl.decode(message, w, wire, reader_version=r))
                want = implied(message, w, r)
                cells.append(
                    {"message": message, "writer": w, "reader": r, "got": got, "kafka": want, "agrees": got == want}
                )
    return cells


def render_matrix(cells: list[dict]) -> str:
    sym = {"ok": "ok", "probe": "pr", "error": "--", "wrong": "!!", "skip": "sk"}
    lines = []
    for message in ("SubscriptionInfo", "AssignmentInfo"):
        lines.append(
            f"{message}: rows = written at, columns = reader's newest version "
            "(ok decoded, pr version probe, -- error, !! a wrong value or no answer, sk declined, "
            "* disagrees with Kafka)"
        )
        lines.append("      " + " ".join(f"{r:>3}" for r in VERSIONS))
        for w in VERSIONS:
            row = [c for c in cells if c["message"] == message and c["writer"] == w]
            lines.append(f"  v{w:<3}" + " ".join(f"{sym[c['got']] + ('*' if not c['agrees'] else ''):>3}" for c in row))
        lines.append("")
    bad = sum(not c["agrees"] for c in cells)
    lines.append(f"{len(cells) - bad} of {len(cells)} cells agree with Kafka")
    return "\n".join(lines)
