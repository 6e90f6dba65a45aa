"""Loading and linting the golden vectors in ``vectors/`` (``rebalance-codec vectors check``)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Iterable

from ..cliutil import DuplicateKeyError, loads
from ..errors import read_whole

__all__ = [
    "vectors_dir",
    "load_vectors",
    "load_consumer_rounds",
    "round_counts",
    "load_rounds",
    "check_vectors",
    "structure_problems",
    "VectorFileError",
    "NON_CANONICAL_FLAGS",
    "DECODE_ONLY",
    "ENCODE_ONLY",
    "suite",
]

# Vectors with these flags are checked in the decode direction only: a version probe cannot be encoded (no
# such version exists), and a capture's expected value names only the facts recorded with it.
DECODE_ONLY = {"version-probe", "capture-facts"}
# and these in the encode direction only: expected sets an ignorable field the version lacks, which Kafka's writer
# leaves out, so decoding wire gives the value without it
ENCODE_ONLY = {"ignorable-dropped"}

# A vector that is not canonical must say why with one of these flags.
NON_CANONICAL_FLAGS = {
    "java-hash-order",
    "trailing-bytes",
    "lossy-version",
    "version-probe",
    "capture-facts",
    "other-reader",
    "missing-fields",
    "negative-marker",
    "null-as-empty",
}
_MODAL = re.compile(r"\b(should|must|may|might|could)\b", re.I)


def vectors_dir() -> Path:
    """The golden vectors: ``vectors/`` of a source checkout, else the copy shipped in the wheel
    (``codec/vectors/``, a data folder beside this package's own, read as a plain directory)."""
    codec_root = Path(__file__).resolve().parents[1]
    for candidate in (codec_root / "vectors", codec_root.parent / "vectors"):
        if (candidate / "schema.json").is_file():
            return candidate
    raise FileNotFoundError("no golden vectors found (neither vectors/ of a checkout nor codec/vectors in the install)")


class VectorFileError(ValueError):
    """Vector files that cannot be run: each problem is ``file:line: what``."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__(problems[0] if len(problems) == 1 else f"{problems[0]} (and {len(problems) - 1} more)")
        self.problems = problems


_RESULTS = ("valid", "invalid", "acceptable")


def _is_int(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def structure_problems(v) -> list[str]:
    """What stops the runner from using a parsed vector line at all (the JSON Schema says more)."""
    if not isinstance(v, dict):
        return [f"a vector is a JSON object, not {type(v).__name__}"]
    out = []
    for key in ("id", "message"):
        if not isinstance(v.get(key), str) or not v.get(key):
            out.append(f"{key}: a non-empty string is required")
    if v.get("version") is not None and not _is_int(v["version"]):
        out.append("version: an integer or null")
    if v.get("apiKey") is not None and not _is_int(v["apiKey"]):
        out.append("apiKey: an integer or null")
    if v.get("result") not in _RESULTS:
        out.append(f"result: one of {', '.join(_RESULTS)}")
    flags = v.get("flags", [])
    if not isinstance(flags, list) or not all(isinstance(f, str) for f in flags):
        out.append("flags: a list of strings")
    if "wire" in v:
        try:
            bytes.fromhex(v["wire"])
        except (TypeError, ValueError):
            out.append("wire: a hex string")
    if v.get("result") in ("valid", "acceptable") and "wire" not in v:
        out.append(f"wire: required for a {v['result']} vector")
    if v.get("result") in ("valid", "acceptable") and "expected" not in v:
        out.append(f"expected: required for a {v['result']} vector (the value a decode must give)")
    if v.get("result") == "invalid" and "wire" not in v and "expected" not in v:
        out.append("an invalid vector needs wire (to decode) or expected (to encode)")
    return out


def _parse_line(raw: bytes) -> tuple[object, str | None]:
    """One JSONL line: (the parsed value, None), or (None, what is wrong with it)."""
    try:
        return loads(raw.decode("utf-8")), None
    except UnicodeDecodeError as e:
        return None, f"not UTF-8 (byte {e.start})"
    except DuplicateKeyError as e:
        return None, str(e)
    except (json.JSONDecodeError, RecursionError) as e:
        return None, f"not JSON ({e})"
    except ValueError:  # json.loads's one other refusal: Python's int-conversion limit
        return None, "an integer of more than 4,300 digits (no vector field holds one)"


def read_lines(path: Path):
    """``(line number, parsed JSON or None, problem or None)`` for each non-blank line of a JSONL file; a
    line that is not UTF-8 or not JSON is a problem, never an exception."""
    for n, raw in enumerate(read_whole(path).split(b"\n"), 1):
        if raw.strip():
            yield (n, *_parse_line(raw))


def load_vectors(paths: Iterable[Path] | None = None) -> list[dict]:
    """Every vector of the files (default: ``vectors/*.jsonl``); raises :class:`VectorFileError` listing
    every line that is not a usable vector."""
    out, problems = [], []
    for path in paths or sorted(vectors_dir().glob("*.jsonl")):
        name = Path(path).name
        try:
            lines = list(read_lines(Path(path)))
        except OSError as e:
            problems.append(f"{path}: {e.strerror or e}")
            continue
        for n, v, problem in lines:
            found = [problem] if problem else structure_problems(v)
            if found:
                problems += [f"{name}:{n}: {p}" for p in found]
                continue
            v.setdefault("_file", f"{name}:{n}")
            out.append(v)
    if problems:
        raise VectorFileError(problems)
    if paths is None and not _SUITE:
        _SUITE.extend(out)
    return out


_SUITE: list[dict] = []


def suite(loaded: list[dict] | None = None) -> list[dict]:
    """The golden vectors of ``vectors/``, loaded once for the process (none when they cannot be read): what the
    runner's witnesses and the generator's freshness check draw on. ``loaded``: the default files as the caller
    has just read them, kept instead of reading them again."""
    if not _SUITE:
        try:
            _SUITE.extend(loaded if loaded is not None else load_vectors())
        except (VectorFileError, OSError):
            pass
    return _SUITE


def load_rounds(directory: Path | None = None) -> list[dict]:
    path = (directory or vectors_dir()) / "rebalance" / "rounds.jsonl"
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def load_consumer_rounds(directory: Path | None = None) -> list[dict]:
    """The consumer assignors' rounds of the files: each case of ``vectors/consumer/``'s Kafka-computed files (Kafka's
    own assignor tests, the Java assignors' outputs) with an expected assignment and none of Kafka's test-only
    switches, as a ``ConsumerRound``, ``ConsumerRackRound`` (partition racks) or ``ServerAssignorRound`` (KIP-848's
    ``uniform`` and ``range``) (:func:`codec.assignor.consumer.gate_rounds.kafka_round`)."""
    from ..assignor.consumer.gate_rounds import KAFKA_ROUND_FILES, kafka_round

    out = []
    for name in KAFKA_ROUND_FILES:
        path = (directory or vectors_dir()) / "consumer" / name
        if not path.is_file():
            continue
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                r = kafka_round({**json.loads(line), "file": f"consumer/{name}"})
                if r is not None:
                    out.append(r)
    return out


def round_counts(rounds: list[dict]) -> dict[str, int]:
    """How many of ``rounds`` each message has (``ConsumerRound``, ``ConsumerRackRound``, ``ServerAssignorRound``),
    in that order."""
    from ..assignor.consumer.gate_rounds import round_message

    out = {"ConsumerRound": 0, "ConsumerRackRound": 0, "ServerAssignorRound": 0}
    for r in rounds:
        m = round_message(r)
        out[m] = out.get(m, 0) + 1
    return out


def _check_rounds(directory: Path, seen: dict, problems: list[str], counts: dict) -> None:
    import jsonschema

    from .rebalance import check_invariants, compare_round, run_round

    schema = json.loads((directory / "rebalance" / "schema.json").read_text(encoding="utf-8"))
    validator = jsonschema.Draft202012Validator(schema)
    for n, r in enumerate(load_rounds(directory), 1):
        where = f"rebalance/rounds.jsonl:{n}"
        for err in validator.iter_errors(r):
            problems.append(f"{where}: {'/'.join(map(str, err.absolute_path)) or '(round)'}: {err.message}")
        rid = r.get("id", "?")
        if rid in seen:
            problems.append(f"{where}: duplicate id {rid!r} (first at {seen[rid]})")
        seen[rid] = where
        if _MODAL.search(r.get("description", "")):
            problems.append(f"{where}: description uses a modal verb")
        try:
            want = {a["memberId"]: bytes.fromhex(a["assignment"]) for a in r["assignments"]}
            for p in check_invariants(r, want):
                problems.append(f"{where}: invariant: {p}")
            diff = compare_round(r, run_round(r))
            if diff:
                problems.append(f"{where}: the reference leader no longer assigns this round: {diff}")
        except Exception as e:  # noqa: BLE001 - a round that cannot even be run is a problem to report
            problems.append(f"{where}: cannot be run: {type(e).__name__}: {e}")
        counts["RebalanceRound"] = counts.get("RebalanceRound", 0) + 1


def check_vectors(directory: Path | None = None) -> tuple[list[str], dict]:
    """Lint every vector file: JSON, the JSON Schema, unique ids, descriptions that state facts, known
    flags, non-canonical vectors explained, and ``expected`` values that the reference encoder accepts.
    Returns (problems, counts)."""
    import jsonschema

    from .. import text
    from .impl import BuiltinImplementation
    from .messages import MESSAGES

    directory = directory or vectors_dir()
    schema = json.loads((directory / "schema.json").read_text(encoding="utf-8"))
    flags = json.loads((directory / "flags.json").read_text(encoding="utf-8"))
    validator = jsonschema.Draft202012Validator(schema)
    problems: list[str] = []
    seen: dict[str, str] = {}
    counts: dict[str, int] = {}
    builtin = BuiltinImplementation()
    known = set(MESSAGES)  # every message a kind reads, derived from the schemas (no enum in schema.json repeats it)
    for path in sorted(directory.glob("*.jsonl")):
        raw_lines = read_whole(path).split(b"\n")
        if raw_lines and raw_lines[-1] == b"":
            raw_lines.pop()
        for n, raw in enumerate(raw_lines, 1):
            where = f"{path.name}:{n}"
            if not raw.strip():
                problems.append(f"{where}: empty line")
                continue
            v, problem = _parse_line(raw)
            found = [problem] if problem else structure_problems(v)
            if found:
                problems += [f"{where}: {p}" for p in found]
                continue
            assert isinstance(v, dict)  # structure_problems refuses anything else
            for err in validator.iter_errors(v):
                loc = "/".join(str(p) for p in err.absolute_path) or "(vector)"
                problems.append(f"{where}: {loc}: {err.message}")
            if v["message"] not in known:
                problems.append(
                    f"{where}: message: {text.printable(repr(v['message'][:80]))} is no message a kind reads (a schema "
                    "of schemas/, RequestFrame, ResponseFrame: `rebalance-codec kinds`)"
                )
            vid = v["id"]
            if vid in seen:
                problems.append(f"{where}: duplicate id {vid!r} (first at {seen[vid]})")
            seen[vid] = where
            desc = v.get("description", "")
            if isinstance(desc, str) and _MODAL.search(desc):
                problems.append(f"{where}: description uses a modal verb; state the fact: {desc!r}")
            vflags = v.get("flags", [])
            for fl in vflags:
                if fl not in flags:
                    problems.append(f"{where}: unknown flag {fl!r} (define it in vectors/flags.json)")
            if v["result"] == "valid" and not v.get("canonical") and not NON_CANONICAL_FLAGS & set(vflags):
                problems.append(
                    f"{where}: not canonical but no flag says why (one of {', '.join(sorted(NON_CANONICAL_FLAGS))})"
                )
            if v["result"] == "valid" and not DECODE_ONLY & set(vflags):
                enc = builtin.encode(v["message"], v.get("version"), v["expected"], api_key=v.get("apiKey"))
                if not enc.ok:  # the built-in codec rejects; it never fails or declines, but say so if it did
                    why = enc.error.get("message") if enc.error is not None else enc.failure or enc.declined
                    problems.append(f"{where}: expected does not re-validate: {why}")
            key = f"{v['message']} v{v.get('version')}"
            counts[key] = counts.get(key, 0) + 1
    if (directory / "rebalance").is_dir():
        _check_rounds(directory, seen, problems, counts)
    for fl in flags:
        if not isinstance(flags[fl], str) or len(flags[fl]) < 10:
            problems.append(f"flags.json: flag {fl!r} needs a meaning")
    return problems, counts
