package dev.tenantmq.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** How many ready partitions a fetch claims per lease transaction (docs/architecture.md, "How many partitions a fetch claims"). */
class PartitionDepthTest {
    @Test
    void a_group_with_no_transaction_observed_claims_one_partition_per_message_of_room() {
        assertEquals(500, PartitionDepth.UNKNOWN.claims(500));
        assertEquals(1, PartitionDepth.UNKNOWN.claims(1));
    }

    @Test
    void deep_partitions_are_claimed_by_the_room_over_their_depth_with_a_margin() {
        PartitionDepth deep = PartitionDepth.UNKNOWN.after(100, 5, true); // 20 messages per partition
        assertEquals(8, deep.claims(100), "100 x 1.5 / 20 = 7.5, rounded up");
        assertEquals(3, deep.claims(30), "a smaller room claims fewer: 30 x 1.5 / 20 = 2.25");
        assertEquals(1, deep.claims(1));
        assertEquals(38, PartitionDepth.UNKNOWN.after(500, 25, true).claims(500), "500 x 1.5 / 20 = 37.5");
    }

    @Test
    void partitions_that_gave_one_message_or_less_each_are_claimed_one_per_message() {
        assertEquals(500, PartitionDepth.UNKNOWN.after(40, 40, false).claims(500));
        assertEquals(500, PartitionDepth.UNKNOWN.after(3, 40, false).claims(500), "held partitions gave nothing");
        assertEquals(100, PartitionDepth.UNKNOWN.after(0, 7, false).claims(100));
    }

    @Test
    void never_more_partitions_than_messages_of_room() {
        assertEquals(10, PartitionDepth.UNKNOWN.after(11, 10, true).claims(10), "10 x 1.5 / 1.1 is 14, capped at 10");
    }

    @Test
    void partitions_that_ran_dry_replace_the_figure_and_a_transaction_that_walked_nothing_keeps_it() {
        PartitionDepth deep = PartitionDepth.UNKNOWN.after(100, 4, true);
        assertEquals(25.0, deep.messagesPerPartition());
        assertSame(deep, deep.after(0, 0, false), "nothing walked: nothing learned");
        assertEquals(2.0, deep.after(80, 40, false).messagesPerPartition(), "partitions that ran dry lower it at once");
        assertEquals(40.0, deep.after(120, 3, false).messagesPerPartition(), "and raise it");
    }

    @Test
    void a_transaction_that_ran_out_of_room_only_raises_the_figure() {
        PartitionDepth deep = PartitionDepth.UNKNOWN.after(100, 4, true);
        // The last round of a fetch with room for 5: one partition, cut at 5 by the room.
        assertEquals(25.0, deep.after(5, 1, true).messagesPerPartition(), "a lower bound does not lower it");
        assertEquals(50.0, deep.after(100, 2, true).messagesPerPartition());
    }

    @Test
    void counts_and_room_out_of_range_are_bugs() {
        assertThrows(IllegalArgumentException.class, () -> PartitionDepth.UNKNOWN.claims(0));
        assertThrows(IllegalArgumentException.class, () -> PartitionDepth.UNKNOWN.after(-1, 2, false));
        assertThrows(IllegalArgumentException.class, () -> PartitionDepth.UNKNOWN.after(1, -2, false));
        assertThrows(IllegalArgumentException.class, () -> new PartitionDepth(-0.5));
        assertThrows(IllegalArgumentException.class, () -> new PartitionDepth(Double.NaN));
    }
}
