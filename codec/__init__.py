"""rebalance-codec: Kafka consumer-group rebalancing and Kafka Streams rebalance metadata, on the wire."""

__all__: list[str] = []  # the subpackages are the API (codec.streams, codec.group, codec.connect, ...)
__version__ = "0.1.0"  # pyproject.toml's version (tests/test_codecs.py keeps them equal)
