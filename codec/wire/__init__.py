"""The wire layer every message is built on, from the declarative tables in ``schemas/``. Its modules are its API,
each listing its own names:

* :mod:`~codec.wire.primitives` — Kafka's binary primitives as construct classes, with offsets and field paths in
  every error;
* :mod:`~codec.wire.schema` — loading the schema tables;
* :mod:`~codec.wire.models` — the wire models (one frozen dataclass per struct) and their JSON view, which every
  codec below builds;
* :mod:`~codec.wire.builder` — a table to construct structures, one per message, struct and version, and the
  codec's entry points (``decode_wire``, ``encode_wire``);
* :mod:`~codec.wire.fastpath` — straight-line Python generated from the same tables (``REBALANCE_CODEC_FASTPATH=0``
  turns it off);
* :mod:`~codec.wire.native` — the same tables compiled into programs for the C engine (``REBALANCE_CODEC_NATIVE=0``
  turns it off).
"""

__all__: list[str] = []  # the package itself re-exports nothing: import from the modules above
