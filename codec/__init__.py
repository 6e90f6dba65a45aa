"""rebalance-codec: Kafka consumer-group rebalancing and Kafka Streams rebalance metadata, on the wire."""

__all__: list[str] = []  # the subpackages are the API (codec.streams, codec.group, codec.connect, ...)
