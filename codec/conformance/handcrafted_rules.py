"""Rule vectors: one for every rule Kafka's generated readers and writers enforce, at every message and version
where it applies (``vectors/kafka-java-rules-<family>.jsonl``: the set is one, kept a file a family under 5 MB each,
:func:`codec.conformance.handcrafted_case.rules_part`), each verdict Kafka's own.

The cases are made from the schemas (so a message added to ``schemas/`` and given vectors gets them with no code
here) and from a valid vector of each message and version that Kafka, kio or a hand-assembler wrote (of any
vector file; the one reaching the most fields), and, for fields that vector does not reach, from a value made
from the table; Kafka's classes then judge each case — ``vectors/tools/KafkaRules.java`` calls them, and their
answers are kept in ``vectors/tools/kafka-rules.answers.jsonl`` (the Kafka commit, the class, the bytes written,
the value read or the exception thrown). A vector is made only from an answer to the very case (a digest of the
case is in the answer); a case without one stops ``vectors handcraft``. Kafka's classes of four commits answer,
each at the commit its tables follow (``CLASSIC_COMMIT``, ``KAFKA4_COMMIT``, ``SHARE_COMMIT``, ``KAFKA44_COMMIT``: the
Streams heartbeat and the RPCs added at 4.4); when one moves,
the cases of that commit are asked again: ``Case.question()`` of each of ``rule_cases(vectors_dir())`` whose
``commit`` it is, one JSON line each, to KafkaRules.java run on that commit's classes (its header comment), and
its answers replace theirs in the answers file. The rules:

* ``null-read`` — -1 (compact: 0) as the length of each non-nullable string, bytes and array: the bytes a codec
  that took the field for nullable writes (this project's encoder with that one field made nullable, so the
  rest of the message reads on); Kafka's reader throws "non-nullable field … was serialized as null" (Connect's
  "… -1 cannot be negative");
* ``null-write`` — a null value in each non-nullable string, bytes, array and struct: Kafka's writer, handed
  the null by the field's setter, throws (an ``encode-refused`` vector without ``wire``);
* ``negative-count`` — -2 as the count of each array of a classic (non-flexible) version: refused where the
  array is not nullable; where it is, Kafka reads null (any negative count is null to its readers), which this
  project refuses: an ``acceptable`` vector whose decoded value, if any, is Kafka's;
* ``wrapped-length`` — a compact length that Java's int wraps: Kafka reads one as ``ByteUtils.readUnsignedVarint(...)
  - 1`` in an int, so the uvarint ff ff ff ff 0f (2**32 - 1) is the length -2: on the last compact string, bytes
  and array of each flexible version, nullable and not (those inside tagged fields aside), refused where not
  nullable, read as null where nullable (``acceptable``, as ``negative-count``); and once a message, at its newest
  flexible version, on the source's last compact length, 80 80 80 80 08 (2**31, Integer.MIN_VALUE: one less is
  Integer.MAX_VALUE, refused) and that length in five bytes with bits 4-6 of the last set (shifted out of the int:
  Kafka reads the length it had, ``acceptable``). This project refuses every one (a length past 32767 or the input,
  a varint past 2**32);
* ``past-input`` — the last string, the last bytes and the last array of each message and version with a length
  one more than the bytes that remain;
* ``ignorable-dropped`` — a non-default value for each ``ignorable`` field a version lacks, tagged or not: Kafka
  writes the version without it (a valid vector checked in the encode direction only: its bytes are another vector's);
* ``filled`` — every field of the version set, each to a value of its own that is not its default (arrays of
  one element, nullable structs present, known tagged fields set), made from the table: Kafka writes and reads it;
* ``nullable-null`` — every nullable field null (those inside a nullable field in a second vector): Kafka
  writes and reads them (Kafka Connect: reads a null array or allocation as empty, flag ``null-as-empty``);
* ``unknown-tagged`` — unknown tagged fields, with their sizes, on every struct of each flexible version (tag 1
  with two bytes and tag 300, a two-byte tag, with none on the top level; tag 2 with one byte below): Kafka reads
  and writes them back unchanged; headers included, and a frame of each API whose header carries them;
* ``long-varint`` — the top-level tagged-field count of each flexible version written in six bytes: Kafka's
  varint reader throws after five;
* ``version-prefix`` — the ConsumerProtocol and Connect messages behind version -1: Kafka's ``ConsumerProtocol``
  (``ConnectProtocol``) throws.

The group messages, headers, ConsumerProtocol, Kafka 4's RPCs and records and the classic group's records get every
rule that applies; Kafka Streams' SubscriptionInfo (which Kafka reads with its generated SubscriptionInfoData) and
Kafka Connect's messages (hand-written ``protocol.types`` schemas) the reading ones (null-read, negative-count,
past-input, version-prefix, Connect's nullable-null), their vectors' values being Kafka's views, not their tables';
AssignmentInfo (a hand-written ``DataOutputStream`` encoding) none here: handcrafted.py's vectors hold its rules.

A case, its binding to Kafka's class and the values and bytes it is built from are
:mod:`codec.conformance.handcrafted_case`; the cases of each rule :mod:`codec.conformance.handcrafted_cases`; this
module checks Kafka's answers and makes the vectors.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from .handcrafted_case import (
    from_our_table,
    ANSWERS,
    CLASSIC_COMMIT,
    KAFKA4_COMMIT,
    KAFKA44_COMMIT,
    RULES_FILE,
    SHARE_COMMIT,
    Case,
    RuleError,
    _body,
    _bound,
    _get,
    _shown,
    binding,
)
from .handcrafted_cases import rule_cases

__all__ = [
    "ANSWERS",
    "CLASSIC_COMMIT",
    "KAFKA4_COMMIT",
    "KAFKA44_COMMIT",
    "RULES_FILE",
    "SHARE_COMMIT",
    "RuleError",
    "binding",
    "rule_cases",
    "rule_vectors",
]


# --- answers and vectors -----------------------------------------------------------------------------------


def _answers(directory: Path) -> dict[str, dict]:
    path = directory / ANSWERS
    if not path.is_file():
        return {}
    return {
        a["id"]: a for a in (json.loads(line) for line in path.read_text(encoding="utf-8").split("\n") if line.strip())
    }


def rule_vectors(directory: Path, messages: Iterable[str] | None = None) -> list[dict]:
    """The rule vectors (those of ``messages``; :func:`~codec.conformance.handcrafted_case.split_rules` gives each its
    file): every case with Kafka's answer. RuleError
    lists the cases without an answer to them, and the answers that contradict the rule."""
    answers = _answers(directory)
    out, problems = [], []
    for case in rule_cases(directory, messages):
        q = case.question()
        a = answers.get(case.id)
        if a is None or a.get("digest") != q["digest"]:
            problems.append(
                f"{case.id}: no answer from Kafka's classes to this case (run vectors/tools/KafkaRules.java)"
            )
            continue
        got = "accepted" if a["ok"] else "refused"
        if got != case.expect:
            problems.append(
                f"{case.id}: Kafka {got} it ({a.get('error') or a.get('hex')}); the rule expects {case.expect}"
            )
            continue
        problem = _check(case, a)
        if problem:
            problems.append(f"{case.id}: {problem}")
            continue
        out.append(_vector(case, a))
    if problems:
        raise RuleError("; ".join(problems[:5]) + (f" (and {len(problems) - 5} more)" if len(problems) > 5 else ""))
    return out


def _check(case: Case, a: dict) -> str | None:
    """What is wrong with an answer beyond its verdict: a refusal for another reason than the rule's, or bytes
    Kafka wrote that are not the ones the rule names."""
    m = case.make
    # generated readers: "non-nullable field x was serialized as null"; Connect's protocol.types: "String length -1
    # cannot be negative", "Array size -1 cannot be negative"
    if (
        case.rule == "null-read"
        and "was serialized as null" not in a["error"]
        and "-1 cannot be negative" not in a["error"]
    ):
        return f"refused for another reason: {a['error']}"
    if case.rule == "ignorable-dropped" and a["hex"] != _body(case.message, bytes.fromhex(m["wire"])).hex():
        return f"Kafka wrote {a['hex']}, not the source's bytes"
    if case.rule == "unknown-tagged":
        read = (
            case.payload["hex"]
            if case.message.endswith("Frame")
            else _body(case.message, bytes.fromhex(m["caseWire"])).hex()
        )
        if a["hex"] != read:
            return f"Kafka wrote back {a['hex']}, not the bytes it read"
    if case.rule == "negative-count" and m.get("nullable") and _get(a["value"], m["path"]) is not None:
        return "Kafka did not read null"
    if case.rule == "wrapped-length":
        return _check_wrapped(case, a)
    return None


def _check_wrapped(case: Case, a: dict) -> str | None:
    """A wrapped length read as -2 (null, or the non-nullable field's exception), 2**31 as Integer.MAX_VALUE, and
    the length with high bits as the length it was (Kafka writes back the source's bytes)."""
    m = case.make
    variant = m.get("variant")
    if variant == "int-min":
        return None if str(2**31 - 1) in a["error"] else f"refused for another reason: {a['error']}"
    if variant == "high-bits":
        source = _body(case.message, bytes.fromhex(m["wire"])).hex()
        return None if a["hex"] == source else f"Kafka wrote back {a['hex']}, not the source's bytes"
    if m["nullable"]:
        return None if _get(a["value"], m["path"]) is None else "Kafka did not read null"
    return None if "was serialized as null" in a["error"] else f"refused for another reason: {a['error']}"


def _prov(case: Case, a: dict, note: str) -> dict:
    cls = a["class"].rsplit(".", 1)[-1]
    p = {
        "source": "kafka-java",
        "commit": a["commit"],
        "record": f"vectors/{ANSWERS.as_posix()}:{case.id}",
        "checkedBy": f"{a['class']} ({case.op})",
        "note": note,
    }
    if from_our_table(case.message):
        p["note"] += (
            f"; {cls} generated by Kafka's message generator at {a['commit'][:7]} from "
            f"schemas/{case.message}.json (the layout schemas/README.md gives)"
        )
    return p


def _full_value(case: Case, kafka_value: dict) -> dict:
    """Kafka's value of the body, as the vector shows it (a record value starts with its version)."""
    if _bound(case.message).framing == "record-value":
        return {"valueVersion": case.make["javaVersion"], **kafka_value}
    return kafka_value


def _refused(case: Case, a: dict, description: str, error: str, flags: list[str], how: str, **extra) -> dict:
    """An invalid vector of bytes Kafka's reader refused (``how``: what was done to the source's bytes)."""
    m = case.make
    return {
        "id": case.id,
        "message": case.message,
        "version": case.version,
        **extra,
        "description": description,
        "wire": m["caseWire"],
        "result": "invalid",
        "error": error,
        "offset": m["offset"],
        "canonical": False,
        "flags": flags,
        "provenance": _prov(case, a, f"{m['src']} {how}; Kafka: {a['error'][:160]}"),
    }


def _vector(case: Case, a: dict) -> dict:
    m, msg, ver = case.make, case.message, case.version
    where = f"{msg} v{ver}" if ver is not None else msg
    base = {"id": case.id, "message": msg, "version": ver}
    if case.rule == "null-read":
        return _refused(
            case,
            a,
            f"{where} with -1 (null) as the length of non-nullable {_shown(tuple(m['path']))}: Kafka's reader throws",
            "invalid-value",
            ["null-non-nullable"],
            "written with null there by a table that makes the field nullable",
        )
    if case.rule == "null-write":
        return {
            **base,
            "description": f"{where} with null in non-nullable {_shown(tuple(m['path']))}: Kafka's writer throws",
            "expected": m["expectedValue"],
            "result": "invalid",
            "error": "invalid-value",
            "canonical": False,
            "flags": ["encode-refused", "null-non-nullable"],
            "provenance": _prov(
                case, a, f"{m['src']}'s value, the field set to null by its setter; Kafka: {a['error'][:160]}"
            ),
        }
    if case.rule == "negative-count":
        shown = _shown(tuple(m["path"]))
        if m["nullable"]:
            return {
                **base,
                "description": f"{where} with -2 as the count of nullable {shown}: Kafka's reader takes "
                f"any negative count for null; a decoder that reads it gives null",
                "wire": m["caseWire"],
                "expected": _full_value(case, a["value"]),
                "result": "acceptable",
                "error": "invalid-count",
                "offset": m["offset"],
                "canonical": False,
                "flags": ["bad-count"],
                "provenance": _prov(case, a, f"{m['src']} with -2 there; Kafka read null"),
            }
        return _refused(
            case,
            a,
            f"{where} with -2 as the count of non-nullable {shown}: Kafka's reader throws",
            "invalid-count",
            ["bad-count"],
            "with -2 there",
        )
    if case.rule == "wrapped-length":
        return _wrapped_vector(case, a, base, where)
    if case.rule == "past-input":
        return _refused(
            case,
            a,
            f"{where}: the length of its last {m['kind']}, {_shown(tuple(m['path']))}, one more than "
            "the bytes that remain",
            "truncated",
            ["length-past-input"] + (["bad-count"] if m["kind"] == "array" else []),
            "with that length",
        )
    if case.rule == "ignorable-dropped":
        return {
            **base,
            "description": f"{where} with {_shown(tuple(m['path']))} {json.dumps(m['shown'])}, a field the "
            f"version lacks that Kafka marks ignorable: written without it",
            "wire": m["wire"],
            "expected": m["value"],
            "result": "valid",
            "canonical": True,
            "flags": ["ignorable-dropped"],
            "provenance": _prov(case, a, f"{m['src']}'s value with the field set; Kafka wrote the source's bytes"),
        }
    if case.rule == "filled":
        return {
            **base,
            "description": f"{where} with every field set, each to a value of its own (arrays of one "
            f"element), written and read by Kafka",
            "wire": _reframe(case, bytes.fromhex(a["hex"])).hex(),
            "expected": _full_value(case, a["value"]),
            "result": "valid",
            "canonical": True,
            "flags": ["every-field"],
            "provenance": _prov(case, a, "a value made from the table, every field set; written and read by Kafka"),
        }
    if case.rule == "nullable-null" and "paths" not in m:  # Kafka Connect's: read, not written
        return {
            **base,
            "description": f"{where} with -1 (null) as the length of nullable {_shown(tuple(m['path']))}: "
            "Kafka's reader takes it for empty",
            "wire": m["caseWire"],
            "expected": a["value"],
            "result": "valid",
            "canonical": False,
            "flags": ["null-as-empty", "null-nullable"],
            "provenance": _prov(
                case,
                a,
                f"{m['src']} with null there; Kafka's reading of it, in the view of "
                "../shared/vectors/kafka-java/tools/ConnectGen.java",
            ),
        }
    if case.rule == "nullable-null":
        shown = ", ".join(_shown(tuple(p)) for p in m["paths"])
        return {
            **base,
            "description": f"{where} with null in nullable {shown}"[:300],
            "wire": _reframe(case, bytes.fromhex(a["hex"])).hex(),
            "expected": _full_value(case, a["value"]),
            "result": "valid",
            "canonical": True,
            "flags": ["null-nullable"],
            "provenance": _prov(case, a, f"{m['src']}'s value with those fields null, written and read by Kafka"),
        }
    if case.rule == "unknown-tagged" and msg.endswith("Frame"):
        body = m["body"]
        value = {
            "apiKey": m["apiKey"],
            "apiVersion": ver,
            "headerVersion": m["headerVersion"],
            "header": a["value"],
            "body": body["expected"],
        }
        return {
            **base,
            **({"apiKey": m["apiKey"]} if msg == "ResponseFrame" else {}),
            "description": f"A {msg[:-5].lower()} frame of API {m['apiKey']} v{ver} whose header carries unknown "
            f"tagged fields (tag 1: 2 bytes, tag 300: none), and the body of {body['id']}",
            "wire": m["caseWire"],
            "expected": value,
            "result": "valid",
            "canonical": True,
            "flags": ["unknown-tagged-fields"],
            "provenance": _prov(
                case,
                a,
                f"the header read and written back by Kafka; body {body['id']} ({body['provenance']['source']})",
            ),
        }
    if case.rule == "unknown-tagged":
        return {
            **base,
            "description": f"{where} with unknown tagged fields on every struct (tag 1: 2 bytes, tag 300: "
            f"none; below, tag 2: 1 byte), kept when written back",
            "wire": m["caseWire"],
            "expected": _full_value(case, a["value"]),
            "result": "valid",
            "canonical": True,
            "flags": ["unknown-tagged-fields"],
            "provenance": _prov(
                case, a, f"{m['src']}'s value with the fields added; Kafka read them and wrote the same bytes back"
            ),
        }
    if case.rule == "long-varint":
        return _refused(
            case,
            a,
            f"{where} whose tagged-field count is written in six bytes (80 80 80 80 80 00): "
            "Kafka's varint reader throws after five",
            "invalid-value",
            ["long-varint"],
            f"{'without its tagged fields, ' if m['bare'] else ''}with that count",
        )
    if case.rule == "version-prefix":
        # a ConsumerProtocol vector's version is the one its bytes claim; a Connect one's, its reader's (here v0's)
        connect = _bound(msg).method is not None
        reader = a["class"].rsplit(".", 1)[-1] if connect else "ConsumerProtocol"
        return _refused(
            case,
            a,
            f"{msg} behind version -1 (ffff), below its lowest: Kafka's {reader} throws",
            "unsupported-version",
            ["bad-version"],
            "behind -1 instead of its version",
            version=case.version if connect else -1,
        )
    raise ValueError(case.rule)


def _wrapped_vector(case: Case, a: dict, base: dict, where: str) -> dict:
    m = case.make
    variant, kind, shown = m.get("variant"), m["kind"], _shown(tuple(m["path"]))
    flags = ["wrapped-length"] + (["bad-count"] if kind == "array" else [])
    nullable = "nullable" if m["nullable"] else "non-nullable"
    if variant == "int-min":
        return _refused(
            case,
            a,
            f"{where} with 80 80 80 80 08 (2**31, Java's Integer.MIN_VALUE) as the compact length of {nullable} "
            f"{shown}: one less is Integer.MAX_VALUE, and Kafka's reader throws",
            {"string": "invalid-value", "bytes": "truncated", "array": "invalid-count"}[kind],
            flags,
            "with that length",
        )
    if variant is None and not m["nullable"]:
        return _refused(
            case,
            a,
            f"{where} with ff ff ff ff 0f (2**32 - 1, Java's int -1) as the compact length of non-nullable {shown}: "
            "Kafka's reader takes the length -2 for null and throws",
            "invalid-count" if kind == "array" else "invalid-value",
            flags,
            "with that length in place of its null",
        )
    if variant is None:
        description = (
            f"{where} with ff ff ff ff 0f (2**32 - 1, Java's int -1) as the compact length of nullable {shown}: "
            "Kafka's reader takes the length -2 for null; a decoder that reads it gives null"
        )
        note = f"{m['src']}, the field null, with that length in place of its null; Kafka read null"
    else:
        description = (
            f"{where} with the compact length of {nullable} {shown} in five bytes, bits 4-6 of the last set (70): "
            "Java's int has no room for them, and Kafka's reader takes the length it had"
        )
        note = f"{m['src']} with that length; Kafka read it and wrote the source's bytes back"
    return {
        **base,
        "description": description,
        "wire": m["caseWire"],
        "expected": _full_value(case, a["value"]),
        "result": "acceptable",
        "error": "invalid-count" if kind == "array" else "invalid-value",
        "offset": m["offset"],
        "canonical": False,
        "flags": flags,
        "provenance": _prov(case, a, note),
    }


def _reframe(case: Case, body: bytes) -> bytes:
    """Kafka's body bytes with the int16 the vector's bytes start with (record type, value version, version)."""
    if _bound(case.message).framing is None:
        return body
    return bytes.fromhex(case.make["wire"])[:2] + body
