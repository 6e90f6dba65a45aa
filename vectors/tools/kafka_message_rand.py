"""Random Kafka-style JSON for a message at every version, from the schema (all fields filled; Kafka's
JsonConverter at version v keeps those of v)."""

import base64
import json
import random
import re
import sys

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[2]))
from codec.wire.registry import load_message  # noqa


def camel(n):
    return n[0].lower() + n[1:]


WORDS = ["orders", "payments", "x", "alpha", "TOPIC_42", "gamma", "é-ü", "group.a", "consumer-1"]


def rstr(rng):
    k = rng.random()
    if k < 0.1:
        return ""
    return ".".join(rng.choice(WORDS) + str(rng.randrange(1000)) for _ in range(rng.randint(1, 3)))


def rint(rng, bits):
    k = rng.random()
    lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    if k < 0.15:
        return rng.choice([lo, hi, 0, -1])
    return rng.randint(max(lo, -1000), min(hi, 100000))


def val(t, f, rng, structs, depth):
    if f.get("nullableVersions") and rng.random() < 0.15:
        return None
    if t.startswith("[]"):
        et = t[2:]
        ef = {k: x for k, x in f.items() if k != "nullableVersions"}
        return [
            val(et, ef, rng, structs, depth + 1)
            if et in PRIMS
            else struct(f.get("fields") or structs[et], rng, structs, depth + 1)
            for _ in range(rng.randint(0, 3 if depth < 2 else 1))
        ]
    if t == "int8":
        return rint(rng, 8)
    if t == "int16":
        return rint(rng, 16)
    if t == "uint16":
        return rng.randint(0, 65535)
    if t == "int32":
        return rint(rng, 32)
    if t == "int64":
        return rint(rng, 64)
    if t == "bool":
        return rng.random() < 0.5
    if t == "string":
        return rstr(rng)
    if t == "float64":
        return rng.random()
    if t == "uuid":
        b = bytes(rng.getrandbits(8) for _ in range(16))
        if rng.random() < 0.2:
            b = bytes(16)
        return base64.urlsafe_b64encode(b).decode().rstrip("=")
    if t in ("bytes", "records"):
        return base64.b64encode(bytes(rng.getrandbits(8) for _ in range(rng.randint(0, 12)))).decode()
    return struct(f.get("fields") or structs[t], rng, structs, depth + 1)


PRIMS = {"int8", "int16", "uint16", "int32", "int64", "bool", "string", "float64", "uuid", "bytes", "records"}
V = [0]


def inv(spec, v):
    if spec in (None, "", "none"):
        return False
    if spec.endswith("+"):
        return v >= int(spec[:-1])
    a, _, b = spec.partition("-")
    return int(a) <= v <= int(b or a)


def struct(fields, rng, structs, depth):
    if isinstance(fields, dict):
        fields = fields["fields"]
    out = {}
    for f in fields:
        # a tagged field without "versions" (StreamsGroupMetadataValue's LastAssignmentConfigs): Kafka's generator
        # takes its taggedVersions
        if not inv(f.get("versions", f.get("taggedVersions")), V[0]):
            continue
        if f.get("nullableVersions") and not inv(f["nullableVersions"], V[0]):
            f = {k: x for k, x in f.items() if k != "nullableVersions"}
        out[camel(f["name"])] = val(f["type"], f, rng, structs, depth)
    return out


def main(path, seed, n, pkg=None):
    raw = json.loads(re.sub(r"(?m)^\s*//.*$", "", open(path).read()))
    structs = {s["name"]: s for s in raw.get("commonStructs", [])}
    lo, _, hi = raw["validVersions"].partition("-")
    rng = random.Random(seed)
    for v in range(int(lo), int(hi or lo) + 1):
        V[0] = v
        for i in range(n):
            o = {
                "kind": raw["name"],
                "version": v,
                "seed": seed,
                "index": i,
                "data": struct(raw["fields"], rng, structs, 0),
            }
            if pkg:
                o["pkg"] = pkg
            print(json.dumps(o, ensure_ascii=False))


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), *(sys.argv[4:5]))
