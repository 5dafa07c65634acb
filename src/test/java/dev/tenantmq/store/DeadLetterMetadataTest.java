package dev.tenantmq.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The metadata of a dead letter (SPEC "Dead letters"), built and read without a database. */
class DeadLetterMetadataTest {
    private static final String ORIGINAL = "{\"queue_name\":\"t\",\"k\":\"v\"}";

    @Test
    void a_new_dead_letter_keeps_the_original_metadata_and_adds_the_five_keys() {
        Map<String, String> m = DeadLetterMetadata.parse(DeadLetterMetadata.of(ORIGINAL, "orders", 42, "g1", "boom", 5));

        assertEquals(Map.of("queue_name", "t", "k", "v", "original_topic", "orders", "original_offset", "42",
                "consumer_group", "g1", "dead_letter_reason", "boom", "delivery_attempts", "5"), m);
        assertEquals(List.of("g1"), DeadLetterMetadata.groups(m));
    }

    @Test
    void each_group_is_named_once_in_the_order_it_dead_lettered() {
        String json = DeadLetterMetadata.of(ORIGINAL, "orders", 42, "g1", "boom", 5);
        json = DeadLetterMetadata.addGroup(json, "g2");
        json = DeadLetterMetadata.addGroup(json, "g1");
        Map<String, String> m = DeadLetterMetadata.parse(json);

        assertEquals(List.of("g1", "g2"), DeadLetterMetadata.groups(m));
        assertEquals("boom", m.get("dead_letter_reason"), "the reason stays the first group's");
    }

    @Test
    void adding_a_group_to_metadata_without_one_names_just_that_group() {
        assertEquals(List.of("g"), DeadLetterMetadata.groups(DeadLetterMetadata.parse(DeadLetterMetadata.addGroup("{}", "g"))));
        assertEquals(List.of(), DeadLetterMetadata.groups(Map.of("consumer_group", "")));
        assertEquals(List.of(), DeadLetterMetadata.groups(Map.of()));
    }

    @Test
    void a_dead_letter_is_recognized_by_its_original_topic_and_offset() {
        String json = DeadLetterMetadata.of(ORIGINAL, "orders", 42, "g1", "boom", 5);

        assertTrue(DeadLetterMetadata.isDeadLetterOf(json, "orders", 42));
        assertFalse(DeadLetterMetadata.isDeadLetterOf(json, "orders", 43));
        assertFalse(DeadLetterMetadata.isDeadLetterOf(json, "orders.v2", 42));
        assertFalse(DeadLetterMetadata.isDeadLetterOf(ORIGINAL, "orders", 42), "plain metadata is no dead letter");
    }

    @Test
    void metadata_that_is_not_an_object_of_strings_is_refused() {
        assertThrows(IllegalStateException.class, () -> DeadLetterMetadata.parse("[1, 2]"));
        assertThrows(IllegalStateException.class, () -> DeadLetterMetadata.parse("{\"k\": {\"nested\": 1}}"));
    }
}
