"""One OpenTelemetry span per rebalance, for ``watch --otel`` where OpenTelemetry is installed.

Each generation (classic group) or epoch (Kafka 4 group) ``watch`` tells is a span named ``rebalance GROUP``: it
starts when the generation formed (the record's ``currentStateTimestamp``; for an epoch, its record's time) and
ends when the record that completed it was written, with the group, the generation or epoch, the protocol, the
members, what moved and the cause as attributes (``rebalance_codec.*``). The spans go to the tracer provider the
process has (an OpenTelemetry distribution or ``opentelemetry-instrument`` sets one up from the ``OTEL_*``
variables); when it has none and the SDK is installed, one is made that exports with OTLP when its exporter is
installed, else writes the spans to stderr.
"""

from __future__ import annotations

import sys
from typing import Any, Callable

from ..capture.story import Generation
from .metrics import moved
from .state import Epoch, Told

__all__ = ["span_hook", "INSTALL_HINT"]

INSTALL_HINT = "pip install opentelemetry-sdk opentelemetry-exporter-otlp"


def _provider() -> Any:
    """The process's tracer provider, or an SDK one made here (None when there is neither)."""
    from opentelemetry import trace

    provider = trace.get_tracer_provider()
    if type(provider).__name__ not in ("ProxyTracerProvider", "NoOpTracerProvider"):
        return provider
    try:
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter
    except ImportError:
        return None
    try:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

        exporter: Any = OTLPSpanExporter()
    except ImportError:
        exporter = ConsoleSpanExporter(out=sys.stderr)
    sdk = TracerProvider()
    sdk.add_span_processor(BatchSpanProcessor(exporter))
    trace.set_tracer_provider(sdk)
    return sdk


def span_hook(provider: Any = None) -> tuple[Callable[[Told], None], Callable[[], None]] | None:
    """(hook, flush): the hook makes the span of each told generation or epoch; flush sends what is pending (at
    exit). None when OpenTelemetry is not installed."""
    try:
        from opentelemetry.trace import SpanKind, Status, StatusCode
    except ImportError:
        return None
    provider = provider if provider is not None else _provider()
    if provider is None:
        return None
    tracer = provider.get_tracer("rebalance-codec.watch")

    def hook(item: Told) -> None:
        if isinstance(item, Generation):
            if item.generation is None:
                return
            end = item.last_ts
            state = item.state_timestamp
            start = state / 1000 if isinstance(state, int) and state > 0 and end is not None else end
            attrs: dict[str, Any] = {
                "rebalance_codec.generation": item.generation,
                "rebalance_codec.protocol_type": item.protocol_type or "",
                "rebalance_codec.protocol": item.protocol or "",
            }
        elif isinstance(item, Epoch):
            start = end = item.ts
            attrs = {"rebalance_codec.epoch": item.epoch, "rebalance_codec.protocol_type": item.protocol}
        else:
            return
        r = getattr(item, "rebalance", None)
        changes = item.changes
        attrs.update(
            {
                "rebalance_codec.group": item.group,
                "rebalance_codec.members": len(item.members),
                "rebalance_codec.moved": moved(item),
                "rebalance_codec.joined": list(changes.joined) if changes is not None else [],
                "rebalance_codec.left": list(changes.left) if changes is not None else [],
            }
        )
        if r is not None:
            attrs["rebalance_codec.cause"] = r.cause.kind
            attrs["rebalance_codec.cause.members"] = list(r.cause.members)
            attrs["rebalance_codec.cause.confidence"] = r.cause.confidence
            attrs["rebalance_codec.causes"] = [c.kind for c in r.causes]
        ns = lambda t: int(t * 1e9) if t is not None else None
        span = tracer.start_span(
            f"rebalance {item.group}", kind=SpanKind.INTERNAL, start_time=ns(start), attributes=attrs
        )
        span.set_status(Status(StatusCode.OK))
        span.end(end_time=ns(end))

    def flush() -> None:
        force = getattr(provider, "force_flush", None)
        if force is not None:
            force()

    return hook, flush
