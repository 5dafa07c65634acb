package dev.tenantmq;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The consumer side of the concurrent-publish proofs ({@code ConcurrentPublishTest},
 * {@code TransactionalPublishTest}): one consumer fetches and acks while the publishers run,
 * until it has seen every message or {@value #DEADLINE_SECONDS} s have passed, and records what
 * it saw, so that the test can then check that nothing was skipped and that each partition came
 * in offset order (docs/architecture.md, "Ordering with concurrent publishers"). A message
 * delivered twice fails at once.
 */
public final class OrderedDrain {
    /** How long the consumer keeps fetching for the messages it still misses, in seconds. */
    static final int DEADLINE_SECONDS = 120;
    /** Fetch size: more than one publish request, so a fetch can meet several publishers' rows. */
    private static final int MAX_MESSAGES = 100;
    /** Visibility of a delivered message, in seconds: longer than the drain, so nothing is redelivered unasked. */
    private static final int VISIBILITY_SECONDS = 120;

    /** What the consumer asserts about the answers to its acks. */
    public enum AckCheck {
        /** Every receipt is answered {@code ACKED}. */
        EACH_ACKED,
        /** The answers are not looked at (the test proves delivery and order only). */
        NONE
    }

    private final Map<String, Long> lastOffset = new HashMap<>();
    private final Set<String> delivered = new HashSet<>();
    private final List<String> orderViolations = new ArrayList<>();

    private OrderedDrain() {
    }

    /**
     * Fetches ({@value #MAX_MESSAGES} at most, a 1 s long poll) and acks everything it gets
     * through {@code consumer} (the consumer group's path, {@code /tenants/.../consumer-groups/g})
     * until {@code total} distinct ids were delivered or the deadline passed; fails as soon as an
     * id comes a second time.
     */
    public static OrderedDrain drain(HttpJson http, String consumer, int total, AckCheck ackCheck) {
        OrderedDrain drain = new OrderedDrain();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(DEADLINE_SECONDS);
        while (drain.delivered.size() < total && System.nanoTime() < deadline) {
            JsonNode got = http.post(consumer + "/fetch", Map.of("maxMessages", MAX_MESSAGES, "waitSeconds", 1,
                    "visibilitySeconds", VISIBILITY_SECONDS));
            List<String> receipts = new ArrayList<>();
            for (JsonNode m : got.get("messages")) {
                String key = m.get("partitionKey").asText();
                long offset = m.get("offset").asLong();
                Long prev = drain.lastOffset.put(key, offset);
                if (prev != null && prev >= offset) {
                    drain.orderViolations.add(key + ": " + offset + " after " + prev);
                }
                assertTrue(drain.delivered.add(m.get("id").asText()), "delivered twice: " + m.get("id").asText());
                receipts.add(m.get("receipt").asText());
            }
            if (!receipts.isEmpty()) {
                JsonNode acks = http.post(consumer + "/ack", Map.of("receipts", receipts));
                if (ackCheck == AckCheck.EACH_ACKED) {
                    for (JsonNode r : acks.get("results")) {
                        assertEquals("ACKED", r.get("status").asText());
                    }
                }
            }
        }
        return drain;
    }

    /**
     * Asserts that the publishers sent {@code total} distinct ids ({@code expected}), that the
     * consumer got each of them, and that no partition went back in offset order.
     */
    public void assertAllDeliveredInOrder(Set<String> expected, int total) {
        Set<String> missing = new HashSet<>(expected);
        missing.removeAll(delivered);
        assertEquals(total, expected.size());
        assertEquals(Set.of(), missing, "messages skipped by the consumer");
        assertEquals(List.of(), orderViolations, "offset order within a partition");
    }
}
