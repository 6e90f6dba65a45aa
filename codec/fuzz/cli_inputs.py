"""The command-line fuzzer's inputs (:mod:`codec.fuzz.cli`): JSON values and lines mutated, hex lines mutated, the
assignor's groups, and the vectors the conformance filters select, counted from the files."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

__all__ = ["mutate_value", "json_text", "MAX_LINE", "mutate_text", "mutate_hex_line", "vector_counts"]

# --- the inputs -------------------------------------------------------------------------------------------


def _kind_args(target: str) -> tuple[str, tuple[str, ...]] | None:
    """(kind, the options that go with it) for a fuzz target name, or None when it has no CLI kind."""
    from ..conformance.messages import kind_of
    from .rendering import kind_targets

    if target in kind_targets():  # a target named after its kind (the record readers have none)
        return target, ()
    if target.startswith("response-frame/"):
        _, key, v = target.split("/")
        return "response-frame", ("--api-key", key, "--version", v[1:])
    if "/v" in target:
        message, v = target.split("/v")
        try:
            return kind_of(message), ("--version", v)
        except KeyError:
            return None
    return None


def _options(args: tuple[str, ...]) -> dict:
    out: dict[str, Any] = {}
    for flag, key in (("--version", "version"), ("--api-key", "api_key")):
        if flag in args:
            out[key] = int(args[args.index(flag) + 1])
    return out


# Integers past every field's range, and text that is not a JSON value Python writes.
_INTS = (
    0,
    1,
    -1,
    -2,
    127,
    128,
    255,
    32767,
    32768,
    -32769,
    65535,
    65536,
    2**31 - 1,
    2**31,
    -(2**31),
    -(2**31) - 1,
    2**32,
    2**53 + 1,
    2**63 - 1,
    2**63,
    -(2**63),
    -(2**63) - 1,
    2**64,
    10**30,
    -(10**30),
)
_RAW_NUMBERS = (
    "NaN",
    "Infinity",
    "-Infinity",
    "1e99999",
    "-1e99999",
    "1.0",
    "1e3",
    "-0",
    "0.5",
    "1E400",
    "123456789012345678901234567890.5",
)
_STRINGS = (
    "",
    "x",
    "0_0",
    "1_2",
    "-1_0",
    "a_b",
    "0_",
    "_0",
    "t__0_0",
    "\ud800",
    "\udfff",
    "h\ud800x",
    "\udc00\ud800",
    "\U0001f600",
    "a\rb",
    "a\nb",
    "a\u2028b",
    "a\u2029b",
    "\x00",
    "\x1b[2J",
    "\x7f\x85",
    "\ufeff",
    "00000000-0000-0000-0000-000000000001",
    "not-a-uuid",
    "range",
    "high_availability",
    "sticky",
    "fallback_prior",
    "cooperative-sticky",
    "h:1",
    ":",
    "a" * 300,
)


class _Raw:
    """Text put into the JSON as it is (NaN, a 5,000-digit integer, deep nesting)."""

    def __init__(self, text: str) -> None:
        self.text = text


def _huge_int(rng: random.Random) -> _Raw:
    digits = rng.choice((19, 20, 40, 400, 4300, 4301, 5000, 20000))
    return _Raw(("-" if rng.random() < 0.3 else "") + "9" * digits)


def _nest(rng: random.Random, inner: str = "0") -> _Raw:
    depth = rng.choice((50, 500, 990, 1000, 3000, 20000, 100000))
    opener, closer = rng.choice((("[", "]"), ('{"a":', "}")))
    return _Raw(opener * depth + inner + closer * depth)


def _scalar(rng: random.Random, like: Any = None) -> Any:
    r = rng.random()
    if isinstance(like, int) and not isinstance(like, bool) and r < 0.35:
        return rng.choice((like + 1, like - 1, -like, like * 2**32, like + 2**31, like ^ 0x80000000))
    if r < 0.55:
        return rng.choice(_INTS)
    if r < 0.65:
        return _Raw(rng.choice(_RAW_NUMBERS))
    if r < 0.7:
        return _huge_int(rng)
    if r < 0.88:
        s = rng.choice(_STRINGS)
        if r < 0.74:
            s = _long(s, rng)
        return s
    return _copy(rng.choice((True, False, None, [], {}, [0], {"a": 1}, [None], 1.5, -0.0)))


def _long(s: str, rng: random.Random) -> str:
    """``s`` repeated to about an int16 string's limit, or past it."""
    n = rng.choice((255, 256, 32767, 32768, 65536))
    s = s or "x"
    return (s * (n // len(s) + 1))[:n]


def _copy(value: Any) -> Any:
    """A copy of a JSON tree (faster than copy.deepcopy; scalars and :class:`_Raw` are shared)."""
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


def _nodes(value: Any, limit: int = 400) -> list[tuple[Any, Any]]:
    """(container, key) of nodes of the tree, breadth first, at most ``limit``."""
    out: list[tuple[Any, Any]] = []
    queue = [value]
    while queue and len(out) < limit:
        node = queue.pop(0)
        items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
        for k, v in items:
            out.append((node, k))
            if isinstance(v, (dict, list)):
                queue.append(v)
    return out


def _mutate_string(s: str, rng: random.Random) -> str:
    i = rng.randint(0, len(s))
    op = rng.randrange(5)
    if op == 0:
        return s[:i] + rng.choice(("\ud800", "\udbff", "\udc00", "\udfff")) + s[i:]
    if op == 1:
        return (
            s[:i]
            + rng.choice(("\r", "\n", "\u2028", "\u2029", "\x85", "\x0b", "\x0c", "\x1c", "\x00", "\x1b", "\x7f", "\t"))
            + s[i:]
        )
    if op == 2:
        return s * 2 if rng.random() < 0.3 else _long(s, rng)
    if op == 3:
        return s[:i] + rng.choice(("\U0001f600", "\u00e9", "\uffff", "\ufffe", "\\", '"', "_", "__", ":")) + s[i:]
    return s[:i]


_RENAMES = {
    "version": "Version",
    "activeTasks": "active_tasks",
    "processId": "process_id",
    "userEndPoint": "user_endpoint",
}


def mutate_value(value: Any, rng: random.Random, pool: list[Any] | None = None) -> Any:
    """One mutation of a JSON value (a copy; the original is untouched): a node replaced by another type, an
    extreme integer, NaN, a huge or deeply nested value, or a value grafted from ``pool``; a string with a
    lone surrogate, a line break or a control character in it, or made long; a key removed, added or renamed;
    a list emptied, duplicated or grown."""
    value = _copy(value)
    nodes = _nodes(value)
    if not nodes:
        if rng.random() < 0.5 and pool:
            return _copy(rng.choice(pool))
        return rng.choice(({"version": rng.choice(_INTS)}, {}, [], _scalar(rng), _nest(rng)))
    parent, key = rng.choice(nodes)
    old = parent[key]
    op = rng.randrange(10)
    if op <= 2:
        parent[key] = _scalar(rng, old)
    elif op == 3 and isinstance(old, str):
        parent[key] = _mutate_string(old, rng)
    elif op == 3 or op == 4:
        if isinstance(parent, dict):
            if rng.random() < 0.5:
                del parent[key]
            else:
                parent[_RENAMES.get(key, key + rng.choice(("X", "_", "s", "\ud800", "")))] = parent.pop(key)
        else:
            del parent[key]
    elif op == 5:
        if isinstance(parent, dict):
            parent[
                rng.choice(
                    (
                        "unknown",
                        "version",
                        "extra",
                        "",
                        "\ud800",
                        "activeTasks",
                        "clients",
                        "tasks",
                        "capacity",
                        "nowMs",
                        "taskLags",
                    )
                )
            ] = _scalar(rng)
        else:
            parent.extend([_copy(old)] * rng.choice((1, 2, 50 if len(parent) < 100 else 1)))
    elif op == 6:
        parent[key] = _nest(rng, json.dumps(old if isinstance(old, (int, str)) and not isinstance(old, bool) else 0))
    elif op == 7 and pool:
        parent[key] = _copy(_pick(rng.choice(pool), rng))
    elif op == 8:
        if isinstance(old, list):
            parent[key] = {str(i): v for i, v in enumerate(old)} if rng.random() < 0.5 else []
        elif isinstance(old, dict):
            parent[key] = list(old.values()) if rng.random() < 0.5 else [list(kv) for kv in old.items()]
        else:
            parent[key] = [old]
    else:
        parent[key] = rng.choice((None, "", [], {}, str(old)[:40] if not isinstance(old, (dict, list)) else "x"))
    return value


def _pick(value: Any, rng: random.Random) -> Any:
    nodes = _nodes(value)
    if not nodes:
        return value
    parent, key = rng.choice(nodes)
    return parent[key]


def json_text(value: Any, rng: random.Random) -> bytes:
    """``value`` as one line of JSON bytes: escaped (``\\ud800``) or raw (lone surrogates as CESU bytes, raw
    U+2028), with :class:`_Raw` parts as they are."""
    raws: list[str] = []

    def swap(v: Any) -> Any:
        if isinstance(v, _Raw):
            raws.append(v.text)
            return f"__fuzzraw{len(raws) - 1}__"
        if isinstance(v, dict):
            return {k: swap(x) for k, x in v.items()}
        if isinstance(v, (list, tuple)):
            return [swap(x) for x in v]
        return v

    text = json.dumps(swap(value), ensure_ascii=rng.random() < 0.5, separators=rng.choice(((",", ":"), (", ", ": "))))
    for i, raw in enumerate(raws):
        text = text.replace(f'"__fuzzraw{i}__"', raw, 1)
    return text.encode("utf-8", "surrogatepass")


#: The longest input line made (a longer one is cut: it is still a hostile line).
MAX_LINE = 300_000


def _capped(line: bytes) -> bytes:
    return line if len(line) <= MAX_LINE else line[:MAX_LINE]


# bytes inserted into a line: line breaks of other splitters, bytes that are not UTF-8, NUL, a BOM
_LINE_BYTES = (
    b"\r",
    b"\x0b",
    b"\x0c",
    b"\x1c",
    b"\x1d",
    b"\x1e",
    b"\xc2\x85",
    "\u2028".encode(),
    "\u2029".encode(),
    b"\x00",
    b"\xff",
    b"\xfe",
    b"\xc0\x80",
    b"\xed\xa0\x80",
    b"\xed\xbf\xbf",
    b"\xc3",
    b"\xe2\x80",
    b"\xef\xbb\xbf",
    b"\x1b[2J",
    b"\t",
    b" ",
    b"\\",
    b'"',
    b"\\u",
    b"\\ud800",
    b"}",
    b"]",
    b",",
)


def mutate_text(line: bytes, rng: random.Random) -> bytes:
    """One mutation of a JSON line as bytes: a line-break or non-UTF-8 byte anywhere (or just inside a
    string), truncation, a duplicated key, trailing garbage, a BOM, or the line blank."""
    op = rng.randrange(9)
    i = rng.randint(0, len(line))
    if op <= 2:
        return line[:i] + rng.choice(_LINE_BYTES) + line[i:]
    if op == 3:  # just inside a string
        q = [m.start() + 1 for m in re.finditer(b'"', line)]
        j = rng.choice(q) if q else i
        return line[:j] + rng.choice(_LINE_BYTES[:16]) + line[j:]
    if op == 4:
        return line[:i]
    if op == 5 and line.startswith(b"{"):
        return b'{"version":' + rng.choice((b'"x"', b"99", b"-1", b"null", b"1e400")) + b"," + line[1:]
    if op == 6:
        return line + rng.choice((b" x", b"}", b"{}", b"\x00", b" \r", b"\r\r", b"\xff"))
    if op == 7:
        return b"\xef\xbb\xbf" + line
    return rng.choice((b"", b" ", b"\t", b"\r", b"null", b"[]", b"{}", b"0", b'""', b"true"))


def mutate_hex_line(line: bytes, rng: random.Random) -> bytes:
    """One mutation of a hex line: upper case, ``0x``, spaces, an odd nibble, a non-hex character, a
    line-break or non-UTF-8 byte, a long line, or a blank one."""
    op = rng.randrange(8)
    i = rng.randint(0, len(line))
    if op == 0:
        return line.upper()
    if op == 1:
        return rng.choice((b"0x", b"0X", b" ", b"\t")) + line
    if op == 2:
        return line[:i] + rng.choice((b" ", b"\t", b"  ", b"\xc2\xa0", b"\xe3\x80\x80")) + line[i:]
    if op == 3:
        return line[:i] + line[i + 1 :] if line else b"0"
    if op == 4:
        return line[:i] + rng.choice((b"g", b"z", b"-", b"0x", b"\xd9\xa0", b"\xef\xbc\x90")) + line[i:]
    if op == 5:
        return line[:i] + rng.choice(_LINE_BYTES) + line[i:]
    if op == 6:  # a long line, now and then up to 256 KB
        line = line or b"00"
        return line * max(1, rng.choice((2_000, 8_000, 8_000, 8_000, 256_000)) // len(line))
    return rng.choice((b"", b" ", b"\r", b"\t", b"0", b"x"))


# --- assign groups ----------------------------------------------------------------------------------------


def _random_group(rng: random.Random) -> dict:
    tasks = [
        {"subtopology": s, "partition": p, "stateful": rng.random() < 0.6}
        for s in range(rng.randint(1, 3))
        for p in range(rng.randint(1, 4))
    ]
    ids = [f"{t['subtopology']}_{t['partition']}" for t in tasks]
    clients = []
    for i in range(rng.randint(1, 5)):
        c: dict[str, Any] = {"processId": f"00000000-0000-0000-0000-{i + 1:012d}", "capacity": rng.randint(1, 3)}
        c["prevActive"] = rng.sample(ids, rng.randint(0, len(ids) // 2))
        c["prevStandby"] = rng.sample(
            [t for t in ids if t not in c["prevActive"]], rng.randint(0, 2) if len(ids) > 4 else 0
        )
        lags = {t: rng.choice((0, 10, 1000, -2, -3, 2**63 - 1)) for t in ids if rng.random() < 0.5}
        if rng.random() < 0.7:
            c["taskLags"] = lags
        else:
            c["taskOffsetSums"] = {t: abs(v) for t, v in lags.items()}
        if rng.random() < 0.4:
            c["clientTags"] = {"zone": rng.choice("abc"), "cluster": rng.choice("kl")}
        clients.append(c)
    assignors = ("high_availability", "high_availability", "high_availability_fast", "sticky", "fallback_prior")
    doc: dict[str, Any] = {
        "assignor": rng.choice(assignors),
        "configs": {
            "acceptableRecoveryLag": rng.choice((0, 10, 100)),
            "maxWarmupReplicas": rng.randint(1, 3),
            "numStandbyReplicas": rng.randint(0, 2),
            "probingRebalanceIntervalMs": 60000,
        },
        "tasks": tasks,
        "clients": clients,
    }
    if rng.random() < 0.3:
        doc["configs"]["rackAwareAssignmentTags"] = ["zone"]
    if any("taskOffsetSums" in c for c in clients):
        doc["endOffsetSums"] = {t: rng.choice((0, 100, 5000)) for t in ids}
    if rng.random() < 0.3:
        doc["nowMs"] = rng.choice((0, 1000, 1700000000000))
    return doc


def _assign_corpus(shared: Path | None) -> list[dict]:
    out = []
    if shared is not None:
        path = shared / "vectors" / "kafka-java-assignor" / "ha_unit_tests.jsonl"
        if path.is_file():
            for line in path.read_text(encoding="utf-8").split("\n"):
                if line.strip():
                    out.append(json.loads(line)["input"])
    rng = random.Random("assign-corpus")
    out += [_random_group(rng) for _ in range(40)]
    return out


# --- conformance: what the filters select, counted from the files -----------------------------------------


def _message_kinds() -> dict[str, str]:
    from ..conformance.messages import MESSAGES

    return MESSAGES


def _vector_wires() -> dict[tuple[str, Any], list[bytes]]:
    """The bytes of the golden vectors, per (message, version)."""
    from ..conformance.vectors import vectors_dir

    out: dict[tuple[str, Any], list[bytes]] = {}
    for path in sorted(vectors_dir().glob("*.jsonl")):
        for raw in path.read_bytes().split(b"\n"):
            if raw.strip():
                v = json.loads(raw)
                if isinstance(v.get("wire"), str):
                    out.setdefault((v["message"], v.get("version")), []).append(bytes.fromhex(v["wire"]))
    return out


def vector_counts() -> tuple[dict[tuple[str, Any], int], int]:
    """Vectors per (message, version) in the default vector files, and the number of rebalance rounds,
    counted from the files themselves."""
    from ..conformance.vectors import vectors_dir

    d = vectors_dir()
    counts: dict[tuple[str, Any], int] = {}
    for path in sorted(d.glob("*.jsonl")):
        for raw in path.read_bytes().split(b"\n"):
            if raw.strip():
                v = json.loads(raw)
                counts[(v["message"], v.get("version"))] = counts.get((v["message"], v.get("version")), 0) + 1
    rounds_path = d / "rebalance" / "rounds.jsonl"
    rounds = sum(1 for raw in rounds_path.read_bytes().split(b"\n") if raw.strip()) if rounds_path.is_file() else 0
    return counts, rounds
