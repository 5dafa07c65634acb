package dev.tenantmq.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tenantmq.store.RetentionStore;
import dev.tenantmq.store.RetentionStore.Row;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@link RetentionJob#plan}, the pure part of retention: which rows of one batch of a partition
 * are deleted, and where the walk stops. No database: the rows are built by hand.
 */
class RetentionPlanTest {
    private static final long FLOOR = 10;

    private static Row committed(long offset) {
        return new Row(offset, false, false, false);
    }

    @Test
    void rows_every_group_committed_are_all_deleted_and_the_walk_goes_on() {
        RetentionJob.Batch batch = RetentionJob.plan(List.of(committed(8), committed(9), committed(FLOOR)), FLOOR);

        assertEquals(new RetentionJob.Batch(List.of(8L, 9L, FLOOR), FLOOR, false), batch,
                "the row at the floor itself is committed");
    }

    @Test
    void the_walk_stops_at_the_first_uncommitted_unexpired_row() {
        RetentionJob.Batch batch = RetentionJob.plan(
                List.of(committed(9), committed(FLOOR + 1), committed(FLOOR + 2)), FLOOR);

        assertEquals(new RetentionJob.Batch(List.of(9L), 9, true), batch);
    }

    @Test
    void a_first_row_above_the_floor_stops_before_anything_was_seen() {
        assertEquals(new RetentionJob.Batch(List.of(), -1, true), RetentionJob.plan(List.of(committed(FLOOR + 1)), FLOOR));
    }

    @Test
    void an_empty_batch_deletes_nothing_and_does_not_stop() {
        assertEquals(new RetentionJob.Batch(List.of(), -1, false), RetentionJob.plan(List.of(), FLOOR));
    }

    @Test
    void expired_rows_above_the_floor_are_deleted_without_stopping() {
        RetentionJob.Batch batch = RetentionJob.plan(
                List.of(new Row(FLOOR + 1, true, false, false), new Row(FLOOR + 2, true, false, true)), FLOOR);

        assertEquals(new RetentionJob.Batch(List.of(FLOOR + 1, FLOOR + 2), FLOOR + 2, false), batch,
                "expiry deletes even a row a group still has to deliver");
    }

    @Test
    void a_dead_letters_original_is_kept_even_expired_and_holds_back_only_itself() {
        RetentionJob.Batch batch = RetentionJob.plan(List.of(committed(7), new Row(8, false, true, false),
                new Row(9, true, true, false), committed(FLOOR)), FLOOR);

        assertEquals(new RetentionJob.Batch(List.of(7L, FLOOR), FLOOR, false), batch);
    }

    @Test
    void a_committed_row_a_group_still_has_to_deliver_is_kept_without_stopping() {
        RetentionJob.Batch batch = RetentionJob.plan(List.of(new Row(8, false, false, true), committed(9)), FLOOR);

        assertEquals(new RetentionJob.Batch(List.of(9L), 9, false), batch, "a requeued dead letter waits for delivery");
    }

    @Test
    void a_partition_a_group_never_committed_has_floor_zero() {
        RetentionStore.Floors floors = new RetentionStore.Floors(List.of("a", "b"), Map.of("p", 12L));

        assertEquals(12, floors.floor("p"));
        assertEquals(0, floors.floor("q"));
    }

    @Test
    void deletable_rows_become_runs_of_consecutive_rows_split_only_where_a_row_of_the_partition_stays() {
        // Offsets are one sequence for the whole table: this partition's rows are 3, 5, 6, 9, 12,
        // 20, the offsets between belong to other partitions. 9 is a dead letter's original.
        List<Row> rows = List.of(committed(3), committed(5), committed(6), new Row(9, false, true, false),
                committed(12), committed(20));
        RetentionJob.Batch batch = RetentionJob.plan(rows, 20);

        assertEquals(List.of(new RetentionStore.Range("p", 3, 6), new RetentionStore.Range("p", 12, 20)),
                RetentionJob.runs("p", rows, batch.deletable()));
        assertEquals(List.of(new RetentionStore.Range("p", 3, 20)),
                RetentionJob.runs("p", List.of(committed(3), committed(11), committed(20)), List.of(3L, 11L, 20L)),
                "gaps in the offsets do not split a run: one range for the whole batch");
        assertEquals(List.of(), RetentionJob.runs("p", List.of(), List.of()));
    }
}
