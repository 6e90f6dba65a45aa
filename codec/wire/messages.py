"""The wire models of every message by name: ``codec.wire.messages.HeartbeatRequestData``, with its structs as
attributes (``JoinGroupRequestData.JoinGroupRequestProtocol``). Their types are ``messages.pyi`` (generated from
``schemas/``: :mod:`codec.wire.stubs`); the classes are :func:`codec.wire.models.wire_class`'s, made on first use.
"""

from __future__ import annotations

from .models import wire_class
from .schema import load_message, schema_names

__all__: list[str] = []  # (every ``<Message>Data`` of schemas/, by attribute)


def __getattr__(name: str) -> type:
    message = name.removesuffix("Data")
    if not name.endswith("Data") or message not in schema_names():
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    cls = wire_class(message, message)
    for struct in load_message(message).structs:
        if struct != message and struct not in cls.__dict__:
            setattr(cls, struct, wire_class(message, struct))
    return cls


def __dir__() -> list[str]:
    return [f"{n}Data" for n in schema_names()]
