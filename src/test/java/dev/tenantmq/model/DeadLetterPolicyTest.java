package dev.tenantmq.model;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The dead-letter topic naming rule (SPEC "Dead letters"): {@code <topic><mq.dlq-suffix>}. */
class DeadLetterPolicyTest {

    @Test
    void a_dead_letter_topic_ends_with_the_suffix_after_a_topic_name() {
        assertTrue(DeadLetterPolicy.isDeadLetterTopic("orders.dlq", ".dlq"));
        assertTrue(DeadLetterPolicy.isDeadLetterTopic("orders.dlq.dlq", ".dlq"));
        assertFalse(DeadLetterPolicy.isDeadLetterTopic("orders", ".dlq"));
        assertFalse(DeadLetterPolicy.isDeadLetterTopic("orders.dlq2", ".dlq"));
        assertFalse(DeadLetterPolicy.isDeadLetterTopic(".dlq", ".dlq"), "the suffix alone names no original topic");
        assertFalse(DeadLetterPolicy.isDeadLetterTopic(null, ".dlq"));
        assertTrue(DeadLetterPolicy.isDeadLetterTopic("orders-dead", "-dead"), "the suffix is a setting");
    }
}
