"""The Python libraries a user would otherwise pick, behind one interface: kio and kafka-python.

Each peer gives ``decoder(message, version)`` -> ``f(data) -> object`` and ``encoder(message, version)`` ->
``f(object) -> bytes`` (None where the peer lacks the message or is not installed), and ``plain(object)``
turns its objects into the same plain form as :func:`plain_ours`, so that the benchmark can assert equal
decoded values before timing anything. ConsumerProtocol payloads carry their int16 version prefix.
"""

from __future__ import annotations

import dataclasses
import datetime
import enum
import importlib
import io
import warnings

from codec.wire.builder import to_json

__all__ = ["PEERS", "plain_ours", "peer_versions"]

_MODULES = {  # message -> (kio package, module in it), kafka-python (module, class)
    "JoinGroupRequest": (("join_group", "request"), ("kafka.protocol.consumer.group", "JoinGroupRequest")),
    "JoinGroupResponse": (("join_group", "response"), ("kafka.protocol.consumer.group", "JoinGroupResponse")),
    "SyncGroupRequest": (("sync_group", "request"), ("kafka.protocol.consumer.group", "SyncGroupRequest")),
    "SyncGroupResponse": (("sync_group", "response"), ("kafka.protocol.consumer.group", "SyncGroupResponse")),
    "ConsumerProtocolSubscription": (
        ("consumer_protocol_subscription", "data"),
        ("kafka.protocol.consumer.metadata", "ConsumerProtocolSubscription"),
    ),
    "ConsumerProtocolAssignment": (
        ("consumer_protocol_assignment", "data"),
        ("kafka.protocol.consumer.metadata", "ConsumerProtocolAssignment"),
    ),
}
_RENAMES = {
    "throttle_time": "throttle_time_ms",
    "session_timeout": "session_timeout_ms",
    "rebalance_timeout": "rebalance_timeout_ms",
}
PREFIXED = ("ConsumerProtocolSubscription", "ConsumerProtocolAssignment")


def _quiet_import(name: str):
    # kafka-python uses importlib.resources.read_text at import time (a DeprecationWarning, an error
    # under this repository's filterwarnings); the peers are not ours to fix.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return importlib.import_module(name)


def peer_versions() -> dict[str, str | None]:
    out = {}
    for dist in ("kio", "kafka-python"):
        try:
            from importlib.metadata import version

            out[dist] = version(dist)
        except Exception:  # noqa: BLE001
            out[dist] = None
    return out


def _plain(x):
    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        return {
            _RENAMES.get(f.name, f.name): _plain(getattr(x, f.name))
            for f in dataclasses.fields(x)
            if f.name != "unknown_tagged_fields"
        }
    if hasattr(x, "to_dict") and hasattr(x, "fields"):  # kafka-python's DataContainer
        return {k: _plain(getattr(x, k)) for k in x.to_dict(json=False)}
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    if isinstance(x, datetime.timedelta):
        return int(x / datetime.timedelta(milliseconds=1))
    if isinstance(x, (bytes, bytearray, memoryview)):
        return bytes(x).hex()
    if isinstance(x, enum.Enum):
        return x.value
    if isinstance(x, bool) or x is None or isinstance(x, str):
        return x
    if isinstance(x, int):
        return int(x)
    return x


def plain_ours(obj, message: str, version: int) -> dict:
    """Our wire object in the plain form: the fields of that version, snake_case, bytes as hex."""
    return _plain_json(to_json(obj, message, version, style="native"))


def _plain_json(x):
    if isinstance(x, dict):
        return {k: _plain_json(v) for k, v in x.items() if k != "unknown_tagged_fields"}
    if isinstance(x, list):
        return [_plain_json(v) for v in x]
    return x


class Kio:
    name = "kio"

    def __init__(self) -> None:
        self.serial = _quiet_import("kio.serial")

    def _cls(self, message: str, version: int):
        if message in _MODULES:
            pkg, mod = _MODULES[message][0]
        else:  # Kafka 4's RPCs: kio.schema.<api in snake case>.v<N>.<request|response>
            from codec.wire.schema import snake

            api, _, side = snake(message).rpartition("_")
            pkg, mod = api, side
        try:
            module = _quiet_import(f"kio.schema.{pkg}.v{version}.{mod}")
        except ModuleNotFoundError:
            return None
        return getattr(module, message)

    def decoder(self, message: str, version: int):
        cls = self._cls(message, version)
        if cls is None:
            return None
        read = self.serial.entity_reader(cls)
        start = 2 if message in PREFIXED else 0
        return lambda data: read(data, start)[0]

    def encoder(self, message: str, version: int):
        cls = self._cls(message, version)
        if cls is None:
            return None
        write = self.serial.entity_writer(cls)
        prefix = version.to_bytes(2, "big") if message in PREFIXED else b""

        def encode(obj) -> bytes:
            buf = io.BytesIO()
            buf.write(prefix)
            write(buf, obj)
            return buf.getvalue()

        return encode

    def plain(self, obj, message: str, version: int) -> dict:
        return _plain(obj)

    def kafka_json(self, obj, message: str, version: int) -> dict:
        """kio's value as Kafka's JSON (through :func:`codec.kafka4.kio.kio_to_kafka`, which reads the schema
        table, not this project's decoder)."""
        from codec.kafka4.kio import kio_to_kafka

        value, problems = kio_to_kafka(message, version, _json_plain(obj))
        if problems:
            raise AssertionError(f"kio's {message} v{version} does not fit Kafka's JSON: {problems[:3]}")
        return value


def _json_plain(x):
    """kio's value in the plain JSON of its vectors (UUIDs as strings, durations in ms, bytes hex)."""
    import uuid

    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        return {f.name: _json_plain(getattr(x, f.name)) for f in dataclasses.fields(x)}
    if isinstance(x, (list, tuple)):
        return [_json_plain(v) for v in x]
    if isinstance(x, uuid.UUID):
        return str(x)
    return _plain(x)


class KafkaPython:
    name = "kafka-python"

    def __init__(self) -> None:
        _quiet_import("kafka.protocol.consumer.group")

    def _cls(self, message: str):
        mod, cls = _MODULES[message][1]
        return getattr(_quiet_import(mod), cls)

    def has(self, message: str) -> bool:
        return message in _MODULES

    def decoder(self, message: str, version: int):
        cls = self._cls(message)
        if message in PREFIXED:
            return cls.decode  # reads the int16 version prefix itself
        decode = cls.decode  # its fastest public form: the class's decode with the version as an argument
        return lambda data: decode(data, version=version)

    def encoder(self, message: str, version: int):
        if message in PREFIXED:
            return lambda obj: obj.encode(version=version)
        return lambda obj: obj.encode()

    def plain(self, obj, message: str, version: int) -> dict:
        return _plain(obj)


def _load():
    peers = {}
    for cls in (Kio, KafkaPython):
        try:
            peers[cls.name] = cls()
        except ImportError:
            peers[cls.name] = None  # not installed: reported as missing in the table
    return peers


PEERS = _load()
