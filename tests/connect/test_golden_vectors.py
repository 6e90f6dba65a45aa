"""``vectors/kafka-java-connect.jsonl``: every record of Kafka's ``connect.jsonl`` as golden vectors with
provenance, linted by ``vectors check`` and passed by the built-in codec through ``conformance``; an
implementation that reads every message with its header's deserializer fails."""

from __future__ import annotations

import json
import subprocess
import sys

from codec.conformance.impl import BuiltinImplementation, CommandImplementation, Outcome
from codec.conformance.importer import KAFKA_COMMIT, connect_vectors
from codec.conformance.runner import run_vectors
from codec.conformance.vectors import load_vectors, vectors_dir
from tests.conftest import KAFKA_VECTORS, ROOT, load_jsonl

FILE = vectors_dir() / "kafka-java-connect.jsonl"
VECTORS = load_jsonl(FILE)


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "codec", *args], capture_output=True, text=True, cwd=ROOT, timeout=600)


def test_the_file_is_what_the_importer_makes():
    assert VECTORS == connect_vectors(KAFKA_VECTORS), "stale: run `rebalance-codec vectors import`"


def test_every_record_is_there_with_its_provenance():
    records = load_jsonl(KAFKA_VECTORS / "connect.jsonl")
    views = sum(k in r.get("decoded", {}) for r in records for k in ("readByIncrementalDecoder", "readByEagerDecoder"))
    assert len(VECTORS) == len(records) + views == 857
    cited = {v["provenance"]["record"] for v in VECTORS}
    assert cited == {f"connect.jsonl:{r['id']}" for r in records}
    assert all(
        v["provenance"] == {"source": "kafka-java", "commit": KAFKA_COMMIT, "record": v["provenance"]["record"]}
        for v in VECTORS
    )
    by_id = {r["id"]: r for r in records}
    for v in VECTORS:
        r = by_id[v["provenance"]["record"].split(":", 1)[1]]
        assert v["wire"] == r["hex"]
        # Kafka threw: invalid; Kafka returned a value: valid, with that value
        if v["id"].endswith(("-read-by-incremental", "-read-by-eager")):
            view = r["decoded"]["readByIncrementalDecoder" if v["id"].endswith("incremental") else "readByEagerDecoder"]
            assert v["result"] == "valid" and v["expected"] == view
        elif "error" in r:
            assert v["result"] == "invalid" and "expected" not in v
        else:
            assert v["result"] == "valid"
            assert v["expected"] == {k: x for k, x in r["decoded"].items() if not k.startswith("readBy")}


def test_version_is_the_readers_and_other_reader_says_when_it_is_not_the_headers():
    for v in VECTORS:
        wire = bytes.fromhex(v["wire"])
        header = int.from_bytes(wire[:2], "big", signed=True) if len(wire) >= 2 else None
        eager = v["version"] == 0
        other = header is not None and header >= 0 and eager != (header == 0)
        assert ("other-reader" in v["flags"]) == other, v["id"]
        if v["result"] == "valid" and not other:
            assert v["version"] == header
    # Kafka's own records are canonical unless Kafka grouped two or more connectors in HashSet order
    own = [v for v in VECTORS if v["id"].count("-") == 4 and "readas" not in v["id"]]
    assert len(own) == 240 and all(v["canonical"] == ("java-hash-order" not in v["flags"]) for v in own)


def test_vectors_check_and_conformance_pass():
    check = run("vectors", "check")
    assert check.returncode == 0 and check.stdout.rstrip().endswith(" 0 problems"), check.stdout[-3000:]
    conf = run("conformance", str(FILE))
    assert conf.returncode == 0, conf.stdout[-3000:]
    assert conf.stdout.rstrip().endswith("857 passed, 0 failed, 0 skipped")
    for message in ("ConnectMetadata", "ConnectAssignment"):
        for version in (0, 1, 2):
            assert any(line.split()[:2] == [message, str(version)] for line in conf.stdout.splitlines())


class _HeaderOnly(BuiltinImplementation):
    """Reads every message with the deserializer its header names, whatever the request's version says."""

    def decode(self, message, version, wire, reader_version=None, api_key=None) -> Outcome:
        return super().decode(message, None, wire, reader_version, api_key)


def test_a_reader_that_ignores_the_requested_deserializer_fails():
    vectors = [v for v in load_vectors([FILE])]
    results = {r.id: r for r in run_vectors(_HeaderOnly(), vectors)}
    failed = {i for i, r in results.items() if r.status == "fail"}
    other = {v["id"] for v in vectors if "other-reader" in v["flags"]}
    assert failed and failed <= other
    assert {i for i, r in results.items() if r.status == "pass"} >= {v["id"] for v in vectors} - other
    assert all(r.status == "pass" for r in run_vectors(BuiltinImplementation(), vectors))


def test_the_line_protocol_carries_connect():
    sample = [v for v in load_vectors([FILE])][::20]
    impl = CommandImplementation(f"{sys.executable} -m codec.conformance.adapter")
    try:
        results = run_vectors(impl, sample)
    finally:
        impl.close()
    assert results and all(r.status == "pass" for r in results), [r for r in results if r.status != "pass"][:3]
    request = {
        "id": 1,
        "op": "decode",
        "message": "ConnectMetadata",
        "version": 0,
        "wire": "00010001770000000000000003ffffffff",
    }
    reply = subprocess.run(
        [sys.executable, "-m", "codec.conformance.adapter"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        input=json.dumps(request) + "\n",
        timeout=120,
    )
    # version 0 in a request is the reader's: ConnectProtocol's reads the URL and the offset of a v1 message
    assert json.loads(reply.stdout) == {"id": 1, "value": {"version": 1, "url": "w", "configOffset": 3}}
