"""The fuzzers (issues #16, #17, #31): every decoder under mutated bytes, the commands under hostile input, and
every command against its output, memory and time budget."""

from .corpus import (EXTREMES, REGRESSIONS, FuzzReport, Seed, Violation, differential, mutate, regression_vector,
                     regression_vectors, render, run, seed_corpus, seeds, shared_dir, targets,
                     write_regression_vectors)

__all__ = ["targets", "seeds", "seed_corpus", "Seed", "shared_dir", "mutate", "render", "run", "differential",
           "FuzzReport", "Violation", "regression_vector", "regression_vectors", "write_regression_vectors",
           "REGRESSIONS", "EXTREMES"]
