"""The mutations of the fuzzer: one random change of a seed at a time.

:func:`mutate` flips bits, truncates, splices with another seed, rewrites a length or count field to an extreme
value (:data:`EXTREMES`), inserts random bytes or duplicates a chunk."""

from __future__ import annotations

import random

__all__ = ["mutate", "EXTREMES"]

#: Values a rewritten length or count field takes: empty, null, negative, one past, and huge.
EXTREMES = (0, 1, -1, -2, 0x7F, 0x80, 0x7FFF, 0x8000, 0xFFFF, 0x7FFFFFFF, -0x80000000, 2_000_000_000)


def mutate(data: bytes, rng: random.Random, pool: list[bytes]) -> bytes:
    """One random mutation of ``data`` (see the module docstring); ``pool``: the seeds a splice takes from."""
    b = bytearray(data)
    op = rng.randrange(7)
    if not b:
        op = 5
    if op == 0:  # flip 1-3 bits
        for _ in range(rng.randint(1, 3)):
            i = rng.randrange(len(b))
            b[i] ^= 1 << rng.randrange(8)
    elif op == 1:  # truncate
        del b[rng.randrange(len(b)) :]
    elif op == 2:  # splice with another seed
        other = rng.choice(pool) if pool else bytes(b)
        b = b[: rng.randrange(len(b) + 1)] + other[rng.randrange(len(other) + 1) :]
    elif op == 3:  # rewrite a 4-byte length/count field
        i = rng.randrange(len(b))
        b[i : i + 4] = (rng.choice(EXTREMES) & 0xFFFFFFFF).to_bytes(4, "big")
    elif op == 4:  # rewrite a 2-byte length field
        i = rng.randrange(len(b))
        b[i : i + 2] = (rng.choice(EXTREMES) & 0xFFFF).to_bytes(2, "big")
    elif op == 5:  # insert random bytes
        i = rng.randrange(len(b) + 1)
        b[i:i] = rng.randbytes(rng.randint(1, 8))
    else:  # duplicate a chunk
        i = rng.randrange(len(b))
        j = min(len(b), i + rng.randint(1, 16))
        b[i:i] = b[i:j]
    return bytes(b)
