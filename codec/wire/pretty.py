"""The generic readable tree of any message (``--format pretty``): every field of a version by name, structs and
arrays of structs indented under their field, unknown tagged fields where they are, known tagged fields in Kafka's
JSON. Families show their own models their own way (a Streams subscription, a heartbeat's tasks) and hand this tree
the values it does not know (``special``: a carried layer of a group message).

Strings are shown quoted, through :func:`codec.text.printable` (and ``"`` as ``\\"``): a control character, a line
separator or a lone surrogate is written as an escape, so no wire string can add a line to the view or send an escape
sequence to the terminal.
"""

from __future__ import annotations

from ..text import printable
from .registry import error_name
from .schema import StructSpec, load_message

TYPE_CHECKING = False  # (not typing.TYPE_CHECKING: importing typing costs a decode call's start-up)

if TYPE_CHECKING:
    from collections.abc import Callable

    #: a family's view of a value the tree does not know: (value, indent) -> its lines, or None
    Special = Callable[[object, str], "list[str] | None"]

__all__ = ["STEP", "pretty_body", "pretty_record", "scalar", "struct_lines", "tagged_lines", "unknown_tag_lines"]

STEP = "  "


def scalar(v) -> str:
    """One value as the tree shows it: null, bytes by size and a hex prefix, quoted strings, true/false, numbers."""
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


def struct_lines(obj, spec: StructSpec, version: int, indent: str, special: Special | None = None) -> list[str]:
    """The lines of one struct's fields at ``version`` (``special``: a family's view of values it carries)."""
    fields = spec.fields_at(version)
    width = max((len(f.py_name) for f in fields), default=0)
    lines = []
    for f in fields:
        v = getattr(obj, f.py_name)
        shown = special(v, indent + STEP) if special is not None else None
        if shown is not None:
            lines.append(f"{indent}{f.py_name}:")
            lines += shown
        elif f.is_array and f.struct is not None and v:
            lines.append(f"{indent}{f.py_name} ({len(v)}):")
            for i, item in enumerate(v):
                lines.append(f"{indent}{STEP}[{i}]")
                lines += struct_lines(item, f.struct, version, indent + STEP * 2, special)
        elif f.struct is not None and not f.is_array and v is not None:  # a struct field: its own tree below it
            lines.append(f"{indent}{f.py_name}:")
            lines += struct_lines(v, f.struct, version, indent + STEP, special)
        elif f.is_array and v is not None:
            items = ", ".join(scalar(x) for x in v) if v else "(none)"
            lines.append(f"{indent}{f.py_name.ljust(width)}  {items}")
        elif f.py_name.endswith("error_code") and type(v) is int:  # Kafka's name beside the code (issue #46)
            lines.append(f"{indent}{f.py_name.ljust(width)}  {v} {error_name(v) or '(a code Kafka does not name)'}")
        else:
            lines.append(f"{indent}{f.py_name.ljust(width)}  {scalar(v)}")
    for tag, raw in (getattr(obj, "unknown_tagged_fields", None) or {}).items():
        lines.append(f"{indent}unknown tagged field {tag}: {scalar(raw)}")
    return lines


def pretty_body(name: str, version: int, body, *, indent: str = "", special: Special | None = None) -> str:
    """``<Message> v<version>`` and the tree of its fields."""
    root = load_message(name).root
    return "\n".join([f"{indent}{name} v{version}"] + struct_lines(body, root, version, indent + STEP, special))


def unknown_tag_lines(model, spec: StructSpec, path: str = "") -> list[str]:
    """``path: unknown tagged field T (N bytes) hex`` for every unknown tagged field in a wire model, at any depth (for
    a family's view, which shows fields of its own choosing)."""
    out = []
    for tag, raw in (getattr(model, "unknown_tagged_fields", None) or {}).items():
        h = bytes(raw).hex()
        out.append(
            f"{path or '(body)'}: unknown tagged field {tag} ({len(raw)} bytes) {h[:64]}"
            + ("..." if len(h) > 64 else "")
        )
    for f in spec.fields:
        if f.struct is None:
            continue
        v = getattr(model, f.py_name, None)
        sub = f"{path}.{f.py_name}" if path else f.py_name
        items = v if f.is_array else (v,)
        for i, item in enumerate(items or ()):
            if item is not None:
                out += unknown_tag_lines(item, f.struct, f"{sub}[{i}]" if f.is_array else sub)
    return out


def tagged_lines(schema: str, version: int, model, indent: str) -> list[str]:
    """The known tagged fields of a body (the tree of :func:`pretty_body` shows the regular ones), in Kafka's JSON:
    ``ClassicMemberMetadata`` of a classic member in a consumer group."""
    from .. import text as _text
    from .models import to_json

    spec = load_message(schema)
    out = []
    for f in spec.root.tagged_at(version):
        v = getattr(model, f.py_name)
        shown = (
            "null (not written)"
            if v is None
            else _text.dumps(to_json(model, schema, version, style="kafka").get(f.json_name), ensure_ascii=True)
        )
        out.append(f"{indent}{f.py_name} (tag {f.tag})  {printable(shown)}")
    return out


def pretty_record(
    record_name: str,
    record_type: int,
    key_schema: str | None,
    key_model,
    value_schema: str | None,
    value_version: int | None,
    value_model,
    *,
    key_version: int = 0,
) -> str:
    """A ``__consumer_offsets`` record (or one of its parts): its type, its key's tree, its value's (a tombstone
    said so) with the value's known tagged fields."""
    from .registry import record_of

    record = record_of(record_name)
    where = "" if record is None or record.coordinator == "group" else f"{record.topic} "
    lines = [f"{record_name} record ({where}type {record_type})"]
    if key_schema is not None:
        lines += ["  " + x for x in pretty_body(key_schema, key_version, key_model).splitlines()]
    if value_schema is not None:
        assert value_version is not None  # a value's schema comes with the version it was read at
        if value_model is None:
            lines.append("  value: null (a tombstone: deleted)")
        else:
            lines += ["  " + x for x in pretty_body(value_schema, value_version, value_model).splitlines()]
            lines += tagged_lines(value_schema, value_version, value_model, "    ")
    return "\n".join(lines)
