"""The convergence harness now lives in the project (:mod:`codec.assignor.convergence`, issue #19); this
name stays for the tests that import it."""

from codec.assignor.convergence import END_SUM, Cluster

__all__ = ["END_SUM", "Cluster"]
