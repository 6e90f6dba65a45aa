"""Readable trees of group messages and frames (``--format pretty``).

Every field of the body is shown by name; a carried ConsumerProtocol field is shown as its decoded
message, indented under the element that carries it (the protocol, member or assignment), with the
Streams subscription or assignment under that, rendered by :mod:`codec.streams.pretty`; in a Connect group, the
worker's metadata or assignment as :mod:`codec.connect.pretty` renders it.

Strings are shown quoted, through :func:`codec.text.printable` (and ``"`` as ``\\"``): a control character, a
line separator or a lone surrogate in a group id, member id, client id, topic or protocol name is written as
an escape, so no wire string can add a line to the view or send an escape sequence to the terminal.
"""

from __future__ import annotations

from ..connect.pretty import pretty_connect_assignment, pretty_connect_metadata
from ..streams.pretty import pretty_assignment, pretty_subscription
from ..text import printable
from ..wire.pretty import STEP, struct_lines
from ..wire.pretty import pretty_body as _pretty_body
from ..wire.pretty import scalar as _scalar
from ..wire.schema import load_message
from .consumer import ConsumerMessage
from .frames import RequestFrame, ResponseFrame
from .nested import Nested
from .sticky import StickyUserData, pretty_sticky_user_data

__all__ = ["pretty_body", "pretty_request_frame", "pretty_response_frame", "pretty_consumer"]

_STEP = STEP


def _special(v, indent: str) -> list[str] | None:
    """A carried layer (a :class:`Nested`), as the tree shows it; None for any other value."""
    return _nested_lines(v, indent) if isinstance(v, Nested) else None


def _struct_lines(obj, spec, version: int, indent: str) -> list[str]:
    return struct_lines(obj, spec, version, indent, _special)


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
    if isinstance(v, StickyUserData):
        return _indent(pretty_sticky_user_data(v, size=len(n.raw)), indent)
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
    return _pretty_body(name, version, body, indent=indent, special=_special)


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
