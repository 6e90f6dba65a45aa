"""The one lowering (issue #42): each field's wire operation at a version, as Kafka's generator and
``../shared/spec/kafka-wire-facts.md`` (§0.1, §0.2, §7) lay it out; and no other module of ``codec`` decides one."""

from __future__ import annotations

import re

from codec.wire.lowering import lower, regular_ops
from tests.conftest import ROOT


def _op(message: str, version: int, name: str):
    sop = lower(message, version)
    return next(op for op in (*sop.fields, *sop.tagged) if op.name == name)


def test_the_request_header_keeps_its_client_id_classic():
    """§7: ClientId has a field-level flexibleVersions "none": an int16 length even in header v2, nullable."""
    client_id = _op("RequestHeader", 2, "client_id")
    assert (client_id.compact, client_id.length, client_id.nullable) == (False, "int16", True)
    assert lower("RequestHeader", 2).flexible and not lower("RequestHeader", 1).flexible


def test_compact_lengths_from_the_first_flexible_version():
    """§0.2: JoinGroup is flexible from v6: its strings and arrays take uvarint lengths there, int16/int32 before."""
    assert (_op("JoinGroupRequest", 5, "group_id").length, _op("JoinGroupRequest", 6, "group_id").length) == (
        "int16",
        "compact",
    )
    protocols5, protocols6 = _op("JoinGroupRequest", 5, "protocols"), _op("JoinGroupRequest", 6, "protocols")
    assert (protocols5.count, protocols6.count, protocols5.array_nullable) == ("int32", "compact", False)
    assert _op("JoinGroupRequest", 5, "group_instance_id").nullable
    metadata = next(op for op in protocols6.struct.fields if op.name == "metadata")
    assert (metadata.kind, metadata.length) == ("bytes", "compact")


def test_a_nullable_struct_in_a_tagged_field_has_a_uvarint_marker():
    """schemas/README.md: ClassicMemberMetadata (tag 0) is a nullable struct behind a uvarint marker (0 null)."""
    op = _op("ConsumerGroupMemberMetadataValue", 0, "classic_member_metadata")
    assert (op.kind, op.tag, op.nullable, op.marker) == ("struct", 0, True, "uvarint")


def test_java_data_output_has_no_null_and_writes_java_strings():
    """AssignmentInfo (DataOutputStream): int32 counts that are never null, writeUTF strings (uint16 lengths)."""
    ops = list(regular_ops("AssignmentInfo", 7))
    assert all(not op.array_nullable for op in ops if op.array)
    host = next(op for op in ops if op.name == "host")
    assert (host.kind, host.length, host.nullable) == ("javaUTF", "uint16", False)
    assert not lower("AssignmentInfo", 7).flexible


_DECIDES = re.compile(r"flexible_override|\.is_flexible\(|\"compact\" if ")


def test_no_other_module_decides_a_fields_layout():
    """The field-level flexibleVersions override, a message's flexible versions and the compact/int choice are read
    in the lowering alone (the schema module defines them)."""
    found = []
    for path in sorted((ROOT / "codec").rglob("*.py")):
        rel = path.relative_to(ROOT / "codec").as_posix()
        if rel in ("wire/lowering.py", "wire/schema.py"):
            continue
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if _DECIDES.search(line):
                found.append(f"codec/{rel}:{n}: {line.strip()}")
    assert found == []
