package dev.tenantmq.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The delay rule of a published message (docs/api.md, "Delayed delivery"), without a database. */
class DeliveryDelayTest {
    private static final Instant NOW = Instant.parse("2026-12-02T04:00:00Z");
    private static final Duration MAX_AGE = Duration.ofDays(7);
    private static final String SETTING = "mq.retention.max-age";

    @Test
    void a_delay_reaches_at_most_the_retention_max_age_ahead() {
        assertNull(DeliveryDelay.afterSeconds(MAX_AGE.toSeconds()).problem("f", MAX_AGE, SETTING, NOW));
        assertNull(DeliveryDelay.at(NOW.plus(MAX_AGE)).problem("f", MAX_AGE, SETTING, NOW));
        FieldError after = DeliveryDelay.afterSeconds(MAX_AGE.toSeconds() + 1).problem("messages[0].deliverAfterSeconds",
                MAX_AGE, SETTING, NOW);
        assertEquals("messages[0].deliverAfterSeconds", after.field());
        assertTrue(after.message().contains("(mq.retention.max-age, 604800 s)"), after.message());
        assertEquals("f", DeliveryDelay.at(NOW.plus(MAX_AGE).plusMillis(1)).problem("f", MAX_AGE, SETTING, NOW).field());
    }

    @Test
    void a_due_time_in_the_past_is_allowed_and_due_at_once() {
        DeliveryDelay past = DeliveryDelay.at(NOW.minusSeconds(60));
        assertNull(past.problem("f", MAX_AGE, SETTING, NOW));
        assertEquals(Duration.ZERO, past.dueIn(NOW));
    }

    @Test
    void the_store_gets_one_form_microseconds_or_utc_text() {
        DeliveryDelay after = DeliveryDelay.afterSeconds(90);
        assertEquals(90_000_000L, after.afterMicros());
        assertNull(after.atText());
        assertEquals(Duration.ofSeconds(90), after.dueIn(NOW));
        DeliveryDelay at = DeliveryDelay.at(Instant.parse("2026-12-02T05:00:00.123456789Z"));
        assertEquals("2026-12-02 05:00:00.123456", at.atText(), "DATETIME(6) text, UTC, fraction truncated to µs");
        assertNull(at.afterMicros());
        assertThrows(IllegalArgumentException.class, () -> new DeliveryDelay(null, null));
        assertThrows(IllegalArgumentException.class, () -> new DeliveryDelay(1L, NOW));
    }
}
