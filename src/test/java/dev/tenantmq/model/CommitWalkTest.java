package dev.tenantmq.model;

import static dev.tenantmq.model.DeliveryState.ACKED;
import static dev.tenantmq.model.DeliveryState.DEAD;
import static dev.tenantmq.model.DeliveryState.INFLIGHT;
import static dev.tenantmq.model.DeliveryState.PENDING;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tenantmq.model.CommitWalk.Row;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Where the committed offset moves (SPEC section 4), without a database. */
class CommitWalkTest {
    @Test
    void the_committed_offset_moves_over_acknowledged_batch_deliveries_in_order() {
        CommitWalk.Advance a = CommitWalk.advance(5, List.of(new Row(7, null), new Row(9, null), new Row(12, null)),
                Set.of(7L, 9L));
        assertEquals(9, a.committed());
        assertEquals(Set.of(7L, 9L), a.batchAcks());
        assertFalse(a.prunable(), "no acknowledged row to prune");
    }

    @Test
    void a_gap_stops_the_walk_and_later_batch_acks_are_not_covered() {
        CommitWalk.Advance a = CommitWalk.advance(5, List.of(new Row(7, null), new Row(9, null)), Set.of(9L));
        assertEquals(5, a.committed());
        assertEquals(Set.of(), a.batchAcks());
    }

    @Test
    void acknowledged_and_dead_lettered_rows_count_as_finished_and_acknowledged_ones_are_pruned() {
        CommitWalk.Advance a = CommitWalk.advance(0, List.of(new Row(1, ACKED), new Row(2, DEAD), new Row(3, null),
                new Row(4, ACKED), new Row(5, INFLIGHT)), Set.of(3L));
        assertEquals(4, a.committed());
        assertEquals(Set.of(3L), a.batchAcks());
        assertTrue(a.prunable());
    }

    @Test
    void dead_lettered_rows_are_passed_but_kept_for_requeue() {
        CommitWalk.Advance a = CommitWalk.advance(0, List.of(new Row(1, DEAD), new Row(2, DEAD)), Set.of());
        assertEquals(2, a.committed());
        assertFalse(a.prunable(), "DEAD rows stay below the committed offset: requeue needs them");
    }

    @Test
    void an_unfinished_row_stops_the_walk() {
        for (var state : List.of(INFLIGHT, PENDING, dev.tenantmq.model.DeliveryState.RETRY)) {
            assertEquals(0, CommitWalk.advance(0, List.of(new Row(1, state), new Row(2, ACKED)), Set.of()).committed());
        }
    }

    @Test
    void nothing_above_the_committed_offset_leaves_it_where_it_is() {
        CommitWalk.Advance a = CommitWalk.advance(42, List.of(), Set.of());
        assertEquals(42, a.committed());
        assertFalse(a.prunable());
    }

    @Test
    void a_whole_batch_acknowledged_with_no_rows_above_commits_to_its_end_without_reading_rows() {
        CommitWalk.Advance a = CommitWalk.wholeBatch(List.of(6L, 9L, 12L), false, Set.of(6L, 9L, 12L)).orElseThrow();
        assertEquals(12, a.committed());
        assertEquals(Set.of(6L, 9L, 12L), a.batchAcks());
        assertFalse(a.prunable());
        // The same outcome as the walk over the rows it did not read.
        assertEquals(a, CommitWalk.advance(5, List.of(new Row(6, null), new Row(9, null), new Row(12, null),
                new Row(14, null)), Set.of(6L, 9L, 12L)));
    }

    @Test
    void a_batch_with_a_deleted_message_acked_a_missing_ack_or_rows_above_needs_the_rows() {
        assertTrue(CommitWalk.wholeBatch(List.of(6L, 12L), false, Set.of(6L, 9L, 12L)).isEmpty(),
                "9 was deleted after its hand-out: its ack is no batch ack the rows confirm");
        assertTrue(CommitWalk.wholeBatch(List.of(6L, 9L, 12L), false, Set.of(6L, 12L)).isEmpty(), "9 is not acknowledged");
        assertTrue(CommitWalk.wholeBatch(List.of(6L, 9L), true, Set.of(6L, 9L)).isEmpty(), "a finished row may follow");
        assertTrue(CommitWalk.wholeBatch(List.of(), false, Set.of()).isEmpty(), "no open batch");
    }
}
