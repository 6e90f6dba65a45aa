"""Implementations under test: the built-in codec, or any program speaking the line protocol.

The line protocol (vectors/README.md): one JSON request per line on the program's stdin, one JSON
response per line on its stdout, in order::

    {"op": "decode", "message": "SubscriptionInfo", "version": 7, "wire": "<hex>"}
    {"op": "decode", ..., "readerVersion": 6}           # optional: decode as a reader whose newest version is 6
    {"op": "decode", "message": "ResponseFrame", "apiKey": 14, "version": 3, "wire": "<hex>"}  # responses name neither
    {"op": "encode", "message": "SubscriptionInfo", "version": 7, "value": {...}}
    {"op": "assign", "round": {...}}   # a rebalance round without its "assignments" (vectors/rebalance/)

    {"value": {...}}  |  {"wire": "<hex>"}  |  {"assignments": {"<member id>": "<hex>", ...}}
    |  {"error": {"message": "...", "offset": 12}}
"""

from __future__ import annotations

import json
import shlex
import subprocess
from dataclasses import dataclass
from typing import Any, Protocol

from .. import text as _text
from ..errors import CodecError
from ..kinds import get_kind
from .messages import kind_of

__all__ = ["Outcome", "Implementation", "BuiltinImplementation", "CommandImplementation", "handle_request"]


@dataclass(frozen=True)
class Outcome:
    value: Any = None  # decode: the JSON value; encode: bytes
    error: dict | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


class Implementation(Protocol):
    name: str

    def decode(self, message: str, version: int | None, wire: bytes, reader_version: int | None = None,
               api_key: int | None = None) -> Outcome: ...

    def encode(self, message: str, version: int | None, value: dict, api_key: int | None = None) -> Outcome: ...

    def assign(self, round_: dict) -> Outcome: ...

    def close(self) -> None: ...


def handle_request(req: dict) -> dict:
    """Answer one line-protocol request with the built-in codec (the reference adapter's core)."""
    try:
        if req.get("op") == "assign":
            from .rebalance import run_round

            return {"assignments": {m: b.hex() for m, b in run_round(req["round"]).items()}}
        kind = get_kind(kind_of(req["message"]))
        version = req.get("version")
        opts = {"api_key": req["apiKey"]} if req.get("apiKey") is not None else {}
        if req["op"] == "decode":
            wire = bytes.fromhex(req["wire"])
            if req.get("readerVersion") is not None:
                opts["latest"] = req["readerVersion"]
            return {"value": kind.decode(wire, style="kafka", version=version, **opts).value}
        if req["op"] == "encode":
            return {"wire": kind.encode(req["value"], style="kafka", version=version, **opts).hex()}
        return {"error": {"message": f"unknown op {req['op']!r}", "offset": None}}
    except CodecError as e:
        j = e.to_json()
        return {"error": {"message": j["message"], "offset": j["offset"], "path": j["path"]}}
    except (KeyError, ValueError, TypeError) as e:  # AssignmentError is a ValueError
        return {"error": {"message": f"bad request: {e}", "offset": None}}


class BuiltinImplementation:
    name = "rebalance-codec (built-in)"

    def decode(self, message, version, wire, reader_version=None, api_key=None) -> Outcome:
        return _outcome(handle_request({"op": "decode", "message": message, "version": version, "wire": wire.hex(),
                                        "readerVersion": reader_version, "apiKey": api_key}))

    def encode(self, message, version, value, api_key=None) -> Outcome:
        return _outcome(handle_request({"op": "encode", "message": message, "version": version, "value": value,
                                        "apiKey": api_key}))

    def assign(self, round_: dict) -> Outcome:
        return _outcome(handle_request({"op": "assign", "round": round_}))

    def close(self) -> None:
        pass


def _outcome(resp: dict) -> Outcome:
    if "error" in resp:
        err = resp["error"] if isinstance(resp["error"], dict) else {"message": str(resp["error"])}
        return Outcome(error=err)
    if "wire" in resp:
        try:
            return Outcome(value=bytes.fromhex(resp["wire"]))
        except (TypeError, ValueError):
            return Outcome(error={"message": f"adapter answered a wire that is not hex: {resp['wire']!r}"})
    if "value" in resp:
        return Outcome(value=resp["value"])
    if "assignments" in resp:
        try:
            return Outcome(value={m: bytes.fromhex(h) for m, h in resp["assignments"].items()})
        except (AttributeError, TypeError, ValueError):
            return Outcome(error={"message": "adapter answered assignments that are not {member: hex}"})
    return Outcome(error={"message": f"adapter answered neither value, wire nor error: {resp!r}"})


class CommandImplementation:
    """Any program that speaks the line protocol, started once and fed one request per line."""

    def __init__(self, command: str) -> None:
        self.name = command
        self.proc = subprocess.Popen(shlex.split(command), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True, encoding="utf-8", bufsize=1)

    def _ask(self, req: dict) -> Outcome:
        assert self.proc.stdin and self.proc.stdout
        try:
            self.proc.stdin.write(_text.dumps(req) + "\n")
            self.proc.stdin.flush()
            line = self.proc.stdout.readline()
        except BrokenPipeError:
            line = ""
        if not line:
            return Outcome(error={"message": f"adapter exited (status {self.proc.poll()}) without answering"})
        try:
            return _outcome(json.loads(line))
        except json.JSONDecodeError:
            return Outcome(error={"message": f"adapter answered a line that is not JSON: {line[:200]!r}"})

    def decode(self, message, version, wire, reader_version=None, api_key=None) -> Outcome:
        req = {"op": "decode", "message": message, "version": version, "wire": wire.hex()}
        if reader_version is not None:
            req["readerVersion"] = reader_version
        if api_key is not None:
            req["apiKey"] = api_key
        return self._ask(req)

    def encode(self, message, version, value, api_key=None) -> Outcome:
        req = {"op": "encode", "message": message, "version": version, "value": value}
        if api_key is not None:
            req["apiKey"] = api_key
        return self._ask(req)

    def assign(self, round_: dict) -> Outcome:
        return self._ask({"op": "assign", "round": round_})

    def close(self) -> None:
        if self.proc.stdin:
            try:
                self.proc.stdin.close()
            except BrokenPipeError:
                pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        if self.proc.stdout:
            self.proc.stdout.close()
