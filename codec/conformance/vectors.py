"""Loading and linting the golden vectors in ``vectors/`` (``rebalance-codec vectors check``)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Iterable

__all__ = ["vectors_dir", "load_vectors", "load_rounds", "check_vectors", "NON_CANONICAL_FLAGS"]

# A vector that is not canonical must say why with one of these flags.
NON_CANONICAL_FLAGS = {"java-hash-order", "trailing-bytes", "lossy-version", "version-probe", "capture-facts"}
_MODAL = re.compile(r"\b(should|must|may|might|could)\b", re.I)


def vectors_dir() -> Path:
    """The golden vectors: ``vectors/`` of a source checkout, else the copy shipped in the wheel
    (``codec/vectors/``, a data folder beside this package's own, read as a plain directory)."""
    codec_root = Path(__file__).resolve().parents[1]
    for candidate in (codec_root / "vectors", codec_root.parent / "vectors"):
        if (candidate / "schema.json").is_file():
            return candidate
    raise FileNotFoundError("no golden vectors found (neither vectors/ of a checkout nor codec/vectors in the install)")


def load_vectors(paths: Iterable[Path] | None = None) -> list[dict]:
    out = []
    for path in paths or sorted(vectors_dir().glob("*.jsonl")):
        with Path(path).open(encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                if line.strip():
                    v = json.loads(line)
                    v.setdefault("_file", f"{Path(path).name}:{n}")
                    out.append(v)
    return out


def load_rounds(directory: Path | None = None) -> list[dict]:
    path = (directory or vectors_dir()) / "rebalance" / "rounds.jsonl"
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


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

    from .impl import BuiltinImplementation
    from .runner import DECODE_ONLY

    directory = directory or vectors_dir()
    schema = json.loads((directory / "schema.json").read_text(encoding="utf-8"))
    flags = json.loads((directory / "flags.json").read_text(encoding="utf-8"))
    validator = jsonschema.Draft202012Validator(schema)
    problems: list[str] = []
    seen: dict[str, str] = {}
    counts: dict[str, int] = {}
    builtin = BuiltinImplementation()
    for path in sorted(directory.glob("*.jsonl")):
        with path.open(encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                where = f"{path.name}:{n}"
                if not line.strip():
                    problems.append(f"{where}: empty line")
                    continue
                try:
                    v = json.loads(line)
                except json.JSONDecodeError as e:
                    problems.append(f"{where}: not JSON ({e})")
                    continue
                for err in validator.iter_errors(v):
                    loc = "/".join(str(p) for p in err.absolute_path) or "(vector)"
                    problems.append(f"{where}: {loc}: {err.message}")
                vid = v.get("id", "?")
                if vid in seen:
                    problems.append(f"{where}: duplicate id {vid!r} (first at {seen[vid]})")
                seen[vid] = where
                desc = v.get("description", "")
                if _MODAL.search(desc):
                    problems.append(f"{where}: description uses a modal verb; state the fact: {desc!r}")
                for fl in v.get("flags", []):
                    if fl not in flags:
                        problems.append(f"{where}: unknown flag {fl!r} (define it in vectors/flags.json)")
                if v.get("result") == "valid" and not v.get("canonical") and \
                        not NON_CANONICAL_FLAGS & set(v.get("flags", [])):
                    problems.append(f"{where}: not canonical but no flag says why "
                                    f"(one of {', '.join(sorted(NON_CANONICAL_FLAGS))})")
                if v.get("result") == "valid" and "expected" in v and "message" in v and \
                        not DECODE_ONLY & set(v.get("flags", [])):
                    enc = builtin.encode(v["message"], v.get("version"), v["expected"], api_key=v.get("apiKey"))
                    if not enc.ok:
                        problems.append(f"{where}: expected does not re-validate: {enc.error.get('message')}")
                key = f"{v.get('message')} v{v.get('version')}"
                counts[key] = counts.get(key, 0) + 1
    if (directory / "rebalance").is_dir():
        _check_rounds(directory, seen, problems, counts)
    for fl in flags:
        if not isinstance(flags[fl], str) or len(flags[fl]) < 10:
            problems.append(f"flags.json: flag {fl!r} needs a meaning")
    return problems, counts
