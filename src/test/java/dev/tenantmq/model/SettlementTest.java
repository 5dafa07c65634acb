package dev.tenantmq.model;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The settle rules, without a database. */
class SettlementTest {
    @Test
    void the_max_deliveries_th_failed_attempt_is_the_last() {
        assertFalse(Settlement.lastAttempt(1, 3));
        assertFalse(Settlement.lastAttempt(2, 3));
        assertTrue(Settlement.lastAttempt(3, 3));
        assertTrue(Settlement.lastAttempt(4, 3), "the limit was lowered below the attempts made");
        assertTrue(Settlement.lastAttempt(1, 1), "max 1: the first failure dead-letters");
        assertFalse(Settlement.lastAttempt(1_000, Integer.MAX_VALUE), "no dead-letter topic: never the last");
    }

    @Test
    void a_row_counts_as_acked_only_when_this_very_delivery_acked_it() {
        assertTrue(Settlement.alreadyAcked(DeliveryState.ACKED, true, 5, 0L));
        assertFalse(Settlement.alreadyAcked(DeliveryState.ACKED, false, 5, 0L), "a later redelivery was acked");
        for (DeliveryState s : DeliveryState.values()) {
            if (s != DeliveryState.ACKED) {
                assertFalse(Settlement.alreadyAcked(s, true, 5, 10L), s + ": the row decides, not the offset");
            }
        }
    }

    @Test
    void without_a_row_a_message_at_or_below_the_committed_offset_is_acked() {
        assertTrue(Settlement.alreadyAcked(null, false, 5, 5L));
        assertTrue(Settlement.alreadyAcked(null, false, 4, 5L));
        assertFalse(Settlement.alreadyAcked(null, false, 6, 5L), "above: superseded");
        assertFalse(Settlement.alreadyAcked(null, false, 5, null), "no committed offset known");
    }
}
