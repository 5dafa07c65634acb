package dev.tenantmq.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Consumer;

/**
 * Reads the messages of a dead-letter topic. The admin API lists no topic's messages (it
 * inspects one by its complete identity), so this reads the topic as a fresh consumer group of
 * its own, {@code tmq-browse-<random>}: a new group starts at the oldest stored message, and it
 * is no real group, whose offsets and delivery attempts stay untouched.
 *
 * <p>It never acks. Acking would let retention delete the dead letters: retention deletes what
 * every group of a topic has committed, and a dead-letter topic that nobody consumes has only
 * the browse groups (a CLI test caught exactly that). The deliveries stay in flight for 12 h
 * (the longest visibility timeout) and the group never fetches again, so no attempt is ever
 * repeated. What remains of a browse: its group in {@code tmq offsets} (with lag), a heartbeat
 * that ends after {@code mq.interest-timeout}, and, while the group exists, a hold on the
 * topic's retention like any group that has not committed (dead letters are kept until
 * {@code mq.retention.max-age}). Nothing is read when the topic holds no message.
 *
 * <p>Because nothing is acked, a partition yields only what the first fetch that reaches it
 * delivers (at most 1,000 messages, mq.fetch.max-messages); the caller is told when fewer
 * messages were read than /admin/topics counts.
 */
final class DeadLetters {
    /** One dead letter: the delivered message without receipt and the groups that gave up on it. */
    record DeadLetter(String partitionKey, String id, long offset, List<String> groups, JsonNode message) {
        /** The original message's offset in its topic (metadata original_offset). */
        String originalOffset() {
            return message.path("metadata").path("original_offset").asText("");
        }
    }

    /** Prefix of the browse groups' names, so that listings and alerts can leave them out. */
    static final String BROWSE_GROUP_PREFIX = "tmq-browse-";

    private DeadLetters() {}

    /**
     * The dead letters of {@code dlqTopic}, ordered by partition key and offset. Reads until it has
     * seen as many as /admin/topics counted, or until {@code deadline} passes.
     */
    static List<DeadLetter> read(TmqClient client, String tenant, String dlqTopic, Duration deadline, Consumer<String> note) throws Exception {
        long expected = storedMessages(client, tenant, dlqTopic);
        if (expected == 0) {
            return List.of();
        }
        String group = BROWSE_GROUP_PREFIX + UUID.randomUUID().toString().substring(0, 8);
        String base = "/tenants/" + TmqClient.segment(tenant) + "/topics/" + TmqClient.segment(dlqTopic)
                + "/consumer-groups/" + TmqClient.segment(group);
        Map<String, DeadLetter> seen = new LinkedHashMap<>();
        Instant end = Instant.now().plus(deadline);
        int emptyPolls = 0;
        // Until all are read, or (after the first messages) two polls in a row bring nothing new:
        // the partitions already read are blocked by their unacknowledged deliveries.
        while (Instant.now().isBefore(end) && (expected < 0 || seen.size() < expected) && (seen.isEmpty() || emptyPolls < 2)) {
            // The first fetch of a new group waits for its leases (about one scheduler tick).
            ObjectNode fetch = Json.MAPPER.createObjectNode()
                    .put("maxMessages", 1000).put("waitSeconds", seen.isEmpty() ? 5 : 1).put("visibilitySeconds", 43200);
            JsonNode messages = Json.parse(client.post(base + "/fetch", null, Json.write(fetch))).path("messages");
            if (messages.isEmpty()) {
                emptyPolls++;
                continue;
            }
            emptyPolls = 0;
            for (JsonNode m : messages) {
                ObjectNode copy = ((ObjectNode) m).deepCopy();
                copy.remove("receipt");
                copy.remove("deliveryAttempt"); // the browse group's own count, not the dead letter's
                String groups = m.path("metadata").path("consumer_group").asText("");
                DeadLetter d = new DeadLetter(Json.text(m, "partitionKey"), Json.text(m, "id"), m.path("offset").asLong(),
                        groups.isEmpty() ? List.of() : List.of(groups.split(",")), copy);
                seen.put(d.partitionKey() + "\u0000" + d.id(), d);
            }
        }
        if (expected > 0 && seen.size() < expected) {
            note.accept("read " + seen.size() + " of the " + expected + " messages /admin/topics counts in " + dlqTopic
                    + " before the deadline (--timeout); the list may be incomplete");
        }
        List<DeadLetter> all = new ArrayList<>(seen.values());
        all.sort(Comparator.comparing(DeadLetter::partitionKey).thenComparingLong(DeadLetter::offset));
        return all;
    }

    /** Stored messages of the topic per /admin/topics: 0 when it is not listed, -1 when unknown. */
    private static long storedMessages(TmqClient client, String tenant, String topic) throws Exception {
        JsonNode answer = Json.parse(client.get("/admin/topics", TmqClient.query("tenant", tenant, "limit", "10000")));
        for (JsonNode row : answer.path("topics")) {
            if (topic.equals(Json.text(row, "topic"))) {
                return row.path("messages").asLong();
            }
        }
        return answer.path("truncated").asBoolean(false) ? -1 : 0;
    }
}
