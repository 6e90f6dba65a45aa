"""The wire layer every message is built on, from the declarative tables in ``schemas/``. Its modules are its API,
each listing its own names:

* :mod:`~codec.wire.primitives` — Kafka's binary primitives as construct classes, with offsets and field paths in
  every error;
* :mod:`~codec.wire.schema` — loading the schema tables;
* :mod:`~codec.wire.builder` — a table to construct structures and wire models, one per message, struct and
  version;
* :mod:`~codec.wire.fastpath` — straight-line Python generated from the same tables (``REBALANCE_CODEC_FASTPATH=0``
  turns it off).
"""

__all__: list[str] = []  # the package itself re-exports nothing: import from the modules above
