package dev.tenantmq.domain;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Which partitions an ack wakes long polls for (docs/architecture.md, "Long polls"). */
class AckWakeTest {
    @Test
    void an_ack_signals_only_the_partitions_where_the_group_may_have_more() {
        AckWake wake = AckWake.of(List.of("a", "a", "b"), Set.of("a"), Set.of(), false);

        assertEquals(Set.of("a"), wake.partitions());
        assertEquals(2, wake.deliverable(), "one message per acked receipt of the partition");
    }

    @Test
    void a_signal_while_the_ack_ran_makes_every_acked_partition_count() {
        // A publish to "b" may have committed after the ack read b's head, and signalled while the
        // batch still held b: the ack's own read cannot rule out a message after its batch.
        AckWake wake = AckWake.of(List.of("a", "b"), Set.of(), Set.of(), true);

        assertEquals(Set.of("a", "b"), wake.partitions());
        assertEquals(2, wake.deliverable());
    }

    @Test
    void partitions_the_fetch_just_delivered_from_and_undecoded_receipts_are_not_signalled() {
        AckWake wake = AckWake.of(List.of("a", "b", ""), Set.of("a", "b"), Set.of("b"), true);

        assertEquals(Set.of("a"), wake.partitions());
        assertEquals(1, wake.deliverable());
    }
}
