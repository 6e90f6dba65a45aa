"""Heartbeat and LeaveGroup vectors (every version, requests and responses) written by kio.

This project's own script, modelled on ``../shared/vectors/kio/tools/gen.py`` (which wrote the Kafka 4 group
RPCs of ``../shared/vectors/kio/group-kafka4.jsonl``) and doing what it does: kio 0.6.5, whose classes are
generated from Kafka's message JSON, writes a random instance of each message class (hypothesis, a fixed seed),
reads the bytes back with its own reader and keeps the pair only when the value comes back equal. The records it
prints are kio's, in kio's terms (snake_case names, durations in milliseconds, nulls as null); ``rebalance-codec
vectors import`` translates them into golden vectors in Kafka's JSON shape (``codec.conformance.importer``,
``kio_group_vectors``), never through this project's decoder.

kio is not a dependency of the project. Run it from a scratch environment:

    python3 -m venv /tmp/kio && /tmp/kio/bin/pip install kio==0.6.5 hypothesis
    /tmp/kio/bin/python vectors/tools/gen_kio_group.py 20261124 kio 12 > vectors/tools/kio-group.source.jsonl
    rebalance-codec vectors import        # rewrites vectors/kio-group.jsonl from it (among the others)

The committed source was written with kio 0.6.5 and hypothesis 6.170.15, seed 20261124, 12 cases per message and
version. Hypothesis also draws on the literals of this file, so an edit to it changes the cases: regenerate both.
The script compares each kio class with Kafka's message JSON in ``schemas/`` (fields, nullability, flexibility)
and records any difference as ``kafkaJsonDiffers`` (none for these classes with kio 0.6.5).
"""

import dataclasses
import datetime
import importlib
import io
import json
import re
import sys
import typing
import uuid
from pathlib import Path

import hypothesis.strategies as st
import kio.serial as ks
from hypothesis import HealthCheck, given, settings
from hypothesis import seed as hseed

SCHEMAS = Path(__file__).resolve().parents[2] / "schemas"  # Kafka's message JSON at the release the codec follows
TARGETS = [("heartbeat", "Heartbeat", [0, 1, 2, 3, 4]), ("leave_group", "LeaveGroup", [0, 1, 2, 3, 4, 5])]


def plain(x):
    """kio's value as plain JSON (the same conversion as the shared tool's)."""
    if dataclasses.is_dataclass(x):
        return {f.name: plain(getattr(x, f.name)) for f in dataclasses.fields(x)}
    if isinstance(x, (tuple, list, frozenset)):
        return [plain(v) for v in x]
    if isinstance(x, bytes):
        return x.hex()
    if isinstance(x, uuid.UUID):
        return str(x)
    if isinstance(x, datetime.timedelta):
        return int(x / datetime.timedelta(milliseconds=1))
    if isinstance(x, datetime.datetime):
        return int(x.timestamp() * 1000)
    if hasattr(x, "value") and not isinstance(x, (int, str)):
        return x.value
    if isinstance(x, int):
        return int(x)
    if isinstance(x, str):
        return str(x)
    return x


def _snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()


def _in(versions: str, v: int) -> bool:
    if versions.endswith("+"):
        return v >= int(versions[:-1])
    lo, _, hi = versions.partition("-")
    return int(lo) <= v <= int(hi or lo)


def _kafka_fields(fields: list, v: int, prefix: str = "") -> dict:
    """Kafka's fields at version v: {kio-style path: nullable}."""
    out = {}
    for f in fields:
        if not _in(f["versions"], v):
            continue
        path = prefix + _snake(f["name"]).removesuffix("_ms")
        out[path] = bool(f.get("nullableVersions")) and _in(f["nullableVersions"], v)
        out.update(_kafka_fields(f.get("fields", []), v, path + "."))
    return out


def _kio_fields(cls, prefix: str = "") -> dict:
    out = {}
    hints = typing.get_type_hints(cls)
    for f in dataclasses.fields(cls):
        args = typing.get_args(hints[f.name])
        out[prefix + f.name] = type(None) in args
        for inner in (a for a in args if dataclasses.is_dataclass(a)):
            out.update(_kio_fields(inner, prefix + f.name + "."))
    return out


def differences(cls, kind: str, v: int) -> list[str]:
    """Where kio's class and Kafka's message JSON disagree at version v: fields, nullability, flexibility."""
    spec = json.loads(re.sub(r"^\s*//.*$", "", (SCHEMAS / f"{kind}.json").read_text(), flags=re.MULTILINE))
    kafka, kio_ = _kafka_fields(spec["fields"], v), _kio_fields(cls)
    out = [f"{p}: {'only in kio' if p in kio_ else 'missing in kio'}" for p in sorted(set(kafka) ^ set(kio_))]
    out += [
        f"{p}: nullable in {'kio' if kio_[p] else 'Kafka'} only"
        for p in sorted(set(kafka) & set(kio_))
        if kafka[p] != kio_[p]
    ]
    if bool(cls.__flexible__) != _in(spec["flexibleVersions"], v) if spec["flexibleVersions"] != "none" else False:
        out.append(f"flexible in {'kio' if cls.__flexible__ else 'Kafka'} only")
    return out


def examples(cls, seed_value: int, per: int) -> list:
    """Up to ``per`` (instance, kio's bytes) pairs whose bytes kio reads back to the same instance."""
    write, read = ks.entity_writer(cls), ks.entity_reader(cls)
    got = []

    @settings(
        max_examples=per, database=None, deadline=None, derandomize=False, suppress_health_check=list(HealthCheck)
    )
    @hseed(seed_value)
    @given(st.from_type(cls))
    def one(obj):
        if len(got) >= per:
            return
        buf = io.BytesIO()
        write(buf, obj)
        raw = buf.getvalue()
        back = read(memoryview(raw), 0)
        back = back[0] if isinstance(back, tuple) else back
        assert back == obj
        got.append((obj, raw))

    one()
    return got


def main(seed_value: int, tag: str, per: int) -> None:
    out = sys.stdout
    idx = 0
    for mod, name, versions in TARGETS:
        for v in versions:
            for side in ("request", "response"):
                m = importlib.import_module(f"kio.schema.{mod}.v{v}.{side}")
                cls = getattr(m, name + side.capitalize())
                got = examples(cls, seed_value, per)
                differs = differences(cls, name + side.capitalize(), v)
                if differs:
                    print(f"{name}{side.capitalize()} v{v}: kio differs from Kafka's JSON: {differs}", file=sys.stderr)
                for obj, raw in got:
                    rec = {
                        "id": f"{name}{side.capitalize()}-v{v}-{tag}-{idx:04d}",
                        "kind": name + side.capitalize(),
                        "apiKey": int(cls.__api_key__),
                        "version": v,
                        "hex": raw.hex(),
                        "decoded": plain(obj),
                        "producedBy": "kio 0.6.5 (generated from Kafka's message JSON)",
                        "seed": seed_value,
                        "index": idx,
                    }
                    if differs:
                        rec["kafkaJsonDiffers"] = differs
                    out.write(json.dumps(rec) + "\n")
                    idx += 1


if __name__ == "__main__":
    main(int(sys.argv[1]), sys.argv[2], int(sys.argv[3]))
