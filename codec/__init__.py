"""rebalance-codec: Kafka consumer-group rebalancing and Kafka Streams rebalance metadata, on the wire."""

__version__ = "0.1.0"
