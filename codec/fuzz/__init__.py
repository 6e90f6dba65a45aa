"""The fuzzers (issues #16, #17, #31): every decoder under mutated bytes, the commands under hostile input, and
every command against its budget.

The decoders' invariant (docs/explanations/input-policy.md): whatever bytes come in, every entry point returns a
value or raises :class:`~codec.errors.DecodeError` — nothing else — in bounded time and memory; every output of
a decoded value is sound. Its parts, each re-exported here:

* :mod:`~codec.fuzz.decoders` — :func:`targets`, every decoding entry point by name;
* :mod:`~codec.fuzz.corpus` — :func:`seed_corpus` / :func:`seeds`, inputs for every target (the golden vectors,
  the shared folder's, messages built by the encoders), each a :class:`Seed`;
* :mod:`~codec.fuzz.mutations` — :func:`mutate`, one random mutation;
* :mod:`~codec.fuzz.rendering` — :func:`render`, every output a decoded value reaches;
* :mod:`~codec.fuzz.runner` — :func:`run`, the deterministic loop, and :func:`differential`, the native codec
  against the pure-Python one;
* :mod:`~codec.fuzz.regressions` — the findings kept as ``regression`` vectors (:data:`REGRESSIONS`).

The commands are fuzzed as child processes by :mod:`~codec.fuzz.cli` and held to their output, memory and time
budget by :mod:`~codec.fuzz.amplification`; :mod:`~codec.fuzz.command` is ``rebalance-codec fuzz`` (``--cli``,
``--amplification``). The test suite runs bounded passes, ``pytest -m fuzz`` long ones, and
``tests/fuzz/atheris_harness.py`` a coverage-guided one (the ``fuzz`` extra).
"""

from .corpus import Seed, seed_corpus, seeds, shared_dir
from .decoders import targets
from .mutations import EXTREMES, mutate
from .regressions import REGRESSIONS, regression_vector, regression_vectors, write_regression_vectors
from .rendering import render
from .runner import FuzzReport, Violation, differential, run

__all__ = [
    "targets",
    "seeds",
    "seed_corpus",
    "Seed",
    "shared_dir",
    "mutate",
    "render",
    "run",
    "differential",
    "FuzzReport",
    "Violation",
    "regression_vector",
    "regression_vectors",
    "write_regression_vectors",
    "REGRESSIONS",
    "EXTREMES",
]
