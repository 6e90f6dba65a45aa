"""``rebalance-codec vectors upstream-diff KAFKA_TREE``: ``schemas/`` compared field by field with Kafka's message JSON.

Kafka's side is a source tree (a checkout, an extracted ``git archive``, or any folder of its message JSON files),
a recorded copy of its facts (``vectors/releases/kafka-4.4-facts.json``), or, with ``--ref REF``, a git repository (bare or not) read at ``REF`` without a checkout. Every
``*.json`` whose ``name`` is a message of ``schemas/`` is compared with that schema (test sources, under
``src/test/``, are left out): the message's ``apiKey``, ``type``, ``validVersions``, ``flexibleVersions``; each
field, in wire order, by name, with its ``type``, ``versions``, ``nullableVersions``, ``taggedVersions``, ``tag``,
``default``, ``ignorable`` and ``flexibleVersions``, and the fields of its struct (``mapKey``, which only
shapes Kafka's Java classes, is not compared; Kafka's ``records`` type is ``bytes`` on the wire, as ours; a field
without ``versions`` has its ``taggedVersions``, as Kafka's generator gives it); each common struct
with its ``versions`` and fields. One line per difference, ``Message: path: what: ours X, Kafka Y``. Version ranges
are compared as ranges (``"0+"`` is ``"0-32767"``) and defaults as values (``"0"``, ``0`` and ``"0x0"`` alike;
``"false"`` and ``false``). What only the project writes (``history``, ``releases``, ``about``, its own encodings) is
not compared; the schemas no Kafka JSON of the same name matches (Streams' AssignmentInfo and Connect's metadata,
hand-written in Kafka; SubscriptionInfo, which Kafka names SubscriptionInfoData) are counted in the summary.
"""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from ..wire.schema import Versions, _schema_dir, strip_comments

__all__ = [
    "UpstreamError",
    "DiffResult",
    "known_differences",
    "kafka_messages",
    "kafka_messages_at",
    "diff_message",
    "upstream_diff",
]

#: The field keys compared (Kafka's message-spec keys the generated classes act on).
FIELD_KEYS = (
    "type",
    "versions",
    "nullableVersions",
    "taggedVersions",
    "tag",
    "default",
    "ignorable",
    "flexibleVersions",
)
_RANGE_KEYS = {"versions", "nullableVersions", "taggedVersions", "flexibleVersions"}
MESSAGE_KEYS = ("apiKey", "type", "validVersions", "flexibleVersions")
_MAX_FILE = 4 << 20  # a message spec is a few KiB; a file past this is not one


def known_differences(path: Path | None = None) -> dict[str, str]:
    """The known differences (``vectors/releases/upstream-known.txt``): diff line -> why."""
    if path is None:
        from .vectors import vectors_dir

        path = vectors_dir() / "releases" / "upstream-known.txt"
    out: dict[str, str] = {}
    for raw in path.read_text(encoding="utf-8").splitlines():
        if not raw.strip() or raw.startswith("#"):
            continue
        line, _, why = raw.partition("  # ")
        out[line.rstrip()] = why.strip()
    return out


class UpstreamError(Exception):
    """A tree or ref that cannot be read: one line."""


@dataclass
class DiffResult:
    lines: list[str] = field(default_factory=list)
    compared: list[str] = field(default_factory=list)
    ours_only: list[str] = field(default_factory=list)


def _parse(text: str, where: str) -> dict[str, Any] | None:
    try:
        spec = json.loads(strip_comments(text))
    except ValueError as e:
        raise UpstreamError(f"{where}: not a message spec (JSON: {e})") from None
    return spec if isinstance(spec, dict) and isinstance(spec.get("name"), str) else None


def _is_test(path: str) -> bool:
    return "/src/test/" in f"/{path}"


def kafka_messages(tree: Path, names: set[str]) -> dict[str, dict[str, Any]]:
    """name -> Kafka's spec, for each ``*.json`` under ``tree`` naming a message of ``names``."""
    if tree.is_file():  # a recorded copy of the facts (vectors/tools/kafka_release_versions.py facts)
        try:
            recorded = json.loads(tree.read_text(encoding="utf-8"))
            specs = recorded["messages"]
        except (ValueError, KeyError, TypeError, UnicodeDecodeError) as e:
            raise UpstreamError(f"{tree}: not a Kafka source tree nor a recorded facts file ({e})") from None
        return {n: s for n, s in specs.items() if n in names and isinstance(s, dict)}
    if not tree.is_dir():
        raise UpstreamError(f"{tree}: not a directory (a Kafka source tree, or a git repository with --ref)")
    out: dict[str, dict[str, Any]] = {}
    for root, dirs, files in os.walk(tree):
        dirs[:] = sorted(d for d in dirs if d not in (".git", "build", "node_modules"))
        for f in sorted(files):
            if not f.endswith(".json") or f[:-5] not in names:
                continue
            path = Path(root) / f
            rel = path.relative_to(tree).as_posix()
            if _is_test(rel) or path.stat().st_size > _MAX_FILE:
                continue
            spec = _parse(path.read_text(encoding="utf-8", errors="replace"), rel)
            if spec is not None and spec["name"] in names:
                _add(out, spec, rel)
    return out


def kafka_messages_at(repo: Path, ref: str, names: set[str]) -> dict[str, dict[str, Any]]:
    """As :func:`kafka_messages`, read from the git repository ``repo`` at ``ref`` (no checkout)."""

    def git(*args: str) -> str:
        try:
            run = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=False)
        except OSError as e:
            raise UpstreamError(f"git: {e.strerror or e}") from None
        if run.returncode:
            err = (run.stderr.strip().splitlines() or ["failed"])[-1]
            raise UpstreamError(f"{repo} at {ref}: {err}")
        return run.stdout

    try:
        commit = git("rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}").strip()
    except UpstreamError:
        raise UpstreamError(f"{repo}: no commit {ref!r} (not a git repository, or no such ref)") from None
    out: dict[str, dict[str, Any]] = {}
    for rel in git("ls-tree", "-r", "--name-only", commit).splitlines():
        base = rel.rsplit("/", 1)[-1]
        if not base.endswith(".json") or base[:-5] not in names or _is_test(rel):
            continue
        spec = _parse(git("show", f"{commit}:{rel}"), f"{ref}:{rel}")
        if spec is not None and spec["name"] in names:
            _add(out, spec, rel)
    return out


def _add(out: dict[str, dict[str, Any]], spec: dict[str, Any], where: str) -> None:
    name = spec["name"]
    if name in out and out[name] != spec:
        raise UpstreamError(f"{where}: a second, different spec of {name}")
    out[name] = spec


def _norm(key: str, value: Any) -> Any:
    if value is None:
        return None
    if key in _RANGE_KEYS or key == "validVersions":
        try:
            v = Versions.parse(str(value))
        except (ValueError, TypeError):
            return str(value)
        return "none" if v.empty else f"{v.low}+" if v.high >= 0x7FFF else f"{v.low}-{v.high}"
    if key == "default":
        text = str(value).strip()
        if text.lower() in ("true", "false"):
            return text.lower()
        try:
            return str(int(text, 0))
        except ValueError:
            return text
    if key == "ignorable":
        return bool(value)
    if key == "type":
        return "bytes" if value == "records" else value
    return value


def _get(f: dict[str, Any], key: str) -> Any:
    if key == "versions" and f.get("versions") is None:
        return f.get("taggedVersions")
    return f.get(key)


def _show(value: Any) -> str:
    return "(none)" if value is None else json.dumps(value) if not isinstance(value, str) else value


def _fields(message: str, path: str, ours: list[dict[str, Any]], theirs: list[dict[str, Any]], out: list[str]) -> None:
    ours_by = {f.get("name"): f for f in ours}
    theirs_by = {f.get("name"): f for f in theirs}
    for name, f in theirs_by.items():
        if name not in ours_by:
            out.append(
                f"{message}: {path}{name}: missing (Kafka: {_show(f.get('type'))}, versions {f.get('versions')})"
            )
    for name, f in ours_by.items():
        if name not in theirs_by:
            out.append(
                f"{message}: {path}{name}: not in Kafka's ({_show(f.get('type'))}, versions {f.get('versions')})"
            )
    common_ours = [str(f.get("name")) for f in ours if f.get("name") in theirs_by]
    common_theirs = [str(f.get("name")) for f in theirs if f.get("name") in ours_by]
    if common_ours != common_theirs:
        out.append(
            f"{message}: {path or '(top)'}: field order: ours {', '.join(common_ours)}; Kafka {', '.join(common_theirs)}"
        )
    for name in common_theirs:
        a, b = ours_by[name], theirs_by[name]  # (every name here is a str: the fields' names)
        for key in FIELD_KEYS:
            va, vb = _norm(key, _get(a, key)), _norm(key, _get(b, key))
            if key == "ignorable":
                va, vb = bool(va), bool(vb)
            if key == "flexibleVersions" and va is None and vb is None:
                continue
            if va != vb:
                out.append(f"{message}: {path}{name}: {key}: ours {_show(va)}, Kafka {_show(vb)}")
        if a.get("fields") is not None or b.get("fields") is not None:
            _fields(message, f"{path}{name}.", a.get("fields") or [], b.get("fields") or [], out)


def diff_message(ours: dict[str, Any], theirs: dict[str, Any]) -> list[str]:
    """Every difference of one message, one line each."""
    name = theirs["name"]
    out: list[str] = []
    for key in MESSAGE_KEYS:
        va, vb = _norm(key, ours.get(key)), _norm(key, theirs.get(key))
        if key == "flexibleVersions":
            va, vb = va or "none", vb or "none"
        if va != vb:
            out.append(f"{name}: {key}: ours {_show(va)}, Kafka {_show(vb)}")
    _fields(name, "", ours.get("fields") or [], theirs.get("fields") or [], out)
    ours_structs = {s.get("name"): s for s in ours.get("commonStructs") or []}
    theirs_structs = {s.get("name"): s for s in theirs.get("commonStructs") or []}
    for sname, s in theirs_structs.items():
        if sname not in ours_structs:
            out.append(f"{name}: commonStructs.{sname}: missing (Kafka: versions {s.get('versions')})")
            continue
        va, vb = _norm("versions", ours_structs[sname].get("versions")), _norm("versions", s.get("versions"))
        if va != vb:
            out.append(f"{name}: commonStructs.{sname}: versions: ours {_show(va)}, Kafka {_show(vb)}")
        _fields(name, f"{sname}.", ours_structs[sname].get("fields") or [], s.get("fields") or [], out)
    for sname in ours_structs.keys() - theirs_structs.keys():
        out.append(f"{name}: commonStructs.{sname}: not in Kafka's")
    return out


def _our_schemas(directory: Path | None = None) -> dict[str, dict[str, Any]]:
    directory = directory or _schema_dir()
    out = {}
    for p in sorted(directory.glob("*.json")):
        spec = json.loads(strip_comments(p.read_text(encoding="utf-8")))
        out[spec["name"]] = spec
    return out


def upstream_diff(
    tree: Path, ref: str | None = None, names: Iterable[str] | None = None, schemas: Path | None = None
) -> DiffResult:
    """Compare ``schemas/`` (or ``schemas``) with Kafka's message JSON of ``tree`` (at ``ref``)."""
    ours = _our_schemas(schemas)
    wanted = set(names) if names is not None else set(ours)
    unknown = wanted - set(ours)
    if unknown:
        raise UpstreamError(f"no schema named {', '.join(sorted(unknown))}")
    theirs = kafka_messages_at(tree, ref, wanted) if ref is not None else kafka_messages(tree, wanted)
    result = DiffResult()
    for name in sorted(wanted):
        if name not in theirs:
            result.ours_only.append(name)
            continue
        result.compared.append(name)
        try:
            result.lines += diff_message(ours[name], theirs[name])
        except (TypeError, AttributeError, KeyError, ValueError) as e:  # a spec of the wrong shape: one line
            raise UpstreamError(f"Kafka's {name}: not a message spec of the usual shape ({type(e).__name__}: {e})")
    return result
