"""kafka-python behind rebalance-codec's conformance line protocol: a worked example for client authors.

    pip install kafka-python==3.0.12 rebalance-codec
    rebalance-codec conformance --impl 'python adapter.py' --expect expect.txt

Reads one JSON request a line on stdin and answers one JSON line on stdout, flushed, until stdin closes; each
reply echoes its request's "id" (the line protocol's version 2).
Every byte is read and written by kafka-python's own protocol classes; this file only translates between
them and the protocol's values: Kafka's JSON shape (camelCase names, bytes as base64, unknown tagged fields as
"_unknownTaggedFields", tag -> hex), wire as hex. What kafka-python does not implement is declined with
{"unsupported": "..."}, which the runner skips.

On top of kafka-python, two rules Kafka's generated classes enforce and kafka-python does not, read from the same
message JSON kafka-python builds its classes from (cls._json), so they follow whatever that JSON says:

* nullability: a null where the field is not nullable at that version is refused, read or written (kafka-python
  reads -1 there as None, and writes None as -1);
* ignorable: a non-default value for a field the version lacks is refused unless the field is "ignorable"
  (kafka-python leaves any such field out and says nothing).
"""

import base64
import io
import json
import sys

from kafka.protocol.api_header import RequestHeader, ResponseHeader
from kafka.protocol.consumer import group, metadata

VERSION = "kafka-python 3.0.12"
CLASSES = {
    c.__name__: c
    for c in (
        group.JoinGroupRequest,
        group.JoinGroupResponse,
        group.SyncGroupRequest,
        group.SyncGroupResponse,
        group.HeartbeatRequest,
        group.HeartbeatResponse,
        group.LeaveGroupRequest,
        group.LeaveGroupResponse,
        metadata.ConsumerProtocolSubscription,
        metadata.ConsumerProtocolAssignment,
    )
}
# Whole frames without their int32 size: a request names its API key in its header; a response does not,
# so the runner passes it as "apiKey". kafka-python reads both headers itself (decode(header=True)).
FRAMES = {
    ("RequestFrame" if c.is_request() else "ResponseFrame", c.API_KEY): c
    for c in CLASSES.values()
    if hasattr(c, "API_KEY")
}


def _camel(field):  # Kafka's JSON name: the schema's field name with its first letter lower-case
    return field._name[0].lower() + field._name[1:]


# --- Kafka's nullability and ignorable rules, from kafka-python's message JSON ----------------------------------


def _in(text, version):
    """Whether a version range of the message JSON ("3+", "1-5", "2", "none"; absent: none) holds ``version``."""
    if text is None or text == "none":
        return False
    if text.endswith("+"):
        return version >= int(text[:-1])
    lo, _, hi = text.partition("-")
    return int(lo) <= version <= int(hi or lo)


def _is_default(field, value):
    """Whether ``value`` (Kafka's JSON shape) is the default Kafka gives ``field`` where a version lacks it."""
    d, t = field.get("default"), field["type"]
    if value is None or d == "null":
        return value is None and d == "null"
    if t.startswith("[]"):
        return value == []
    if "fields" in field:
        return isinstance(value, dict) and all(
            _is_default(f, value[_json_name(f)]) for f in field["fields"] if _json_name(f) in value
        )
    if t == "bool":
        return value is (d in (True, "true"))
    if t in ("string", "bytes"):
        return value == (d or "")
    if t == "uuid":
        return value == "AAAAAAAAAAAAAAAAAAAAAA"
    return value == (int(d, 0) if isinstance(d, str) else d or 0)


def _json_name(field_json):
    return field_json["name"][0].lower() + field_json["name"][1:]


def kafka_rules(fields, value, version, writing, path=""):
    """The first breach of Kafka's rules in ``value`` (Kafka's JSON shape) at ``version``, or None."""
    for f in fields:
        key = _json_name(f)
        if not isinstance(value, dict) or key not in value:
            continue
        x, where = value[key], f"{path}{key}"
        if _in(f.get("versions"), version):
            if x is None and not _in(f.get("nullableVersions"), version):
                return f"non-nullable field {where} is null at version {version}"
            for i, item in enumerate(x if f["type"].startswith("[]") and "fields" in f and x else []):
                problem = kafka_rules(f["fields"], item, version, writing, f"{where}[{i}].")
                if problem:
                    return problem
            if "fields" in f and not f["type"].startswith("[]") and x is not None:
                problem = kafka_rules(f["fields"], x, version, writing, f"{where}.")
                if problem:
                    return problem
        elif writing and not f.get("ignorable") and not _is_default(f, x):
            return f"a non-default {where} at version {version}, which lacks it (not ignorable)"
    return None


def checked(cls, value, version, writing):
    """``value``, or an error answer when it breaks Kafka's rules for ``cls`` at ``version``."""
    problem = kafka_rules(cls._json["fields"], value, version, writing)
    return {"error": {"message": f"{cls.__name__}: {problem}"}} if problem else None


def to_json(obj, struct, version):
    """A kafka-python data object as Kafka's JSON: the fields this version has, bytes as base64."""
    out = {}
    for f in struct.fields.values():
        if not f.for_version_q(version):
            continue
        v = getattr(obj, f.name)
        if v is not None and f.is_struct_array():
            v = [to_json(item, f, version) for item in v]
        elif v is not None and f.is_struct():
            v = to_json(v, f, version)
        elif v is not None and f.type_str == "bytes":
            v = base64.b64encode(bytes(v)).decode("ascii")
        out[_camel(f)] = v
    unknown = getattr(obj, "unknown_tags", None)  # kafka-python keeps the tags it does not know as "_<tag>"
    if unknown:
        out["_unknownTaggedFields"] = {name[1:]: bytes(raw).hex() for name, raw in unknown.items()}
    return out


def from_json(value, struct, make):
    """Kafka's JSON as a kafka-python data object, built the way a caller of the library builds one:
    every field the value sets is passed on, whether or not the version has it."""
    kwargs = {}
    for f in struct.fields.values():
        if _camel(f) not in value:
            continue
        v = value[_camel(f)]
        if v is not None and f.is_struct_array():
            v = [from_json(item, f, f.data_class) for item in v]
        elif v is not None and f.is_struct():
            v = from_json(v, f, f.data_class)
        elif v is not None and f.type_str == "bytes":
            v = base64.b64decode(v)
        kwargs[f.name] = v
    for tag, raw in (value.get("_unknownTaggedFields") or {}).items():  # kafka-python's keyword for them
        kwargs[f"_{tag}"] = bytes.fromhex(raw)
    return make(**kwargs)


HEADERS = {"RequestHeader": (RequestHeader, (1, 2)), "ResponseHeader": (ResponseHeader, (0, 1))}  # kafka-python's


def header_version(cls, version):  # kafka-python's choice: the flexible versions take the newer header
    return (2 if cls.flexible_version_q(version) else 1) if cls.is_request() else int(cls.flexible_version_q(version))


def capabilities():
    """The answer to the optional first request: op x message x versions this adapter does."""
    caps = [
        {"op": ["decode", "encode"], "message": name, "versions": f"0-{c.max_version}"} for name, c in CLASSES.items()
    ]
    caps += [
        {"op": ["decode", "encode"], "message": name, "versions": f"{lo}-{hi}"}
        for name, (_, (lo, hi)) in HEADERS.items()
    ]
    for frame in ("RequestFrame", "ResponseFrame"):  # per API key, the versions are checked in answer()
        newest = max(c.max_version for (f, _), c in FRAMES.items() if f == frame)
        caps.append({"op": ["decode", "encode"], "message": frame, "versions": f"0-{newest}"})
    return {"capabilities": caps}


def answer(req):
    op, message, version = req.get("op"), req.get("message"), req.get("version")
    if op == "capabilities":
        return capabilities()
    if op not in ("decode", "encode"):
        return {"unsupported": f"{VERSION} has no {op}"}
    if message in HEADERS:
        cls, (lo, hi) = HEADERS[message]
        if not lo <= version <= hi:
            return {"unsupported": f"{VERSION} has no {message} v{version}"}
        if op == "decode":
            value = to_json(
                cls.decode(io.BytesIO(bytes.fromhex(req["wire"])), flexible=version == hi), cls._struct, version
            )
            return checked(cls, value, version, False) or {"value": value}
        return checked(cls, req["value"], version, True) or {
            "wire": from_json(req["value"], cls._struct, cls).encode(flexible=version == hi).hex()
        }
    if message in ("RequestFrame", "ResponseFrame"):
        return frame(req)
    cls = CLASSES.get(message)
    if cls is None or not 0 <= version <= cls.max_version:
        return {"unsupported": f"{VERSION} has no {message} v{version}"}
    if op == "decode":
        if message.startswith("ConsumerProtocol"):  # these bodies start with their int16 version
            obj = cls.decode(bytes.fromhex(req["wire"]), header=True)
        else:
            obj = cls.decode(bytes.fromhex(req["wire"]), version=version)
        value = to_json(obj, cls._struct, obj.version)
        return checked(cls, value, obj.version, False) or {"value": value}
    problem = checked(cls, req["value"], version, True)
    if problem:
        return problem
    obj = from_json(req["value"], cls._struct, lambda **kw: cls(version=version, **kw))
    return {"wire": obj.encode(version=version).hex()}


def frame(req):
    """A whole frame without its int32 size: header, then body. kafka-python reads and writes the header
    itself (decode/encode with header=True; with_header() is how its client sets one)."""
    message, version = req["message"], req["version"]
    if message == "RequestFrame":  # a request names its API key first; a response does not
        key = req["value"]["apiKey"] if req["op"] == "encode" else int.from_bytes(bytes.fromhex(req["wire"])[:2], "big")
    else:
        key = req.get("apiKey")
    cls = FRAMES.get((message, key))
    if cls is None or not 0 <= version <= cls.max_version:
        return {"unsupported": f"{VERSION} has no {message} of API key {key} v{version}"}
    hv = header_version(cls, version)
    if req["op"] == "decode":
        obj = cls.decode(bytes.fromhex(req["wire"]), version=version, header=True)
        header, body = to_json(obj.header, obj.header_class._struct, hv), to_json(obj, cls._struct, version)
        return (
            checked(obj.header_class, header, hv, False)
            or checked(cls, body, version, False)
            or {"value": {"apiKey": key, "apiVersion": version, "headerVersion": hv, "header": header, "body": body}}
        )
    value = req["value"]
    problem = checked(cls.header_class, value["header"], hv, True) or checked(cls, value["body"], version, True)
    if problem:
        return problem
    obj = from_json(value["body"], cls._struct, lambda **kw: cls(version=version, **kw))
    header = value["header"]
    if cls.is_request():
        obj.with_header(correlation_id=header["correlationId"], client_id=header.get("clientId"))
    else:
        obj.with_header(correlation_id=header["correlationId"])
    return {"wire": obj.encode(header=True).hex()}  # (the version is the object's)


def main():
    for line in sys.stdin:
        if not line.strip():
            continue
        req = json.loads(line)
        try:
            resp = answer(req)
        except Exception as e:  # noqa: BLE001 -- kafka-python refused the input: that is an answer, not a crash
            resp = {"error": {"message": f"{type(e).__name__}: {e}"}}
        sys.stdout.write(json.dumps({"id": req["id"], **resp}) + "\n")  # protocol 2: echo the request's id
        sys.stdout.flush()  # one reply a request, flushed at once: the runner waits for the newline
    return 0


if __name__ == "__main__":
    sys.exit(main())
