"""Live views of rebalancing (issue #41): ``watch`` a running cluster's ``__consumer_offsets``, and follow a
growing capture (``capture --follow``).

* :mod:`~codec.live.state` — running group state from ``__consumer_offsets`` records, told as each generation
  or epoch completes, in bounded memory;
* :mod:`~codec.live.watch` — the ``watch`` command: the confluent-kafka consumer (the only module that imports it),
  the daemon's behaviour;
* :mod:`~codec.live.config` — the client configuration (``-X``, ``--config``);
* :mod:`~codec.live.metrics` — the Prometheus metrics;
* :mod:`~codec.live.text` — one line per rebalance.

Importing this package imports neither confluent-kafka nor prometheus-client: ``watch`` imports them when it runs
(the ``live`` extra), and says which install brings them when they are missing.
"""

__all__: list[str] = []
