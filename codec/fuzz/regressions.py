"""The fuzzer's findings kept fixed: each violation found becomes a ``regression`` vector
(:func:`regression_vector`), listed in :data:`REGRESSIONS` and written to ``vectors/regression.jsonl``
(``rebalance-codec fuzz --write-regressions``)."""

from __future__ import annotations

import json
from pathlib import Path

__all__ = ["regression_vector", "regression_vectors", "write_regression_vectors", "REGRESSIONS"]


_KEY_ORDER = (
    "id",
    "message",
    "version",
    "apiKey",
    "description",
    "wire",
    "expected",
    "result",
    "error",
    "canonical",
    "flags",
    "provenance",
)


def regression_vector(
    message: str,
    version: int | None,
    data: bytes,
    reason: str,
    *,
    vid: str,
    expected: dict | None = None,
    canonical: bool = False,
    flags: tuple[str, ...] = (),
    api_key: int | None = None,
    error: str = "invalid-value",
    description: str | None = None,
) -> dict:
    """A vector (``vectors/schema.json``) that keeps a finding fixed, with ``provenance.source``
    ``regression``. Without ``expected`` the input must be rejected cleanly (``invalid``, ``error``); with
    it, it must decode to ``expected`` (``valid``; ``canonical`` when encoding ``expected`` gives ``data``
    back). ``reason`` says what went wrong (``provenance.note``), ``description`` what the vector holds
    (default: the reason)."""
    v: dict = {
        "id": vid,
        "message": message,
        "version": version,
        "apiKey": api_key,
        "description": (description or f"Found by fuzzing: {reason}")[:300],
        "wire": data.hex(),
    }
    if expected is None:
        v.update(result="invalid", error=error)
    else:
        v.update(expected=expected, result="valid")
    v.update(
        canonical=bool(canonical and expected is not None),
        flags=sorted(set(flags)),
        provenance={"source": "regression", "note": reason[:500]},
    )
    return {k: v[k] for k in _KEY_ORDER if v.get(k) is not None or k == "version"}


#: Every finding that became a vector (``vectors/regression.jsonl``): the arguments of
#: :func:`regression_vector`. The bytes and the expected values are written out by hand from the messages'
#: layouts (kafka-wire-facts §2-§3, Kafka's message JSON), never taken from the decoder.
REGRESSIONS: tuple[dict, ...] = (
    dict(
        vid="regression-assignmentinfo-v7-lone-surrogates",
        message="AssignmentInfo",
        version=7,
        # version 7, commonly supported 11, no active or standby tasks, topic dictionary {0: "t" U+DFFF},
        # one host ("h" U+D800, port 1) holding partition 0 of topic 0, no standby hosts, error 0,
        # nextRebalanceMs Long.MAX_VALUE. writeUTF writes a lone surrogate as three bytes of modified
        # UTF-8: U+D800 = 1110_1101 10_100000 10_000000 = ed a0 80, U+DFFF = ed bf bf.
        data=bytes.fromhex(
            "00000007"
            "0000000b"
            "00000000"
            "00000000"
            "00000001"
            "00000000"
            "0004"
            "74edbfbf"
            "00000001"
            "0004"
            "68eda080"
            "00000001"
            "00000001"
            "00000000"
            "00000000"
            "00000000"
            "00000000"
            "7fffffffffffffff"
        ),
        expected={
            "version": 7,
            "commonlySupportedVersion": 11,
            "activeTasks": [],
            "standbyTasks": [],
            "partitionsByHost": [{"host": "h\ud800", "port": 1, "partitions": [{"topic": "t\udfff", "partition": 0}]}],
            "standbyPartitionsByHost": [],
            "errCode": 0,
            "nextRebalanceMs": 9223372036854775807,
        },
        canonical=True,
        flags=("modified-utf8",),
        description="AssignmentInfo v7 whose host (writeUTF bytes 68 ed a0 80) is 'h' and the lone surrogate "
        "U+D800 and whose topic (74 ed bf bf) is 't' and U+DFFF; Kafka's readUTF accepts both",
        reason="issue #16: a Java string with a lone surrogate, written by json.dumps(ensure_ascii=False), "
        "could not be encoded as UTF-8: decode --style kafka and --format pretty failed with "
        "UnicodeEncodeError",
    ),
    dict(
        vid="regression-assignmentinfo-v10-lone-surrogate-topology",
        message="AssignmentInfo",
        version=10,
        # version 10, commonly supported 10, one active task: subtopology 0, partition 0, named topology of
        # one UTF-16 char d800 (int32 char count, then the chars, as writeChars); no standby tasks, an empty
        # topic dictionary, no hosts, no standby hosts, error 0, nextRebalanceMs Long.MAX_VALUE.
        data=bytes.fromhex(
            "0000000a"
            "0000000a"
            "00000001"
            "00000000"
            "00000000"
            "00000001"
            "d800"
            "00000000"
            "00000000"
            "00000000"
            "00000000"
            "00000000"
            "7fffffffffffffff"
        ),
        expected={
            "version": 10,
            "commonlySupportedVersion": 10,
            "activeTasks": [{"subtopology": 0, "partition": 0, "topologyName": "\ud800"}],
            "standbyTasks": [],
            "partitionsByHost": [],
            "standbyPartitionsByHost": [],
            "errCode": 0,
            "nextRebalanceMs": 9223372036854775807,
        },
        canonical=True,
        flags=("named-topology",),
        description="AssignmentInfo v10 with one active task of the named topology whose single UTF-16 char "
        "(d800) is the lone surrogate U+D800; Kafka's readChar loop accepts it",
        reason="render pass: the second Java-string field (javaChars) carries lone surrogates too; the "
        "pretty view (not UTF-8) and the pipeline's Arrow rows (UnicodeEncodeError in pyarrow) failed "
        "on it",
    ),
    dict(
        vid="regression-heartbeatrequest-v0-control-characters",
        message="HeartbeatRequest",
        version=0,
        # group id "" (int16 length 0), generation -1, member id of 25 UTF-8 bytes: "m-1", ESC, "[2J", LF,
        # "FORGED LINE", U+2028 (e2 80 a8), DEL, backslash, "x"
        data=bytes.fromhex("0000ffffffff00196d2d311b5b324a0a464f52474544204c494e45e280a87f5c78"),
        expected={"groupId": "", "generationId": -1, "memberId": "m-1\x1b[2J\nFORGED LINE\u2028\x7f\\x"},
        canonical=True,
        description="HeartbeatRequest v0 whose member id holds ESC, a line feed, U+2028, DEL and a backslash; "
        "the decoded string keeps every one of them",
        reason="render pass: the group pretty view wrote strings with json.dumps, which leaves DEL and U+2028 "
        "raw, so a member id could add a line to the view; escaping belongs to the view, the value "
        "keeps the bytes' characters",
    ),
)


def regression_vectors() -> list[dict]:
    """The vectors of :data:`REGRESSIONS` (the content of ``vectors/regression.jsonl``)."""
    return [regression_vector(**r) for r in REGRESSIONS]


def write_regression_vectors(path: Path) -> int:
    """Write :func:`regression_vectors` to ``path``: JSON lines, every character outside ASCII as its escape
    (the strings hold lone surrogates and U+2028, which ``str.splitlines`` would take for a line break)."""
    vectors = regression_vectors()
    Path(path).write_text("".join(json.dumps(v, ensure_ascii=True) + "\n" for v in vectors), encoding="utf-8")
    return len(vectors)
