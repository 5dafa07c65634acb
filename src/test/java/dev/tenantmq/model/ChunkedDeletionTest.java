package dev.tenantmq.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ChunkedDeletionTest {
    /** A table of {@code rows} rows; {@code arrivals} rows appear once it has first been emptied. */
    private static final class Table implements ChunkedDeletion.Step {
        long rows;
        long arrivals;
        final List<Integer> limits = new ArrayList<>();

        Table(long rows, long arrivals) {
            this.rows = rows;
            this.arrivals = arrivals;
        }

        @Override
        public int delete(int limit) {
            limits.add(limit);
            int n = (int) Math.min(limit, rows);
            rows -= n;
            if (rows == 0 && arrivals > 0) {
                rows = arrivals;
                arrivals = 0;
            }
            return n;
        }
    }

    @Test
    void every_table_is_emptied_in_chunks_and_the_call_is_done_after_a_pass_that_deleted_nothing() {
        Table a = new Table(7, 0);
        Table b = new Table(3, 0);
        ChunkedDeletion.Outcome o = ChunkedDeletion.run(List.of(a, b), 3, 100);
        assertTrue(o.done());
        assertArrayEquals(new long[] {7, 3}, o.deleted());
        // a: 3, 3, 1; b: 3, 0; then the empty pass: a 0, b 0
        assertEquals(7, o.chunks());
        assertEquals(List.of(3, 3, 3, 3), a.limits);
    }

    @Test
    void a_call_stops_at_its_chunk_budget_and_the_next_call_goes_on() {
        Table a = new Table(10, 0);
        ChunkedDeletion.Outcome first = ChunkedDeletion.run(List.of(a), 2, 3);
        assertFalse(first.done());
        assertEquals(6, first.deleted(0));
        assertEquals(3, first.chunks());
        ChunkedDeletion.Outcome second = ChunkedDeletion.run(List.of(a), 2, 3);
        assertTrue(second.done(), "4 rows left: 2, 2, an empty chunk, and the empty pass costs no budget");
        assertEquals(4, second.deleted(0));
        assertEquals(4, second.chunks());
        assertEquals(0, a.rows);
    }

    @Test
    void an_empty_pass_completes_even_when_the_budget_is_smaller_than_the_number_of_steps() {
        List<ChunkedDeletion.Step> seven = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            seven.add(new Table(i == 6 ? 1 : 0, 0));
        }
        ChunkedDeletion.Outcome first = ChunkedDeletion.run(seven, 3, 1);
        assertTrue(first.done(), "one chunk deleted the last row; the empty pass is free");
        assertEquals(1, first.deleted(6));
        assertEquals(14, first.chunks());
    }

    @Test
    void a_call_with_rows_in_every_step_stops_after_its_budget_of_chunks_that_deleted() {
        Table a = new Table(5, 0);
        Table b = new Table(5, 0);
        ChunkedDeletion.Outcome o = ChunkedDeletion.run(List.of(a, b), 2, 4);
        assertFalse(o.done());
        assertEquals(2 + 2 + 1 + 2, o.deleted(0) + o.deleted(1), "a: 2, 2, 1; b: 2, then the budget is spent");
    }

    @Test
    void a_spent_budget_still_looks_whether_anything_is_left_and_stops_at_the_first_rows_it_finds() {
        Table a = new Table(0, 0);
        Table c = new Table(1, 5); // 5 rows commit once the first one is gone
        ChunkedDeletion.Outcome o = ChunkedDeletion.run(List.of(a, c), 2, 1);
        // pass 1: a 0, c 1 (the budget); pass 2 looks: a 0, c 2 and stop, not done
        assertFalse(o.done());
        assertArrayEquals(new long[] {0, 3}, o.deleted());
        assertEquals(3, c.rows);
    }

    @Test
    void rows_that_arrive_during_a_pass_are_found_by_the_next_pass_before_it_is_done() {
        Table a = new Table(2, 5); // a late publisher's messages commit once the first rows are gone
        ChunkedDeletion.Outcome o = ChunkedDeletion.run(List.of(a), 10, 100);
        assertTrue(o.done());
        assertEquals(7, o.deleted(0));
    }

    @Test
    void nothing_to_delete_is_done_after_one_pass_of_one_chunk_per_step() {
        ChunkedDeletion.Outcome o = ChunkedDeletion.run(List.of(new Table(0, 0), new Table(0, 0)), 5, 100);
        assertTrue(o.done());
        assertEquals(2, o.chunks());
    }

    @Test
    void a_step_that_reports_more_rows_than_its_limit_is_a_bug() {
        assertThrows(IllegalStateException.class, () -> ChunkedDeletion.run(List.of(limit -> limit + 1), 5, 10));
    }
}
