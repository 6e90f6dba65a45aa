"""The command-line fuzzer (issue #17): the commands themselves, as child processes, under hostile input.

:mod:`codec.fuzz` holds the decoders to their invariant in-process; this module holds the *commands* to their
contract, by running them as a user does (``python -m codec …``, or any program given) on thousands of
input lines per process:

* ``decode --lines`` — mutated hex of the fuzz seeds (:func:`codec.fuzz.seeds`, :func:`codec.fuzz.mutate`)
  for every kind and version, both styles, and lines that are not hex at all (odd nibbles, ``0x``, spaces,
  bytes that are not UTF-8, CR, U+2028, NUL, a BOM, blank lines, long lines);
* ``encode --lines`` — JSON made by decoding the seeds (``--style kafka`` and ``native``) and then mutated as
  values (wrong types, integers past every range and past 4,300 digits, NaN, floats, deep nesting, lone
  surrogates as JSON escapes and as raw CESU bytes, CR, U+2028 and control characters in strings, keys
  removed, added, renamed, values grafted from other messages) and as text (bytes that are not UTF-8, a bare
  CR or U+2028 anywhere, truncation, duplicate keys, blank lines);
* ``assign --lines`` (plain, ``--emit-bytes``, ``--format table``) — Kafka's assignor unit-test groups (the
  shared folder's ``vectors/kafka-java-assignor/ha_unit_tests.jsonl``) and random small groups, mutated the
  same way;
* ``conformance --impl`` (and ``--cross-version``) — the runner against an adapter (``python -m codec.fuzz.cli
  adapter``) that answers each request with a mutated reply: junk, bytes that are not UTF-8, JSON of the wrong
  shape, replies past ``--max-reply-bytes``, two lines for one request, no answer, an exit, deep nesting, huge
  integers, control characters and lone surrogates in error messages (through ``--json`` and ``--junit``),
  valid-but-wrong values.

A fifth of the ``--lines`` runs read their lines from a file (``@file``; assign's INPUT) instead of stdin.

The contract checked for each run (docs/guides/streams-metadata.md, "Decoding and encoding from the command
line"; the ``assign`` help; vectors/README.md):

* the run ends within its time limit and the peak memory of the process (VmHWM) stays under a bound; the
  exit status is 0 or 1; stderr holds no traceback and no "a bug in rebalance-codec" line, and is UTF-8
  with no control character but LF (it reaches a terminal);
* ``--lines``: stdout split at LF has exactly one line per input line (split at LF alone, as the CLI
  splits); every line is UTF-8 holding no other line break (CR, VT, FF, FS-RS, NEL, U+2028/9), and is strict
  JSON (no NaN) of an object — or, for ``encode``, lowercase hex; for ``assign --format table``, text with no
  control character — and an error line is
  ``{"error": {"type": str, "message": str, ...}}``; the exit status is 0 exactly when no line is an error;
  a whole message the kind accepts, with bytes after it, decodes with ``trailing`` in its JSON
  (docs/explanations/input-policy.md: trailing bytes are accepted and reported);
* ``conformance``: the last line is ``N passed, M failed, K skipped`` and ``N + M + K`` is the number of vectors the filters
  select (counted here from the vector files); the exit status is 0 exactly when nothing failed; an adapter
  whose every reply is a failure of the protocol passes nothing; ``--json`` and ``--junit`` reports are valid
  and hold every vector; stdout holds no control character. ``--cross-version``: the last line is ``N of 242
  cells agree with Kafka``, exit 0 exactly when all agree, none with an adapter that never answers right.

A failing run is narrowed down to the input line that causes it (the line behind the last output line of an
unbuffered re-run, else bisection), which is re-run alone; each :class:`CliViolation` names the command and
that line, with a shell reproducer. ``rebalance-codec fuzz --cli`` runs :func:`run`; the default test run a
bounded pass (tests/fuzz/test_fuzz_cli.py), ``pytest -m fuzz`` a million inputs.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import random
import re
import shlex
import signal
import subprocess
import sys
import tempfile
import threading
import time
import zlib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator
from xml.etree import ElementTree

from .corpus import DEFAULT_SHARED, Shared

__all__ = [
    "COMMANDS",
    "CROSS_VERSION_CELLS",
    "DEFAULT_PROGRAM",
    "Job",
    "RunResult",
    "Problem",
    "CliViolation",
    "CliFuzzReport",
    "Examiner",
    "run",
    "jobs",
    "execute",
    "check",
    "replay",
    "violation_from_json",
    "vector_counts",
    "mutate_value",
    "json_text",
    "mutate_text",
    "mutate_hex_line",
    "adapter_main",
    "adapter_reply",
]

COMMANDS = ("decode", "encode", "assign", "conformance")
#: The share of the inputs each command gets (conformance: one input is one vector the runner checks).
WEIGHTS = {"decode": 0.45, "encode": 0.36, "assign": 0.18, "conformance": 0.01}
#: Input lines per process run.
BATCH = {"decode": 4000, "encode": 4000, "assign": 4000}
#: The CLI under test: this Python running the package, as ``python -m codec`` does.
DEFAULT_PROGRAM = (sys.executable, "-m", "codec")
DEFAULT_MAX_RSS_MB = 600

# Characters str.splitlines (and so many readers) takes for a line break, besides LF.
_BREAKERS = re.compile("[\r\x0b\x0c\x1c-\x1e\x85\u2028\u2029]")
# What a line for people may not hold (conformance's table): C0 but LF, DEL, C1, U+2028/9.
_CONTROL = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029]")
_HEX = re.compile(r"[0-9a-f]*\Z")
_SUMMARY = re.compile(r"(\d+) passed, (\d+) failed, (\d+) skipped\Z")
_MATRIX = re.compile(r"(\d+) of (\d+) cells agree with Kafka\Z")


# --- jobs: one process run each ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Job:
    """One run of the CLI: ``args`` after the program, and ``lines`` on stdin (LF after each, but the last
    when ``final_newline`` is False); ``trailing``: the lines (indices) that are a message the kind accepts with
    bytes after it, which decode must report (docs/explanations/input-policy.md). For ``conformance``: ``vectors``
    is how many vectors the filters select, ``all_fail`` says every reply of the adapter is a failure of the
    protocol, ``reports`` asks for ``--json`` and ``--junit``."""

    command: str
    args: tuple[str, ...]
    lines: tuple[bytes, ...] = ()
    final_newline: bool = True
    vectors: int = 0
    all_fail: bool = False
    reports: bool = False
    trailing: tuple[int, ...] = ()

    @property
    def inputs(self) -> int:
        return self.vectors if self.command == "conformance" else len(self.lines)

    def stdin(self) -> bytes:
        if not self.lines:
            return b""
        body = b"\n".join(self.lines)
        return body + b"\n" if self.final_newline or not self.lines[-1] else body

    def part(self, start: int, stop: int) -> Job:
        """The same run on ``lines[start:stop]`` (ending as this one ends when it takes the last line)."""
        stop = min(stop, len(self.lines))
        return Job(
            self.command,
            self.args,
            self.lines[start:stop],
            self.final_newline or stop < len(self.lines),
            trailing=tuple(i - start for i in self.trailing if start <= i < stop),
        )


# --- the inputs -------------------------------------------------------------------------------------------

# kinds the decode/encode targets of codec.fuzz map to (the record readers have no kind)
_DIRECT_KINDS = {
    "subscription-info",
    "assignment-info",
    "consumer-subscription",
    "consumer-assignment",
    "request-frame",
}


def _kind_args(target: str) -> tuple[str, tuple[str, ...]] | None:
    """(kind, the options that go with it) for a fuzz target name, or None when it has no CLI kind."""
    from ..conformance.messages import kind_of

    if target in _DIRECT_KINDS:
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


# --- generating the jobs ----------------------------------------------------------------------------------


class _Inputs:
    """Seeds and base values, built once and shared by the job threads."""

    def __init__(self, shared: Shared) -> None:
        from .corpus import resolve_shared, seed_corpus

        shared = resolve_shared(shared)
        corpus = seed_corpus(shared)
        self.seeds = {t: [s.data for s in ss] for t, ss in corpus.items()}
        # messages the target decodes whole: with bytes after them, the bytes are trailing. Not frames (the
        # body of another API is opaque bytes, which take them in) nor SubscriptionInfo version probes (only
        # the version and the latest supported version are read)
        self.whole = {
            t: [
                s.data
                for s in ss
                if s.accepted and not (t == "subscription-info" and int.from_bytes(s.data[:4], "big") > 11)
            ]
            for t, ss in corpus.items()
            if "frame" not in t
        }
        self.decode_specs = [(t, *ka) for t in sorted(self.seeds) if (ka := _kind_args(t)) is not None]
        # kinds the fuzz corpus has no target for yet (Connect's): the golden vectors' bytes are their seeds
        covered = {kind for _, kind, _ in self.decode_specs}
        for (message, version), wires in sorted(_vector_wires().items(), key=str):
            kind = _message_kinds().get(message)
            if kind is not None and kind not in covered:
                target = f"vectors:{message}/v{version}"
                self.seeds[target] = wires
                self.decode_specs.append((target, kind, () if version is None else ("--version", str(version))))
        self.flat = [d for t, *_ in self.decode_specs for d in self.seeds[t]]
        self._values: dict[tuple[str, str], list[Any]] = {}
        self._lock = threading.Lock()
        self.assign_docs = _assign_corpus(shared)
        self.vector_counts, self.rounds = vector_counts()

    def values(self, target: str, kind: str, args: tuple[str, ...], style: str) -> list[Any]:
        """JSON values of the target's seeds, decoded in ``style`` (the base of the encode inputs)."""
        key = (target, style)
        with self._lock:
            if key in self._values:
                return self._values[key]
        from ..errors import CodecError
        from ..kinds import get_kind

        k, opts, out = get_kind(kind), _options(args), []
        for data in self.seeds[target][:60]:
            try:
                out.append(k.decode(data, style=style, **opts).value)
            except CodecError:
                continue
        with self._lock:
            self._values[key] = out
        return out


#: The input file of a run that reads a file instead of stdin (``@in`` for decode and encode, ``in`` for assign).
INPUT_FILE = "in"


def _input_arg(command: str, rng: random.Random) -> tuple[str, ...]:
    """A fifth of the runs read their lines from a file (``@file``, or assign's INPUT) instead of stdin."""
    if rng.random() >= 0.2:
        return ()
    return (INPUT_FILE,) if command == "assign" else ("@" + INPUT_FILE,)


def _reads_file(args: tuple[str, ...]) -> bool:
    return bool(args) and args[-1] in (INPUT_FILE, "@" + INPUT_FILE)


def _decode_job(inp: _Inputs, rng: random.Random, n: int) -> Job:
    extra: tuple[str, ...]
    if rng.random() < 0.05:
        target, kind, extra = "auto", "auto", ()
        pool = inp.flat
    else:
        target, kind, extra = rng.choice(inp.decode_specs)
        pool = inp.seeds[target]
    from .mutations import mutate

    style = rng.choice(("kafka", "native"))
    lines = []
    trailing = []
    whole = inp.whole.get(target)
    for i in range(n):
        r = rng.random()
        if whole and rng.random() < 0.02:  # a whole message, and bytes after it
            lines.append((rng.choice(whole) + rng.randbytes(rng.randint(1, 5))).hex().encode())
            trailing.append(i)
            continue
        if r < 0.86 and pool:
            data = rng.choice(pool)
            for _ in range(rng.choice((1, 1, 1, 2, 3))):
                data = mutate(data, rng, pool)
        elif r < 0.92 or not pool:
            data = rng.randbytes(rng.randint(0, 64))
        else:
            data = rng.choice(pool)
        line = data.hex().encode()
        if rng.random() < 0.1:
            line = mutate_hex_line(line, rng)
        lines.append(_capped(line))
    args = ("decode", "--kind", kind, *extra, "--style", style, "--lines", *_input_arg("decode", rng))
    return Job("decode", args, tuple(lines), final_newline=rng.random() < 0.9, trailing=tuple(trailing))


def _encode_job(inp: _Inputs, rng: random.Random, n: int) -> Job:
    target, kind, extra = rng.choice(inp.decode_specs)
    style = rng.choice(("kafka", "native"))
    pool = inp.values(target, kind, extra, style)
    flags: tuple[str, ...] = ()
    if style == "native" and rng.random() < 0.3:
        flags = ("--drop-unrepresentable",)
    if kind in ("subscription-info", "assignment-info") and rng.random() < 0.1:
        flags += ("--version", str(rng.choice((1, 4, 7, 11, 12, 0, -1))))
    lines = []
    for _ in range(n):
        r = rng.random()
        if pool and r < 0.9:
            value = rng.choice(pool)
            for _ in range(rng.choice((0, 1, 1, 1, 2, 3))):
                value = mutate_value(value, rng, pool)
        else:
            value = mutate_value({}, rng, pool)
        line = json_text(value, rng)
        if rng.random() < 0.12:
            line = mutate_text(line, rng)
        lines.append(_capped(line))
    args = ("encode", "--kind", kind, *extra, "--style", style, *flags, "--lines", *_input_arg("encode", rng))
    return Job("encode", args, tuple(lines), final_newline=rng.random() < 0.9)


def _assign_job(inp: _Inputs, rng: random.Random, n: int) -> Job:
    pool = inp.assign_docs
    lines = []
    for _ in range(n):
        doc = rng.choice(pool) if rng.random() < 0.5 else _random_group(rng)
        for _ in range(rng.choice((0, 1, 1, 2, 3))):
            doc = mutate_value(doc, rng, pool)
        line = json_text(doc, rng)
        if rng.random() < 0.1:
            line = mutate_text(line, rng)
        lines.append(_capped(line))
    r = rng.random()
    args = (
        "assign",
        "--lines",
        *(("--emit-bytes",) if r < 0.4 else ("--format", "table") if r < 0.5 else ()),
        *_input_arg("assign", rng),
    )
    return Job("assign", args, tuple(lines), final_newline=rng.random() < 0.9)


#: ``conformance --cross-version``: SubscriptionInfo and AssignmentInfo, every writer version (1-11) against every
#: reader's newest version (1-11).
CROSS_VERSION_CELLS = 2 * 11 * 11


def _conformance_job(inp: _Inputs, rng: random.Random, budget: int, seed: str, index: int) -> Job:
    """Run ``index`` of the conformance runs: the first with a mostly honest adapter, the second with one that
    never answers right (and every fourth after), the third the cross-version matrix (and every tenth after);
    the others pick one or two messages (a version of them when they have many vectors), now and then with
    the rebalance rounds."""
    all_fail = index % 4 == 1
    mode = "fail" if all_fail else "mixed"
    adapter = shlex.join(
        [
            sys.executable,
            "-m",
            "codec.fuzz.cli",
            "adapter",
            "--seed",
            seed,
            "--mode",
            mode,
            "--p",
            str(rng.choice((0.05, 0.3, 0.8))),
        ]
    )
    # the vectors alone (--generate 0): the counts checked are the vectors' (generated cases have their own tests);
    # the run's order (and --cross-version's seeded choices) from the fuzz seed, so the reproducer replays it
    common = (
        "--impl",
        adapter,
        "--timeout",
        "0.5",
        "--max-reply-bytes",
        "200000",
        "--generate",
        "0",
        "--seed",
        str(rng.randrange(2**63)),
    )
    if index % 10 == 2:
        return Job(
            "conformance", ("conformance", "--cross-version", *common), vectors=CROSS_VERSION_CELLS, all_fail=all_fail
        )
    cap = min(max(budget // 2, 80), 400)
    messages = sorted({m for m, _ in inp.vector_counts})
    chosen = {rng.choice(messages)}
    if rng.random() < 0.3:
        chosen.add(rng.choice(messages))
    version = None
    count = sum(c for (m, _), c in inp.vector_counts.items() if m in chosen)
    if rng.random() < 0.15:  # the rounds run only when no --version is given
        if count > cap:
            chosen, count = set(), 0
        chosen.add("RebalanceRound")
        count += inp.rounds
    elif count > cap:
        versions = sorted({v for (m, v), _ in inp.vector_counts.items() if m in chosen and v is not None})
        version = rng.choice(versions)
        count = sum(c for (m, v), c in inp.vector_counts.items() if m in chosen and v == version)
    args: list[str] = ["conformance", *common]
    for m in sorted(chosen):
        args += ["--message", m]
    if version is not None:
        args += ["--version", str(version)]
    return Job("conformance", tuple(args), vectors=count, all_fail=all_fail, reports=rng.random() < 0.5)


def jobs(
    n: int,
    *,
    seed: int = 0,
    commands: tuple[str, ...] = COMMANDS,
    shared: Shared = DEFAULT_SHARED,
    batch: dict[str, int] | None = None,
) -> Iterator[Job]:
    """The runs of a fuzz pass of ``n`` inputs over ``commands``, deterministic for ``seed``: each command its
    share (:data:`WEIGHTS`) in batches (:data:`BATCH`), interleaved."""
    inp = _Inputs(shared)
    sizes = dict(BATCH, **(batch or {}))
    total_w = sum(WEIGHTS[c] for c in commands)
    left = {c: round(n * WEIGHTS[c] / total_w) for c in commands}
    left[commands[0]] += n - sum(left.values())
    i = 0
    while any(v > 0 for v in left.values()):
        for c in commands:
            if left[c] <= 0:
                continue
            rng = random.Random(f"{seed}:{c}:{i}")
            if c == "conformance":
                job = _conformance_job(inp, rng, left[c], f"{seed}.{i}", i)
            else:
                job = {"decode": _decode_job, "encode": _encode_job, "assign": _assign_job}[c](
                    inp, rng, min(sizes[c], left[c])
                )
            left[c] -= max(job.inputs, 1)
            yield job
        i += 1


# --- running one job --------------------------------------------------------------------------------------


@dataclass
class RunResult:
    status: int | None  # exit status; None when the fuzzer killed the process
    stdout: bytes
    stderr: bytes
    seconds: float
    max_rss_kb: int
    killed: str | None = None  # "timeout" | "memory" | "output"
    json_report: bytes | None = None
    junit_report: bytes | None = None


def _peak_rss_kb(pid: int) -> int:
    """The peak resident memory of the process so far (VmHWM; 0 once it has exited). Not ``ru_maxrss`` of
    wait4: on Linux that starts from the forking parent's memory."""
    try:
        with open(f"/proc/{pid}/status", "rb") as f:
            for line in f:
                if line.startswith(b"VmHWM:"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return 0


def _child_env(unbuffered: bool) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("REBALANCE_CODEC_DEBUG", "PYTHONUNBUFFERED")}
    if unbuffered:
        env["PYTHONUNBUFFERED"] = "1"
    return env


def execute(
    job: Job,
    *,
    program: tuple[str, ...] = DEFAULT_PROGRAM,
    timeout: float | None = None,
    max_rss_mb: int = DEFAULT_MAX_RSS_MB,
    unbuffered: bool = False,
) -> RunResult:
    """Run ``job`` in its own process group (stdin, stdout and stderr are files, so nothing blocks), watching
    its memory and output; the group is killed past ``timeout`` seconds, ``max_rss_mb``, or 64 MB of output
    beyond 64 bytes per input byte."""
    if timeout is None:
        timeout = _timeout(job)
    with tempfile.TemporaryDirectory(prefix="fuzz-cli-") as tmp:
        t = Path(tmp)
        args = list(job.args)
        if job.reports:
            args += ["--json", str(t / "report.json"), "--junit", str(t / "report.xml")]
        (t / INPUT_FILE).write_bytes(job.stdin())  # stdin, and the file of a run that names it
        with open(t / INPUT_FILE, "rb") as fin, open(t / "out", "wb") as fout, open(t / "err", "wb") as ferr:
            start = time.monotonic()
            proc = subprocess.Popen(
                [*program, *args],
                stdin=fin,
                stdout=fout,
                stderr=ferr,
                cwd=tmp,
                env=_child_env(unbuffered),
                start_new_session=True,
            )
            killed = None
            peak = 0
            delay = 0.002
            max_output = 64 * 1024 * 1024 + 64 * len(job.stdin())
            while True:
                pid, status = os.waitpid(proc.pid, os.WNOHANG)
                if pid:
                    break
                peak = max(peak, _peak_rss_kb(proc.pid))
                if peak > max_rss_mb * 1024:
                    killed = "memory"
                elif os.fstat(fout.fileno()).st_size + os.fstat(ferr.fileno()).st_size > max_output:
                    killed = "output"
                elif time.monotonic() - start > timeout:
                    killed = "timeout"
                if killed:
                    _killpg(proc.pid)
                    _, status = os.waitpid(proc.pid, 0)
                    break
                time.sleep(delay)
                delay = min(delay * 1.5, 0.05)
            seconds = time.monotonic() - start
            proc.returncode = os.waitstatus_to_exitcode(status)
            _killpg(proc.pid)  # whatever it left behind (adapters)
        json_report = (t / "report.json").read_bytes() if (t / "report.json").exists() else None
        junit_report = (t / "report.xml").read_bytes() if (t / "report.xml").exists() else None
        return RunResult(
            None if killed else proc.returncode,
            (t / "out").read_bytes(),
            (t / "err").read_bytes(),
            seconds,
            peak,
            killed,
            json_report,
            junit_report,
        )


def _killpg(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _timeout(job: Job) -> float:
    if job.command == "conformance":
        return 60 + 0.1 * job.vectors
    per_line = {"decode": 0.004, "encode": 0.004, "assign": 0.03}[job.command]
    return 20 + per_line * len(job.lines)


# --- the contract -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Problem:
    # timeout, memory, exit-status, traceback, internal-error, stderr, line-count, bad-line, exit-mismatch,
    # summary, report, false-pass, output
    kind: str
    detail: str
    index: int | None = None  # the input line it belongs to, when known

    @property
    def whole_run(self) -> bool:
        return self.index is None


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _strict_json(text: str) -> Any:
    return json.loads(text, parse_constant=_no_constants)


def _error_line(value: Any) -> bool | None:
    """True for a well-formed error line (``{"error": {"type": str, "message": str, ...}}``), False for any
    other value (a decoded message may have a field named ``error`` beside its others: Connect's assignment
    does), None for an object holding ``error`` alone that is not of that shape."""
    if not (isinstance(value, dict) and "error" in value) or len(value) > 1:
        return False
    err = value["error"]
    if isinstance(err, dict) and isinstance(err.get("type"), str) and isinstance(err.get("message"), str):
        return True
    return None


def _clip(b: bytes | str, n: int = 300) -> str:
    s = b.decode("utf-8", "backslashreplace") if isinstance(b, bytes) else b
    s = s.encode("unicode_escape").decode("ascii")
    return s if len(s) <= n else s[:n] + "..."


def _common(job: Job, res: RunResult) -> list[Problem]:
    out = []
    if res.killed == "timeout":
        out.append(Problem("timeout", f"did not finish in {res.seconds:.1f} s"))
    elif res.killed == "memory":
        out.append(Problem("memory", f"grew past {res.max_rss_kb // 1024} MB"))
    elif res.killed == "output":
        out.append(
            Problem("output", f"wrote {len(res.stdout) + len(res.stderr)} bytes for {len(job.stdin())} bytes of input")
        )
    elif res.status not in (0, 1):
        out.append(Problem("exit-status", f"exit status {res.status}; stderr: {_clip(res.stderr[-600:])}"))
    if b"Traceback" in res.stderr:
        tail = res.stderr[res.stderr.rfind(b"Traceback") :]
        out.append(Problem("traceback", _clip(tail[-600:], 600)))
    try:
        err = res.stderr.decode("utf-8")
    except UnicodeDecodeError as e:
        out.append(Problem("stderr", f"stderr is not UTF-8 ({e.reason} at {e.start}): {_clip(res.stderr[-300:])}"))
    else:
        m = _CONTROL.search(err)
        if m and not res.killed:
            out.append(
                Problem(
                    "stderr",
                    f"stderr holds the control character {m.group()!r}: "
                    f"{_clip(err[max(0, m.start() - 80) : m.start() + 40])}",
                )
            )
    if b"a bug in rebalance-codec" in res.stderr:
        line = next(ln for ln in res.stderr.split(b"\n") if b"a bug in rebalance-codec" in ln)
        out.append(Problem("internal-error", _clip(line)))
    return out


def _check_lines(job: Job, res: RunResult) -> list[Problem]:
    problems = _common(job, res)
    if res.killed:
        return problems
    out = res.stdout
    lines = out.split(b"\n")
    if lines[-1] == b"":
        lines.pop()
    elif out:
        problems.append(Problem("line-count", "the output does not end with a newline"))
    if len(lines) != len(job.lines):
        problems.append(Problem("line-count", f"{len(job.lines)} input lines, {len(lines)} output lines"))
        return problems
    errors = 0
    first_error: int | None = None
    table = job.command == "assign" and "table" in job.args
    trailing = set(job.trailing)
    for i, raw in enumerate(lines):
        why = None
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            problems.append(Problem("bad-line", f"output line is not UTF-8 ({e.reason} at {e.start}): {_clip(raw)}", i))
            continue
        m = _BREAKERS.search(text)
        if m:
            why = f"output line holds the line break {m.group()!r} at {m.start()}"
        elif job.command == "encode" and _HEX.match(text):
            continue
        elif table and not text.startswith("{"):
            m = _CONTROL.search(text)
            if m:
                why = f"table line holds the control character {m.group()!r} at {m.start()}"
        else:
            try:
                value = _strict_json(text)
            except (ValueError, RecursionError) as e:
                why = (
                    f"output line is not {'hex nor ' if job.command == 'encode' else ''}JSON ({type(e).__name__}: {e})"
                )
            else:
                kind = _error_line(value)
                if kind is None:
                    why = "malformed error line"
                elif kind:
                    errors += 1
                    first_error = i if first_error is None else first_error
                    if i in trailing:
                        problems.append(
                            Problem(
                                "trailing",
                                f"a whole message with bytes after it was refused "
                                f"(the input policy accepts trailing bytes): {_clip(raw)}",
                                i,
                            )
                        )
                elif not isinstance(value, dict):
                    why = "output line is JSON but not an object"
                elif i in trailing and "trailing" not in value:
                    problems.append(
                        Problem(
                            "trailing",
                            f"a whole message with bytes after it decoded without 'trailing' in its JSON: {_clip(raw)}",
                            i,
                        )
                    )
                elif job.command == "encode":
                    why = "encode printed JSON that is not an error line"
                elif table:
                    why = "a table line that is JSON but not an error line"
                elif (
                    job.command == "assign"
                    and "--emit-bytes" not in job.args
                    and not isinstance(value.get("clients"), list)
                ):
                    why = "assign result without a clients list"
        if why:
            problems.append(Problem("bad-line", f"{why}: {_clip(raw)}", i))
    if errors and res.status == 0:
        problems.append(Problem("exit-mismatch", f"exit status 0 with {errors} error lines", first_error))
    elif not errors and res.status == 1 and not any(p.kind == "bad-line" for p in problems):
        problems.append(Problem("exit-mismatch", "exit status 1 and no error line"))
    return problems


def _check_conformance(job: Job, res: RunResult) -> list[Problem]:
    problems = _common(job, res)
    if res.killed:
        return problems
    try:
        text = res.stdout.decode("utf-8")
    except UnicodeDecodeError as e:
        return problems + [Problem("output", f"stdout is not UTF-8 ({e.reason} at {e.start})")]
    m = _CONTROL.search(text)
    if m:
        problems.append(
            Problem(
                "output",
                f"stdout holds the control character {m.group()!r}: "
                f"{_clip(text[max(0, m.start() - 80) : m.start() + 40])}",
            )
        )
    last = text.rstrip("\n").split("\n")[-1] if text.strip() else ""
    if "--cross-version" in job.args:
        return problems + _check_matrix(job, res, last)
    summary = _SUMMARY.match(last)
    if not summary:
        problems.append(
            Problem(
                "summary",
                f"no 'N passed, M failed, K skipped' line at the end; stdout ends "
                f"{_clip(text[-300:])}; stderr: {_clip(res.stderr[-300:])}",
            )
        )
        return problems
    passed, failed, skipped = int(summary.group(1)), int(summary.group(2)), int(summary.group(3))
    if passed + failed + skipped != job.vectors:
        problems.append(
            Problem(
                "summary",
                f"{passed} passed + {failed} failed + {skipped} skipped, but the filters select {job.vectors} vectors",
            )
        )
    if res.status != (0 if failed == 0 and passed > 0 else 1):
        problems.append(Problem("exit-mismatch", f"exit status {res.status} with {passed} passed, {failed} failed"))
    if job.all_fail and passed:
        problems.append(
            Problem(
                "false-pass", f"{passed} vectors passed, yet every reply of the adapter was a failure of the protocol"
            )
        )
    if job.reports:
        problems += _check_reports(job, res, passed, failed)
    return problems


def _check_matrix(job: Job, res: RunResult, last: str) -> list[Problem]:
    m = _MATRIX.match(last)
    if not m:
        return [
            Problem(
                "summary", f"no 'N of M cells agree' line at the end: {_clip(last)}; stderr: {_clip(res.stderr[-300:])}"
            )
        ]
    agree, cells = int(m.group(1)), int(m.group(2))
    out = []
    if cells != job.vectors:
        out.append(Problem("summary", f"{cells} cells, but the matrix has {job.vectors}"))
    if res.status != (0 if agree == cells else 1):
        out.append(Problem("exit-mismatch", f"exit status {res.status} with {agree} of {cells} cells agreeing"))
    if job.all_fail and agree:
        out.append(
            Problem("false-pass", f"{agree} cells agree, yet every reply of the adapter was a failure of the protocol")
        )
    return out


def _check_reports(job: Job, res: RunResult, passed: int, failed: int) -> list[Problem]:
    out = []
    if res.json_report is None or res.junit_report is None:
        return [Problem("report", "--json or --junit wrote no file")]
    try:
        doc = _strict_json(res.json_report.decode("utf-8"))
        statuses = [r["status"] for r in doc["results"]]
        if len(statuses) != job.vectors or statuses.count("pass") != passed:
            out.append(
                Problem(
                    "report",
                    f"--json holds {len(statuses)} results ({statuses.count('pass')} passed); "
                    f"the summary says {passed} passed, {failed} failed",
                )
            )
    except (ValueError, KeyError, TypeError, RecursionError) as e:
        out.append(Problem("report", f"--json is not a valid report ({type(e).__name__}: {e})"))
    try:
        root = ElementTree.fromstring(res.junit_report)
        if root.get("tests") != str(job.vectors) or root.get("failures") != str(failed):
            out.append(
                Problem(
                    "report",
                    f"--junit says tests={root.get('tests')} failures={root.get('failures')}; "
                    f"the summary says {passed} passed, {failed} failed",
                )
            )
    except ElementTree.ParseError as e:
        out.append(Problem("report", f"--junit is not XML ({e})"))
    return out


def check(job: Job, res: RunResult) -> list[Problem]:
    """Everything ``res`` does against the contract for ``job`` (see the module docstring)."""
    return _check_conformance(job, res) if job.command == "conformance" else _check_lines(job, res)


# --- violations, narrowed down ----------------------------------------------------------------------------


def _printf_arg(data: bytes) -> str:
    """``data`` as a printf(1) format in single quotes: printable ASCII as it is, everything else as a POSIX
    octal escape (``\\377``), which every shell's printf reads."""
    out = []
    for b in data:
        c = chr(b)
        if 0x20 <= b < 0x7F and c not in "\\%'":
            out.append(c)
        else:
            out.append(f"\\{b:03o}")
    return "'" + "".join(out) + "'"


@dataclass(frozen=True)
class CliViolation:
    """A run that broke the contract: the command, the problem, and the input lines that reproduce it (one
    line when ``isolated``: that line alone breaks it)."""

    command: str
    args: tuple[str, ...]
    problem: str
    lines: tuple[bytes, ...] = ()
    isolated: bool = False
    final_newline: bool = True
    trailing: tuple[int, ...] = ()

    @property
    def kind(self) -> str:
        return self.problem.split(":", 1)[0]

    def job(self) -> Job:
        return Job(self.command, self.args, self.lines, self.final_newline, trailing=self.trailing)

    def reproducer(self, program: str = "rebalance-codec") -> str:
        """A shell command that runs it again: ``printf '…' | rebalance-codec …`` (every byte that is not
        printable ASCII as an octal escape), or, for long input, the input compressed in a ``python3 -c``."""
        cmd = program + " " + shlex.join(self.args)
        if self.command == "conformance":
            return cmd
        stdin = self.job().stdin()
        fmt = "".join(_printf_arg(bytes([b]))[1:-1] if b != 0x0A else "\\n" for b in stdin)
        if len(fmt) <= 400:
            write = f"printf '{fmt}'"
        else:
            packed = base64.b64encode(zlib.compress(stdin, 9)).decode("ascii")
            write = (
                f"python3 -c 'import base64, sys, zlib; sys.stdout.buffer.write(zlib.decompress("
                f"base64.b64decode(sys.argv[1])))' {packed}"
            )
        return f"{write} > {INPUT_FILE} && {cmd}" if _reads_file(self.args) else f"{write} | {cmd}"

    def to_json(self) -> dict:
        return {
            "command": self.command,
            "args": list(self.args),
            "problem": self.problem,
            "lines_hex": [line.hex() for line in self.lines],
            "isolated": self.isolated,
            "final_newline": self.final_newline,
            "trailing": list(self.trailing),
        }

    def __str__(self) -> str:
        lines = "".join(
            f"\n  line (hex): {line.hex()[:400]}{'...' if len(line) > 200 else ''}" for line in self.lines[:3]
        )
        more = f"\n  ... {len(self.lines)} lines in all" if len(self.lines) > 3 else ""
        repro = self.reproducer()
        repro = repro if len(repro) <= 2000 else repro[:2000] + "..."
        return f"{self.command}: {self.problem}{lines}{more}\n  reproduce: {repro}"


def violation_from_json(d: dict) -> CliViolation:
    return CliViolation(
        d["command"],
        tuple(d["args"]),
        d["problem"],
        tuple(bytes.fromhex(h) for h in d["lines_hex"]),
        d.get("isolated", False),
        d.get("final_newline", True),
        tuple(d.get("trailing", ())),
    )


def _describe(p: Problem) -> str:
    return f"{p.kind}: {p.detail}"


class Examiner:
    """Runs jobs against the contract and narrows a failing one down to the input lines behind it.

    ``program``: the CLI under test; ``max_rss_mb``: the memory a run may reach; ``timeout``: seconds a run of
    n lines may take (default: a base plus a share per line, :func:`_timeout`); ``budget``: how many runs the
    bisections of all failures together may take."""

    def __init__(
        self,
        *,
        program: tuple[str, ...] = DEFAULT_PROGRAM,
        max_rss_mb: int = DEFAULT_MAX_RSS_MB,
        timeout: float | None = None,
        budget: int = 40,
    ) -> None:
        self.program, self.max_rss_mb, self.timeout = tuple(program), max_rss_mb, timeout
        self._budget = budget
        self._lock = threading.Lock()

    def run(self, job: Job, *, unbuffered: bool = False) -> tuple[RunResult, list[Problem]]:
        res = execute(
            job, program=self.program, max_rss_mb=self.max_rss_mb, timeout=self.timeout, unbuffered=unbuffered
        )
        return res, check(job, res)

    def examine(self, job: Job) -> tuple[RunResult, list[Problem], list[CliViolation]]:
        """Run ``job``: its result, its problems, and the violations they narrow down to."""
        res, problems = self.run(job)
        return res, problems, self.narrow(job, problems) if problems else []

    def _spend(self) -> bool:
        with self._lock:
            self._budget -= 1
            return self._budget >= 0

    def narrow(self, job: Job, problems: list[Problem]) -> list[CliViolation]:
        """The violations behind ``problems`` of a run of ``job``, each with the fewest input lines found to
        reproduce it: a problem of one output line is that input line; a problem of the whole run is narrowed
        by :meth:`narrow_whole`."""
        if job.command == "conformance":
            args = job.args + (("--json", "R.json", "--junit", "R.xml") if job.reports else ())
            return [CliViolation(job.command, args, _describe(p)) for p in problems]
        out: list[CliViolation] = []
        seen: set[tuple[str, str]] = set()
        for p in problems:
            if p.index is None:  # a problem of the whole run: narrowed below
                continue
            sig = (p.kind, p.detail.split(":")[0])
            if sig not in seen:  # one line for each different complaint
                seen.add(sig)
                small = job.part(p.index, p.index + 1)
                _, again = self.run(small)
                out.append(
                    CliViolation(
                        job.command,
                        job.args,
                        _describe(p),
                        small.lines,
                        bool(again),
                        small.final_newline,
                        small.trailing,
                    )
                )
        whole = [p for p in problems if p.whole_run]
        if whole:
            out.append(self.narrow_whole(job, whole))
        return out

    def narrow_whole(self, job: Job, whole: list[Problem]) -> CliViolation:
        """A problem of the whole run: the line the process was at when it failed (the one after the last
        output line of an unbuffered re-run), if it fails alone the same way; else bisection."""
        kinds = {p.kind for p in whole}
        first = whole[0]
        at = self.run(job, unbuffered=True)[0].stdout.count(b"\n")
        if at < len(job.lines):
            small = job.part(at, at + 1)
            hit = [q for q in self.run(small)[1] if q.kind in kinds]
            if hit:
                return CliViolation(
                    job.command, job.args, _describe(hit[0]), small.lines, True, small.final_newline, small.trailing
                )
        lo, hi = 0, len(job.lines)
        while hi - lo > 1:
            mid = (lo + hi) // 2
            found = None
            for a, b in ((lo, mid), (mid, hi)):
                if not self._spend():
                    break
                hit = [q for q in self.run(job.part(a, b))[1] if q.kind in kinds]
                if hit:
                    found = (hit[0], a, b)
                    break
            if found is None:  # out of budget, or only the lines together fail
                break
            first, lo, hi = found
        small = job.part(lo, hi)
        return CliViolation(
            job.command, job.args, _describe(first), small.lines, hi - lo == 1, small.final_newline, small.trailing
        )


def replay(
    violation: CliViolation, *, program: tuple[str, ...] = DEFAULT_PROGRAM, max_rss_mb: int = DEFAULT_MAX_RSS_MB
) -> list[Problem]:
    """Run a recorded violation's input again: the problems it still has (none once fixed)."""
    return Examiner(program=program, max_rss_mb=max_rss_mb).run(violation.job())[1]


# --- the pass ---------------------------------------------------------------------------------------------


@dataclass
class CliFuzzReport:
    inputs: int = 0
    runs: int = 0
    per_command: dict[str, int] = field(default_factory=dict)
    seconds_per_command: dict[str, float] = field(default_factory=dict)  # process time, summed over runs
    violations: list[CliViolation] = field(default_factory=list)
    problem_counts: dict[str, int] = field(default_factory=dict)  # "command kind" -> runs with that problem
    peak_rss_kb: int = 0
    slowest_run: float = 0.0
    seconds: float = 0.0

    def summary(self) -> str:
        per = ", ".join(f"{c} {n}" for c, n in self.per_command.items())
        return (
            f"{self.inputs} inputs in {self.runs} runs ({per}) in {self.seconds:.1f} s: "
            f"{len(self.violations)} violations; slowest run {self.slowest_run:.1f} s, "
            f"peak memory {self.peak_rss_kb // 1024} MB"
        )


def run(
    n: int,
    *,
    seed: int = 0,
    commands: tuple[str, ...] | list[str] = COMMANDS,
    workers: int = 2,
    time_limit: float | None = None,
    program: tuple[str, ...] = DEFAULT_PROGRAM,
    max_rss_mb: int = DEFAULT_MAX_RSS_MB,
    batch: dict[str, int] | None = None,
    shared: Shared = DEFAULT_SHARED,
    max_violations_per_kind: int = 3,
    narrow_budget: int = 40,
    progress: Callable[[CliFuzzReport], None] | None = None,
) -> CliFuzzReport:
    """``n`` inputs over ``commands`` (see :func:`jobs`), ``workers`` processes at a time; every run checked
    (:func:`check`) and each failure narrowed down (:class:`CliViolation`). A kind of problem already found
    ``max_violations_per_kind`` times for a command is counted but not narrowed down again."""
    commands = tuple(commands)
    unknown = set(commands) - set(COMMANDS)
    if unknown:
        raise ValueError(f"unknown command(s) {', '.join(sorted(unknown))}; known: {', '.join(COMMANDS)}")
    report = CliFuzzReport()
    start = time.monotonic()
    lock = threading.Lock()
    examiner = Examiner(program=program, max_rss_mb=max_rss_mb, budget=narrow_budget)
    stop = threading.Event()

    def one(job: Job) -> None:
        if stop.is_set():
            return
        res, problems = examiner.run(job)
        found: list[CliViolation] = []
        if problems:
            with lock:
                fresh = []
                for kind in dict.fromkeys(p.kind for p in problems):
                    key = f"{job.command} {kind}"
                    report.problem_counts[key] = report.problem_counts.get(key, 0) + 1
                    if report.problem_counts[key] <= max_violations_per_kind:
                        fresh += [p for p in problems if p.kind == kind][:3]
            if fresh:
                found = examiner.narrow(job, fresh)
        with lock:
            report.runs += 1
            report.inputs += job.inputs
            report.per_command[job.command] = report.per_command.get(job.command, 0) + job.inputs
            report.seconds_per_command[job.command] = report.seconds_per_command.get(job.command, 0.0) + res.seconds
            report.peak_rss_kb = max(report.peak_rss_kb, res.max_rss_kb)
            report.slowest_run = max(report.slowest_run, res.seconds)
            report.violations.extend(found)
            if time_limit is not None and time.monotonic() - start > time_limit:
                stop.set()
        if progress is not None:
            progress(report)

    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        pending = []
        for job in jobs(n, seed=seed, commands=commands, shared=shared, batch=batch):
            if stop.is_set():
                break
            pending.append(pool.submit(one, job))
            # keep a bounded queue: the jobs hold their input lines
            while sum(not f.done() for f in pending) > 2 * max(1, workers):
                time.sleep(0.01)
            for f in [f for f in pending if f.done()]:
                f.result()
                pending.remove(f)
        for f in pending:
            f.result()
    report.seconds = time.monotonic() - start
    return report


# --- the hostile adapter ----------------------------------------------------------------------------------

# replies the line protocol does not define (vectors/README.md): each must fail whatever vector it answers
_FAILURE_REPLIES = (
    b"",
    b" ",
    b"not json",
    b"\xff\xfe",
    b"[]",
    b"5",
    b"null",
    b'"x"',
    b"true",
    b"{}",
    b'{"error": "x"}',
    b'{"error": {}}',
    b'{"error": {"message": 5}}',
    b'{"error": null}',
    b'{"wire": "zz"}',
    b'{"wire": 5}',
    b'{"wire": null}',
    b'{"wire": "abc"}',
    b'{"assignments": []}',
    b'{"assignments": {"m": 5}}',
    b'{"assignments": "x"}',
    b'{"assignments": {"m": "zz"}}',
    b'{"valu": 1}',
    b"NaN",
    b"[" * 100000,
    b"{" * 5000,
)


def adapter_reply(req_line: bytes, rng: random.Random, mode: str, p: float, max_reply: int) -> tuple[str, bytes]:
    """(what to do, the bytes to write) for one request."""
    from ..conformance.impl import handle_request
    from ..text import dumps

    r = rng.random()
    if mode == "fail":
        if r < 0.015:
            return "exit", b""
        if r < 0.02:
            return "silent", b""
        if r < 0.05:
            return "flood", b""
        reply = rng.choice(_FAILURE_REPLIES)
        return "reply", reply + b"\n"
    try:
        req = json.loads(req_line)
        honest = handle_request(req) if isinstance(req, dict) else {"error": {"message": "not an object"}}
    except (ValueError, RecursionError):
        req, honest = None, {"error": {"message": "request is not JSON"}}
    # the line protocol's version 2: a reply names the request it answers (the replies below that do not fail)
    honest = {"id": req.get("id") if isinstance(req, dict) else None, **honest}
    if r >= p:
        return "reply", dumps(honest).encode("utf-8") + b"\n"
    r = rng.random()
    if r < 0.01:
        return "exit", b""
    if r < 0.015:
        return "silent", b""
    if r < 0.04:
        return "flood", b""
    if r < 0.08:  # two lines for one request: the runner is out of step from here on
        return "reply", dumps(honest).encode("utf-8") + b"\n" + rng.choice(_FAILURE_REPLIES[:12]) + b"\n"
    if r < 0.4:
        return "reply", rng.choice(_FAILURE_REPLIES) + b"\n"
    if r < 0.5:  # an error whose message is hostile text
        msg = rng.choice(
            (
                "\ud800",
                "\x1b[2J\x1b]0;pwned\x07",
                "line\nFORGED",
                "\u2028x",
                "\x00",
                "]]>",
                "<&>",
                "\udfff" * 10,
                "x" * 100000,
            )
        )
        error = {"message": msg, "offset": rng.choice((None, 5, -1, "x", 2**70))}
        return "reply", dumps({"id": honest["id"], "error": error}).encode("utf-8", "surrogatepass") + b"\n"
    if r < 0.6:  # huge numbers and long values
        return "reply", b'{"value": ' + rng.choice((b"9" * 5000, b"1e99999", b"NaN", b"-" + b"9" * 4301)) + b"}\n"
    if r < 0.7:  # a value line just under the cap
        pad = max(0, max_reply - 60)
        return "reply", b'{"id": ' + dumps(honest["id"]).encode() + b', "value": {"pad": "' + b"x" * pad + b'"}}\n'
    # valid but wrong: the honest answer, changed
    wrong: Any = honest
    if "wire" in honest and isinstance(honest["wire"], str) and honest["wire"]:
        w = bytearray.fromhex(honest["wire"])
        w[rng.randrange(len(w))] ^= 1 << rng.randrange(8)
        wrong = {"wire": bytes(w).hex()} if rng.random() < 0.7 else {"value": honest["wire"]}
    elif "value" in honest:
        wrong = {"value": mutate_value(honest["value"], rng)} if rng.random() < 0.8 else {"wire": "00"}
    elif "assignments" in honest and isinstance(honest["assignments"], dict):
        wrong = {"assignments": {k: "00" for k in honest["assignments"]}} if rng.random() < 0.5 else {"assignments": {}}
    elif "error" in honest:
        wrong = {"value": {}} if rng.random() < 0.5 else {"wire": ""}
    return "reply", json_text({"id": honest["id"], **wrong}, rng) + b"\n"


def adapter_main(argv: list[str] | None = None) -> int:
    """``python -m codec.fuzz.cli adapter --seed S --mode mixed|fail [--p P] [--max-reply N]``: a line-protocol
    adapter that answers with the built-in codec but mutates a share ``p`` of its replies (``mixed``), or
    answers every request with a failure of the protocol (``fail``). Deterministic for a seed: each reply
    depends on the seed, the request and how many requests came before it in this process."""
    import argparse

    ap = argparse.ArgumentParser(prog="python -m codec.fuzz.cli adapter")
    ap.add_argument("--seed", default="0")
    ap.add_argument("--mode", choices=("mixed", "fail"), default="mixed")
    ap.add_argument("--p", type=float, default=0.3)
    ap.add_argument("--max-reply", type=int, default=200000, dest="max_reply")
    args = ap.parse_args(argv)
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    for n, line in enumerate(stdin):
        digest = hashlib.sha256(line).hexdigest()[:16]
        rng = random.Random(f"{args.seed}:{n}:{digest}")
        what, data = adapter_reply(line.rstrip(b"\n"), rng, args.mode, args.p, args.max_reply)
        if rng.random() < 0.05:
            sys.stderr.buffer.write(b"adapter noise \x1b[31m\xff\xed\xa0\x80 \r\n")
            sys.stderr.flush()
        if what == "exit":
            sys.stderr.buffer.write(b"adapter exits \x1b]0;x\x07\n")
            sys.stderr.flush()
            os._exit(rng.choice((0, 1, 3, 139)))
        if what == "silent":
            time.sleep(3600)
        if what == "flood":  # past the cap, no newline
            chunk = b"y" * 65536
            for _ in range(args.max_reply // len(chunk) + 2):
                stdout.write(chunk)
            stdout.flush()
            time.sleep(3600)
        if rng.random() < 0.1 and len(data) > 2:  # in two writes
            cut = rng.randrange(1, len(data))
            stdout.write(data[:cut])
            stdout.flush()
            time.sleep(0.01)
            data = data[cut:]
        stdout.write(data)
        stdout.flush()
    return 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["adapter"]:
        sys.exit(adapter_main(sys.argv[2:]))
    print("usage: python -m codec.fuzz.cli adapter [--seed S] [--mode mixed|fail] [--p P]", file=sys.stderr)
    sys.exit(2)
