package dev.tenantmq.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads the messages of a dead-letter topic through {@code GET /admin/messages/browse} (docs/operations.md,
 * "Admin API"), page after page until {@code nextAfterOffset} is null. The endpoint reads only
 * the stored messages: no consumer group, offset, lease or delivery state is created or changed,
 * so listing dead letters leaves nothing behind and never holds back (or lets go of) retention.
 */
final class DeadLetters {
    /** Messages per page: the endpoint's largest {@code limit}. */
    static final int PAGE_SIZE = 1000;

    /** One dead letter: the message as browsed and the groups that gave up on it. */
    record DeadLetter(String partitionKey, String id, long offset, List<String> groups, JsonNode message) {
        /** The original message's offset in its topic (metadata original_offset). */
        String originalOffset() {
            return message.path("metadata").path("original_offset").asText("");
        }
    }

    private DeadLetters() {}

    /** Every stored message of {@code dlqTopic}, in offset order. */
    static List<DeadLetter> read(TmqClient client, String tenant, String dlqTopic) throws Exception {
        List<DeadLetter> all = new ArrayList<>();
        String after = null;
        do {
            JsonNode page = Json.parse(client.get("/admin/messages/browse", TmqClient.query("tenant", tenant,
                    "topic", dlqTopic, "limit", Integer.toString(PAGE_SIZE), "afterOffset", after)));
            for (JsonNode m : page.path("messages")) {
                String groups = m.path("metadata").path("consumer_group").asText("");
                all.add(new DeadLetter(Json.text(m, "partitionKey"), Json.text(m, "id"), m.path("offset").asLong(),
                        groups.isEmpty() ? List.of() : List.of(groups.split(",")), m));
            }
            JsonNode next = page.path("nextAfterOffset");
            after = next.isIntegralNumber() ? next.asText() : null;
        } while (after != null);
        return all;
    }
}
