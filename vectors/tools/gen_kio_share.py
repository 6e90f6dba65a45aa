"""Held-out ShareGroupHeartbeat (76) v1 and ShareGroupDescribe (77) v1 records written by kio (issue #30).

``../shared/vectors/kio/group-share.jsonl`` holds 160 such records (seed 20241025), which the codec was built and
checked against. This script has kio write *other* random instances of the same four classes, the same way (it
uses :mod:`gen_kio_group`'s helpers: kio 0.6.5 writes a random instance drawn by hypothesis from a fixed seed,
reads the bytes back with its own reader and keeps the pair only when the value comes back equal), so that the
codec can be checked on records nobody here looked at. Each record is in the shared file's shape (``kind``,
``apiKey``, ``version``, ``hex``, ``decoded`` in kio's terms). A record whose class differs from Kafka's message
JSON in ``schemas/`` says so (``kafkaJsonDiffers``; none does with kio 0.6.5).

kio is not a dependency of the project (it is in the ``bench`` extra). Run it from an environment that has it:

    python vectors/tools/gen_kio_share.py 20261201 heldout 25 > /tmp/kio-share-heldout.jsonl

Nothing it writes is committed: ``tests/kafka4/test_share_kio_cli.py`` runs it (seed 20261201, 25 cases per
message: 100 records) where kio is installed and puts its records through the CLI beside the shared ones.
"""

import dataclasses
import importlib
import json
import re
import sys
import typing
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gen_kio_group import SCHEMAS, _in, _snake, examples, plain

TARGETS = [("share_group_heartbeat", "ShareGroupHeartbeat", [1]), ("share_group_describe", "ShareGroupDescribe", [1])]


def _kafka_fields(fields: list, structs: dict, v: int, prefix: str = "") -> dict:
    """Kafka's fields at version v, {kio-style path: nullable}, common structs resolved (the share messages'
    ``TopicPartitions`` and ``Assignment`` are common structs). A UUID counts as nullable: kio's None is Kafka's
    zero UUID."""
    out = {}
    for f in fields:
        if not _in(f["versions"], v):
            continue
        path = prefix + _snake(f["name"]).removesuffix("_ms")
        out[path] = (bool(f.get("nullableVersions")) and _in(f["nullableVersions"], v)) or f["type"] == "uuid"
        inner = f.get("fields") or structs.get(f["type"].removeprefix("[]"), {}).get("fields", [])
        out.update(_kafka_fields(inner, structs, v, path + "."))
    return out


def _kio_fields(cls, prefix: str = "") -> dict:
    """kio's fields, {path: nullable}, through structs, arrays of structs and nullable structs."""
    out = {}
    hints = typing.get_type_hints(cls)
    for f in dataclasses.fields(cls):
        hint = hints[f.name]
        args = typing.get_args(hint)
        out[prefix + f.name] = type(None) in args or (uuid.UUID in args and not dataclasses.is_dataclass(hint))
        inner = [
            a for a in (hint, *args, *(x for a in args for x in typing.get_args(a))) if dataclasses.is_dataclass(a)
        ]
        for struct in dict.fromkeys(inner):
            out.update(_kio_fields(struct, prefix + f.name + "."))
    return out


def differences(cls, kind: str, v: int) -> list[str]:
    """Where kio's class and Kafka's message JSON disagree at version v: fields and nullability."""
    spec = json.loads(re.sub(r"^\s*//.*$", "", (SCHEMAS / f"{kind}.json").read_text(), flags=re.MULTILINE))
    structs = {s["name"]: s for s in spec.get("commonStructs", [])}
    kafka, kio_ = _kafka_fields(spec["fields"], structs, v), _kio_fields(cls)
    out = [f"{p}: {'only in kio' if p in kio_ else 'missing in kio'}" for p in sorted(set(kafka) ^ set(kio_))]
    return out + [
        f"{p}: nullable in {'kio' if kio_[p] else 'Kafka'} only"
        for p in sorted(set(kafka) & set(kio_))
        if kafka[p] != kio_[p]
    ]


def records(seed_value: int, tag: str, per: int):
    """The records, one dict each, in the shared file's shape."""
    idx = 0
    for mod, name, versions in TARGETS:
        for v in versions:
            for side in ("request", "response"):
                kind = name + side.capitalize()
                cls = getattr(importlib.import_module(f"kio.schema.{mod}.v{v}.{side}"), kind)
                differs = differences(cls, kind, v)
                for obj, raw in examples(cls, seed_value, per):
                    rec = {
                        "id": f"{kind}-v{v}-{tag}-{idx:04d}",
                        "kind": kind,
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
                    yield rec
                    idx += 1


if __name__ == "__main__":
    for r in records(int(sys.argv[1]), sys.argv[2], int(sys.argv[3])):
        sys.stdout.write(json.dumps(r) + "\n")
