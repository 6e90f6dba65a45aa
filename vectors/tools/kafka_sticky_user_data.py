"""The classic sticky assignors' user data as golden vectors: ``vectors/kafka-java-sticky-user-data.jsonl`` from what
Kafka's own ``StickyAssignor`` and ``CooperativeStickyAssignor`` wrote and read (the 4.4 branch, ``8d3916cfe1``),
kept in ``tests/group/kafka_sticky_user_data.jsonl`` (its first line says how it was made).

* a ``write`` line: the user data the assignor returned (``subscriptionUserData``) and what its ``memberData`` read
  back -- a valid vector of ``StickyAssignorUserData`` v1 (or ``CooperativeStickyAssignorUserData`` v0), its
  expected value Kafka's reading (the partitions grouped by topic in the order read, the generation);
* a ``read`` line: bytes given by hand and what each assignor's ``memberData`` read from them -- where
  ``StickyAssignor`` fell back (no partitions, generation -1: neither its V1 nor its V0 schema reads them), an
  invalid vector at each version, flagged with the rule the bytes break; where it read them whole, a valid one at
  the version that read them (V1 gives a generation, V0 none).

Left out: bytes with more after the fields (Kafka does not read them: the tests hold those), empty bytes (Kafka
reads no user data at all; the subscription's rule), and the topic of malformed UTF-8, which Kafka's
``Type.STRING`` reads with U+FFFD and this codec refuses (docs/explanations/input-policy.md). Added by hand
(``HANDCRAFTED``, provenance ``handcrafted``): a -1 partition count, refused by the rule of Kafka's ``ArrayOf.read``
that refused the topic array's -1 in Kafka's run. Nothing here imports this project's codec. From the repository
root::

    python vectors/tools/kafka_sticky_user_data.py > vectors/kafka-java-sticky-user-data.jsonl
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SOURCE = "tests/group/kafka_sticky_user_data.jsonl"
COMMIT = "8d3916cfe15f13a2d878c79d302ba2d63172f0af"
LAYER = {"sticky": "StickyAssignorUserData", "cooperative-sticky": "CooperativeStickyAssignorUserData"}
CHECKED_BY = {
    "sticky": "org.apache.kafka.clients.consumer.StickyAssignor (memberData)",
    "cooperative-sticky": "org.apache.kafka.clients.consumer.CooperativeStickyAssignor (memberData)",
}
# the bytes StickyAssignor could not read: (what is wrong, the vector's error, where the reading stops, its flags)
REFUSED = {
    "ff": ("one byte where the topic count's four go", "truncated", 0, []),
    "0001": ("two bytes where the topic count's four go", "truncated", 0, []),
    "ffffffff": (
        "-1 as the count of the non-nullable topic array",
        "invalid-count",
        0,
        ["null-non-nullable", "bad-count"],
    ),
    "7fffffff": ("2147483647 topics in no bytes", "invalid-count", 0, ["bad-count", "length-past-input"]),
    "000000050000": ("5 topics in 2 bytes", "invalid-count", 0, ["bad-count", "length-past-input"]),
    "00000001ffff00000000": ("-1 as the length of the non-nullable topic", "invalid-value", 4, ["null-non-nullable"]),
    "000000010001740000000500000001": (
        "5 partitions in 4 bytes",
        "invalid-count",
        7,
        ["bad-count", "length-past-input"],
    ),
}
MALFORMED_UTF8 = {"000000010001ff0000000000000009"}


def _grouped(partitions: list[list]) -> list[dict]:
    """Kafka's reading, ``[[topic, partition], ...]``, as the layout's topics (a run of one topic is one entry)."""
    out: list[dict] = []
    for topic, p in partitions:
        if out and out[-1]["topic"] == topic:
            out[-1]["partitions"].append(p)
        else:
            out.append({"topic": topic, "partitions": [p]})
    return out


def _vector(vid, assignor, version, description, wire, line, **rest) -> dict:
    provenance = {
        "source": "kafka-java",
        "commit": COMMIT,
        "record": f"{SOURCE}:{line}",
        "checkedBy": CHECKED_BY[assignor],
    }
    return {
        "id": vid,
        "message": LAYER[assignor],
        "version": version,
        "description": description,
        "wire": wire,
        **rest,
        "provenance": provenance,
    }


def vectors() -> list[dict]:
    out = []
    lines = (ROOT / SOURCE).read_text(encoding="utf-8").splitlines()
    writes = {"sticky": 0, "cooperative-sticky": 0}
    for n, text in enumerate(lines, 1):
        r = json.loads(text)
        case = r.get("case")
        if case == "write":
            a, read = r["assignor"], r["read"]
            i = writes[a]
            writes[a] += 1
            if a == "sticky":
                expected = {
                    "version": 1,
                    "previousAssignment": _grouped(read["partitions"]),
                    "generation": read["generation"],
                }
                what = f"{len(read['partitions'])} partitions, generation {read['generation']}"
                vid, version = f"ks-sticky-v1-write-{i:02d}", 1
            else:
                expected = {"version": 0, "generation": read["generation"]}
                what = f"generation {read['generation']}"
                vid, version = f"ks-cooperative-sticky-v0-write-{i:02d}", 0
            out.append(
                _vector(
                    vid,
                    a,
                    version,
                    f"{LAYER[a]} v{version} written by Kafka's assignor and read back: {what}",
                    r["hex"],
                    n,
                    expected=expected,
                    result="valid",
                    canonical=True,
                    flags=[],
                )
            )
        elif case == "read":
            raw, kafka = r["hex"], r["sticky"]
            if not raw or raw in MALFORMED_UTF8:
                continue
            if r["cooperative-sticky"] == {"generation": -1} and raw != "ffffffff":  # (-1 written is -1 read)
                out.append(
                    _vector(
                        f"ks-cooperative-sticky-v0-refused-{raw}",
                        "cooperative-sticky",
                        0,
                        f"CooperativeStickyAssignorUserData v0 of {len(raw) // 2} byte{'s' if len(raw) > 2 else ''}, short of its int32: "
                        "Kafka's "
                        "CooperativeStickyAssignor reads generation -1",
                        raw,
                        n,
                        result="invalid",
                        error="truncated",
                        offset=0,
                        canonical=False,
                        flags=[],
                    )
                )
            if raw in REFUSED:
                what, error, offset, flags = REFUSED[raw]
                for version in (1, 0):
                    out.append(
                        _vector(
                            f"ks-sticky-v{version}-refused-{raw}",
                            "sticky",
                            version,
                            f"StickyAssignorUserData v{version} with {what}: Kafka's StickyAssignor reads neither "
                            "layout (no previous partitions, generation -1)",
                            raw,
                            n,
                            result="invalid",
                            error=error,
                            offset=offset,
                            canonical=False,
                            flags=flags,
                        )
                    )
                continue
            assert kafka != {"partitions": [], "generation": -1}, raw  # a fallback not in REFUSED: say what it breaks
            version = 0 if kafka["generation"] is None else 1
            expected = {"version": version, "previousAssignment": _by_layout(raw)}
            if version == 1:
                expected["generation"] = kafka["generation"]
            flat = [[e["topic"], p] for e in expected["previousAssignment"] for p in e["partitions"]]
            assert flat == kafka["partitions"], (raw, flat, kafka)  # the layout's reading is Kafka's
            consumed = _end(raw, version)
            if consumed != len(raw) // 2:
                continue  # bytes after the fields: the tests hold them
            out.append(
                _vector(
                    f"ks-sticky-v{version}-read-{raw}",
                    "sticky",
                    version,
                    f"StickyAssignorUserData bytes given by hand that Kafka's StickyAssignor reads with its V{version} "
                    "schema" + (" (its V1 schema finds no generation)" if version == 0 else ""),
                    raw,
                    n,
                    expected=expected,
                    result="valid",
                    canonical=True,
                    flags=[],
                )
            )
    return out


def _layout(raw: str) -> tuple[list[dict], int]:
    """The topics of bytes Kafka read whole, and where they end (a plain reading of the V0 layout, for the topics'
    grouping Kafka's flat list does not show)."""
    b = bytes.fromhex(raw)
    pos, topics = 4, []
    for _ in range(int.from_bytes(b[:4], "big")):
        n = int.from_bytes(b[pos : pos + 2], "big")
        topic = b[pos + 2 : pos + 2 + n].decode()
        pos += 2 + n
        k = int.from_bytes(b[pos : pos + 4], "big")
        parts = [int.from_bytes(b[pos + 4 + 4 * j : pos + 8 + 4 * j], "big", signed=True) for j in range(k)]
        pos += 4 + 4 * k
        topics.append({"topic": topic, "partitions": parts})
    return topics, pos


def _by_layout(raw: str) -> list[dict]:
    return _layout(raw)[0]


def _end(raw: str, version: int) -> int:
    return _layout(raw)[1] + (4 if version == 1 else 0)


# bytes no Kafka run here gave its assignor, refused by the rule of Kafka's protocol.types that refused the others:
# ArrayOf.read of a non-nullable array throws on a negative size ("Array size -1 cannot be negative"), so its V1 and
# V0 schemas both fail and StickyAssignor reads no previous partitions, generation -1
HANDCRAFTED = {
    "00000001000174ffffffff00000009": (
        "-1 as the count of the non-nullable partitions array of its one topic, then generation 9",
        "invalid-count",
        7,
        ["null-non-nullable", "bad-count"],
    ),
}


def handcrafted() -> list[dict]:
    out = []
    for raw, (what, error, offset, flags) in HANDCRAFTED.items():
        for version in (1, 0):
            out.append(
                {
                    "id": f"hc-sticky-v{version}-refused-{raw}",
                    "message": LAYER["sticky"],
                    "version": version,
                    "description": f"StickyAssignorUserData v{version} with {what}: neither of Kafka's layouts reads it",
                    "wire": raw,
                    "result": "invalid",
                    "error": error,
                    "offset": offset,
                    "canonical": False,
                    "flags": flags,
                    "provenance": {
                        "source": "handcrafted",
                        "note": "Kafka's protocol.types ArrayOf.read refuses a negative size of a non-nullable array "
                        "(SchemaException), as it refused the topic array's -1 in the case Kafka's StickyAssignor ran",
                    },
                }
            )
    return out


def main() -> int:
    for v in [*vectors(), *handcrafted()]:
        sys.stdout.write(json.dumps(v) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
