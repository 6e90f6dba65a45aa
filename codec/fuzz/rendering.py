"""The render pass of the fuzzer: every output a decoded value reaches, checked.

:func:`render` takes a target's input through the JSON views (``--style kafka`` and ``native``, written by
:func:`codec.text.dumps`, as UTF-8), the pretty view (valid UTF-8, no control characters but the newline), the
Kafka-style round trip (decode, encode the JSON, decode again: the same value; the same bytes for canonical
inputs), the capture story (JSON lines and text) for captures and ``__consumer_offsets`` records, and the
pipeline's Arrow rows; it returns the problems found."""

from __future__ import annotations

import functools
import io
import json
import re
import struct

from ..errors import CodecError, DecodeError
from .decoders import frame_stream

__all__ = ["render", "kind_targets"]


# Text for people may hold a newline and nothing else below U+0020 (nor DEL, C1, U+2028/U+2029).
_CONTROL = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029]")


@functools.cache
def kind_targets() -> frozenset[str]:
    """The command line's kinds, once: a target named after one is read whole by it, with no options (the record
    readers have no kind). Asked for every input rendered, so not rebuilt each time."""
    from ..catalog import kind_names

    return frozenset(kind_names())


def _kind_call(name: str) -> tuple[str, dict]:
    """(CLI kind, decode/encode options) of a target; the record readers have none (:func:`render_outputs` takes
    them through the capture story instead)."""
    from ..conformance.messages import kind_of

    if name in kind_targets():  # a target named after its kind: the kind reads the whole input, no options
        return name, {}
    if name.startswith("connect-"):  # connect-metadata/r0: --version 0 picks the reader
        kind, _, reader = name.partition("/r")
        return kind, {"version": int(reader)}
    if name.startswith("response-frame/"):
        _, key, v = name.split("/")
        return "response-frame", {"api_key": int(key), "version": int(v[1:])}
    if "/v" in name:
        message, v = name.split("/v")
        return kind_of(message), {"version": int(v)}
    raise ValueError(f"the target {name} is a record reader, not a kind")


def _text_problem(what: str, text: str) -> str | None:
    """Why ``text`` (for a terminal) is not fit to print: not UTF-8, or a control character in it."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as e:
        return f"{what} is not valid UTF-8: {e}"
    m = _CONTROL.search(text)
    if m:
        return f"{what} holds the control character {m.group()!r} at {m.start()}: {text[max(0, m.start() - 40) : m.start() + 20]!r}"
    return None


def _json_problem(what: str, value) -> tuple[str | None, object]:
    """(why ``value`` written as the CLI writes JSON is not valid UTF-8 or does not read back the same, or
    None; the value read back from that JSON)."""
    from ..text import dumps

    try:
        out = dumps(value, indent=2)
        out.encode("utf-8")
    except (UnicodeEncodeError, TypeError, ValueError) as e:
        return f"{what}: {type(e).__name__}: {e}", None
    back = json.loads(out)
    return (f"{what} does not read back as the same value" if back != value else None), back


def _comparable(message: str | None, value):
    """A decoded Kafka-style value with Kafka's unordered collections sorted and the derived ``wire`` view
    of a SubscriptionInfo left out (it records the order on the wire, which the encoder chooses anew)."""
    from ..conformance.messages import normalize

    if isinstance(value, dict) and message == "SubscriptionInfo":
        value = {k: v for k, v in value.items() if k != "wire"}
    if isinstance(value, dict) and message in ("ConnectAssignment", "ConnectMetadata"):
        value = _connect_distinct(value)
    return normalize(message, value) if message else value


def _connect_distinct(value: dict) -> dict:
    """A Connect value with each connector named once in ``connectorIds`` and ``revokedConnectorIds`` (also in a
    metadata's ``allocation``): Kafka's writer groups the connectors in a map (``asMap``), so bytes naming one
    twice decode to a list no writer reproduces; the encoder, like Kafka's, writes it once. The revoked tasks
    sorted by connector, keeping their order inside one (Kafka groups them by connector, ``revokedAsMap``, as
    the assigned tasks, which :func:`codec.conformance.messages.normalize` sorts alike)."""
    value = dict(value)
    for k in ("connectorIds", "revokedConnectorIds"):
        if isinstance(value.get(k), list):
            value[k] = sorted(dict.fromkeys(json.dumps(c) for c in value[k]))
    if isinstance(value.get("revokedTaskIds"), list):
        value["revokedTaskIds"] = sorted(
            value["revokedTaskIds"], key=lambda t: json.dumps(t.get("connector") if isinstance(t, dict) else t)
        )
    if isinstance(value.get("allocation"), dict):
        value["allocation"] = _connect_distinct(value["allocation"])
    return value


# What reader 1 reads beyond the v0 layout of an assignment (IncrementalCooperativeConnectProtocol)
_CONNECT_V1_ONLY = ("revokedConnectorIds", "revokedTaskIds", "delay")


def _connect_writable(value: dict, unversioned: bool) -> dict:
    """The part of a Connect value an encoding can reproduce. ``unversioned``: a v0 header read by reader 1,
    encoded at version 1 (Kafka's v0 writer has no room for what reader 1 read), so the versions differ, and
    with them the version of an allocation. An allocation with a v0 header read by reader 1 (Kafka writes the
    allocation at version 1 or 2) is written back at version 0, without reader 1's fields."""
    value = dict(value)
    if unversioned:
        value.pop("version", None)
    alloc = value.get("allocation")
    if isinstance(alloc, dict):
        alloc = dict(alloc)
        if alloc.get("version") == 0:
            for k in _CONNECT_V1_ONLY:
                alloc.pop(k, None)
        if unversioned:
            alloc.pop("version", None)
        value["allocation"] = alloc
    return value


def _order_free(message: str | None, value) -> bool:
    """Whether no unordered collection of the value (vectors/README.md: Kafka writes them in HashMap/HashSet
    order, and the decoded value keeps no order for them) holds two elements or more: only then can a
    re-encoding be asked to reproduce the input byte for byte."""
    if message == "SubscriptionInfo":
        return all(len(value.get(k) or ()) < 2 for k in ("taskOffsetSums", "prevTasks", "standbyTasks", "clientTags"))
    if message == "AssignmentInfo":
        for k in ("standbyTasks", "partitionsByHost", "standbyPartitionsByHost"):
            items = value.get(k) or ()
            if len(items) > 1 or any(len(e.get("partitions") or ()) > 1 for e in items):
                return False
    return True


def _render_kind(name: str, data: bytes, canonical: bool) -> list[str]:
    kind_name, opts = _kind_call(name)
    return _render_as(kind_name, opts, data, canonical)


def _render_as(kind_name: str, opts: dict, data: bytes, canonical: bool) -> list[str]:
    from ..conformance.messages import first_difference
    from ..catalog import get_kind

    kind = get_kind(kind_name)
    problems: list[str] = []
    read_back = {}
    for style in ("kafka", "snake"):
        try:
            d = kind.decode(data, style=style, **opts)
        except DecodeError as e:
            return [f"decode --kind {kind_name} --style {style} rejects what the target accepted: {e}"]
        p, read_back[style] = _json_problem(f"decode --kind {kind_name} --style {style} JSON", d.value)
        if p:
            problems.append(p)
        if style == "kafka":
            value = d.value
            p = _text_problem(f"decode --kind {kind_name} --format pretty", d.pretty)
            if p:
                problems.append(p)
    if read_back["kafka"] is None:
        return problems
    if kind_name == "subscription-info" and value.get("version", 0) > 11:
        return problems  # a version probe: no such version to encode
    encode_opts, unversioned = opts, False
    if kind_name.startswith("consumer-"):  # Kafka's JSON of a ConsumerProtocol message does not carry its
        opts = encode_opts = {**opts, "version": struct.unpack_from(">h", data)[0]}  # version: encode --version N
    elif kind_name.startswith("connect-"):  # decode --version names the reader; encode --version the header,
        header = struct.unpack_from(">h", data)[0]  # but version 1 for a v0 header read by reader 1: Kafka's v0
        unversioned = header == 0 and opts["version"] >= 1  # writer has no room for the fields reader 1 read
        encode_opts = {**opts, "version": 1 if unversioned else header}  # (then the versions differ)
    message = get_kind(kind_name).message
    where = f"encode --kind {kind_name} --style kafka"
    try:
        again = kind.encode(read_back["kafka"], style="kafka", **encode_opts)  # the JSON as the CLI wrote it
    except CodecError as e:
        return problems + [f"{where} refuses the decoded value: {e}"]
    if canonical and again != data and _order_free(message, value):
        problems.append(f"{where} of a canonical input gives other bytes: {again.hex()[:120]}")
    try:
        back = kind.decode(again, style="kafka", **opts).value
        third = kind.encode(back, style="kafka", **encode_opts)
    except CodecError as e:
        return problems + [f"{where}: the re-encoded bytes {again.hex()[:120]} do not decode and encode again: {e}"]
    want, got = _comparable(message, value), _comparable(message, back)
    if kind_name.startswith("connect-"):
        want, got = _connect_writable(want, unversioned), _connect_writable(got, unversioned)
    if got != want:
        diff = first_difference(want, got) or "a field more"
        problems.append(f"{where}: the re-encoded bytes {again.hex()[:120]} decode to another value ({diff})")
    if third != again:
        problems.append(f"{where} is not stable: {again.hex()[:80]} encodes again as {third.hex()[:80]}")
    return problems


def _story_problems(items, summary, kind: str) -> list[str]:
    """The capture story's outputs as ``rebalance-codec capture`` writes them: ``--json`` lines, and the text
    (each generation, the summary)."""
    from ..capture.story import Generation
    from ..capture.storytext import render_generation, render_summary
    from ..text import dumps

    problems = []
    for item in items:
        try:
            dumps(item.json(), default=str).encode("utf-8")
            if isinstance(item, Generation):
                p = _text_problem(f"capture story ({kind}) generation text", render_generation(item))
                if p:
                    problems.append(p)
        except Exception as e:  # noqa: BLE001 - any failure of an output is a finding
            problems.append(f"capture story ({kind}): {type(e).__name__}: {e}")
    try:
        dumps(summary.json()).encode("utf-8")
        p = _text_problem(f"capture story ({kind}) summary text", render_summary(summary, kind, "input"))
        if p:
            problems.append(p)
    except Exception as e:  # noqa: BLE001
        problems.append(f"capture story ({kind}) summary: {type(e).__name__}: {e}")
    return problems


def _render_story(name: str, data: bytes) -> list[str]:
    from ..capture.offsets import read_segment, read_text
    from ..capture.story import CaptureSummary, capture_story, offsets_story

    summary = CaptureSummary()
    try:
        if name == "pcap":
            items, kind = list(capture_story(io.BytesIO(data), ports={9092}, summary=summary)), "pcap"
        elif name == "offsets-segment":
            items, kind = list(offsets_story(read_segment(io.BytesIO(data)), summary=summary)), "segment"
        else:
            n = int.from_bytes(data[:2], "big")
            line = f"{data[2 : 2 + n].hex()}\t{data[2 + n :].hex()}"
            items, kind = list(offsets_story(read_text([line]), summary=summary)), "text"
    except Exception as e:  # noqa: BLE001 - the story reports bad input as records; anything raised is a finding
        return [f"capture story of {name}: {type(e).__name__}: {e}"]
    return _story_problems(items, summary, kind)


def _pipeline_row(name: str, data: bytes) -> dict | None:
    """The pipeline's input record for a target's bytes, or None when the pipeline does not read them."""
    if name in ("subscription-info", "assignment-info", "consumer-subscription", "consumer-assignment"):
        return {"kind": name, "data": data}
    if name == "request-frame" and len(data) >= 4:
        key, v = struct.unpack_from(">hh", data)
        return {"kind": "frame", "data": data, "api_key": key, "version": v, "direction": "request"}
    if name.startswith("response-frame/"):
        _, key, v = name.split("/")
        return {"kind": "frame", "data": data, "api_key": int(key), "version": int(v[1:]), "direction": "response"}
    if name == "offsets-key-value":
        n = int.from_bytes(data[:2], "big")
        return {"kind": "group-metadata", "key": data[2 : 2 + n], "data": data[2 + n :]}
    message, _, v = name.partition("/v")
    if message in _pipeline_bodies():
        from ..wire.registry import kind_name

        return {"kind": kind_name(message), "data": data, "version": int(v)}
    if name.startswith("connect-"):
        return _connect_carrier(name.split("/")[0], data)
    return None


#: the requests that carry a Connect target's bytes into the pipeline, at versions that name the protocol type
#: (SyncGroupRequest from v5), so that the stack goes down into Connect's layer
_CONNECT_CARRIERS = {"connect-metadata": ("JoinGroupRequest", 5), "connect-assignment": ("SyncGroupRequest", 5)}


def _connect_carrier(kind: str, data: bytes) -> dict:
    """A Connect target's bytes as the pipeline meets them: a worker's metadata in a JoinGroupRequest of a group
    of protocol type ``connect``, an assignment in the leader's SyncGroupRequest (the pipeline reads both with
    the v1/v2 deserializer, as every worker since Kafka 2.3 does)."""
    from ..group.messages import encode_message
    from ..wire.builder import wire_class
    from ..wire.registry import kind_name

    message, version = _CONNECT_CARRIERS[kind]
    if message == "JoinGroupRequest":
        body = wire_class(message, message)(
            group_id="g",
            member_id="w",
            protocol_type="connect",
            protocols=(wire_class(message, "JoinGroupRequestProtocol")(name="sessioned", metadata=data),),
        )
    else:
        body = wire_class(message, message)(
            group_id="g",
            generation_id=1,
            member_id="w",
            protocol_type="connect",
            protocol_name="sessioned",
            assignments=(wire_class(message, "SyncGroupRequestAssignment")(member_id="w", assignment=data),),
        )
    return {"kind": kind_name(message), "data": encode_message(message, version, body), "version": version}


@functools.cache
def _pipeline_bodies() -> frozenset[str]:
    """The group bodies the pipeline reads as records of their own: JoinGroup's and SyncGroup's request and response."""
    from ..wire.registry import api_key, apis

    return frozenset(
        m for n in ("JoinGroup", "SyncGroup") for a in (apis()[api_key(n)],) for m in (a.request, a.response) if m
    )


@functools.cache
def _pipeline():
    try:
        from ..pipeline.arrow import decode_table
    except ImportError:  # pyarrow is the spark extra's
        return None
    return decode_table


def rows_problems(batch: list[tuple[str, bytes]]) -> list[tuple[int, str]]:
    """The pipeline's Arrow rows of many inputs at once (one table: a table per input costs a millisecond);
    (index in ``batch``, problem) for each input whose rows fail. A failing table is retried input by input
    to find the culprits."""
    decode_table = _pipeline()
    rows = [(i, r) for i, (name, data) in enumerate(batch) if (r := _pipeline_row(name, data)) is not None]
    if decode_table is None or not rows:
        return []
    try:
        table = decode_table([{**r, "record_id": str(i)} for i, r in rows]).to_pylist()
    except Exception as e:  # noqa: BLE001 - the pipeline quarantines bad records; anything raised is a finding
        if len(rows) == 1:
            return [(rows[0][0], f"pipeline rows: {type(e).__name__}: {e}")]
        return [(i, q) for i, _ in rows for _, q in rows_problems([batch[i]])]
    problems = []
    strict = {
        i
        for i, (name, data) in enumerate(batch)
        if name in ("subscription-info", "assignment-info") or _connect_read_by_pipeline(name, data)
    }
    for r in table:
        i = int(r["record_id"])
        if i in strict and r.get("error_type"):
            problems.append(
                (i, f"pipeline rows: quarantined what the codec decodes: {r['error_type']}: {r['error_message']}")
            )
    return problems


def _connect_read_by_pipeline(name: str, data: bytes) -> bool:
    """Whether a Connect target's bytes are read by the v1/v2 deserializer (the pipeline's): then the pipeline
    must not quarantine them."""
    if not name.startswith("connect-"):
        return False
    from ..connect import decode_connect_assignment, decode_connect_metadata

    decode = decode_connect_metadata if name.startswith("connect-metadata") else decode_connect_assignment
    try:
        decode(data, reader_version=1)
    except CodecError:
        return False
    return True


def render_outputs(name: str, data: bytes, canonical: bool) -> list[str]:
    """Every output but the pipeline's rows (see :func:`render`)."""
    if name in ("pcap", "offsets-segment", "offsets-key-value"):
        return _render_story(name, data)
    if name == "share-state-record":  # a __share_group_state record: its key and its value, each as its kind
        from ..conformance.messages import kind_of
        from ..wire.registry import record_types

        n = int.from_bytes(data[:2], "big")
        key, value = data[2 : 2 + n], data[2 + n :]
        record = record_types("share")[int.from_bytes(key[:2], "big", signed=True)]
        return _render_as(kind_of(record.key), {}, key, canonical) + (
            _render_as(kind_of(record.name + "Value"), {}, value, canonical) if value else []
        )
    if name == "frame-stream":
        from ..group import decode_request_frame

        problems = []
        for frame in frame_stream(data):
            try:
                decode_request_frame(frame)
            except DecodeError:
                continue
            problems += _render_kind("request-frame", frame, False)
        return problems
    return _render_kind(name, data, canonical)


def render(name: str, data: bytes, *, canonical: bool = False) -> list[str]:
    """Every output of a value the target ``name`` (:func:`codec.fuzz.decoders.targets`) decoded from ``data``
    (see the module docstring); the problems found, empty when every output is sound. ``canonical``: the input
    is canonical (its vector says so, or the encoder wrote it), so re-encoding must give ``data`` back wherever
    the value has no unordered collection of two elements or more."""
    return render_outputs(name, data, canonical) + [p for _, p in rows_problems([(name, data)])]
