"""The codec's side-by-side comparisons: every message of the benchmark payloads, decode and encode, by every
implementation that has it (``bench/run.py codec kafka4`` measures them).

Sides:

``ours``          the public API with the native codec (``decode_message``/``encode_message``,
                  ``decode_consumer``/``encode_consumer``, ``decode_subscription``/``encode_subscription``,
                  ``decode_assignment``/``encode_assignment``; Kafka 4: ``codec.kafka4.decode`` (Kafka's JSON),
                  ``decode_model``, ``encode_model``)
``python``        the same calls on the pure-Python codec (``REBALANCE_CODEC_NATIVE=0``: the generated Python
                  fast path, then the construct reference): the fallback, and what this project shipped before
``floor``         the plain-value floor (``bench/floor.py``): hand-written ``struct`` code returning plain values
``kio``           kio 0.6.5's native reader and its writer, through ``entity_reader``/``entity_writer``
``kafka-python``  kafka-python 3's ``Cls.decode(data, version=v)`` and ``obj.encode()``

Every side's result is checked against ours before anything is timed: the same bytes, or the same value in
a common plain form. The issue's bars are the comparisons' ``targets``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import floor as F
import payloads as P
from harness import Comparison
from peers import PEERS, PREFIXED, plain_ours

from codec import kafka4
from codec.group.consumer import decode_consumer, encode_consumer
from codec.group.messages import decode_message, encode_message
from codec.streams import (
    decode_assignment,
    decode_subscription,
    encode_assignment,
    encode_subscription,
)
from codec.wire import native
from codec.wire.builder import encode_wire, to_json

__all__ = ["codec_comparisons", "kafka4_comparisons"]


def python(fn: Callable[[], Any]) -> Callable[[], Any]:
    """``fn`` on the pure-Python codec."""

    def run():
        old = native.set_active(False)
        try:
            return fn()
        finally:
            native.set_active(old)

    return run


def _equal_plain(convert: Callable[[Any], Any]) -> Callable[[Any, Any], None]:
    def check(ours, got):
        if convert(ours) != got:
            raise AssertionError("different values")

    return check


def _peer_check(peer, message: str, version: int) -> Callable[[Any, Any], None]:
    def check(ours, got):
        body = ours.data if message in PREFIXED else ours
        if peer.plain(got, message, version) != plain_ours(body, message, version):
            raise AssertionError(f"{peer.name} decodes {message} v{version} to a different value")

    return check


def _group_cases() -> list[tuple[str, str, int, bytes, Any]]:
    """(label, message, version, bytes, our decoded value)."""
    out = []
    names = {
        "JoinGroupRequest": "Streams metadata",
        "JoinGroupResponse": "100 members",
        "SyncGroupRequest": "100 assignments",
        "SyncGroupResponse": "one assignment",
    }
    for jv in (5, 9):
        for name, (v, obj) in P.group_messages(jv).items():
            out.append((names[name], name, v, encode_wire(name, v, obj), obj))
    for name, msg in (
        ("ConsumerProtocolSubscription", P.consumer_subscription(0)),
        ("ConsumerProtocolAssignment", P.consumer_assignment(0)),
    ):
        out.append(("Streams user data", name, 3, encode_consumer(msg), msg))
    return out


def codec_comparisons() -> list[Comparison]:
    out = []
    for what, message, v, data, obj in _group_cases():
        label = f"{message} v{v} ({what})"
        meta = {"bytes": len(data), "kind": "group", "message": message, "version": v}
        if message in PREFIXED:
            dec = lambda m=message, d=data: decode_consumer(m, d)
            enc = lambda o=obj: encode_consumer(o)
            plain_body = lambda value, m=message: F.plain_wire(value.data, m, 3)
        else:
            dec = lambda m=message, v=v, d=data: decode_message(m, v, d).value
            enc = lambda m=message, v=v, o=obj: encode_message(m, v, o)
            plain_body = lambda value, m=message, v=v: F.plain_wire(value, m, v)
        fdec, fenc = F.FLOOR[(message, v)]
        decode_sides = {"ours": dec, "python": python(dec), "floor": lambda f=fdec, d=data: f(d)}
        encode_sides = {"ours": enc, "python": python(enc)}
        plain_value = fdec(data)
        encode_sides["floor"] = lambda f=fenc, p=plain_value: f(p)
        checks = {"floor": _equal_plain(plain_body)}
        for name in ("kio", "kafka-python"):
            peer = PEERS.get(name)
            if peer is None or (name == "kafka-python" and not peer.has(message)):
                continue
            pdec, penc = peer.decoder(message, v), peer.encoder(message, v)
            if pdec is None or penc is None:
                continue
            pobj = pdec(data)
            decode_sides[name] = lambda f=pdec, d=data: f(d)
            encode_sides[name] = lambda f=penc, o=pobj: f(o)
            checks[name] = _peer_check(peer, message, v)
        out.append(Comparison("codec", label, "decode", decode_sides, targets={"kio": 1.0}, check=checks, meta=meta))
        out.append(Comparison("codec", label, "encode", encode_sides, targets={"floor": 1.0}, meta=meta))
    for message, v in (
        ("SubscriptionInfo", 7),
        ("SubscriptionInfo", 11),
        ("AssignmentInfo", 7),
        ("AssignmentInfo", 11),
    ):
        sub = message == "SubscriptionInfo"
        info = P.subscription_info(v) if sub else P.assignment_info(v)
        dec_fn, enc_fn = (decode_subscription, encode_subscription) if sub else (decode_assignment, encode_assignment)
        plain = F.plain_subscription if sub else F.plain_assignment
        data = enc_fn(info)
        fdec, fenc = F.FLOOR[(message, v)]
        label = f"{message} v{v} ({'200 tasks' if sub else '100 hosts'})"
        meta = {"bytes": len(data), "kind": "streams", "message": message, "version": v}
        dec = lambda f=dec_fn, d=data: f(d)
        enc = lambda f=enc_fn, i=info: f(i)
        plain_value = fdec(data)
        out.append(
            Comparison(
                "codec",
                label,
                "decode",
                {"ours": dec, "python": python(dec), "floor": lambda f=fdec, d=data: f(d)},
                targets={"floor": 1.0},
                check={"floor": _equal_plain(plain)},
                meta=meta,
            )
        )
        out.append(
            Comparison(
                "codec",
                label,
                "encode",
                {"ours": enc, "python": python(enc), "floor": lambda f=fenc, p=plain_value: f(p)},
                targets={"floor": 1.0},
                meta=meta,
            )
        )
    return out


def kafka4_comparisons() -> list[Comparison]:
    out = []
    kio = PEERS.get("kio")
    for what, message, v, obj in P.kafka4_messages():
        data = encode_wire(message, v, obj)
        label = f"{message} v{v} ({what})"
        meta = {"bytes": len(data), "kind": "kafka4", "message": message, "version": v}
        as_json = lambda m=message, v=v, d=data: kafka4.decode(m, v, d)
        model = lambda m=message, v=v, d=data: kafka4.decode_model(m, v, d)
        enc = lambda m=message, v=v, o=obj: kafka4.encode_model(m, v, o)
        sides_json = {"ours": as_json, "python": python(as_json)}
        sides_model = {"ours": model, "python": python(model)}
        sides_enc = {"ours": enc, "python": python(enc)}
        checks_json, checks_model = {}, {}
        if kio is not None:
            kdec, kenc = kio.decoder(message, v), kio.encoder(message, v)
            kobj = kdec(data)
            sides_json["kio"] = sides_model["kio"] = lambda f=kdec, d=data: f(d)
            sides_enc["kio"] = lambda f=kenc, o=kobj: f(o)
            checks_json["kio"] = lambda ours, got, m=message, v=v: _same(ours, kio.kafka_json(got, m, v))
            checks_model["kio"] = lambda ours, got, m=message, v=v: _same(
                to_json(ours, m, v), kio.kafka_json(got, m, v)
            )
        out.append(
            Comparison(
                "kafka4", label, "decode → Kafka JSON", sides_json, targets={"kio": 1.5}, check=checks_json, meta=meta
            )
        )
        out.append(
            Comparison(
                "kafka4", label, "decode_model", sides_model, targets={"kio": 1.0}, check=checks_model, meta=meta
            )
        )
        out.append(Comparison("kafka4", label, "encode", sides_enc, targets={"kio": 1.0}, meta=meta))
    return out


def _same(a, b) -> None:
    if a != b:
        raise AssertionError("different values")
