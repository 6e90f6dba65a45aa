"""kafka-python with Kafka's rules, and the schema mistakes the suite must catch in it (issue #27).

kafka-python builds its codec from Kafka's message JSON. The shipped adapter (vectors/adapters/kafka-python) adds
Kafka's nullability and ignorable rules, read from that same JSON. Here the classic schema mistakes
(:mod:`codec.conformance.mutation`'s operators) are seeded into kafka-python's JSON one at a time — each in a
class of its own, built by kafka-python from a changed copy of the JSON (``json_patch``, kafka-python's hook;
site-packages untouched) and put in the adapter's place in this process — and the suite runs against the adapter
so mistaken, in process, on the vectors of that message (its frames too; every frame for a header): each mistake
fails at least one vector that the adapter with kafka-python's real JSON passes or expects to fail.

A sample runs by default; every mistake with ``-m mutation``."""

from __future__ import annotations

import copy
import importlib.util
import warnings

import pytest

from codec.conformance.expect import read_expectations
from codec.conformance.impl import Outcome
from codec.conformance.mutation import OPERATORS, Mutant, sample, table_mutants
from codec.conformance.runner import run_vectors
from codec.conformance.vectors import load_vectors
from tests.conftest import ROOT

ADAPTER = ROOT / "vectors" / "adapters" / "kafka-python"
# mistakes that change nothing kafka-python does, with why (the whole run checks each still passes the suite)
EQUIVALENT = {
    "flexible-early:RequestHeader": "kafka-python writes and reads a header's tagged fields when the API version is "
    "flexible (ApiHeader.encode/decode(flexible=...)); the header's flexibleVersions only picks which version number "
    "it uses, and v1 and v2 have the same fields",
    "flexible-early:ResponseHeader": "as for RequestHeader: the tagged fields follow the API's flexibility, and "
    "ResponseHeader v0 and v1 have the same field",
}


@pytest.fixture(scope="module")
def adapter():
    pytest.importorskip("kafka", reason="kafka-python is in the test extra")
    with warnings.catch_warnings():  # kafka-python 3.0.12 reads its JSON with importlib.resources.read_text
        warnings.simplefilter("ignore", DeprecationWarning)
        spec = importlib.util.spec_from_file_location("kafka_python_adapter", ADAPTER / "adapter.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    return module


class InProcess:
    """The adapter's ``answer`` as an implementation the runner drives, in this process."""

    name = "kafka-python (in process)"

    def __init__(self, answer) -> None:
        self.answer = answer

    def _ask(self, req: dict) -> Outcome:
        try:
            resp = self.answer(req)
        except Exception as e:  # noqa: BLE001 - as adapter.main answers it
            resp = {"error": {"message": f"{type(e).__name__}: {e}"}}
        if "error" in resp:
            return Outcome(error=resp["error"])
        if "unsupported" in resp:
            return Outcome(declined=resp["unsupported"])
        return Outcome(value=bytes.fromhex(resp["wire"]) if "wire" in resp else resp["value"])

    def decode(self, message, version, wire, reader_version=None, api_key=None) -> Outcome:
        return self._ask(
            {"op": "decode", "message": message, "version": version, "wire": wire.hex(), "apiKey": api_key}
        )

    def encode(self, message, version, value, api_key=None) -> Outcome:
        return self._ask({"op": "encode", "message": message, "version": version, "value": value, "apiKey": api_key})


def _classes(adapter) -> dict[str, type]:
    from kafka.protocol.api_header import RequestHeader, ResponseHeader

    return {**adapter.CLASSES, "RequestHeader": RequestHeader, "ResponseHeader": ResponseHeader}


def mistakes(adapter) -> list[Mutant]:
    """Every mistake of the operators, seeded into the JSON of every class the adapter uses."""
    out = []
    for name, cls in _classes(adapter).items():
        out += table_mutants(name, copy.deepcopy(cls._json))
    return out


def _seeded(cls: type, table: dict) -> type:
    """kafka-python's class built from ``table`` instead of its JSON (kafka-python's own json_patch hook)."""
    base = next(b for b in cls.__mro__[1:] if "_json" not in b.__dict__ or b.__name__.startswith("Api"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return type(
            cls.__name__,
            (base,),
            {"json_patch": classmethod(lambda mcs, json, t=table: copy.deepcopy(t)), "__module__": __name__},
        )


def _vectors_of(message: str, api_key: int | None, suite: list[dict]) -> list[dict]:
    from codec.conformance.checks import api_of as _api

    header = message in ("RequestHeader", "ResponseHeader")
    return [
        v
        for v in suite
        if v["message"] == message or (v["message"].endswith("Frame") and (header or _api(v) == api_key))
    ]


def caught(adapter, monkeypatch, m: Mutant, suite: list[dict], expected: set[str]) -> str | None:
    """The first vector the adapter fails unexpectedly with the mistake ``m`` seeded, or None."""
    cls = _classes(adapter)[m.message]
    try:
        mistaken = _seeded(cls, m.table)
    except Exception as e:  # noqa: BLE001 - kafka-python cannot build the class: an adapter that reads nothing
        return f"(kafka-python builds no class: {type(e).__name__})"
    with monkeypatch.context() as mp:
        if m.message in adapter.CLASSES:
            mp.setitem(adapter.CLASSES, m.message, mistaken)
            for key, c in list(adapter.FRAMES.items()):
                if c is cls:
                    mp.setitem(adapter.FRAMES, key, mistaken)
        else:
            mp.setitem(adapter.HEADERS, m.message, (mistaken, adapter.HEADERS[m.message][1]))
            mp.setattr(f"kafka.protocol.api_message.{m.message}", mistaken)
        results = run_vectors(
            InProcess(adapter.answer),
            _vectors_of(m.message, cls.__dict__.get("_json", {}).get("apiKey"), suite),
            witnesses=(),
        )
    return next((r.id for r in results if r.status == "fail" and r.id not in expected), None)


@pytest.fixture(scope="module")
def suite() -> list[dict]:
    return load_vectors()


@pytest.fixture(scope="module")
def expected() -> set[str]:
    return set(read_expectations(ADAPTER / "expect.txt").reasons)


def test_the_adapter_with_kafkas_rules_passes_in_process(adapter, suite, expected):
    """With kafka-python's real JSON every vector of these classes passes or is an expected failure."""
    from codec.conformance.checks import api_of as _api

    for name, cls in _classes(adapter).items():
        vectors = _vectors_of(name, cls._json.get("apiKey"), suite)
        results = run_vectors(InProcess(adapter.answer), vectors, witnesses=())
        assert not [r.id for r in results if r.status == "fail" and r.id not in expected], name
        assert sum(r.status == "pass" for r in results) > 0, name
    del _api


def test_kafkas_rules_by_hand(adapter):
    # HeartbeatRequest v0 with groupId -1: kafka-python reads None; Kafka's rule refuses it
    out = adapter.answer({"op": "decode", "message": "HeartbeatRequest", "version": 0, "wire": "ffff0000000000000000"})
    assert "non-nullable field groupId is null at version 0" in out["error"]["message"]
    # groupInstanceId at v2 (it is v3+, not ignorable): refused; rebalanceTimeoutMs at JoinGroup v0 (ignorable): dropped
    out = adapter.answer(
        {
            "op": "encode",
            "message": "HeartbeatRequest",
            "version": 2,
            "value": {"groupId": "g", "generationId": 1, "memberId": "m", "groupInstanceId": "i"},
        }
    )
    assert "non-default groupInstanceId at version 2" in out["error"]["message"]
    out = adapter.answer(
        {
            "op": "encode",
            "message": "JoinGroupRequest",
            "version": 0,
            "value": {
                "groupId": "g",
                "sessionTimeoutMs": 1,
                "rebalanceTimeoutMs": 5,
                "memberId": "",
                "protocolType": "consumer",
                "protocols": [],
            },
        }
    )
    assert out == {"wire": "0001670000000100000008636f6e73756d657200000000"}


def _run(adapter, monkeypatch, suite, expected, ms) -> set[str]:
    """Every mistake of ``ms`` but the equivalent ones fails the suite; returns the ids that pass it."""
    passing = {m.id for m in ms if caught(adapter, monkeypatch, m, suite, expected) is None}
    missed = sorted(passing - set(EQUIVALENT))
    assert missed == [], f"{len(missed)} of {len(ms)} mistakes pass the suite: {missed}"
    return passing


def test_a_sample_of_seeded_mistakes_fails_the_suite(adapter, monkeypatch, suite, expected):
    ms = mistakes(adapter)
    # every "non-nullable made nullable" of the four Heartbeat and ConsumerProtocol classes (the class the suite
    # missed entirely before), and a spread of the rest
    chosen = [
        m
        for m in ms
        if m.operator == "nullable-added"
        and m.message
        in ("HeartbeatRequest", "HeartbeatResponse", "ConsumerProtocolSubscription", "ConsumerProtocolAssignment")
    ]
    chosen += sample([m for m in ms if m not in chosen and m.id not in EQUIVALENT], 30)
    assert {m.operator for m in chosen} == {m.operator for m in ms} and len(chosen) >= 35
    _run(adapter, monkeypatch, suite, expected, chosen)


@pytest.mark.mutation
def test_every_seeded_mistake_fails_the_suite(adapter, monkeypatch, suite, expected):
    ms = mistakes(adapter)
    assert {m.operator for m in ms} >= set(OPERATORS) - {"tag-changed"}  # kafka-python's classes here have no tag
    assert _run(adapter, monkeypatch, suite, expected, ms) == set(EQUIVALENT)
