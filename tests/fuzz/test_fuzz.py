"""The fuzzing invariant over every decoder: a value or a DecodeError, nothing else, in bounded time.

The default run executes a bounded pass (tens of thousands of inputs: a seeded mutation loop over every
target, plus hypothesis-driven random bytes and mutations, and a render pass taking seeds and decoded
inputs through every output, tests/fuzz/test_render.py); ``pytest -m fuzz`` runs a million inputs and a
long render pass. A long coverage-guided run: ``python tests/fuzz/atheris_harness.py`` (the ``fuzz``
extra). The seeds themselves: tests/fuzz/test_seeds.py."""

from __future__ import annotations

import dataclasses
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from codec.errors import DecodeError
from codec.fuzz import mutate, run, seeds, targets

TARGETS = targets()
SEEDS = seeds()


def test_bounded_mutation_pass():
    report = run(60_000, seed=20241122, differential_check=False)
    assert report.inputs == 60_000
    assert report.violations == [], report.violations[:3]
    assert report.decoded > 1000 and report.rejected > 1000  # the mutations reach both outcomes


def test_bounded_differential_pass():
    """The native and the pure-Python codec give every input the same value or the same error (class,
    message, offset, path): a differential oracle over every target (issue #29; ``-m fuzz`` runs a million)."""
    from codec.wire import native

    if not native.available():
        pytest.skip(f"no native codec: {native.unavailable_reason()}")
    report = run(12_000, seed=29)
    assert report.compared == report.inputs == 12_000
    assert report.violations == [], report.violations[:3]
    assert report.decoded > 1000 and report.rejected > 1000


def test_the_differential_oracle_sees_a_difference():
    """A sibling that can fail: targets that answer differently under the two codecs are caught (another
    value, another error offset, a crash on one side); the same answer is not."""
    from codec.fuzz import differential
    from codec.wire import native

    if not native.available():
        pytest.skip(f"no native codec: {native.unavailable_reason()}")

    def value(b):
        return (native.codec_name(), b)

    def offset(b):
        raise DecodeError("bad", message="M", offset=1 if native.active() else 2, path="f")

    def crash(b):
        if native.active():
            raise IndexError("out of range")
        return b

    assert differential(value, b"x") == "the native and the pure-Python codec decode to different values"
    assert "offset 1" in differential(offset, b"x") and "offset 2" in differential(offset, b"x")
    assert differential(crash, b"x") == "native IndexError: out of range; pure Python a value"
    assert differential(lambda b: dataclasses.replace(Frozen(b)), b"x") is None


@dataclasses.dataclass(frozen=True)
class Frozen:
    b: bytes


def _check(name: str, data: bytes) -> None:
    try:
        TARGETS[name](data)
    except DecodeError:
        pass


@pytest.mark.parametrize(
    "name",
    [
        "subscription-info",
        "assignment-info",
        "consumer-subscription",
        "consumer-assignment",
        "request-frame",
        "frame-stream",
        "pcap",
        "offsets-key-value",
    ],
)
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
    """A million inputs, each through the native and the pure-Python codec (the differential oracle)."""
    report = run(1_000_000, seed=7)
    assert report.inputs == 1_000_000
    assert report.violations == [], report.violations[:3]
