"""Benchmark: the codec against the libraries users would otherwise use, same payload, same process.

Groups per message and version. Implementations:

``ours``          the public API (``decode_message``/``encode_message``, ``decode_consumer``/``encode_consumer``,
                  ``decode_subscription``/``encode_subscription``, ...): the generated fast path
``wire``          group messages only: ``decode_wire``/``encode_wire``, the wire layer under
                  ``decode_message``/``encode_message`` (without their nested-layer handling)
``reference``     the same calls as ``ours`` with the fast path off (the interpreted construct path)
``hand``          a hand-written ``struct`` codec of that one message (``bench/handwritten.py``)
``kio``, ``kafka-python``   the peers (``bench/peers.py``), where they have the message

Before anything is timed, every implementation must produce identical bytes and equal decoded values.

Run: ``PYTHONPATH=. python -m pytest bench/bench_codec.py --benchmark-only``
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import handwritten as H
import payloads as P
import pytest
from peers import PEERS, PREFIXED, plain_ours

from codec.group.consumer import decode_consumer, encode_consumer
from codec.group.messages import decode_message, encode_message
from codec.streams import decode_assignment, decode_subscription, encode_assignment, encode_subscription
from codec.wire import fastpath
from codec.wire.builder import decode_wire, encode_wire


@dataclass(frozen=True)
class Case:
    label: str
    kind: str  # "group" | "streams"
    message: str
    version: int
    data: bytes
    obj: Any  # our decoded value (wire object, ConsumerMessage or Streams model)


def _group_case(name: str, version: int, obj, label: str) -> Case:
    return Case(f"{name} v{version} ({label})", "group", name, version, encode_wire(name, version, obj), obj)


def _cases() -> list[Case]:
    cases = []
    for jv in (5, 9):
        for name, (v, obj) in P.group_messages(jv).items():
            what = {"JoinGroupRequest": "Streams metadata", "JoinGroupResponse": "100 members",
                    "SyncGroupRequest": "100 assignments", "SyncGroupResponse": "one assignment"}[name]
            cases.append(_group_case(name, v, obj, what))
    for name, msg in (("ConsumerProtocolSubscription", P.consumer_subscription(0)),
                      ("ConsumerProtocolAssignment", P.consumer_assignment(0))):
        cases.append(Case(f"{name} v3 (Streams user data)", "group", name, 3, encode_consumer(msg), msg))
    for name in ("JoinGroupRequest", "JoinGroupResponse", "SyncGroupRequest", "SyncGroupResponse"):
        v, data = P.largest_vector(name)
        obj = decode_message(name, v, data).value
        cases.append(Case(f"{name} v{v} (largest vector)", "group", name, v, data, obj))
    si, ai = P.subscription_info(7), P.assignment_info(7)
    cases.append(Case("SubscriptionInfo v7 (200 tasks)", "streams", "SubscriptionInfo", 7, encode_subscription(si), si))
    si11 = P.subscription_info(11)
    cases.append(Case("SubscriptionInfo v11 (200 tasks)", "streams", "SubscriptionInfo", 11, encode_subscription(si11),
                      si11))
    cases.append(Case("AssignmentInfo v7 (100 hosts)", "streams", "AssignmentInfo", 7, encode_assignment(ai), ai))
    return cases


CASES = _cases()
IMPLS = ("ours", "wire", "reference", "hand", "kio", "kafka-python")

HAND = {
    ("JoinGroupRequest", 5): (H.decode_join_group_request_v5, H.encode_join_group_request_v5),
    ("JoinGroupResponse", 5): (H.decode_join_group_response_v5, H.encode_join_group_response_v5),
    ("SyncGroupRequest", 3): (H.decode_sync_group_request_v3, H.encode_sync_group_request_v3),
    ("SyncGroupResponse", 3): (H.decode_sync_group_response_v3, H.encode_sync_group_response_v3),
    ("ConsumerProtocolSubscription", 3): (H.decode_consumer_subscription_v3, H.encode_consumer_subscription_v3),
    ("ConsumerProtocolAssignment", 3): (H.decode_consumer_assignment_v3, H.encode_consumer_assignment_v3),
    ("SubscriptionInfo", 7): (H.decode_subscription_v7, H.encode_subscription_v7),
    ("AssignmentInfo", 7): (H.decode_assignment_v7, H.encode_assignment_v7),
}


def _ours(case: Case) -> tuple[Callable, Callable]:
    m, v = case.message, case.version
    if m == "SubscriptionInfo":
        return decode_subscription, encode_subscription
    if m == "AssignmentInfo":
        return decode_assignment, encode_assignment
    if m in PREFIXED:
        return (lambda data: decode_consumer(m, data)), encode_consumer
    return (lambda data: decode_message(m, v, data).value), (lambda obj: encode_message(m, v, obj))


def _reference(fn: Callable) -> Callable:
    def ref(arg):
        old = fastpath.set_enabled(False)
        try:
            return fn(arg)
        finally:
            fastpath.set_enabled(old)
    return ref


def _ours_plain(case: Case, value) -> Any:
    """Our decoded value in the form the peers are compared in."""
    if case.message in PREFIXED:
        return plain_ours(value.data, case.message, min(value.version, 3))
    return plain_ours(value, case.message, case.version)


def implementation(case: Case, impl: str):
    """(decode, encode, input of encode, plain form of a decoded value) or None when it does not apply."""
    dec, enc = _ours(case)
    if impl == "ours":
        return dec, enc, case.obj, None
    if impl == "wire":
        if case.kind != "group" or case.message in PREFIXED:
            return None
        m, v = case.message, case.version
        return (lambda data: decode_wire(m, v, data)[0]), (lambda obj: encode_wire(m, v, obj)), case.obj, None
    if impl == "reference":
        return _reference(dec), _reference(enc), case.obj, None
    if impl == "hand":
        fns = HAND.get((case.message, case.version))
        if fns is None:
            return None
        obj = case.obj.data if case.message in PREFIXED else case.obj
        return fns[0], fns[1], obj, None
    peer = PEERS.get(impl)
    if peer is None or case.kind != "group":
        return None
    pdec, penc = peer.decoder(case.message, case.version), peer.encoder(case.message, case.version)
    if pdec is None or penc is None:
        return None
    try:
        pobj = pdec(case.data)
    except Exception as e:  # noqa: BLE001 - e.g. kio refuses error codes outside its enum
        pytest.skip(f"{impl} cannot decode {case.label}: {type(e).__name__}: {e}")
    return pdec, penc, pobj, (lambda value: peer.plain(value, case.message, case.version))


def _check(case: Case, impl: str, fns) -> None:
    """Identical bytes and equal decoded values, before timing."""
    dec, enc, obj, plain = fns
    assert enc(obj) == case.data, f"{impl} writes different bytes for {case.label}"
    value = dec(case.data)
    if plain is not None:
        assert plain(value) == _ours_plain(case, case.obj), f"{impl} decodes {case.label} to a different value"
    elif impl == "hand" and case.message in PREFIXED:
        assert value == case.obj.data
    else:
        assert value == case.obj, f"{impl} decodes {case.label} to a different value"


def _ids(c: Case) -> str:
    return c.label.replace(" ", "-").replace("(", "").replace(")", "")


@pytest.mark.parametrize("impl", IMPLS)
@pytest.mark.parametrize("case", CASES, ids=_ids)
@pytest.mark.parametrize("op", ("decode", "encode"))
def test_codec(benchmark, op, case, impl):
    fns = implementation(case, impl)
    if fns is None:
        pytest.skip(f"{impl} has no {case.message} v{case.version}")
    _check(case, impl, fns)
    benchmark.group = f"{op} {case.label}"
    benchmark.extra_info.update(impl=impl, op=op, case=case.label, kind=case.kind, bytes=len(case.data))
    dec, enc, obj, _ = fns
    if op == "decode":
        benchmark(dec, case.data)
    else:
        benchmark(enc, obj)
