"""``watch --otel``: one OpenTelemetry span per rebalance, from when the generation formed to when its record was
written, with its group, number, members, what moved and its cause (the OpenTelemetry SDK's in-memory exporter
collects them)."""

from __future__ import annotations

import pytest

pytest.importorskip("opentelemetry.sdk")

from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from codec.live.examples import ClassicGroup, HeartbeatGroup
from codec.live.otel import span_hook
from codec.live.state import Tracker


def test_one_span_per_generation_and_epoch_with_its_cause():
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    hook, flush = span_hook(provider)
    t = Tracker()
    g = ClassicGroup("orders-app", {"orders": 4})
    k = HeartbeatGroup("clicks", "consumer", {"clicks": 2})
    records = [g.join("c-1")[0], g.join("c-2")[0], *k.join("k-1")[0]]
    for i, (key, value) in enumerate(records):
        for item in t.feed(key, value, f"offset {i}", 1_767_225_700.0 + i):
            hook(item)
    flush()
    spans = exporter.get_finished_spans()
    assert [s.name for s in spans] == ["rebalance orders-app", "rebalance orders-app", "rebalance clicks"]
    first, second, epoch = (dict(s.attributes) for s in spans)
    assert first["rebalance_codec.generation"] == 1 and first["rebalance_codec.cause"] == "first-seen"
    assert second["rebalance_codec.generation"] == 2 and second["rebalance_codec.cause"] == "member-joined"
    assert second["rebalance_codec.members"] == 2 and second["rebalance_codec.moved"] == 2
    assert second["rebalance_codec.cause.members"][0].startswith("c-2-")
    assert epoch["rebalance_codec.epoch"] == 1 and epoch["rebalance_codec.protocol_type"] == "consumer"
    # a generation's span runs from when it formed (its record's currentStateTimestamp) to its record's time
    assert spans[1].start_time == g.ts * 1_000_000 and spans[1].end_time == int((1_767_225_700.0 + 1) * 1e9)
