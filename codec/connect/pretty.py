"""Readable views of Connect metadata and assignments (``--format pretty``).

Every string off the wire (URLs, member ids, connector names) is shown quoted, through
:func:`codec.text.printable`, so that no name can add a line or drive the terminal.
"""

from __future__ import annotations

from ..text import printable
from .assignment import ConnectAssignment
from .constants import CONNECT_PROTOCOL_V0, ConnectError, protocol_name, reader_name
from .metadata import ConnectMetadata

__all__ = ["pretty_connect_assignment", "pretty_connect_metadata"]


def _q(s: str | None) -> str:
    return "null" if s is None else '"' + printable(s).replace('"', '\\"') + '"'


_WIDTH = len("config offset")


def _rows(rows: list[tuple[str, str]], indent: str) -> list[str]:
    return [f"{indent}{k.ljust(_WIDTH)}  {v}" for k, v in rows]


def _head(message: str, version: int | None, reader_version: int | None, size: int | None, trailing: int) -> str:
    head = f"{message} v{version}"
    name = protocol_name(version) if version is not None else None
    reader = reader_version if reader_version is not None else version
    what = [f"group protocol {name}" if name else "a version no Kafka release writes"]
    if reader is not None:
        what.append(f"read as {reader_name(reader)}")
    head += f"  ({'; '.join(what)})"
    if size is not None:
        head += f"  {size} bytes"
    if trailing:
        head += f"\n  note: {trailing} trailing bytes ignored (as Kafka ignores them)"
    return head


def _error(code: int) -> str:
    try:
        return f"{code} {ConnectError(code).name}"
    except ValueError:
        return f"{code} (unknown to Kafka: the worker treats any non-zero error as a failed assignment)"


def _grouped(connectors, tasks, indent: str, what: str = "") -> list[str]:
    lines = [f"{indent}{what}connectors ({len(connectors)}): " + (", ".join(_q(c) for c in connectors) or "(none)")]
    by_connector: dict[str, list[int]] = {}
    for t in tasks:
        by_connector.setdefault(t.connector, []).append(t.task)
    lines.append(f"{indent}{what}tasks ({len(tasks)}):" + ("" if tasks else " (none)"))
    for c, ids in by_connector.items():
        lines.append(f"{indent}  {_q(c)}: {', '.join(map(str, ids))}")
    return lines


def _assignment_lines(a: ConnectAssignment, extended: bool, indent: str) -> list[str]:
    lines = _rows(
        [
            ("error", _error(a.error)),
            ("leader", f"{_q(a.leader)} at {_q(a.leader_url)}"),
            ("config offset", str(a.config_offset)),
        ],
        indent,
    )
    lines += _grouped(a.connectors, a.tasks, indent)
    if extended:
        lines += _grouped(a.revoked_connectors, a.revoked_tasks, indent, "revoked ")
        lines += _rows([("delay", f"{a.delay} ms" if a.delay else "0 (no rebalance scheduled)")], indent)
    return lines


def pretty_connect_assignment(
    info: ConnectAssignment, *, reader_version: int | None = None, size: int | None = None, trailing: int = 0
) -> str:
    reader = reader_version if reader_version is not None else info.version
    lines = [_head("ConnectAssignment", info.version, reader_version, size, trailing)]
    lines += _assignment_lines(info, reader != CONNECT_PROTOCOL_V0, "  ")
    return "\n".join(lines)


def pretty_connect_metadata(
    info: ConnectMetadata, *, reader_version: int | None = None, size: int | None = None, trailing: int = 0
) -> str:
    reader = reader_version if reader_version is not None else info.version
    lines = [_head("ConnectMetadata", info.version, reader_version, size, trailing)]
    lines += _rows([("url", _q(info.url)), ("config offset", str(info.config_offset))], "  ")
    if reader != CONNECT_PROTOCOL_V0:
        a = info.allocation
        if a is None:
            lines += _rows([("allocation", "null (no previous assignment: Kafka's empty assignment)")], "  ")
        else:
            lines += _rows([("allocation", f"the previous assignment, ConnectAssignment v{a.version}:")], "  ")
            lines += _assignment_lines(a, True, "    ")
    return "\n".join(lines)
