"""The fuzzing invariant over every decoder: a value or a DecodeError, nothing else, in bounded time.

The default run executes a bounded pass (tens of thousands of inputs: a seeded mutation loop over every
target, plus hypothesis-driven random bytes and mutations, and a render pass taking seeds and decoded
inputs through every output, tests/fuzz/test_render.py); ``pytest -m fuzz`` runs a million inputs and a
long render pass. A long coverage-guided run: ``python tests/fuzz/atheris_harness.py`` (the ``fuzz``
extra). The seeds themselves: tests/fuzz/test_seeds.py."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from codec.errors import DecodeError
from codec.fuzz import mutate, run, seeds, targets

TARGETS = targets()
SEEDS = seeds()


def test_bounded_mutation_pass():
    report = run(60_000, seed=20241122)
    assert report.inputs == 60_000
    assert report.violations == [], report.violations[:3]
    assert report.decoded > 1000 and report.rejected > 1000  # the mutations reach both outcomes


def _check(name: str, data: bytes) -> None:
    try:
        TARGETS[name](data)
    except DecodeError:
        pass


@pytest.mark.parametrize("name", ["subscription-info", "assignment-info", "consumer-subscription",
                                  "consumer-assignment", "request-frame", "frame-stream", "pcap",
                                  "offsets-key-value"])
@settings(max_examples=250)
@given(data=st.data())
def test_hypothesis_mutations(name, data):
    pool = SEEDS[name]
    raw = data.draw(st.sampled_from(pool))
    rng = random.Random(data.draw(st.integers(0, 2**32)))
    for _ in range(data.draw(st.integers(1, 4))):
        raw = mutate(raw, rng, pool)
    _check(name, raw)


@pytest.mark.parametrize("name", sorted(TARGETS))
@settings(max_examples=20)
@given(raw=st.binary(max_size=96))
def test_hypothesis_random_bytes(name, raw):
    _check(name, raw)


@pytest.mark.fuzz
def test_a_million_inputs():
    report = run(1_000_000, seed=7)
    assert report.inputs == 1_000_000
    assert report.violations == [], report.violations[:3]
