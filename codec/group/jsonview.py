"""JSON views of group messages, frames and their nested layers, and the way back.

Message bodies use Kafka's JSON converter shape (``style="kafka"``: camelCase, only the version's
fields, bytes base64) or snake_case with bytes as hex (``"snake"``), as :func:`codec.wire.builder.to_json`
does. In a frame, a carried field that was decoded further (:class:`Nested`) becomes an object::

    {"layer": "ConsumerProtocolSubscription", "bytes": "<base64 or hex>",
     "value": {"version": 3, "topics": [...], "userData": {"layer": "SubscriptionInfo", ...}}}

(a subscription's ``userData`` in a ``sticky`` or ``cooperative-sticky`` group is a ``StickyAssignorUserData`` or
``CooperativeStickyAssignorUserData`` layer: :mod:`codec.group.sticky`), or, when the layer could not be decoded, ``"error": {"message", "reason", "offset", "path", "at"}`` in
place of ``"value"``. In a Connect group the layer is ``ConnectMetadata`` or ``ConnectAssignment`` and its
value the JSON of :mod:`codec.connect.jsonview` as read by reader version 1 (Kafka's names in ``kafka``
style, snake_case in ``native``), with ``"trailing": {"offset", "bytes"}`` when bytes follow the message. Encoding accepts the same shape: ``bytes`` wins when present (the bytes as
carried); without it the layer is encoded from ``value``.
"""

from __future__ import annotations

import base64
import dataclasses

from ..connect.assignment import encode_connect_assignment
from ..connect.jsonview import (
    connect_assignment_from_json,
    connect_assignment_json,
    connect_metadata_from_json,
    connect_metadata_json,
)
from ..connect.metadata import encode_connect_metadata
from ..errors import EncodeError
from ..streams import (
    assignment_from_json,
    assignment_json,
    encode_assignment,
    encode_subscription,
    subscription_from_json,
    subscription_json,
)
from ..wire.builder import from_json, to_json
from ..wire.schema import load_message
from ..wire.registry import api_for, apis, request_header_version, response_header_version
from .consumer import ASSIGNMENT, SUBSCRIPTION, ConsumerMessage, consumer_from_json, encode_consumer
from .frames import RequestFrame, ResponseFrame
from ..wire.jsoncheck import check_json, describe
from .nested import CONNECT_ASSIGNMENT, CONNECT_METADATA, Nested, carried_layer, flatten_body, nested_fields
from .sticky import (
    COOPERATIVE_STICKY,
    COOPERATIVE_STICKY_LAYER,
    STICKY,
    STICKY_LAYER,
    StickyUserData,
    encode_sticky_user_data,
    sticky_user_data_from_json,
    sticky_user_data_json,
)

__all__ = [
    "body_json",
    "nested_json",
    "request_frame_json",
    "response_frame_json",
    "body_from_json",
    "carried_from_json",
    "request_frame_from_json",
    "response_frame_from_json",
]


def _key(name: str, style: str) -> str:
    """camelCase (kafka) or snake_case (native) of a snake_case name."""
    if style != "kafka":
        return name
    head, *rest = name.split("_")
    return head + "".join(w.title() for w in rest)


def _bytes_json(b: bytes, style: str) -> str:
    return base64.b64encode(b).decode("ascii") if style == "kafka" else b.hex()


def _bytes_from(v, style: str, path: str, message: str | None = None) -> bytes:
    if not isinstance(v, str):
        raise EncodeError(
            f"expected bytes as a {'base64' if style == 'kafka' else 'hex'} string, got {type(v).__name__}",
            message=message,
            path=path,
        )
    try:
        return base64.b64decode(v, validate=True) if style == "kafka" else bytes.fromhex(v)
    except ValueError:
        raise EncodeError(
            f"not {'base64' if style == 'kafka' else 'hex'}: {v[:40]!r}", message=message, path=path
        ) from None


def nested_json(n: Nested, style: str = "kafka") -> dict:
    out: dict = {"layer": n.layer, "bytes": _bytes_json(n.raw, style)}
    if n.error is not None:
        out["error"] = {k: getattr(n.error, k) for k in ("message", "reason", "offset", "path", "at")}
        return out
    v = n.value
    if isinstance(v, ConsumerMessage):
        user = v.data.user_data
        flat = dataclasses.replace(v.data, user_data=user.raw if isinstance(user, Nested) else user)
        value = {"version": v.version, **to_json(flat, v.name, v.layout_version, style=style)}
        if isinstance(user, Nested):
            value[_key("user_data", style)] = nested_json(user, style)
        if v.trailing:
            value["trailing"] = v.trailing.hex()
        out["value"] = value
    elif isinstance(v, StickyUserData):
        out["value"] = sticky_user_data_json(v, style)
    elif n.layer == "SubscriptionInfo":
        out["value"] = subscription_json(v.info, v.wire, style=style)
    elif n.layer in (CONNECT_METADATA, CONNECT_ASSIGNMENT):
        view = connect_metadata_json if n.layer == CONNECT_METADATA else connect_assignment_json
        value = view(v.info, style=style, reader_version=v.reader_version)
        if v.trailing:
            value["trailing"] = {"offset": v.consumed, "bytes": v.trailing}
        out["value"] = value
    else:
        out["value"] = assignment_json(v.info, style=style)
    return out


def body_json(name: str, version: int, body, style: str = "kafka") -> dict:
    """A body as JSON; nested layers (if any) as layer objects."""
    out = to_json(flatten_body(name, body), name, version, style=style)
    carrier = nested_fields(name)
    if carrier is None:
        return out
    array, field, _ = carrier
    if array is None:
        v = getattr(body, field)
        if isinstance(v, Nested):
            out[field] = nested_json(v, style)
        return out
    for item, item_json in zip(getattr(body, array) or (), out.get(array) or ()):
        v = getattr(item, field)
        if isinstance(v, Nested):
            item_json[field] = nested_json(v, style)
    return out


def _frame_head(api_key: int, api_version: int, header_version: int, style: str) -> dict:
    return {
        "api": api_for(api_key).name,
        _key("api_key", style): api_key,
        _key("api_version", style): api_version,
        _key("header_version", style): header_version,
    }


def request_frame_json(frame: RequestFrame, style: str = "kafka") -> dict:
    out = _frame_head(frame.api_key, frame.api_version, frame.header_version, style)
    out["header"] = to_json(frame.header, "RequestHeader", frame.header_version, style=style)
    out["body"] = _any_body_json(frame.api.request, frame.api_version, frame.body, style)
    if frame.trailing:
        out["trailing"] = frame.trailing.hex()
    return out


def response_frame_json(frame: ResponseFrame, style: str = "kafka") -> dict:
    out = _frame_head(frame.api_key, frame.api_version, frame.header_version, style)
    out["header"] = to_json(frame.header, "ResponseHeader", frame.header_version, style=style)
    out["body"] = _any_body_json(frame.api.response, frame.api_version, frame.body, style)
    if frame.trailing:
        out["trailing"] = frame.trailing.hex()
    return out


def _any_body_json(schema: str | None, version: int, body, style: str):
    if schema is None:
        return _bytes_json(body, style)
    return body_json(schema, version, body, style)


# --- JSON -> models -------------------------------------------------------------------------------------

_LAYER_KEYS = ("layer", "bytes", "value", "error")


def _layer_from_json(v, layer: str, style: str, path: str, protocol_name: str | None = None):
    """A carried field's JSON (bytes string or layer object) -> bytes."""
    if v is None:
        return None
    if isinstance(v, str):
        return _bytes_from(v, style, path)
    if not isinstance(v, dict):
        raise EncodeError(f"expected bytes or a layer object, got {type(v).__name__}", path=path)
    unknown = [k for k in v if k not in _LAYER_KEYS]
    if unknown:
        raise EncodeError(
            f"a layer object has no key {describe(unknown[0])} (its keys: {', '.join(_LAYER_KEYS)})", path=path
        )
    if v.get("bytes") is not None:
        return _bytes_from(v["bytes"], style, f"{path}.bytes")
    value = v.get("value")
    if not isinstance(value, dict):
        raise EncodeError('a layer object needs "bytes" or a "value" object', path=path)
    layer = v.get("layer", layer)
    if layer in (SUBSCRIPTION, ASSIGNMENT):
        value = dict(value)
        user_keys = [k for k in ("userData", "user_data") if k in value]
        if len(user_keys) > 1:
            raise EncodeError("given twice (as 'userData' and 'user_data')", path=f"{path}.value.user_data")
        user = value.pop(user_keys[0]) if user_keys else None
        inner = {SUBSCRIPTION: "SubscriptionInfo", ASSIGNMENT: "AssignmentInfo"}[layer]
        user_bytes = _layer_from_json(user, inner, style, f"{path}.value.user_data")
        try:
            msg = consumer_from_json(layer, value, style=style)
            return encode_consumer(dataclasses.replace(msg, data=dataclasses.replace(msg.data, user_data=user_bytes)))
        except EncodeError as e:
            raise _within(e, f"{path}.value", layer) from None
    try:
        if layer in (STICKY_LAYER, COOPERATIVE_STICKY_LAYER):
            assignor = STICKY if layer == STICKY_LAYER else COOPERATIVE_STICKY
            return encode_sticky_user_data(sticky_user_data_from_json(assignor, value))
        if layer == "SubscriptionInfo":
            return encode_subscription(subscription_from_json(value), drop_unrepresentable=style == "kafka")
        if layer == "AssignmentInfo":
            return encode_assignment(assignment_from_json(value), drop_unrepresentable=style == "kafka")
        if layer == CONNECT_METADATA:
            return encode_connect_metadata(connect_metadata_from_json(value), drop_unrepresentable=style == "kafka")
        if layer == CONNECT_ASSIGNMENT:
            return encode_connect_assignment(connect_assignment_from_json(value), drop_unrepresentable=style == "kafka")
    except EncodeError as e:
        raise _within(e, f"{path}.value", layer) from None
    raise EncodeError(f"unknown layer {describe(layer)}", path=f"{path}.layer")


def carried_from_json(v, layer: str, style: str, path: str, *, message: str | None = None) -> bytes | None:
    """A carried field's JSON (bytes string, null or layer object) -> its bytes; an error names ``message``."""
    try:
        return _layer_from_json(v, layer, style, path)
    except EncodeError as e:
        raise _located(e, message, None) if message is not None else e from None


def _within(e: EncodeError, prefix: str, layer: str) -> EncodeError:
    """An inner layer's error located in the outer message: the inner message named in the reason, the
    path prefixed with where the layer sits (the outer message is filled in by :func:`_located`)."""
    inner = (e.message or layer) + (f" v{e.version}" if e.version is not None else "") + ": "
    path = f"{prefix}.{e.path}" if e.path and not e.path.startswith("[") else prefix + e.path
    return EncodeError(inner + e.reason, path=path)


def _located(e: EncodeError, message: str, version: int | None) -> EncodeError:
    """``e`` with the message (and version) it happened in, when it does not name one yet."""
    if e.message is not None:
        return e
    return EncodeError(e.reason, message=message, version=version, path=e.path)


def body_from_json(name: str, value: object, style: str = "kafka", version: int | None = None):
    """A body's wire model from its JSON; layer objects in carried fields are encoded to bytes. The JSON
    is checked against the schema first (:func:`codec.wire.jsoncheck.check_json`; ``version``, when
    known, decides which fields may be null): a wrong type, an out-of-range integer, a null where none is
    allowed or an unknown key is an :class:`EncodeError` naming the field."""
    if not isinstance(value, dict):
        raise EncodeError("expected a JSON object", message=name, version=version)
    carrier = nested_fields(name)
    try:
        if carrier is not None:
            array, field, layer = carrier
            ptype = _get(value, "protocolType", "protocol_type")
            if ptype is not None and isinstance(ptype, str):  # a layer object without "layer" is this group's
                layer = carried_layer(name, ptype) or layer
            value = dict(value)

            def fix(d: dict, path: str) -> dict:
                if isinstance(d.get(field), dict):
                    raw = _layer_from_json(d[field], layer, style, path)
                    d = {**d, field: _bytes_json(raw, style)}
                return d

            if array is None:
                value = fix(value, field)
            else:
                akey = array if array in value else _key(array, style)
                if isinstance(value.get(akey), list):
                    value[akey] = [
                        fix(x, f"{array}[{i}].{field}") if isinstance(x, dict) else x for i, x in enumerate(value[akey])
                    ]
    except EncodeError as e:
        raise _located(e, name, version) from None
    check_json(value, name, version, style=style)
    return from_json(value, name, style=style)


def _get(d: dict, *keys):
    for k in keys:
        if k in d:
            return d[k]
    return None


def _api_int(v, what: str, path: str) -> int:
    if type(v) is not int:
        raise EncodeError(f"{what} must be an integer, got {describe(v)}", message="frame", path=path)
    if not -(1 << 15) <= v < (1 << 15):
        raise EncodeError(f"{what} {v} is out of range for int16", message="frame", path=path)
    return v


_FRAME_KEYS = {
    "api",
    "apiKey",
    "api_key",
    "apiVersion",
    "api_version",
    "headerVersion",
    "header_version",
    "header",
    "body",
    "trailing",
}


def _frame_parts(value: dict, api_key: int | None, version: int | None, request: bool):
    """(API key, API version, header version, trailing bytes) of a frame's JSON, each checked; what the
    JSON repeats (``api``, ``headerVersion``) must agree with what the key and version decide."""
    if not isinstance(value, dict):
        raise EncodeError("expected a JSON object", message="frame")
    unknown = sorted(k for k in value if k not in _FRAME_KEYS)
    if unknown:
        raise EncodeError(
            f"a frame has no key {describe(unknown[0])} (its keys: api, apiKey, apiVersion, "
            f"headerVersion, header, body, trailing)",
            message="frame",
            path=unknown[0][:80],
        )
    key = _get(value, "apiKey", "api_key")
    key = api_key if key is None else _api_int(key, "the API key", "api_key")
    ver = _get(value, "apiVersion", "api_version")
    ver = version if ver is None else _api_int(ver, "the API version", "api_version")
    if key is None or ver is None:
        raise EncodeError(
            "a frame needs its API key and version (JSON apiKey/apiVersion or --api-key/--version)", message="frame"
        )
    if key not in apis():
        known = ", ".join(f"{k} {a.name}" for k, a in sorted(apis().items()))
        raise EncodeError(f"unknown API key {key} (known: {known})", message="frame", path="api_key")
    api = apis()[key]
    if "api" in value and value["api"] != api.name:
        raise EncodeError(
            f"api {describe(value['api'])} is not API key {key} ({api.name})", message="frame", path="api"
        )
    header_version = request_header_version(key, ver) if request else response_header_version(key, ver)
    given = _get(value, "headerVersion", "header_version")
    if given is not None and (type(given) is not int or given != header_version):
        raise EncodeError(
            f"headerVersion {describe(given)} is not the header version of {api.name} v{ver} ({header_version})",
            message="frame",
            path="header_version",
        )
    trailing = value.get("trailing")
    try:
        return key, ver, header_version, b"" if trailing is None else bytes.fromhex(trailing)
    except (TypeError, ValueError):
        raise EncodeError(f"trailing must be hex, got {describe(trailing)}", message="frame", path="trailing") from None


def _header(value: dict, name: str, version: int, fixed: dict[str, int], style: str) -> dict:
    """The frame's header JSON, checked; ``fixed``: fields the frame itself decides (the request's API key
    and version), which the header may repeat but not contradict."""
    header = value.get("header")
    if header is None:
        header = {}
    check_json(header, name, version, style=style)
    header = dict(header)
    for f in load_message(name).root.fields:
        if f.py_name not in fixed:
            continue
        want = fixed[f.py_name]
        for k in (f.json_name, f.py_name, f.name):
            if k in header:
                got = header.pop(k)
                if got != want:
                    raise EncodeError(
                        f"the header says {describe(got)} but the frame's {f.py_name} is {want}",
                        message=name,
                        version=version,
                        path=f.py_name,
                    )
        header[f.json_name] = want
    return header


def request_frame_from_json(
    value: dict, *, style: str = "kafka", api_key: int | None = None, version: int | None = None
) -> RequestFrame:
    key, ver, hv, trailing = _frame_parts(value, api_key, version, request=True)
    header = from_json(
        _header(value, "RequestHeader", hv, {"request_api_key": key, "request_api_version": ver}, style),
        "RequestHeader",
        style=style,
    )
    api = apis()[key]
    body = value.get("body")
    body = (
        _bytes_from(body, style, "body", "frame")
        if api.request is None
        else body_from_json(api.request, body, style, ver)
    )
    return RequestFrame(header=header, body=body, trailing=trailing)


def response_frame_from_json(
    value: dict, *, style: str = "kafka", api_key: int | None = None, version: int | None = None
) -> ResponseFrame:
    key, ver, hv, trailing = _frame_parts(value, api_key, version, request=False)
    header = from_json(_header(value, "ResponseHeader", hv, {}, style), "ResponseHeader", style=style)
    api = apis()[key]
    body = value.get("body")
    body = (
        _bytes_from(body, style, "body", "frame")
        if api.response is None
        else body_from_json(api.response, body, style, ver)
    )
    return ResponseFrame(api_key=key, api_version=ver, header=header, body=body, trailing=trailing)
