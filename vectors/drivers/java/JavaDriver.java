/*
 * Kafka's own Java consumer (kafka-clients' KafkaConsumer) as a group consumer, behind rebalance-codec's
 * behaviour gate: the gate's reference (the driver contract: vectors/drivers/README.md; how to build and run it:
 * vectors/drivers/java/README.md).
 *
 *     javac -cp kafka-clients.jar -d /tmp/javadriver JavaDriver.java
 *     rebalance-codec conformance --behaviour \
 *         --client 'java -cp /tmp/javadriver:kafka-clients.jar:DEPENDENCIES JavaDriver'
 *
 * It runs the classic protocol (range, roundrobin, sticky or cooperative-sticky, as REBALANCE_ASSIGNOR says) or,
 * with REBALANCE_PROTOCOL=consumer, KIP-848's (group.protocol=consumer), dynamic or static
 * (REBALANCE_INSTANCE_ID). It subscribes, polls, writes one JSON line per rebalance callback from inside the
 * callback, and on SIGTERM (a shutdown hook) wakes the poll up and closes the consumer (a dynamic member leaves
 * the group). An exception from poll is written as an "error" line; the consumer is closed and the driver exits 1.
 *
 * Its one optional argument narrows what it declares, e.g. "classic,cooperative,static": declared without
 * "eager", the scenarios that take any assignor are run with cooperative-sticky.
 */

import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

public final class JavaDriver {
    private static final List<String> CAPABILITIES = List.of("classic", "consumer", "eager", "cooperative", "static");
    private static final Map<String, String> ASSIGNORS = Map.of(
        "range", "org.apache.kafka.clients.consumer.RangeAssignor",
        "roundrobin", "org.apache.kafka.clients.consumer.RoundRobinAssignor",
        "sticky", "org.apache.kafka.clients.consumer.StickyAssignor",
        "cooperative-sticky", "org.apache.kafka.clients.consumer.CooperativeStickyAssignor");
    private static volatile boolean stop = false;

    private JavaDriver() {
    }

    static synchronized void say(String json) {
        System.out.print(json + "\n");
        System.out.flush();
    }

    static String quote(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            switch (c) {
                case '"': b.append("\\\""); break;
                case '\\': b.append("\\\\"); break;
                case '\n': b.append("\\n"); break;
                case '\r': b.append("\\r"); break;
                case '\t': b.append("\\t"); break;
                default:
                    if (c < 0x20) {
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
            }
        }
        return b.append('"').toString();
    }

    static void event(String event, Collection<TopicPartition> tps) {
        List<TopicPartition> sorted = new ArrayList<>(tps);
        sorted.sort(Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition));
        StringBuilder parts = new StringBuilder();
        for (TopicPartition tp : sorted) {
            parts.append(parts.length() == 0 ? "" : ", ").append('[').append(quote(tp.topic())).append(", ")
                .append(tp.partition()).append(']');
        }
        say("{\"event\": " + quote(event) + ", \"partitions\": [" + parts + "]}");
    }

    static String env(String name, String otherwise) {
        String v = System.getenv(name);
        return v == null || v.isEmpty() ? otherwise : v;
    }

    public static void main(String[] args) {
        List<String> declared = args.length > 0 ? Arrays.asList(args[0].split(",")) : CAPABILITIES;
        StringBuilder supports = new StringBuilder();
        for (String s : declared) {
            supports.append(supports.length() == 0 ? "" : ", ").append(quote(s));
        }
        say("{\"supports\": [" + supports + "]}");

        String protocol = env("REBALANCE_PROTOCOL", "classic");
        String assignor = env("REBALANCE_ASSIGNOR", "");
        Properties p = new Properties();
        p.put("bootstrap.servers", System.getenv("REBALANCE_BOOTSTRAP"));
        p.put("group.id", System.getenv("REBALANCE_GROUP"));
        p.put("client.id", System.getenv("REBALANCE_CLIENT_ID"));
        p.put("group.protocol", protocol);
        p.put("key.deserializer", ByteArrayDeserializer.class.getName());
        p.put("value.deserializer", ByteArrayDeserializer.class.getName());
        p.put("auto.offset.reset", "earliest");
        p.put("max.poll.interval.ms", System.getenv("REBALANCE_REBALANCE_TIMEOUT_MS"));
        if (protocol.equals("classic")) {
            // the consumer protocol refuses these (the coordinator sets them)
            p.put("session.timeout.ms", System.getenv("REBALANCE_SESSION_TIMEOUT_MS"));
            p.put("heartbeat.interval.ms", System.getenv("REBALANCE_HEARTBEAT_INTERVAL_MS"));
            String name = assignor.isEmpty() ? "range" : assignor;
            p.put("partition.assignment.strategy", ASSIGNORS.getOrDefault(name, name));
        } else if (!assignor.isEmpty()) {
            p.put("group.remote.assignor", assignor);
        }
        String instance = env("REBALANCE_INSTANCE_ID", "");
        if (!instance.isEmpty()) {
            p.put("group.instance.id", instance);
        }

        KafkaConsumer<byte[], byte[]> consumer;
        try {
            consumer = new KafkaConsumer<>(p);
        } catch (RuntimeException e) {
            say("{\"event\": \"error\", \"message\": " + quote(e.toString()) + "}");
            System.exit(1);
            return;
        }
        // SIGTERM runs the shutdown hooks: this one wakes the poll up and waits for main to close the consumer
        // (KafkaConsumer's own documentation shows this pattern); the JVM then exits 143, as on any SIGTERM
        CountDownLatch closed = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            stop = true;
            consumer.wakeup();
            try {
                closed.await(6, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }));
        consumer.subscribe(Arrays.asList(System.getenv("REBALANCE_TOPICS").split(",")),
            new ConsumerRebalanceListener() {
                @Override
                public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                    event("revoked", partitions);
                }

                @Override
                public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                    event("assigned", partitions);
                }

                @Override
                public void onPartitionsLost(Collection<TopicPartition> partitions) {
                    event("lost", partitions);
                }
            });
        int code = 0;
        try {
            while (!stop) {
                consumer.poll(Duration.ofMillis(100));
            }
        } catch (WakeupException e) {
            // SIGTERM: close below
        } catch (RuntimeException e) {
            say("{\"event\": \"error\", \"message\": " + quote(e.getClass().getSimpleName() + ": " + e.getMessage())
                + "}");
            code = 1;
        }
        try {
            consumer.close(CloseOptions.timeout(Duration.ofSeconds(4)));
        } catch (RuntimeException e) {
            System.err.println("close: " + e);
        }
        closed.countDown();
        if (code != 0) {
            System.exit(code);
        }
    }
}
