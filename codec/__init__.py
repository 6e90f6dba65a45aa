"""rebalance-codec: Kafka consumer-group rebalancing and Kafka Streams rebalance metadata, on the wire."""
