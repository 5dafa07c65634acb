package dev.tenantmq.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** Where a reset moves a committed offset ({@link OffsetReset}), and the time search. */
class OffsetResetTest {
    private static final Instant T0 = Instant.parse("2026-12-01T00:00:00Z");

    /** A partition storing offsets 10, 20, 30 (older ones deleted), head 30, committed 30. */
    private static final OffsetReset.Partition P = new OffsetReset.Partition(30, 30,
            Optional.of(new OffsetReset.Stored(10, T0)));

    @Test
    void earliest_is_just_below_the_earliest_stored_message() {
        assertEquals(new OffsetReset.Move(9, false), OffsetReset.move(new OffsetReset.Target.Earliest(), P));
    }

    @Test
    void latest_is_the_head() {
        assertEquals(new OffsetReset.Move(30, false), OffsetReset.move(new OffsetReset.Target.Latest(), P));
    }

    @Test
    void offset_n_makes_n_the_next_message() {
        assertEquals(new OffsetReset.Move(19, false), OffsetReset.move(new OffsetReset.Target.ToOffset(20), P));
        assertEquals(new OffsetReset.Move(14, false), OffsetReset.move(new OffsetReset.Target.ToOffset(15), P),
                "between stored offsets: the next stored one (20) goes next");
    }

    @Test
    void an_offset_below_the_earliest_stored_is_clamped_and_reported() {
        assertEquals(new OffsetReset.Move(9, true), OffsetReset.move(new OffsetReset.Target.ToOffset(3), P));
        assertEquals(new OffsetReset.Move(9, false), OffsetReset.move(new OffsetReset.Target.ToOffset(10), P));
    }

    @Test
    void an_offset_above_the_head_is_clamped_to_the_head() {
        assertEquals(new OffsetReset.Move(30, false), OffsetReset.move(new OffsetReset.Target.ToOffset(1_000), P));
    }

    @Test
    void an_empty_partition_stays_at_its_head_for_every_target() {
        OffsetReset.Partition empty = new OffsetReset.Partition(30, 30, Optional.empty());
        assertEquals(30, OffsetReset.move(new OffsetReset.Target.Earliest(), empty).to());
        assertEquals(30, OffsetReset.move(new OffsetReset.Target.ToOffset(1), empty).to());
        assertEquals(30, OffsetReset.forTime(new OffsetReset.Target.ToTime(T0), empty, Optional.empty()).to());
    }

    /**
     * In a partition that stores no message, no target lies before the earliest stored message:
     * there is none. Every target answers beforeEarliest false, an offset below the head as well
     * as one above it, a committed offset below the head as well as at it.
     */
    @Test
    void an_empty_partition_is_never_before_earliest_whatever_the_target() {
        for (long committed : new long[] {0, 12, 30}) {
            OffsetReset.Partition empty = new OffsetReset.Partition(committed, 30, Optional.empty());
            List<OffsetReset.Move> moves = List.of(
                    OffsetReset.move(new OffsetReset.Target.Earliest(), empty),
                    OffsetReset.move(new OffsetReset.Target.Latest(), empty),
                    OffsetReset.move(new OffsetReset.Target.ToOffset(1), empty),
                    OffsetReset.move(new OffsetReset.Target.ToOffset(30), empty),
                    OffsetReset.move(new OffsetReset.Target.ToOffset(1_000), empty),
                    OffsetReset.forTime(new OffsetReset.Target.ToTime(T0), empty, Optional.empty()));
            assertEquals(List.of(new OffsetReset.Move(30, false)), moves.stream().distinct().toList(),
                    "committed " + committed + ": " + moves);
        }
        OffsetReset.Partition never = new OffsetReset.Partition(0, 0, Optional.empty());
        assertFalse(OffsetReset.move(new OffsetReset.Target.ToOffset(1), never).beforeEarliest(), "nothing ever published");
    }

    @Test
    void a_time_moves_below_the_first_message_at_or_after_it() {
        OffsetReset.Target.ToTime t = new OffsetReset.Target.ToTime(T0.plusSeconds(5));
        assertEquals(new OffsetReset.Move(19, false),
                OffsetReset.forTime(t, P, Optional.of(new OffsetReset.Stored(20, T0.plusSeconds(6)))));
        assertEquals(new OffsetReset.Move(30, false), OffsetReset.forTime(t, P, Optional.empty()), "none: latest");
        assertTrue(OffsetReset.forTime(new OffsetReset.Target.ToTime(T0.minusSeconds(1)), P,
                Optional.of(new OffsetReset.Stored(10, T0))).beforeEarliest());
    }

    @Test
    void the_time_search_finds_the_first_message_at_or_after_the_time_with_few_probes() throws Exception {
        // Sparse offsets (other partitions take the ones between), one second apart.
        TreeMap<Long, Instant> stored = new TreeMap<>();
        for (int i = 0; i < 1_000; i++) {
            stored.put(5L + 7L * i, T0.plusSeconds(i));
        }
        long head = stored.lastKey();
        OffsetReset.Stored earliest = new OffsetReset.Stored(stored.firstKey(), stored.firstEntry().getValue());
        for (int second : new int[] {0, 1, 2, 499, 500, 998, 999}) {
            List<Long> probes = new ArrayList<>();
            Optional<OffsetReset.Stored> found = OffsetReset.firstAtOrAfter(T0.plusSeconds(second), earliest, head,
                    from -> {
                        probes.add(from);
                        var e = stored.ceilingEntry(from);
                        return e == null ? Optional.empty() : Optional.of(new OffsetReset.Stored(e.getKey(), e.getValue()));
                    });
            assertEquals(Optional.of(5L + 7L * second), found.map(OffsetReset.Stored::offset), "second " + second);
            assertTrue(probes.size() <= 15, "a binary search: " + probes.size() + " probes");
        }
        Optional<OffsetReset.Stored> none = OffsetReset.firstAtOrAfter(T0.plusSeconds(5_000), earliest, head,
                from -> {
                    var e = stored.ceilingEntry(from);
                    return e == null ? Optional.empty() : Optional.of(new OffsetReset.Stored(e.getKey(), e.getValue()));
                });
        assertFalse(none.isPresent());
    }
}
