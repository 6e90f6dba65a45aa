"""Golden vectors from kio's Heartbeat and LeaveGroup records (``vectors/kio-group.jsonl``).

``vectors/tools/gen_kio_group.py`` (this project's script, modelled on ``../shared/vectors/kio/tools/gen.py``)
has kio 0.6.5 write random instances of every version of the four messages and keeps each record that kio reads
back to the same value; its output, ``vectors/tools/kio-group.source.jsonl``, is kio's values in kio's terms.
Here they become vectors: ``wire`` is kio's bytes and ``expected`` kio's value translated field by field into
Kafka's JSON shape along Kafka's message JSON (``schemas/``, which cites the release), never through this
project's decoder.

Where kio and Kafka's message JSON differ — a field one of them lacks, a null where Kafka's field is not nullable,
an integer outside Kafka's type, a class kio writes with another flexibility (the generator records
``kafkaJsonDiffers``) — Kafka's JSON wins: the vector is flagged ``kio-differs``, and a value Kafka cannot
carry becomes an ``invalid`` vector (Kafka's reader refuses the bytes).
"""

from __future__ import annotations

import json
from pathlib import Path

from ..kafka4.kio import kio_to_kafka

__all__ = ["KIO_FILE", "KIO_SOURCE", "import_kio_group", "kio_group_vectors"]

KIO_SOURCE = Path("tools") / "kio-group.source.jsonl"  # inside vectors/
KIO_FILE = "kio-group.jsonl"
KIO_TOOL = "vectors/tools/gen_kio_group.py"


def _vector(rec: dict, source: str) -> dict:
    kind, version, idx = rec["kind"], rec["version"], rec["index"]
    expected, found = kio_to_kafka(kind, version, rec["decoded"])  # the translator of every kio import
    problems: list[str] = list(rec.get("kafkaJsonDiffers", ())) + found
    v: dict = {
        "id": f"kio-{kind}-v{version}-{idx:04d}".lower(),
        "message": kind,
        "version": version,
        "description": f"kio 0.6.5's {kind} v{version} (random case {idx}, seed {rec['seed']}), written by kio and "
        "read back by kio to the same value",
        "wire": rec["hex"],
        "expected": expected,
        "result": "valid",
        "canonical": True,
        "flags": [],
        "provenance": {
            "source": "kio",
            "producedBy": rec["producedBy"],
            "seed": rec["seed"],
            "index": idx,
            "record": f"{source}:{rec['id']}",
            "note": f"written by this project's {KIO_TOOL}, modelled on ../shared/vectors/kio/tools/gen.py",
        },
    }
    if problems:
        v["flags"] = ["kio-differs"]
        v["provenance"]["note"] += "; kio differs from Kafka's message JSON: " + "; ".join(problems)[:300]
        if any("not nullable" in p or "is not a" in p for p in problems):
            # Kafka's reader refuses what its JSON cannot carry: the bytes are an invalid input
            v.update(result="invalid", error="invalid-value", canonical=False)
            del v["expected"]
            v["description"] = f"kio 0.6.5's {kind} v{version} (case {idx}) carries a value Kafka's JSON refuses"
    return v


def kio_group_vectors(vectors_directory: Path) -> list[dict]:
    """Every record of ``vectors/tools/kio-group.source.jsonl`` as a golden vector."""
    path = vectors_directory / KIO_SOURCE
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            out.append(_vector(json.loads(line), f"vectors/{KIO_SOURCE.as_posix()}"))
    return out


def import_kio_group(vectors_directory: Path, out_dir: Path) -> dict[str, int]:
    """Write ``kio-group.jsonl`` into ``out_dir`` from the kio records of ``vectors_directory`` (nothing when
    they are absent: an installed wheel ships the vectors, not the records)."""
    from .. import text as _text

    if not (vectors_directory / KIO_SOURCE).is_file():
        return {}
    vectors = kio_group_vectors(vectors_directory)
    path = out_dir / KIO_FILE
    path.write_text("".join(_text.dumps(v) + "\n" for v in vectors), encoding="utf-8")
    return {path.name: len(vectors)}
