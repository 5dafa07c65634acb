package dev.tenantmq.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The stored delivery states (migrations V2 and V3). */
class DeliveryStateTest {
    @Test
    void stored_names_parse_and_a_missing_row_is_null() {
        for (DeliveryState s : DeliveryState.values()) {
            assertEquals(s, DeliveryState.of(s.name()));
        }
        assertNull(DeliveryState.of(null), "no delivery row");
        assertThrows(IllegalArgumentException.class, () -> DeliveryState.of("inflight"), "stored names are exact");
    }

    @Test
    void only_acknowledged_and_dead_lettered_messages_are_finished() {
        assertTrue(DeliveryState.ACKED.finished());
        assertTrue(DeliveryState.DEAD.finished());
        for (DeliveryState s : DeliveryState.UNFINISHED) {
            assertFalse(s.finished(), s.name());
        }
        assertEquals(List.of(DeliveryState.INFLIGHT, DeliveryState.RETRY, DeliveryState.PENDING), DeliveryState.UNFINISHED);
        assertEquals(List.of(DeliveryState.ACKED, DeliveryState.DEAD), DeliveryState.FINISHED);
        for (DeliveryState s : DeliveryState.values()) {
            assertEquals(s.finished(), DeliveryState.FINISHED.contains(s), s.name());
        }
    }
}
