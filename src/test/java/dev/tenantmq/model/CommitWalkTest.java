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
    void a_batch_acked_whole_after_one_of_its_messages_was_deleted_commits_over_the_stored_ones() {
        // Offsets 6, 9, 12 handed out in one batch; 9 deleted (admin delete) before the ack of all three.
        CommitWalk.Advance a = CommitWalk.advance(5, List.of(new Row(6, null), new Row(12, null), new Row(14, null)),
                Set.of(6L, 9L, 12L));
        assertEquals(12, a.committed());
        assertEquals(Set.of(6L, 12L), a.batchAcks(), "the deleted message's ack is covered by no stored row");
        assertFalse(a.prunable());
    }

    @Test
    void an_ack_of_every_message_of_a_batch_of_known_size_moves_to_its_end_without_rows() {
        // Offsets 6, 9, 12 handed out in one batch of 3; messages of other partitions in between.
        CommitWalk.Advance a = CommitWalk.wholeBatch(5, 12, 3, Set.of(6L, 9L, 12L)).orElseThrow();
        assertEquals(12, a.committed());
        assertEquals(Set.of(6L, 9L, 12L), a.batchAcks());
        assertFalse(a.prunable());
    }

    @Test
    void an_ack_of_part_of_a_batch_or_of_a_batch_of_unknown_size_needs_the_rows() {
        assertTrue(CommitWalk.wholeBatch(5, 12, 3, Set.of(6L, 12L)).isEmpty(), "one message unacknowledged");
        assertTrue(CommitWalk.wholeBatch(5, 12, 0, Set.of(6L, 9L, 12L)).isEmpty(),
                "size unknown: a message of the batch was deleted since, or the batch predates the count");
        assertTrue(CommitWalk.wholeBatch(9, 12, 3, Set.of(12L)).isEmpty(),
                "after an ack of a prefix the batch holds fewer messages than its fetch handed out");
        assertTrue(CommitWalk.wholeBatch(5, 12, 2, Set.of(6L, 13L)).isEmpty(), "an offset outside the batch");
        assertTrue(CommitWalk.wholeBatch(12, 12, 1, Set.of(12L)).isEmpty(), "no open batch");
    }
}
