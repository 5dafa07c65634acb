package dev.tenantmq.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The rules of a publish batch shared by the service and the JDBC library (SPEC section 4, "Publish"). */
class PublishRulesTest {
    private static final Tenant TENANT = new Tenant("acc-a");
    private static final PublishRules.Limits LIMITS = new PublishRules.Limits(3, 10, 64);

    @Test
    void metadata_json_is_the_text_jacksons_writer_produces() throws Exception {
        ObjectMapper jackson = new ObjectMapper();
        Random random = new Random(42);
        for (int round = 0; round < 2000; round++) {
            Map<String, String> metadata = new LinkedHashMap<>();
            for (int k = random.nextInt(4); k >= 0; k--) {
                metadata.put(randomText(random), randomText(random));
            }
            assertEquals(jackson.writeValueAsString(metadata), PublishRules.metadataJson(metadata));
        }
    }

    private static String randomText(Random random) {
        StringBuilder s = new StringBuilder();
        for (int i = random.nextInt(12); i > 0; i--) {
            int kind = random.nextInt(4);
            s.append(kind == 0 ? (char) random.nextInt(0x20) : kind == 1 ? "\"\\/\u007f".charAt(random.nextInt(4))
                    : kind == 2 ? (char) (0x20 + random.nextInt(0x5f)) : "é€ü".charAt(random.nextInt(3)));
        }
        return s.toString();
    }

    @Test
    void a_message_is_stamped_with_the_tenant_and_a_generated_id() {
        PublishRules.Stamped s = PublishRules.stamp(0, TENANT, new PartitionKey("p"), null, "1", Map.of("a", "b"), LIMITS);
        assertEquals("{\"a\":\"b\",\"queue_name\":\"acc-a\"}", s.metadataJson());
        assertTrue(s.generatedId());
        assertEquals(36, s.id().length());
        assertEquals(1, s.payloadBytes());
        PublishRules.Stamped chosen = PublishRules.stamp(0, TENANT, new PartitionKey("p"), new MessageId("m"), "1",
                Map.of(PublishRules.QUEUE_NAME, "acc-a"), LIMITS);
        assertFalse(chosen.generatedId());
        assertEquals("m", chosen.id());
    }

    @Test
    void each_limit_names_the_field_it_breaks() {
        assertEquals("messages", assertThrows(InvalidRequestException.class,
                () -> PublishRules.requireBatchSize(4, 3)).errors().get(0).field());
        assertEquals("messages[2].payload", assertThrows(PayloadTooLargeException.class,
                () -> PublishRules.stamp(2, TENANT, new PartitionKey("p"), null, "\"é234567890\"", Map.of(), LIMITS)).field());
        assertEquals("messages[1].metadata.queue_name", assertThrows(InvalidRequestException.class,
                () -> PublishRules.stamp(1, TENANT, new PartitionKey("p"), null, "1", Map.of("queue_name", "b"), LIMITS))
                .errors().get(0).field());
        assertEquals("messages[0].metadata", assertThrows(InvalidRequestException.class,
                () -> PublishRules.stamp(0, TENANT, new PartitionKey("p"), null, "1", Map.of("k", "v".repeat(40)), LIMITS))
                .errors().get(0).field());
        assertEquals("messages[0].metadata.k", assertThrows(InvalidRequestException.class,
                () -> PublishRules.stamp(0, TENANT, new PartitionKey("p"), null, "1", Map.of("k", "\ud800"), LIMITS))
                .errors().get(0).field());
    }
}
