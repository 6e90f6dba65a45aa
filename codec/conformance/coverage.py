"""What the golden vectors cover: every message × version × op the codec supports, and ``vectors list``.

An op is what the runner asks of an implementation with a vector (vectors/README.md, "The runner"): a
``valid`` vector is decoded and then encoded (decoded only when flagged ``version-probe`` or ``capture-facts``),
an ``invalid`` vector with ``wire`` is decoded and one without is encoded (and must be refused), an
``acceptable`` vector is decoded, a rebalance round is assigned.

Every message × version needs a valid and an invalid vector to decode (none invalid where a version reads no byte:
a field-less one) and a valid one to encode; it needs an
invalid one to encode wherever Kafka refuses to write something at that version: a field the version lacks that
Kafka's message JSON does not mark ``ignorable`` (:func:`refusal_fields`; Kafka's generated classes throw
``UnsupportedVersionException`` on a non-default value for it). A frame needs one where the body of any of its
APIs at that version does. ``tests/conformance/test_coverage.py`` holds the suite to this.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping

from ..group.messages import MESSAGES as GROUP_MESSAGES
from ..kafka4.common import MESSAGES as KAFKA4_MESSAGES
from ..wire.lowering import StructOp, lower, regular_ops
from ..wire.registry import api_key, head, message_names, messages_of_type, ordered, record_types
from ..wire.schema import load_message
from .messages import MESSAGES
from .runner import vector_ops as _runner_ops

__all__ = [
    "CLASSIC_RECORDS",
    "ENFORCED",
    "FRAME_APIS",
    "GENERATED_DATA",
    "GENERATED_KINDS",
    "GROUP_SOURCES",
    "KAFKA4_RECORDS",
    "SHARE_COORDINATOR_RECORDS",
    "KAFKA4_RPCS",
    "KAFKA44_RPCS",
    "MARKERS",
    "OPS",
    "SHARE_RPCS",
    "embedded_block",
    "gaps",
    "refusal_fields",
    "render_list",
    "required",
    "rule_gaps",
    "rules_that_apply",
    "supported",
    "tally",
    "update_block",
    "vector_ops",
    "version_ranges",
]

# Kafka writes requests, responses, headers and the ConsumerProtocol messages with the classes generated from its
# message JSON, where the refusal rule holds. Kafka Streams' SubscriptionInfo/AssignmentInfo and Kafka Connect's
# messages are written by hand-written code that leaves out what a version cannot carry (flag lossy-version).
GENERATED_KINDS = ("request", "response", "header")
# Of the data messages, those whose head names the Kafka commit whose message JSON they copy ("follows": the
# ConsumerProtocol's): Kafka's generated classes write them. Connect's and the sticky assignors' user data name none
# (Kafka writes them with hand-written Struct code); nor do the classic __consumer_offsets records, which are counted
# apart (CLASSIC_RECORDS: their vectors name their version)
GENERATED_DATA = tuple(  # (a subscription before its assignment, as a group meets them)
    sorted((m for m in ordered(messages_of_type("data")) if head(m).follows is not None), key=lambda m: "Assign" in m)
)
#: The APIs whose whole frames the suite covers: the classic group protocol's (every API written before it was
#: flexible; codec.group.messages)
FRAME_APIS = {name.removesuffix("Request"): api_key(name.removesuffix("Request")) for name in GROUP_MESSAGES[::2]}
# the vector files whose valid vectors the handcrafted truncations, refusals and frames are built from
GROUP_SOURCES = (
    "kafka-java-group.jsonl",
    "kio-group.jsonl",
    "kafka-java-subscription-info.jsonl",
    "kafka-java-assignment-info.jsonl",
    "kafka-java-offsets.jsonl",
)
# Kafka 4's group RPCs (issue #21; codec.kafka4: the APIs flexible from their first version) and the
# __consumer_offsets records of consumer, Streams and share groups (a key and a value of each; their vectors carry no
# version: a key's record type and a value's version prefix are in the bytes, and the release has version 0 of each)
KAFKA4_RPCS = tuple(
    m
    for m in KAFKA4_MESSAGES
    if not m.startswith("ShareGroup")
    and m.removesuffix("Request").removesuffix("Response").endswith(("GroupHeartbeat", "GroupDescribe"))
)
# KIP-932 share groups' RPCs and records (issue #30): kio's bodies (kio-group-share.jsonl) and the hand-made edges
# of handcrafted-share.jsonl, which also cuts them
SHARE_RPCS = tuple(m for m in KAFKA4_MESSAGES if m.startswith("ShareGroup"))
_RECORDS = record_types()
_AWAITING = {m for m in message_names() if head(m).vectors == "awaiting"}
KAFKA4_RECORDS = tuple(part for r in _RECORDS.values() if not r.classic for part in (r.key, r.value))
# The share coordinator's records (__share_group_state: ShareSnapshot, ShareUpdate; Kafka 4.4's classes wrote their
# vectors, kafka-java-records44.jsonl): record types of that coordinator's own, versionless vectors as Kafka 4's
SHARE_COORDINATOR_RECORDS = tuple(part for r in record_types("share").values() for part in (r.key, r.value))
_VERSIONLESS = (*KAFKA4_RECORDS, *SHARE_COORDINATOR_RECORDS)
# The classic group's __consumer_offsets records (written by Kafka's generated classes, kafka-java-offsets.jsonl): their
# vectors name their version, the key's (its record type) or the value's, which the bytes' int16 prefix repeats
CLASSIC_RECORDS = tuple(dict.fromkeys(part for r in _RECORDS.values() if r.classic for part in (r.key, r.value)))
# The messages no golden vector holds yet, whose heads say so ("vectors": "awaiting"): the APIs around the group whose
# schemas the behaviour gate added (codec.conformance.behaviour; its scripted broker reads and writes them with real
# clients; their Kafka-written vectors are issue #43's). Until they come, the suite does not hold itself to them
# (tests/conformance/test_coverage.py holds that none of them has a vector, so the mark goes when they come)
AWAITING_VECTORS = tuple(m for m in MESSAGES if m in _AWAITING)
# The messages whose coverage the suite holds itself to (issue #22): every message the conformance protocol names
# (codec.conformance.messages: every kind that reads a message), the classic group protocol and what it carries,
# Kafka 4's RPCs and records, and any message a schema adds (but those awaiting their vectors).
ENFORCED = tuple(m for m in MESSAGES if m not in _AWAITING)
# The RPCs around the group issue #43 adds at Kafka 4.4 (the group admin RPCs, the share groups' data and state RPCs):
# every other request and response the suite holds itself to, whose vectors Kafka's classes at the 4.4 commit wrote
KAFKA44_RPCS = tuple(
    m
    for m in ENFORCED
    if m.endswith(("Request", "Response"))
    and m not in (*GROUP_MESSAGES, *KAFKA4_RPCS, *SHARE_RPCS)
    and load_message(m).kind in ("request", "response")
)
OPS = ("decode", "encode")
_FRAMES = {"RequestFrame": "Request", "ResponseFrame": "Response"}


def refusal_fields(message: str, version: int) -> list[tuple[str, ...]]:
    """The fields (as paths of Kafka's names) Kafka's generated writer refuses a non-default value for at
    ``version``: absent from the version, not ``ignorable``, inside a struct the version writes (requests,
    responses, headers and the ConsumerProtocol messages; none for the hand-written Streams and Connect ones)."""
    if message in _FRAMES:
        return []  # a frame's refusals are its body's
    spec = load_message(message)
    if spec.kind not in GENERATED_KINDS and message not in GENERATED_DATA:
        return []
    out: list[tuple[str, ...]] = []

    def walk(struct: StructOp, path: tuple[str, ...]) -> None:
        for f in struct.spec.fields:  # (in the schema's order)
            if f in struct.absent and f.tag is None and not f.ignorable:
                out.append((*path, f.name))
            op = next((op for op in struct.fields if op.field is f), None)
            if op is not None and op.struct is not None:
                walk(op.struct, (*path, f.name))

    walk(lower(message, version), ())
    return out


def supported() -> dict[str, list[int]]:
    """Every message the conformance protocol names and the versions the codec reads and writes it at (a
    frame's version is its API version: every version of the four group APIs)."""
    out: dict[str, list[int]] = {}
    for message in MESSAGES:
        if message in _FRAMES:
            versions = set()
            for api in FRAME_APIS:
                versions |= set(load_message(api + _FRAMES[message]).versions)
            out[message] = sorted(versions)
        else:
            try:
                out[message] = list(load_message(message).versions)
            except KeyError:  # a kind without a schema table of its own
                continue
    return out


def _frame_refusals(message: str, version: int) -> bool:
    side = _FRAMES[message]
    return any(
        version in load_message(api + side).versions and refusal_fields(api + side, version) for api in FRAME_APIS
    )


def _reads_bytes(message: str, version: int) -> bool:
    """Whether a version's body reads any byte: a non-flexible version without fields (ListGroupsRequest v0-2) reads
    none, so no bytes are invalid to it (Kafka's ListGroupsRequestData at 8d3916cfe1 reads "" and "ffff" at v0 and v2
    as {}, consuming nothing; a broker does not check what is left of a request's buffer, RequestContext.parseRequest)."""
    try:
        lowered = lower(message, version)
    except KeyError:
        return True
    return lowered.flexible or bool(list(regular_ops(message, version)))


def required(message: str, version: int) -> set[tuple[str, str]]:
    """The (op, result) pairs a message × version needs at least one vector of."""
    need = {("decode", "valid"), ("encode", "valid")}
    if message in _FRAMES or _reads_bytes(message, version):
        need.add(("decode", "invalid"))
    if _frame_refusals(message, version) if message in _FRAMES else refusal_fields(message, version):
        need.add(("encode", "invalid"))
    return need


def vector_ops(v: dict) -> list[tuple[str, str]]:
    """The (op, result) pairs the runner makes of one vector."""
    return [(op, v["result"]) for op in _runner_ops(v)]


def tally(vectors: Iterable[dict]) -> dict[tuple[str, int | None], Counter]:
    """(message, version) -> counts of (op, result)."""
    out: dict[tuple[str, int | None], Counter] = {}
    for v in vectors:
        c = out.setdefault((v["message"], v.get("version")), Counter())
        for pair in vector_ops(v):
            c[pair] += 1
    return out


def gaps(vectors: Iterable[dict], messages: Iterable[str] = ENFORCED) -> list[str]:
    """Every message × version × op of ``messages`` the suite leaves without the vectors :func:`required` asks
    for."""
    counts = tally(vectors)
    out = []
    for message, versions in supported().items():
        if message not in messages:
            continue
        for version in versions:
            have = counts.get((message, version), Counter())
            if message in _VERSIONLESS:  # a record's vectors name no version: the release's one, 0
                have = have + counts.get((message, None), Counter())
            for op, result in sorted(required(message, version)):
                if not have[(op, result)]:
                    out.append(f"{message} v{version}: no {result} vector to {op}")
    return out


# --- the rules Kafka's readers and writers enforce (issue #27) ----------------------------------------------

# rule class -> (the op and result of its vectors, the flag they carry)
RULES = {
    "null in a non-nullable field, read": ("decode", "invalid", "null-non-nullable"),
    "null in a non-nullable field, written": ("encode", "invalid", "null-non-nullable"),
    "null in a nullable field": ("decode", "valid", "null-nullable"),
    "a negative count": ("decode", None, "bad-count"),
    "a length past the input": ("decode", "invalid", "length-past-input"),
    "an ignorable field dropped": ("encode", "valid", "ignorable-dropped"),
    "every field set": ("decode", "valid", "every-field"),
    "unknown tagged fields": ("decode", "valid", "unknown-tagged-fields"),
    "a varint over five bytes": ("decode", "invalid", "long-varint"),
    "a compact length Java's int wraps": ("decode", None, "wrapped-length"),
    "a version prefix below the lowest": ("decode", "invalid", "bad-version"),
}
# Kafka Streams' SubscriptionInfo (read by Kafka's generated SubscriptionInfoData, but filled from Streams' model) is
# held to the rules of reading only, as every "data" message Kafka does not write with its generated classes is
# (Connect's and the sticky assignors' protocol.types schemas: rules_that_apply): their vectors' values are not their
# tables'
_READ_RULES_ONLY = ("SubscriptionInfo",)


def rules_that_apply(message: str, version: int) -> list[str]:
    """The rule classes a message × version must have a vector of, from its table: Kafka's generated messages
    (requests, responses, headers, ConsumerProtocol, the __consumer_offsets records) all of them where their
    fields allow; SubscriptionInfo and Connect the reading ones; AssignmentInfo (Kafka Streams' hand-written
    encoding) none here (handcrafted.py's vectors hold its rules)."""
    if message in _FRAMES or message == "AssignmentInfo":
        return []
    spec = load_message(message)
    generated = message not in _READ_RULES_ONLY and (spec.kind != "data" or message in GENERATED_DATA)
    top = [f for f in spec.root.fields if f.tag is None]
    # the wire's layout is the lowering's (codec.wire.lowering): which lengths may be null, which are compact
    lowered = lower(message, version)
    ops = list(regular_ops(message, version))
    lengths = [op for op in ops if op.array or op.kind in ("string", "bytes")]
    flexible = lowered.flexible
    out = []
    if any(not op.prefix_nullable for op in lengths):
        out.append("null in a non-nullable field, read")
        if generated:
            out.append("null in a non-nullable field, written")
    if generated and any(op.prefix_nullable or op.nullable for op in lowered.fields):
        out.append("null in a nullable field")
    if any(op.array and op.count == "int32" and not op.array_nullable for op in ops):
        out.append("a negative count")
    if lengths:
        out.append("a length past the input")
    if generated and any(version not in f.versions and f.ignorable and not (f.is_array and f.struct) for f in top):
        out.append("an ignorable field dropped")
    if generated:
        out.append("every field set")
    if flexible:
        out += ["unknown tagged fields", "a varint over five bytes"]
    if any(op.prefix == "compact" for op in lengths):
        out.append("a compact length Java's int wraps")
    if spec.version_prefix == "int16" and version == spec.valid.low:
        out.append("a version prefix below the lowest")
    return out


def rule_gaps(vectors: Iterable[dict], messages: Iterable[str] = ENFORCED) -> list[str]:
    """Every rule class of :func:`rules_that_apply` a message × version has no vector of (a version prefix below
    the lowest: a vector of the message at a lower version; a record's vectors name no version: the release's)."""
    have: dict[tuple, set[str]] = {}
    below: set[str] = set()
    for v in vectors:
        version = v.get("version")
        if _prefix_below(v):
            below.add(v["message"])
        for op, result in vector_ops(v):
            for rule, (r_op, r_result, flag) in RULES.items():
                if op == r_op and (r_result is None or result == r_result) and flag in v.get("flags", ()):
                    have.setdefault((v["message"], version), set()).add(rule)
    out = []
    for message, versions in supported().items():
        if message not in messages:
            continue
        for version in versions:
            got = have.get((message, version), set()) | (
                have.get((message, None), set()) if message in _VERSIONLESS else set()
            )
            for rule in rules_that_apply(message, version):
                ok = message in below if rule == "a version prefix below the lowest" else rule in got
                if not ok:
                    out.append(f"{message} v{version}: no vector of {rule}")
    return out


def _prefix_below(v: dict) -> bool:
    """Whether an invalid vector to decode puts an int16 version prefix below its message's lowest version (the
    vector's ``version`` is that of the bytes for ConsumerProtocol, the reader's for Connect: the bytes say)."""
    try:
        spec = load_message(v["message"])
    except KeyError:
        return False
    wire = bytes.fromhex(v.get("wire", ""))
    return (
        spec.version_prefix == "int16"
        and v["result"] == "invalid"
        and len(wire) >= 2
        and int.from_bytes(wire[:2], "big", signed=True) < spec.valid.low
    )


def version_ranges(versions: Iterable[int]) -> str:
    """``[0, 1, 2, 5, 12]`` -> ``"0-2, 5, 12"`` (negative versions one by one: ``"-1, 0"``)."""
    vs = sorted(set(versions))
    parts, i = [], 0
    while i < len(vs):
        j = i
        while j + 1 < len(vs) and vs[j + 1] == vs[j] + 1 and vs[i] >= 0:
            j += 1
        parts.append(str(vs[i]) if i == j else f"{vs[i]}-{vs[j]}")
        i = j + 1
    return ", ".join(parts)


def _rows(
    vectors: list[dict], rounds: int, by_version: bool, consumer_rounds: int | Mapping[str, int] = 0
) -> list[list[str]]:
    counts = tally(vectors)
    rows = []
    for message, versions in supported().items():
        seen = [v for (m, v) in counts if m == message]
        if not seen and message not in ENFORCED:
            continue
        other = sorted(v for v in seen if v is not None and v not in versions)
        # a row per version (the unsupported ones a vector names too), or one per message counting every vector
        groups: list[tuple[str, list[int | None]]] = (
            [(version_ranges([v]), [v]) for v in sorted(set(versions) | set(other))]
            if by_version
            else [(version_ranges(versions), [*versions, *seen])]
        )
        for label, group in groups:
            c: Counter = Counter()
            for v in set(group):
                c.update(counts.get((message, v), Counter()))
            ops = [op for op in OPS if c[(op, "valid")] or c[(op, "invalid")] or c[(op, "acceptable")]]
            row = [message, label, ", ".join(ops) or "-"]
            for op in OPS:
                cell = f"{c[(op, 'valid')]} / {c[(op, 'invalid')]}"
                if c[(op, "acceptable")]:
                    cell += f" (+{c[(op, 'acceptable')]} either)"
                row.append(cell)
            if not by_version:
                row.append(version_ranges(other))
            rows.append(row)
    if rounds:
        rows.append(["RebalanceRound", "", f"assign ({rounds} rounds)", "-", "-", *([] if by_version else [""])])
    per = {"ConsumerRound": consumer_rounds} if isinstance(consumer_rounds, int) else dict(consumer_rounds)
    for message, n in per.items():
        if n:
            rows.append([message, "", f"assign ({n} rounds)", "-", "-", *([] if by_version else [""])])
    return rows


def render_list(
    vectors: list[dict],
    rounds: int = 0,
    *,
    markdown: bool = False,
    by_version: bool = False,
    consumer_rounds: int | Mapping[str, int] = 0,
) -> str:
    """The table of ``rebalance-codec vectors list``: per message (or message × version) the versions, the ops
    its vectors exercise and how many valid / invalid vectors each op has; versions the codec does not support
    that vectors name (unknown version words, version probes) in the last column, their vectors counted in the
    message's row (``by_version``: rows of their own); the Streams leader's rounds (``rounds``) and the consumer
    assignors' (``consumer_rounds``: the Kafka-computed cases of ``vectors/consumer/``, a count of ``ConsumerRound``
    s or the count of each message, :func:`codec.conformance.vectors.round_counts`) last."""
    head = [
        "message",
        "version" if by_version else "versions",
        "ops",
        "decode: valid / invalid",
        "encode: valid / invalid",
    ] + ([] if by_version else ["other versions (bad or probes)"])
    rows = _rows(vectors, rounds, by_version, consumer_rounds)
    if markdown:
        lines = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
        lines += ["| " + " | ".join(r) + " |" for r in rows]
        return "\n".join(lines)
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(head, widths)).rstrip(), "  ".join("-" * w for w in widths)]
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
    return "\n".join(lines)


def cmd_vectors_list(args) -> int:
    """``rebalance-codec vectors list``: the table of what the vectors cover."""
    import sys
    from pathlib import Path

    from .. import text as _text
    from .vectors import VectorFileError, load_consumer_rounds, load_rounds, load_vectors, round_counts, vectors_dir

    directory = Path(args.dir) if args.dir else vectors_dir()
    try:
        files = sorted(directory.glob("*.jsonl"))
        vectors = load_vectors(files) if files else []
    except VectorFileError as e:
        for p in e.problems:
            print(f"error: {_text.printable(p)}", file=sys.stderr)
        return 1
    if getattr(args, "kafka_release", None) is not None:
        from ..negotiation.releases import check_release, selects, vector_api_key

        try:
            check_release(args.kafka_release)
        except ValueError as e:
            print(f"error: --kafka-release: {_text.printable(str(e))}", file=sys.stderr)
            return 2
        if args.update:
            print("error: --update writes the whole table: not with --kafka-release", file=sys.stderr)
            return 2
        before = len(vectors)
        vectors = [v for v in vectors if selects(args.kafka_release, v["message"], v.get("version"), vector_api_key(v))]
        print(f"kafka release {args.kafka_release}: {len(vectors)} of {before} vectors selected", file=sys.stderr)
    table = render_list(
        vectors,
        len(load_rounds(directory)),
        markdown=args.markdown or bool(args.update),
        by_version=args.by_version,
        consumer_rounds=round_counts(load_consumer_rounds(directory)),
    )
    if args.update:
        try:
            update_block(Path(args.update), table)
        except (OSError, ValueError) as e:
            print(f"error: {args.update}: {_text.printable(str(getattr(e, 'strerror', None) or e))}", file=sys.stderr)
            return 1
        print(f"{args.update}: the table between the {MARKERS[0]} and {MARKERS[1]} markers rewritten")
        return 0
    print(table)
    return 0


MARKERS = ("<!-- vectors-list:start -->", "<!-- vectors-list:end -->")


def embedded_block(text: str, markers: tuple[str, str] = MARKERS) -> str | None:
    """The text between the markers (default: vectors-list's; stripped), or None without both in order."""
    start, end = text.find(markers[0]), text.find(markers[1])
    if start < 0 or end < start:
        return None
    return text[start + len(markers[0]) : end].strip()


def update_block(path, table: str, markers: tuple[str, str] = MARKERS) -> None:
    """Rewrite the table between the markers of ``path`` (vectors/README.md); ValueError without them."""
    text = path.read_text(encoding="utf-8")
    if embedded_block(text, markers) is None:
        raise ValueError(f"no {markers[0]} ... {markers[1]} block")
    start, end = text.find(markers[0]) + len(markers[0]), text.find(markers[1])
    path.write_text(text[:start] + "\n" + table + "\n" + text[end:], encoding="utf-8")


def add_list_parser(vsub) -> None:
    """``vectors list`` on the ``vectors`` subcommand's parsers."""
    p = vsub.add_parser("list", help="the table of messages, versions and ops the vectors cover, with counts")
    p.add_argument("--markdown", action="store_true", help="as a Markdown table (as vectors/README.md embeds it)")
    p.add_argument("--by-version", action="store_true", dest="by_version", help="one row per message and version")
    p.add_argument("--dir", help="vector directory (default: vectors/)")
    p.add_argument(
        "--kafka-release",
        metavar="R",
        dest="kafka_release",
        help="only the vectors of what Kafka release R (2.0 ... 4.4) speaks (as conformance --kafka-release selects)",
    )
    p.add_argument(
        "--update",
        metavar="FILE",
        help="rewrite the Markdown table between the vectors-list markers of FILE (vectors/README.md) "
        "instead of printing it",
    )
    p.set_defaults(func=cmd_vectors_list)
