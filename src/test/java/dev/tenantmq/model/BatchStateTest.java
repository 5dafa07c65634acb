package dev.tenantmq.model;

import static dev.tenantmq.model.BatchState.CLOSED;
import static dev.tenantmq.model.BatchState.OPEN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Set;
import org.junit.jupiter.api.Test;

/** The delivery batch on {@code queue_offsets} (SPEC section 4, "Lease-fetch"). */
class BatchStateTest {
    /** "CHANGE: before -> after" for every move of the batch's lifecycle in {@link BatchState}'s diagram. */
    private static final Set<String> ALLOWED = Set.of(
            "OPEN_BATCH: CLOSED -> OPEN", // first deliveries
            "OPEN_BATCH: CLOSED -> CLOSED", // only rows handed out again
            "COMMIT_IN_BATCH: OPEN -> OPEN", // acks of a prefix
            "COMMIT_IN_BATCH: OPEN -> CLOSED", // drained
            "MATERIALIZE: OPEN -> CLOSED",
            "COMMIT_ROWS: CLOSED -> CLOSED");

    @Test
    void every_change_from_every_state_to_every_state_is_allowed_exactly_when_the_lifecycle_has_it() {
        int allowed = 0;
        for (BatchState.Change change : BatchState.Change.values()) {
            for (BatchState before : BatchState.values()) {
                for (BatchState after : BatchState.values()) {
                    String move = change + ": " + before + " -> " + after;
                    boolean expected = ALLOWED.contains(move);
                    assertEquals(expected, change.allows(before, after), move);
                    if (expected) {
                        allowed++;
                        assertEquals(after, change.require(before, after));
                    } else {
                        assertThrows(IllegalStateException.class, () -> change.require(before, after), move);
                    }
                }
            }
        }
        assertEquals(ALLOWED.size(), allowed);
    }

    @Test
    void a_batch_is_never_opened_over_an_open_one() {
        assertThrows(IllegalStateException.class, () -> BatchState.Change.OPEN_BATCH.require(OPEN, OPEN));
    }

    @Test
    void a_batch_is_open_while_its_delivered_offset_is_above_the_committed_offset() {
        assertEquals(CLOSED, BatchState.of(0, 0));
        assertEquals(OPEN, BatchState.of(0, 1));
        assertEquals(OPEN, BatchState.of(41, 50));
        assertEquals(CLOSED, BatchState.of(50, 50), "drained, or materialized (CLOSE_BATCH)");
        assertEquals(CLOSED, BatchState.of(60, 50), "the committed offset passed the batch over rows");
    }

    @Test
    void moving_the_committed_offset_is_a_change_inside_a_batch_only_when_one_is_open() {
        assertEquals(BatchState.Change.COMMIT_IN_BATCH, BatchState.Change.commit(OPEN));
        assertEquals(BatchState.Change.COMMIT_ROWS, BatchState.Change.commit(CLOSED));
        BatchState.Change.commit(OPEN).require(OPEN, BatchState.of(50, 50));
        BatchState.Change.commit(OPEN).require(OPEN, BatchState.of(45, 50));
        assertThrows(IllegalStateException.class,
                () -> BatchState.Change.commit(CLOSED).require(CLOSED, BatchState.of(45, 50)),
                "committing cannot open a batch");
    }
}
