"""The group layer's command-line kinds and views (registered into :mod:`codec.catalog` as a plugin).

The bodies and headers are the one message layer's kinds (:mod:`codec.catalog`: ``--version`` required; ``--style
kafka`` output is exactly Kafka's JSON converter output, the vectors' ``data``); this package adds, for the four
bodies whose bytes fields carry other messages (JoinGroup's metadata, SyncGroup's assignments), their readable view
with the carried layers decoded and their JSON with layer objects in place of those bytes
(:mod:`codec.group.jsonview`). Its own kinds: the ConsumerProtocol messages, which read and write their int16
version prefix (Kafka's output for the body after a ``version`` key, the prefix as written; ``trailing`` hex too
when bytes follow the body, which ``encode`` honours when ``--version`` is not given), whole frames, given without
their int32 size (as frames.jsonl stores them; a response frame needs ``--api-key`` and ``--version`` of its
request), and ``auto``.
"""

from __future__ import annotations

import dataclasses
import unicodedata

from ..errors import DecodeError, EncodeError
from ..catalog import Kind, View, get_kind, register, register_view
from ..wire.message import Decoded as Read
from ..wire.registry import kind_name
from .consumer import ASSIGNMENT, SUBSCRIPTION, consumer_from_json, consumer_json, decode_consumer, encode_consumer
from .frames import decode_request_frame, decode_response_frame, encode_request_frame, encode_response_frame
from .jsonview import (
    body_from_json,
    carried_from_json,
    nested_json,
    request_frame_from_json,
    request_frame_json,
    response_frame_from_json,
    response_frame_json,
)
from .messages import decode_message, layer_kind
from .nested import CARRIERS, STREAMS_PROTOCOL, decode_layer
from .sticky import (
    COOPERATIVE_STICKY,
    STICKY,
    STICKY_ASSIGNORS,
    decode_sticky_user_data,
    encode_sticky_user_data,
    layer_of,
    pretty_sticky_user_data,
    read_carried,
    sticky_user_data_from_json,
    sticky_user_data_json,
)
from .pretty import pretty_body, pretty_consumer, pretty_request_frame, pretty_response_frame

__all__ = ["AUTO_CANDIDATES"]


def _carrier_pretty(message: str, version: int, data: bytes, decoded) -> str:
    """A carrier's tree with its carried layers decoded (ConsumerProtocol and Streams, or Connect's)."""
    return pretty_body(message, version, decode_message(message, version, data, nested=True).value)


def _carrier_from_json(message: str, version: int, value, style: str):
    """A carrier's JSON, its carried fields given as bytes or as layer objects (encoded first)."""
    return body_from_json(message, value, style, version)


def _consumer_kind(name: str) -> Kind:
    def read(data: bytes, version: int | None = None, **_) -> Read:
        msg = decode_consumer(name, data)
        return Read(name, msg.version, msg, len(data) - len(msg.trailing), len(msg.trailing))

    def write(value, version: int | None = None, **_) -> bytes:
        if isinstance(value, dict):
            return encode(value, version=version)
        return encode_consumer(value if version is None else dataclasses.replace(value, version=version))

    def decode(
        data: bytes, *, style: str = "kafka", version: int | None = None, assignor: str | None = None, **_
    ) -> View:
        msg = decode_consumer(name, data)
        notes = []
        user = _user_layer(name, msg, assignor)
        if user is None and assignor is not None and msg.data.user_data:
            known = "sticky, cooperative-sticky or stream" if name == SUBSCRIPTION else "stream"
            notes.append(f"userData: kept as bytes: no layout known for --assignor {assignor!r} (known: {known})")
        if user is not None:
            msg = dataclasses.replace(msg, data=dataclasses.replace(msg.data, user_data=user))
            if user.error is not None:
                notes.append(_not_decoded_note(user, assignor))
        if version is not None and version != msg.version:
            notes.append(f"{name}: the version prefix says v{msg.version} (not --version {version}); read as written")
        if msg.version != msg.layout_version:
            notes.append(
                f"{name} v{msg.version} is newer than v{msg.layout_version}: read with the "
                f"v{msg.layout_version} layout, as Kafka does"
            )
        if msg.trailing:
            notes.append(
                f"{name} v{msg.version}: {len(msg.trailing)} trailing bytes (Kafka ignores them; "
                f'kept as "trailing" in the JSON)'
            )
        return View(_consumer_view(msg, style), pretty_consumer(msg, size=len(data)), tuple(notes))

    def encode(value: dict, *, style: str = "kafka", version: int | None = None, **_) -> bytes:
        user_keys = [k for k in ("userData", "user_data") if isinstance(value, dict) and isinstance(value.get(k), dict)]
        if user_keys:  # a layer object (what decode --assignor writes): its bytes, or its value encoded
            inner = "SubscriptionInfo" if name == SUBSCRIPTION else "AssignmentInfo"
            raw = carried_from_json(value[user_keys[0]], inner, style, "user_data", message=name)
            value = {**value, user_keys[0]: _bytes_text(raw, style)}
        return encode_consumer(consumer_from_json(name, value, version, style=style))

    what = "subscription (JoinGroup metadata)" if name == SUBSCRIPTION else "assignment (SyncGroup assignment)"
    return Kind(
        layer_kind(name),
        f"ConsumerProtocol {what}, int16 version prefix (v0-3+)",
        decode,
        encode,
        message=name,
        read=read,
        write=write,
    )


def _user_layer(name: str, msg, assignor: str | None):
    """The subscription's (or, for ``stream``, the assignment's) user data decoded for ``assignor`` (the JoinGroup
    protocol name), or None when there is nothing to decode."""
    if assignor is None or not msg.data.user_data:
        return None
    if assignor != STREAMS_PROTOCOL and (name != SUBSCRIPTION or assignor not in STICKY_ASSIGNORS):
        return None  # (no layout known: the bytes stay bytes, and decode says so)
    layer = layer_of(assignor) or _STREAMS_INNER[name]
    return decode_layer(layer, msg.data.user_data, protocol_name=None, at="user_data")


_STREAMS_INNER = {SUBSCRIPTION: "SubscriptionInfo", ASSIGNMENT: "AssignmentInfo"}


def _not_decoded_note(user, assignor: str | None) -> str:
    """One line for user data that is not what ``assignor`` writes: where it failed (and, for the sticky assignors,
    what Kafka reads instead: the error says it)."""
    tail = "" if assignor in STICKY_ASSIGNORS else " (Kafka Streams refuses it)"
    return f"userData: not {user.layer}, kept as bytes: {user.error.message}{tail}"


def _consumer_view(msg, style: str) -> dict:
    """The consumer message's JSON; a decoded user data layer as a layer object (:mod:`codec.group.jsonview`)."""
    user = msg.data.user_data
    if not hasattr(user, "layer"):
        return consumer_json(msg, style=style)
    flat = dataclasses.replace(msg, data=dataclasses.replace(msg.data, user_data=user.raw))
    out = consumer_json(flat, style=style)
    out["userData" if style == "kafka" else "user_data"] = nested_json(user, style)
    return out


def _bytes_text(raw: bytes | None, style: str) -> str | None:
    import base64

    return None if raw is None else base64.b64encode(raw).decode() if style == "kafka" else raw.hex()


def _sticky_kind(assignor: str) -> Kind:
    layer = layer_of(assignor)
    assert layer is not None

    def read(data: bytes, version: int | None = None, **_) -> Read:
        u = decode_sticky_user_data(assignor, data)
        return Read(layer, u.version, u, len(data) - len(u.trailing), len(u.trailing))

    def write(value, version: int | None = None, **_) -> bytes:
        return encode(value, version=version) if isinstance(value, dict) else encode_sticky_user_data(value)

    def decode(data: bytes, *, style: str = "kafka", **_) -> View:
        u = read_carried(assignor, data, other_layout=False)
        notes = (
            (f"{layer} v{u.version}: {len(u.trailing)} trailing bytes (Kafka does not read them)",)
            if u.trailing
            else ()
        )
        return View(sticky_user_data_json(u, style), pretty_sticky_user_data(u, size=len(data)), notes)

    def encode(value: dict, *, style: str = "kafka", version: int | None = None, **_) -> bytes:
        return encode_sticky_user_data(sticky_user_data_from_json(assignor, value, version))

    what = (
        "StickyAssignor's user data (v1: previous partitions, generation; v0: partitions)"
        if assignor == STICKY
        else "CooperativeStickyAssignor's user data (v0: the generation)"
    )
    return Kind(kind_name(layer), what, decode, encode, self_describing=False, message=layer, read=read, write=write)


def _read_request_frame(data: bytes, version: int | None = None, **_) -> Read:
    frame = decode_request_frame(data, nested=True)
    return Read("RequestFrame", frame.api_version, frame, len(data) - len(frame.trailing), len(frame.trailing))


def _write_request_frame(value, version: int | None = None, **opts) -> bytes:
    if isinstance(value, dict):
        return _encode_request_frame(value, version=version, **opts)
    return encode_request_frame(value)


def _decode_request_frame(data: bytes, *, style: str = "kafka", **_) -> View:
    frame = decode_request_frame(data)
    notes = (f"{len(frame.trailing)} bytes after the {frame.api.name} request body",) if frame.trailing else ()
    return View(request_frame_json(frame, style), pretty_request_frame(frame, size=len(data)), notes)


def _encode_request_frame(
    value: dict, *, style: str = "kafka", version: int | None = None, api_key: int | None = None, **_
) -> bytes:
    return encode_request_frame(request_frame_from_json(value, style=style, api_key=api_key, version=version))


def _read_response_frame(data: bytes, version: int | None = None, *, api_key: int | None = None, **_) -> Read:
    if api_key is None or version is None:
        raise DecodeError("a response frame needs --api-key and --version of its request", message="response frame")
    frame = decode_response_frame(data, api_key, version, nested=True)
    return Read("ResponseFrame", version, frame, len(data) - len(frame.trailing), len(frame.trailing))


def _write_response_frame(value, version: int | None = None, **opts) -> bytes:
    if isinstance(value, dict):
        return _encode_response_frame(value, version=version, **opts)
    return encode_response_frame(value)


def _decode_response_frame(
    data: bytes, *, style: str = "kafka", version: int | None = None, api_key: int | None = None, **_
) -> View:
    if api_key is None or version is None:
        raise DecodeError("a response frame needs --api-key and --version of its request", message="response frame")
    frame = decode_response_frame(data, api_key, version)
    notes = (f"{len(frame.trailing)} bytes after the {frame.api.name} response body",) if frame.trailing else ()
    return View(response_frame_json(frame, style), pretty_response_frame(frame, size=len(data)), notes)


def _encode_response_frame(
    value: dict, *, style: str = "kafka", version: int | None = None, api_key: int | None = None, **_
) -> bytes:
    return encode_response_frame(response_frame_from_json(value, style=style, api_key=api_key, version=version))


# --kind auto: the self-describing kinds, most specific first. A candidate fits when it decodes the
# whole input (no trailing bytes); the first that fits wins and the others that also fit are named. A
# request frame goes down into its carried layers (ConsumerProtocol and Streams, or Connect's metadata and
# assignments when its protocol type is "connect"); bare Connect messages come last, as their int16 header
# looks like a ConsumerProtocol version prefix.
AUTO_CANDIDATES = (
    "request-frame",
    "consumer-subscription",
    "consumer-assignment",
    "subscription-info",
    "assignment-info",
    "connect-metadata",
    "connect-assignment",
)


# A Connect worker's URLs (its own ``url``, the leader's ``leaderUrl``) are java.net.URIs (RestServer's
# advertisedUrl), which hold no control character: bytes that read as a Connect message only with one there are
# some other message (a 16-byte ApiVersions response reads as ConnectMetadata v0 with the url "\0#\0\0").
# Connector names are not checked: Kafka's classes write any string (its vectors carry "nul\0c").
URL_CHECKED = ("connect-metadata", "connect-assignment")
URL_KEYS = ("url", "leaderUrl", "leader_url")


def _control_char(value, path: str = "") -> str | None:
    """The path of the first URL (a string under one of ``URL_KEYS``, at any depth) in ``value`` that holds a
    control character (Unicode Cc, Java's Character.isISOControl), or None."""
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for k, v in items:
        where = f"{path}.{k}" if path else str(k)
        if k in URL_KEYS and isinstance(v, str) and any(unicodedata.category(c) == "Cc" for c in v):
            return where
        found = _control_char(v, where)
        if found is not None:
            return found
    return None


def _fits(name: str, data: bytes, style: str) -> View | None:
    try:
        d = get_kind(name).decode(data, style=style, version=None)
    except DecodeError:
        return None
    if any("trailing" in n or "bytes after" in n for n in d.notes):
        return None
    return d


def _decode_auto(data: bytes, *, style: str = "kafka", **_) -> View:
    fits: list[tuple[str, View]] = []
    implausible: list[str] = []  # Connect kinds that fit only with a control character in a URL
    for name in AUTO_CANDIDATES:
        d = _fits(name, data, style)
        where = _control_char(d.value) if d is not None and name in URL_CHECKED else None
        if where is not None:
            implausible.append(f"{name} only with a control character in {where}")
        elif d is not None:
            fits.append((name, d))
    if not fits:
        read = f"; {', '.join(implausible)}, which no Connect worker writes" if implausible else ""
        raise DecodeError(
            f"no self-describing kind decodes all {len(data)} bytes (tried {', '.join(AUTO_CANDIDATES)}{read}; "
            "a response frame does not name its API: --kind response-frame --api-key K --version V of its "
            "request)",
            message="auto",
        )
    name, d = fits[0]
    others = [n for n, _ in fits[1:]]
    also = f" (also fits: {', '.join(others)})" if others else ""
    value = {"kind": name, "value": d.value}
    if others:
        value["alsoFits" if style == "kafka" else "also_fits"] = others
    return View(value, f"auto: {name}{also}\n{d.pretty}", (f"auto: decoded as {name}{also}",) + d.notes)


def _encode_auto(value: dict, *, style: str = "kafka", **opts) -> bytes:
    if not isinstance(value, dict) or value.get("kind") not in AUTO_CANDIDATES or "value" not in value:
        raise EncodeError(f'auto expects {{"kind": one of {", ".join(AUTO_CANDIDATES)}, "value": ...}}', message="auto")
    unknown = sorted(k for k in value if k not in ("kind", "value", "alsoFits", "also_fits"))
    if unknown:  # alsoFits is what decode --kind auto reports; anything else would be dropped
        raise EncodeError(
            f"no key {unknown[0][:60]!r} here (auto takes kind, value, alsoFits)", message="auto", path=unknown[0][:60]
        )
    return get_kind(value["kind"]).encode(value["value"], style=style, **opts)


def _read_auto(data: bytes, version: int | None = None, **_) -> Read:
    """The reading of the kind ``decode --kind auto`` picks for the whole input."""
    read = get_kind(_decode_auto(data).value["kind"]).read
    assert read is not None  # every candidate reads
    return read(data)


def _register_all() -> None:
    register(_consumer_kind(SUBSCRIPTION))
    register(_consumer_kind(ASSIGNMENT))
    register(_sticky_kind(STICKY))
    register(_sticky_kind(COOPERATIVE_STICKY))
    for message in CARRIERS:
        register_view(message, pretty=_carrier_pretty, from_json=_carrier_from_json)
    register(
        Kind(
            "request-frame",
            "a request frame without its int32 size: header + body, decoded to the "
            "Streams layer (Connect's in a connect group)",
            _decode_request_frame,
            _encode_request_frame,
            message="RequestFrame",
            read=_read_request_frame,
            write=_write_request_frame,
        )
    )
    register(
        Kind(
            "response-frame",
            "a response frame without its int32 size (--api-key and --version of its request)",
            _decode_response_frame,
            _encode_response_frame,
            self_describing=False,
            message="ResponseFrame",
            read=_read_response_frame,
            write=_write_response_frame,
        )
    )
    register(
        Kind(
            "auto",
            "try the self-describing kinds and say which one fitted",
            _decode_auto,
            _encode_auto,
            read=_read_auto,
        )
    )


_register_all()
