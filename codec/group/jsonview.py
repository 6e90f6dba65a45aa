"""JSON views of group messages, frames and their nested layers, and the way back.

Message bodies use Kafka's JSON converter shape (``style="kafka"``: camelCase, only the version's
fields, bytes base64) or snake_case with bytes as hex (``"native"``), as :func:`codec.wire.builder.to_json`
does. In a frame, a carried field that was decoded further (:class:`Nested`) becomes an object::

    {"layer": "ConsumerProtocolSubscription", "bytes": "<base64 or hex>",
     "value": {"version": 3, "topics": [...], "userData": {"layer": "SubscriptionInfo", ...}}}

or, when the layer could not be decoded, ``"error": {"message", "reason", "offset", "path", "at"}`` in
place of ``"value"``. Encoding accepts the same shape: ``bytes`` wins when present (the bytes as
carried); without it the layer is encoded from ``value``.
"""

from __future__ import annotations

import base64
import dataclasses

from ..errors import EncodeError
from ..streams import (assignment_from_json, assignment_json, encode_assignment, encode_subscription,
                       subscription_from_json, subscription_json)
from ..wire.builder import from_json, to_json
from .apis import api_for
from .consumer import ASSIGNMENT, SUBSCRIPTION, ConsumerMessage, consumer_from_json, encode_consumer
from .frames import RequestFrame, ResponseFrame
from .nested import Nested, flatten_body, nested_fields

__all__ = ["body_json", "nested_json", "request_frame_json", "response_frame_json", "body_from_json",
           "request_frame_from_json", "response_frame_from_json"]


def _key(name: str, style: str) -> str:
    """camelCase (kafka) or snake_case (native) of a snake_case name."""
    if style != "kafka":
        return name
    head, *rest = name.split("_")
    return head + "".join(w.title() for w in rest)


def _bytes_json(b: bytes, style: str) -> str:
    return base64.b64encode(b).decode("ascii") if style == "kafka" else b.hex()


def _bytes_from(v, style: str, path: str) -> bytes:
    if not isinstance(v, str):
        raise EncodeError(f"expected bytes as a {'base64' if style == 'kafka' else 'hex'} string", path=path)
    try:
        return base64.b64decode(v, validate=True) if style == "kafka" else bytes.fromhex(v)
    except ValueError:
        raise EncodeError(f"not {'base64' if style == 'kafka' else 'hex'}: {v[:40]!r}", path=path) from None


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
    elif n.layer == "SubscriptionInfo":
        out["value"] = subscription_json(v.info, v.wire, style=style)
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
    return {"api": api_for(api_key).name, _key("api_key", style): api_key,
            _key("api_version", style): api_version, _key("header_version", style): header_version}


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

def _layer_from_json(v, layer: str, style: str, path: str, protocol_name: str | None = None):
    """A carried field's JSON (bytes string or layer object) -> bytes."""
    if v is None:
        return None
    if isinstance(v, str):
        return _bytes_from(v, style, path)
    if not isinstance(v, dict):
        raise EncodeError("expected bytes or a layer object", path=path)
    if v.get("bytes") is not None:
        return _bytes_from(v["bytes"], style, f"{path}.bytes")
    value = v.get("value")
    if not isinstance(value, dict):
        raise EncodeError("a layer object needs \"bytes\" or a \"value\" object", path=path)
    layer = v.get("layer", layer)
    if layer in (SUBSCRIPTION, ASSIGNMENT):
        value = dict(value)
        user_key = next((k for k in ("userData", "user_data") if k in value), None)
        user = value.pop(user_key) if user_key else None
        inner = {SUBSCRIPTION: "SubscriptionInfo", ASSIGNMENT: "AssignmentInfo"}[layer]
        user_bytes = _layer_from_json(user, inner, style, f"{path}.user_data")
        msg = consumer_from_json(layer, value, style=style)
        return encode_consumer(dataclasses.replace(msg, data=dataclasses.replace(msg.data, user_data=user_bytes)))
    if layer == "SubscriptionInfo":
        return encode_subscription(subscription_from_json(value), drop_unrepresentable=style == "kafka")
    if layer == "AssignmentInfo":
        return encode_assignment(assignment_from_json(value), drop_unrepresentable=style == "kafka")
    raise EncodeError(f"unknown layer {layer!r}", path=path)


def body_from_json(name: str, value: dict, style: str = "kafka"):
    """A body's wire model from its JSON; layer objects in carried fields are encoded to bytes."""
    if not isinstance(value, dict):
        raise EncodeError("expected a JSON object", message=name)
    carrier = nested_fields(name)
    if carrier is not None:
        array, field, layer = carrier
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
                value[akey] = [fix(x, f"{array}[{i}].{field}") if isinstance(x, dict) else x
                               for i, x in enumerate(value[akey])]
    return from_json(value, name, style=style)


def _get(d: dict, *keys):
    for k in keys:
        if k in d:
            return d[k]
    return None


def _frame_parts(value: dict, api_key: int | None, version: int | None):
    if not isinstance(value, dict):
        raise EncodeError("expected a JSON object", message="frame")
    key = _get(value, "apiKey", "api_key")
    key = api_key if key is None else key
    ver = _get(value, "apiVersion", "api_version")
    ver = version if ver is None else ver
    if not isinstance(key, int) or not isinstance(ver, int):
        raise EncodeError("a frame needs its API key and version (JSON apiKey/apiVersion or --api-key/--version)",
                          message="frame")
    trailing = value.get("trailing") or ""
    try:
        return key, ver, bytes.fromhex(trailing)
    except (TypeError, ValueError):
        raise EncodeError(f"trailing must be hex, got {trailing!r}", message="frame", path="trailing") from None


def request_frame_from_json(value: dict, *, style: str = "kafka", api_key: int | None = None,
                            version: int | None = None) -> RequestFrame:
    key, ver, trailing = _frame_parts(value, api_key, version)
    header = from_json({**(value.get("header") or {}), "requestApiKey": key, "requestApiVersion": ver},
                       "RequestHeader", style=style)
    api = api_for(key, offset=None)
    body = value.get("body")
    body = _bytes_from(body, style, "body") if api.request is None else body_from_json(api.request, body, style)
    return RequestFrame(header=header, body=body, trailing=trailing)


def response_frame_from_json(value: dict, *, style: str = "kafka", api_key: int | None = None,
                             version: int | None = None) -> ResponseFrame:
    key, ver, trailing = _frame_parts(value, api_key, version)
    header = from_json(value.get("header") or {}, "ResponseHeader", style=style)
    api = api_for(key, message="ResponseHeader", offset=None)
    body = value.get("body")
    body = _bytes_from(body, style, "body") if api.response is None else body_from_json(api.response, body, style)
    return ResponseFrame(api_key=key, api_version=ver, header=header, body=body, trailing=trailing)
