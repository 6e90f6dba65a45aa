"""Coverage-guided fuzzing of every decoder with atheris (libFuzzer), for long runs.

    pip install -e '.[fuzz]'
    python tests/fuzz/atheris_harness.py [-atheris_runs=1000000] [-max_total_time=3600] [corpus_dir]

The first input byte picks the target (codec.fuzz.targets, in sorted order); the rest is the input. The
corpus is seeded from codec.fuzz.seeds() (the golden vectors, the shared folder, messages built by the
encoders). Any exception other than DecodeError is a finding: libFuzzer stops and writes the input to
crash-*; turn it into a regression vector (an entry of codec.fuzz.REGRESSIONS, then
`rebalance-codec fuzz --write-regressions vectors/regression.jsonl`) and fix the decoder.
"""

from __future__ import annotations

import os
import sys
import tempfile

import atheris

with atheris.instrument_imports():  # targets() imports the decoders lazily: call it inside, so they are
    from codec.errors import DecodeError  # instrumented for coverage too
    from codec.fuzz import seeds, targets

    TARGETS = targets()
    SEEDS = seeds()
NAMES = sorted(TARGETS)


def one_input(data: bytes) -> None:
    if not data:
        return
    name = NAMES[data[0] % len(NAMES)]
    try:
        TARGETS[name](data[1:])
    except DecodeError:
        pass


def _seed_corpus() -> str:
    directory = tempfile.mkdtemp(prefix="rebalance-codec-corpus-")
    by_name = SEEDS
    for i, name in enumerate(NAMES):
        for j, s in enumerate(by_name.get(name, [])[:50]):
            with open(os.path.join(directory, f"{i:03d}-{j:03d}"), "wb") as f:
                f.write(bytes([i]) + s)
    return directory


if __name__ == "__main__":
    args = sys.argv
    if not any(not a.startswith("-") for a in args[1:]):
        args = args + [_seed_corpus()]
    atheris.Setup(args, one_input)
    atheris.Fuzz()
