"""The typed wire models (issue #42): ``codec/wire/messages.pyi`` is what :mod:`codec.wire.stubs` generates from
``schemas/``, and its classes are the ones the codec builds: the same fields, struct by struct."""

from __future__ import annotations

import ast
import dataclasses

from codec.wire import messages
from codec.wire.schema import load_message, schema_names
from codec.wire.stubs import stub_text
from tests.conftest import ROOT

STUB = ROOT / "codec" / "wire" / "messages.pyi"


def test_the_checked_in_stubs_are_the_schemas():
    assert STUB.read_text(encoding="utf-8") == stub_text(), "run `python -m codec.wire.stubs`"


def _stub_classes() -> dict[str, list[str]]:
    """Each class of the stub file (nested ones as ``Outer.Inner``) -> its field names, in order."""
    out: dict[str, list[str]] = {}

    def walk(node: ast.ClassDef, prefix: str) -> None:
        name = prefix + node.name
        out[name] = [s.target.id for s in node.body if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)]
        for s in node.body:
            if isinstance(s, ast.ClassDef):
                walk(s, name + ".")

    for node in ast.parse(STUB.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.ClassDef):
            walk(node, "")
    return out


def test_every_stub_class_is_the_class_the_codec_builds():
    stub = _stub_classes()
    seen = 0
    for name in schema_names():
        root = getattr(messages, f"{name}Data")
        for struct in load_message(name).structs:
            cls = root if struct == name else getattr(root, struct)
            key = f"{name}Data" if struct == name else f"{name}Data.{struct}"
            assert stub[key] == [f.name for f in dataclasses.fields(cls)], key
            seen += 1
    assert seen == len(stub)


def test_a_class_by_name_is_the_decoded_one():
    from codec.group import decode_message

    d = decode_message("HeartbeatRequest", 0, bytes.fromhex("0001670000000100016d"))
    assert type(d.value) is messages.HeartbeatRequestData
    assert messages.JoinGroupRequestData.JoinGroupRequestProtocol().name == ""
    assert "HeartbeatRequestData" in dir(messages)
