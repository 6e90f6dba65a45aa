"""The golden vectors and the conformance gate (``vectors/README.md``; ``vectors/ADAPTERS.md`` for adapter authors).
Its modules are its API, each listing its own names:

* :mod:`~codec.conformance.vectors` — loading and linting the vector files;
* :mod:`~codec.conformance.runner` — every vector against an implementation, with the differences
  (:mod:`~codec.conformance.checks`, each half's check; :mod:`~codec.conformance.evidence`, what a pass needs
  besides);
* :mod:`~codec.conformance.generate`, :mod:`~codec.conformance.rounds` — generated cases and rebalance rounds,
  values nobody wrote down;
* :mod:`~codec.conformance.impl` — implementations under test: the built-in codec, or a program speaking the
  line protocol (:mod:`~codec.conformance.adapter` is the built-in codec behind it);
* :mod:`~codec.conformance.expect`, :mod:`~codec.conformance.reports` — expectations files; table, JUnit and JSON
  reports;
* :mod:`~codec.conformance.crossversion` — ``conformance --cross-version``;
* :mod:`~codec.conformance.rebalance` — whole rebalance rounds as vectors;
* :mod:`~codec.conformance.coverage`, :mod:`~codec.conformance.messages` — what the vectors cover;
* :mod:`~codec.conformance.importer`, :mod:`~codec.conformance.kio_import`, :mod:`~codec.conformance.handcrafted`,
  :mod:`~codec.conformance.handcrafted_group` — where the vector files come from;
* :mod:`~codec.conformance.command` — ``rebalance-codec vectors`` and ``rebalance-codec conformance``.
"""

__all__: list[str] = []  # the package itself re-exports nothing: import from the modules above
