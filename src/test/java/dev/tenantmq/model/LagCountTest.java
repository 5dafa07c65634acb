package dev.tenantmq.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** How the lag gauge counts a partition's lag (docs/architecture.md, "Lag from the partition heads"). */
class LagCountTest {
    @Test
    void a_group_at_the_head_or_a_partition_that_stores_nothing_has_no_lag_and_reads_nothing() {
        assertEquals(LagCount.NONE_ABOVE, LagCount.choose(100, 100, 50, 10));
        assertEquals(LagCount.NONE_ABOVE, LagCount.choose(100, 90, 50, 10), "a head below the committed offset");
        assertEquals(LagCount.NONE_ABOVE, LagCount.choose(100, 200, 0, 0), "every message deleted");
        assertEquals(0, LagCount.NONE_ABOVE.known(10));
        assertFalse(LagCount.NONE_ABOVE.reads());
    }

    @Test
    void a_committed_offset_below_every_stored_message_lags_by_the_stored_count_without_a_read() {
        assertEquals(LagCount.ALL_STORED, LagCount.choose(0, 5_000_000, 1, 5_000_000));
        assertEquals(LagCount.ALL_STORED, LagCount.choose(40, 90, 41, 7));
        assertEquals(7, LagCount.ALL_STORED.known(7));
        assertFalse(LagCount.ALL_STORED.reads());
    }

    @Test
    void a_deep_backlog_behind_the_committed_offset_is_counted_from_the_consumed_side() {
        LagCount side = LagCount.choose(110, 1_000_000, 100, 900_000);
        assertEquals(LagCount.AT_OR_BELOW, side, "11 offsets at or below against 999,890 above");
        assertTrue(side.reads());
        assertThrows(IllegalStateException.class, () -> side.known(900_000), "counted, not known");
    }

    @Test
    void a_group_that_keeps_up_is_counted_from_its_short_unconsumed_side() {
        LagCount side = LagCount.choose(999_990, 1_000_000, 100, 900_000);
        assertEquals(LagCount.ABOVE, side);
        assertTrue(side.reads());
        assertEquals(LagCount.ABOVE, LagCount.choose(150, 200, 101, 60), "50 offsets each side: the direct count");
        assertEquals(LagCount.AT_OR_BELOW, LagCount.choose(101, 200, 101, 60), "one offset at or below");
    }

    @Test
    void a_stored_count_that_disagrees_with_a_stored_row_is_not_trusted() {
        assertEquals(LagCount.ABOVE, LagCount.choose(10, 100, 5, 0), "a row is stored, the count says none");
        assertTrue(LagCount.plausible(0));
        assertFalse(LagCount.plausible(-2), "more rows at or below than the count: counted above instead");
    }
}
