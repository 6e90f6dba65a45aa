"""Readable trees of group messages and frames (``--format pretty``).

Every field of the body is shown by name; a carried ConsumerProtocol field is shown as its decoded
message, indented under the element that carries it (the protocol, member or assignment), with the
Streams subscription or assignment under that, rendered by :mod:`codec.pretty`; in a Connect group, the
worker's metadata or assignment as :mod:`codec.connect.pretty` renders it.

Strings are shown quoted, through :func:`codec.text.printable` (and ``"`` as ``\\"``): a control character, a
line separator or a lone surrogate in a group id, member id, client id, topic or protocol name is written as
an escape, so no wire string can add a line to the view or send an escape sequence to the terminal.
"""

from __future__ import annotations

from ..connect.pretty import pretty_connect_assignment, pretty_connect_metadata
from ..pretty import pretty_assignment, pretty_subscription
from ..text import printable
from ..wire.error_codes import ERROR_NAMES
from ..wire.schema import load_message
from .consumer import ConsumerMessage
from .frames import RequestFrame, ResponseFrame
from .nested import Nested

__all__ = ["pretty_body", "pretty_request_frame", "pretty_response_frame", "pretty_consumer"]

_STEP = "  "


def _scalar(v) -> str:
    if v is None:
        return "null"
    if isinstance(v, (bytes, bytearray)):
        if not v:
            return "(0 bytes)"
        h = bytes(v).hex()
        return f"({len(v)} bytes) {h[:64]}{'...' if len(h) > 64 else ''}"
    if isinstance(v, str):
        return '"' + printable(v).replace('"', '\\"') + '"'
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def _struct_lines(obj, spec, version: int, indent: str) -> list[str]:
    fields = spec.fields_at(version)
    width = max((len(f.py_name) for f in fields), default=0)
    lines = []
    for f in fields:
        v = getattr(obj, f.py_name)
        if isinstance(v, Nested):
            lines.append(f"{indent}{f.py_name}:")
            lines += _nested_lines(v, indent + _STEP)
        elif f.is_array and f.struct is not None and v:
            lines.append(f"{indent}{f.py_name} ({len(v)}):")
            for i, item in enumerate(v):
                lines.append(f"{indent}{_STEP}[{i}]")
                lines += _struct_lines(item, f.struct, version, indent + _STEP * 2)
        elif f.is_array and v is not None:
            shown = ", ".join(_scalar(x) for x in v) if v else "(none)"
            lines.append(f"{indent}{f.py_name.ljust(width)}  {shown}")
        elif f.py_name.endswith("error_code") and type(v) is int:  # Kafka's name beside the code
            lines.append(f"{indent}{f.py_name.ljust(width)}  {v} {ERROR_NAMES.get(v, '(a code Kafka does not name)')}")
        else:
            lines.append(f"{indent}{f.py_name.ljust(width)}  {_scalar(v)}")
    for tag, raw in (getattr(obj, "unknown_tagged_fields", None) or {}).items():
        lines.append(f"{indent}unknown tagged field {tag}: {_scalar(raw)}")
    return lines


def _indent(text: str, indent: str) -> list[str]:
    return [indent + line for line in text.splitlines()]


def _nested_lines(n: Nested, indent: str) -> list[str]:
    if n.error is not None:
        return [
            f"{indent}{n.layer}: NOT DECODED ({len(n.raw)} bytes kept as carried)",
            f"{indent}{_STEP}{printable(n.error.message)}",
        ]
    v = n.value
    if isinstance(v, ConsumerMessage):
        return _consumer_lines(v, indent, size=len(n.raw))
    if n.layer == "SubscriptionInfo":
        return _indent(pretty_subscription(v.info, size=len(n.raw), trailing=v.trailing), indent)
    if n.layer in ("ConnectMetadata", "ConnectAssignment"):
        view = pretty_connect_metadata if n.layer == "ConnectMetadata" else pretty_connect_assignment
        return _indent(view(v.info, reader_version=v.reader_version, size=len(n.raw), trailing=v.trailing), indent)
    return _indent(pretty_assignment(v.info, size=len(n.raw), trailing=v.trailing), indent)


def _consumer_lines(msg: ConsumerMessage, indent: str, size: int | None = None) -> list[str]:
    head = f"{indent}{msg.name} v{msg.version}"
    if msg.version != msg.layout_version:
        head += f" (newer than v{msg.layout_version}: read with the v{msg.layout_version} layout)"
    if size is not None:
        head += f"  {size} bytes"
    lines = [head] + _struct_lines(msg.data, load_message(msg.name).root, msg.layout_version, indent + _STEP)
    if msg.trailing:
        lines.append(f"{indent}{_STEP}note: {len(msg.trailing)} trailing bytes ignored (as Kafka ignores them)")
    return lines


def pretty_consumer(msg: ConsumerMessage, *, size: int | None = None) -> str:
    return "\n".join(_consumer_lines(msg, "", size))


def pretty_body(name: str, version: int, body, *, indent: str = "") -> str:
    return "\n".join(
        [f"{indent}{name} v{version}"] + _struct_lines(body, load_message(name).root, version, indent + _STEP)
    )


def _frame_lines(kind: str, schema: str | None, frame, size: int | None) -> list[str]:
    head = f"{frame.api.name} {kind} v{frame.api_version}  (header v{frame.header_version}"
    head += f", {size} bytes)" if size is not None else ")"
    lines = [head, f"{_STEP}correlation id  {frame.correlation_id}"]
    if isinstance(frame, RequestFrame) and frame.header_version >= 1:
        lines.append(f"{_STEP}client id       {_scalar(frame.client_id)}")
    if schema is None:
        lines.append(f"{_STEP}body  {_scalar(frame.body)} (not decoded: only framed by this codec)")
    else:
        lines += _struct_lines(frame.body, load_message(schema).root, frame.api_version, _STEP)
    if frame.trailing:
        lines.append(f"{_STEP}note: {len(frame.trailing)} bytes after the body")
    return lines


def pretty_request_frame(frame: RequestFrame, *, size: int | None = None) -> str:
    return "\n".join(_frame_lines("request", frame.api.request, frame, size))


def pretty_response_frame(frame: ResponseFrame, *, size: int | None = None) -> str:
    return "\n".join(_frame_lines("response", frame.api.response, frame, size))
