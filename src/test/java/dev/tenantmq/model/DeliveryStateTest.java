package dev.tenantmq.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import static dev.tenantmq.model.DeliveryState.ACKED;
import static dev.tenantmq.model.DeliveryState.DEAD;
import static dev.tenantmq.model.DeliveryState.INFLIGHT;
import static dev.tenantmq.model.DeliveryState.PENDING;
import static dev.tenantmq.model.DeliveryState.RETRY;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
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

    /** "previous -> next" for every transition of the lifecycle in {@link DeliveryState}'s diagram; null is "no row". */
    private static final Set<String> ALLOWED = Set.of(
            "null -> INFLIGHT", // a delivery batch is materialized
            "INFLIGHT -> ACKED", // ack
            "INFLIGHT -> RETRY", // nack with attempts left
            "INFLIGHT -> PENDING", // a later message nacked, or the lease handed over
            "INFLIGHT -> INFLIGHT", // redelivery after expiry or a lost lease (next attempt)
            "RETRY -> INFLIGHT", // redelivery after the nack's delay
            "PENDING -> INFLIGHT", // redelivery, same attempt
            "INFLIGHT -> DEAD", // last failed attempt by expiry or lost lease
            "RETRY -> DEAD", // last failed attempt by nack, found after its delay
            "DEAD -> PENDING"); // admin requeue

    @Test
    void every_pair_of_states_is_allowed_exactly_when_the_lifecycle_has_that_transition() {
        List<DeliveryState> previous = new ArrayList<>(Arrays.asList(DeliveryState.values()));
        previous.add(null);
        int allowed = 0;
        for (DeliveryState from : previous) {
            for (DeliveryState to : DeliveryState.values()) {
                String pair = from + " -> " + to;
                boolean expected = ALLOWED.contains(pair);
                assertEquals(expected, to.mayFollow(from), pair);
                if (expected) {
                    allowed++;
                    to.requireFrom(from);
                } else {
                    IllegalStateException e = assertThrows(IllegalStateException.class, () -> to.requireFrom(from), pair);
                    assertTrue(e.getMessage().contains(String.valueOf(to)), e.getMessage());
                }
            }
        }
        assertEquals(ALLOWED.size(), allowed, "every listed transition is between real states");
    }

    @Test
    void finished_states_are_left_only_by_an_admin_requeue_of_a_dead_letter() {
        for (DeliveryState to : DeliveryState.values()) {
            assertFalse(to.mayFollow(ACKED), "an acknowledged row only waits to be pruned, never moves: " + to);
        }
        for (DeliveryState to : DeliveryState.values()) {
            assertEquals(to == PENDING, to.mayFollow(DEAD), to.name());
        }
    }

    @Test
    void a_row_is_created_only_in_flight_as_its_batch_handed_it_out() {
        for (DeliveryState s : DeliveryState.values()) {
            assertEquals(s == INFLIGHT, s.mayFollow(null), s.name());
        }
    }

    @Test
    void from_names_the_same_states_mayFollow_accepts() {
        assertEquals(Set.of(INFLIGHT, RETRY, PENDING), INFLIGHT.from());
        assertEquals(Set.of(INFLIGHT), RETRY.from());
        assertEquals(Set.of(INFLIGHT, DEAD), PENDING.from());
        assertEquals(Set.of(INFLIGHT), ACKED.from());
        assertEquals(Set.of(INFLIGHT, RETRY), DEAD.from());
    }

    @Test
    void the_walk_cannot_make_a_step_the_lifecycle_lacks() {
        new PartitionWalk.Deliver(1, 1, null, 0); // first delivery, into the batch
        new PartitionWalk.Deliver(1, 2, RETRY, 7);
        new PartitionWalk.DeadLetter(1, INFLIGHT, 7, 5, PartitionWalk.EXPIRED);
        assertThrows(IllegalStateException.class, () -> new PartitionWalk.Deliver(1, 2, ACKED, 7));
        assertThrows(IllegalStateException.class, () -> new PartitionWalk.Deliver(1, 2, DEAD, 7));
        assertThrows(IllegalStateException.class, () -> new PartitionWalk.DeadLetter(1, PENDING, 7, 5, "x"));
        assertThrows(IllegalStateException.class, () -> new PartitionWalk.DeadLetter(1, null, 0, 5, "x"));
    }
}
