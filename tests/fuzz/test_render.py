"""The render pass: every decoded value through every output (JSON of both styles, the pretty view, the
Kafka-style round trip, the capture story, the pipeline's rows). The bounded pass runs in the default test
run, a long one under ``-m fuzz``; the other tests break one output at a time and check the pass says so."""

from __future__ import annotations

import json

import pytest

import codec.fuzz.rendering as rendering
import codec.catalog
from codec.fuzz import render, run, seed_corpus, targets
from tests.conftest import SHARED

SURROGATE = bytes.fromhex(
    "000000070000000b00000000000000000000000100000000000474edbfbf00000001000468eda080"
    "0000000100000001000000000000000000000000000000007fffffffffffffff"
)
# HeartbeatRequest v0: group id "", generation -1, member id "m-1" ESC "[2J" LF "FORGED LINE" U+2028 DEL "\x"
HOSTILE_HEARTBEAT = bytes.fromhex("0000ffffffff00196d2d311b5b324a0a464f52474544204c494e45e280a87f5c78")


def test_bounded_render_pass():
    """Seeds of every target, then mutated inputs, each decoded one through every output: no violation."""
    report = run(2_500, seed=20250101, render=True, render_seeds=6, shared=SHARED)
    assert report.violations == [], [(v.target, v.error[:300], v.data.hex()[:200]) for v in report.violations[:5]]
    assert set(report.rendered_per_target) == set(targets())  # every target's decoded values rendered
    assert report.rendered > 99 * 4 + 600  # seeds and mutated inputs


@pytest.mark.fuzz
def test_long_render_pass():
    report = run(200_000, seed=99, render=True, shared=SHARED)  # every seed, then 200,000 inputs
    assert report.violations == [], [(v.target, v.error[:300], v.data.hex()[:200]) for v in report.violations[:5]]


def test_the_issue_16_inputs_render():
    assert render("assignment-info", SURROGATE, canonical=True) == []
    assert render("HeartbeatRequest/v0", HOSTILE_HEARTBEAT, canonical=True) == []
    assert render("request-frame", bytes.fromhex("000c000000000001000163") + HOSTILE_HEARTBEAT, canonical=True) == []


# --- each output, broken on purpose, is caught ----------------------------------------------------------


def test_json_that_is_not_utf8_is_caught(monkeypatch):
    import codec.text

    monkeypatch.setattr(codec.text, "dumps", lambda v, **kw: json.dumps(v, ensure_ascii=False, **kw))
    problems = render("assignment-info", SURROGATE)
    assert any("JSON" in p and "surrogates not allowed" in p for p in problems), problems


def test_a_pretty_view_with_raw_control_characters_is_caught(monkeypatch):
    import codec.wire.pretty

    monkeypatch.setattr(
        codec.wire.pretty, "scalar", lambda v: json.dumps(v, ensure_ascii=False) if isinstance(v, str) else str(v)
    )
    problems = render("HeartbeatRequest/v0", HOSTILE_HEARTBEAT)
    assert any("--format pretty holds the control character" in p for p in problems), problems
    report = run(0, only=["HeartbeatRequest/v0"], render=True, shared=None)
    assert report.violations and all(v.target == "HeartbeatRequest/v0" for v in report.violations)


def _replace_encode(monkeypatch, kind_name, encode):
    kind = codec.catalog.get_kind(kind_name)
    monkeypatch.setitem(
        codec.catalog._REGISTRY,
        kind_name,
        codec.catalog.Kind(kind.name, kind.summary, kind.decode, encode, kind.self_describing),
    )
    return kind.encode


def test_an_encoder_that_loses_a_field_is_caught(monkeypatch):
    original = codec.catalog.get_kind("heartbeat-request").encode
    _replace_encode(monkeypatch, "heartbeat-request", lambda value, **kw: original({**value, "memberId": ""}, **kw))
    problems = render("HeartbeatRequest/v0", HOSTILE_HEARTBEAT)
    assert any("decode to another value" in p and "memberId" in p for p in problems), problems


def test_a_canonical_input_encoded_differently_is_caught(monkeypatch):
    original = codec.catalog.get_kind("heartbeat-request").encode
    _replace_encode(monkeypatch, "heartbeat-request", lambda value, **kw: original(value, **kw) + b"\x00")
    # one trailing byte: the same value, so only the canonical claim catches it
    assert render("HeartbeatRequest/v0", HOSTILE_HEARTBEAT, canonical=False) == []
    problems = render("HeartbeatRequest/v0", HOSTILE_HEARTBEAT, canonical=True)
    assert problems and all("of a canonical input gives other bytes" in p for p in problems), problems


def test_an_encoder_that_refuses_its_own_decode_is_caught(monkeypatch):
    from codec.errors import EncodeError

    def refuse(value, **kw):
        raise EncodeError("no")

    _replace_encode(monkeypatch, "assignment-info", refuse)
    assert any("refuses the decoded value" in p for p in render("assignment-info", SURROGATE))


def test_unordered_collections_are_no_canonical_failure():
    """A canonical Kafka vector with two standby partitions in Java's HashSet order: the decoded value keeps
    no order for them, so the bytes are compared as values (vectors/README.md, unordered collections)."""
    kj = next(s for s in seed_corpus(SHARED)["assignment-info"] if "kj-assignment-v1-0" in s.origin)
    assert kj.canonical
    assert render("assignment-info", kj.data, canonical=True) == []


def test_a_capture_story_with_raw_control_characters_is_caught(monkeypatch):
    import codec.capture.storytext

    monkeypatch.setattr(codec.capture.storytext, "render_generation", lambda g: "generation\x1b[2J")
    # a group's metadata, which the story renders as a generation (the vectors' seeds also hold cut records)
    data = next(s.data for s in seed_corpus(None)["offsets-key-value"] if s.origin.startswith("built: GroupMetadata"))
    problems = render("offsets-key-value", data)
    assert any("capture story (text) generation text holds the control character '\\x1b'" in p for p in problems), (
        problems
    )


def test_the_pipeline_rows_are_checked_and_a_failure_is_pinned_to_its_input(monkeypatch):
    pytest.importorskip("pyarrow")
    from codec.pipeline.arrow import decode_table

    def fails_on_surrogates(rows):
        if any(r.get("data") == SURROGATE for r in rows):
            raise UnicodeEncodeError("utf-8", "h\ud800", 1, 2, "surrogates not allowed")
        return decode_table(rows)

    monkeypatch.setattr(rendering, "_pipeline", lambda: fails_on_surrogates)
    plain = bytes.fromhex("000000010000000000000000")  # AssignmentInfo v1, nothing assigned
    problems = rendering.rows_problems(
        [
            ("assignment-info", plain),
            ("assignment-info", SURROGATE),
            ("HeartbeatRequest/v0", HOSTILE_HEARTBEAT),
            ("assignment-info", plain),
        ]
    )
    assert problems == [
        (
            1,
            "pipeline rows: UnicodeEncodeError: 'utf-8' codec can't encode character '\\ud800' "
            "in position 1: surrogates not allowed",
        )
    ]


def test_text_problem_by_hand():
    assert rendering._text_problem("v", "line one\nline two \\ud800 \u00e9\U0001f600") is None
    for bad in ("a\x1bb", "a\rb", "a\tb", "a\x7fb", "a\x85b", "a\u2028b", "a\u2029b", "a\x00b"):
        assert "control character" in rendering._text_problem("v", bad)
    assert "not valid UTF-8" in rendering._text_problem("v", "h\ud800")


def test_connect_targets_reach_the_pipeline_rows_and_a_quarantine_is_a_finding(monkeypatch):
    """The Connect targets go through the pipeline inside the requests that carry them; bytes the v1/v2 reader
    decodes must not be quarantined there. The url and connectors below are Kafka's own decoded values."""
    pytest.importorskip("pyarrow")
    from codec.pipeline.arrow import decode_table

    recs = [json.loads(line) for line in (SHARED / "vectors" / "kafka-java" / "connect.jsonl").read_text().splitlines()]
    meta = next(r for r in recs if r["kind"] == "ConnectMetadata" and r["version"] == 2 and r["decoded"]["url"])
    row = rendering._pipeline_row("connect-metadata/r1", bytes.fromhex(meta["hex"]))
    assert row["kind"] == "join-group-request"
    table = decode_table([{**row, "record_id": "0"}]).to_pylist()
    urls = [r["url"] for r in table if r["unit_kind"] == "connect"]
    assert urls == [meta["decoded"]["url"]], table
    assert rendering.rows_problems([("connect-metadata/r1", bytes.fromhex(meta["hex"]))]) == []

    pa = pytest.importorskip("pyarrow")

    def quarantines_connect(rows):
        out = decode_table(rows)
        return out.set_column(
            out.schema.get_field_index("error_type"), "error_type", pa.array(["Quarantined"] * len(out), pa.string())
        )

    monkeypatch.setattr(rendering, "_pipeline", lambda: quarantines_connect)
    problems = rendering.rows_problems([("connect-metadata/r1", bytes.fromhex(meta["hex"]))])
    assert problems and problems[0][0] == 0 and "quarantined what the codec decodes" in problems[0][1]
    # a record the v1/v2 reader refuses is the pipeline's to quarantine: no finding
    cut = next(r for r in recs if r["kind"] == "ConnectMetadataReadAsIncremental" and "error" in r)
    assert rendering.rows_problems([("connect-metadata/r1", bytes.fromhex(cut["hex"]))]) == []
