package dev.tenantmq.model;

import static dev.tenantmq.model.DeliveryState.ACKED;
import static dev.tenantmq.model.DeliveryState.DEAD;
import static dev.tenantmq.model.DeliveryState.INFLIGHT;
import static dev.tenantmq.model.DeliveryState.PENDING;
import static dev.tenantmq.model.DeliveryState.RETRY;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tenantmq.model.PartitionWalk.DeadLetter;
import dev.tenantmq.model.PartitionWalk.Deliver;
import dev.tenantmq.model.PartitionWalk.Row;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** The delivery rules of one partition (SPEC section 4), without a database. */
class PartitionWalkTest {
    private static final long EPOCH = 7;
    private static final int MAX = 3;

    private static Row row(long offset, dev.tenantmq.model.DeliveryState state, int attempt, long delivery, long epoch,
                           boolean invisible) {
        return new Row(offset, state, attempt, delivery, epoch, invisible);
    }

    /** Offers rows until the walk stops; returns how many it took. */
    private static int offer(PartitionWalk walk, Row... rows) {
        int taken = 0;
        for (Row r : rows) {
            if (!walk.accept(r)) {
                break;
            }
            taken++;
        }
        return taken;
    }

    @Test
    void never_delivered_messages_go_out_in_offset_order_with_attempt_one_up_to_the_budget() {
        PartitionWalk walk = new PartitionWalk(EPOCH, 2, MAX);
        assertEquals(2, offer(walk, Row.undelivered(10), Row.undelivered(11), Row.undelivered(12)));
        assertEquals(List.of(new Deliver(10, 1, null, 0), new Deliver(11, 1, null, 0)), walk.steps());
        assertTrue(walk.stopped());
        assertFalse(walk.busy());
        assertEquals(11, walk.lastFirstDelivery(5));
    }

    @Test
    void acknowledged_and_dead_lettered_messages_are_skipped() {
        PartitionWalk walk = new PartitionWalk(EPOCH, 10, MAX);
        offer(walk, row(1, ACKED, 1, 4, EPOCH, false), row(2, DEAD, 3, 4, EPOCH, false), Row.undelivered(3));
        assertEquals(List.of(new Deliver(3, 1, null, 0)), walk.steps());
    }

    @Test
    void an_invisible_delivery_of_the_current_lease_holds_the_partition() {
        PartitionWalk walk = new PartitionWalk(EPOCH, 10, MAX);
        assertEquals(0, offer(walk, row(1, INFLIGHT, 1, 4, EPOCH, true), Row.undelivered(2)));
        assertTrue(walk.busy());
        assertEquals(List.of(), walk.steps());
    }

    @Test
    void an_expired_delivery_fails_an_attempt_and_goes_out_again_with_the_next_attempt() {
        PartitionWalk walk = new PartitionWalk(EPOCH, 10, MAX);
        offer(walk, row(1, INFLIGHT, 1, 4, EPOCH, false), Row.undelivered(2));
        assertEquals(List.of(new Deliver(1, 2, INFLIGHT, 4), new Deliver(2, 1, null, 0)), walk.steps());
        assertFalse(walk.stopped(), "neither the budget nor a row stopped it: more rows may follow");
        assertFalse(((Deliver) walk.steps().get(0)).first(), "a redelivery fences on its row");
        assertTrue(((Deliver) walk.steps().get(1)).first());
        assertEquals(2, walk.lastFirstDelivery(0), "the redelivered message is not a first delivery");
    }

    @Test
    void a_delivery_under_a_lost_lease_fails_an_attempt_even_while_still_invisible() {
        PartitionWalk walk = new PartitionWalk(EPOCH, 10, MAX);
        offer(walk, row(1, INFLIGHT, 2, 4, EPOCH - 1, true));
        assertEquals(List.of(new Deliver(1, 3, INFLIGHT, 4)), walk.steps());
        assertFalse(walk.busy());
    }

    @Test
    void the_last_failed_attempt_dead_letters_with_its_reason_and_the_partition_moves_on() {
        PartitionWalk walk = new PartitionWalk(EPOCH, 10, MAX);
        offer(walk, row(1, INFLIGHT, MAX, 4, EPOCH, false), row(2, INFLIGHT, MAX, 4, EPOCH - 1, true),
                row(3, RETRY, MAX, 4, EPOCH, false), Row.undelivered(4));
        assertEquals(List.of(new DeadLetter(1, INFLIGHT, 4, MAX, PartitionWalk.EXPIRED),
                new DeadLetter(2, INFLIGHT, 4, MAX, PartitionWalk.LEASE_LOST),
                new DeadLetter(3, RETRY, 4, MAX, PartitionWalk.NACKED),
                new Deliver(4, 1, null, 0)), walk.steps());
        assertEquals(1, walk.delivered(), "dead letters do not use the budget");
    }

    @Test
    void a_nacked_message_waits_out_its_delay_and_holds_later_messages_back() {
        PartitionWalk waiting = new PartitionWalk(EPOCH, 10, MAX);
        assertEquals(0, offer(waiting, row(1, RETRY, 1, 4, EPOCH, true), Row.undelivered(2)));
        assertFalse(waiting.busy(), "a delay is not an in-flight delivery");
        PartitionWalk due = new PartitionWalk(EPOCH, 10, MAX);
        offer(due, row(1, RETRY, 1, 4, EPOCH, false));
        assertEquals(List.of(new Deliver(1, 2, RETRY, 4)), due.steps());
    }

    @Test
    void a_handed_back_message_keeps_its_attempt_and_waits_until_visible() {
        PartitionWalk walk = new PartitionWalk(EPOCH, 10, MAX);
        offer(walk, row(1, PENDING, 2, 4, EPOCH - 3, false), row(2, PENDING, 1, 4, EPOCH, true), Row.undelivered(3));
        assertEquals(List.of(new Deliver(1, 2, PENDING, 4)), walk.steps());
        assertEquals(5, walk.lastFirstDelivery(5), "no first delivery: the floor");
    }

    @Test
    void a_stopped_walk_takes_no_more_rows() {
        PartitionWalk walk = new PartitionWalk(EPOCH, 1, MAX);
        offer(walk, Row.undelivered(1), Row.undelivered(2));
        assertThrows(IllegalStateException.class, () -> walk.accept(Row.undelivered(3)));
    }
    @Test
    void a_sweep_with_no_budget_dead_letters_expired_last_attempts_and_delivers_nothing() {
        PartitionWalk sweep = new PartitionWalk(EPOCH, 0, MAX);
        int taken = offer(sweep, row(1, ACKED, 1, 4, EPOCH, false), row(2, INFLIGHT, MAX, 4, EPOCH, false),
                row(3, INFLIGHT, MAX, 4, EPOCH - 1, true), row(4, INFLIGHT, 1, 4, EPOCH, false), Row.undelivered(5));
        assertEquals(3, taken, "stops at the first row that would be handed out");
        assertEquals(List.of(new DeadLetter(2, INFLIGHT, 4, MAX, PartitionWalk.EXPIRED),
                new DeadLetter(3, INFLIGHT, 4, MAX, PartitionWalk.LEASE_LOST)), sweep.steps());
        assertEquals(0, sweep.delivered());
        assertTrue(sweep.stopped());
    }

    @Test
    void a_fetch_whose_budget_is_spent_still_dead_letters_the_expired_last_attempt_after_it() {
        PartitionWalk walk = new PartitionWalk(EPOCH, 1, MAX);
        assertEquals(2, offer(walk, Row.undelivered(1), row(2, INFLIGHT, MAX, 4, EPOCH, false), Row.undelivered(3)));
        assertEquals(List.of(new Deliver(1, 1, null, 0), new DeadLetter(2, INFLIGHT, 4, MAX, PartitionWalk.EXPIRED)),
                walk.steps());
    }

    @Test
    void a_walk_out_of_budget_goes_on_from_the_message_it_stopped_at_when_given_more() {
        PartitionWalk walk = new PartitionWalk(EPOCH, 1, MAX);
        assertTrue(walk.accept(Row.undelivered(10)));
        assertFalse(walk.accept(Row.undelivered(11)), "the budget is spent");
        assertTrue(walk.outOfBudget());
        walk.addBudget(2);
        assertFalse(walk.outOfBudget());
        assertEquals(2, offer(walk, Row.undelivered(11), Row.undelivered(12), Row.undelivered(13)));
        assertEquals(List.of(new Deliver(10, 1, null, 0), new Deliver(11, 1, null, 0), new Deliver(12, 1, null, 0)),
                walk.steps());
        assertEquals(12, walk.lastFirstDelivery(9));
    }

    @Test
    void a_held_partition_takes_no_more_budget() {
        PartitionWalk walk = new PartitionWalk(EPOCH, 10, MAX);
        assertFalse(walk.accept(row(10, INFLIGHT, 1, 4, EPOCH, true)));
        assertFalse(walk.outOfBudget());
        assertThrows(IllegalStateException.class, () -> walk.addBudget(1));
    }

    @Test
    void a_budget_is_shared_over_partitions_rounding_up() {
        assertEquals(2, PartitionWalk.share(100, 50));
        assertEquals(4, PartitionWalk.share(100, 30));
        assertEquals(100, PartitionWalk.share(100, 1));
        assertEquals(1, PartitionWalk.share(3, 50));
        assertEquals(0, PartitionWalk.share(0, 50), "a sweep delivers nothing");
    }

    @Test
    void only_the_partitions_that_can_fill_the_budget_read_slack_beyond_their_share() {
        // 100 over 12 partitions: a share of 9; the first four reach 100 rows, so the budget can
        // be filled from them, and the other eight read their share alone.
        assertArrayEquals(new int[] {25, 25, 25, 25, 9, 9, 9, 9, 9, 9, 9, 9},
                PartitionWalk.scanLimits(100, 12, 16));
        int[] limits = PartitionWalk.scanLimits(100, 30, 16);
        assertTrue(IntStream.of(limits).sum() >= 100, "the limits together still hold the budget");
        assertArrayEquals(new int[] {116}, PartitionWalk.scanLimits(100, 1, 16));
        assertArrayEquals(new int[] {17, 1, 1, 1, 1}, PartitionWalk.scanLimits(5, 5, 16),
                "a small budget: slack for the first partition, a row for the rest");
    }

    @Test
    void a_fetch_that_continues_in_its_acked_partitions_lets_the_first_fill_the_budget() {
        assertArrayEquals(new int[] {116, 66}, PartitionWalk.continuationLimits(100, 2, 16),
                "two deep partitions: the first may take the budget, where its share left a third to the second");
        assertArrayEquals(new int[] {66, 66}, PartitionWalk.scanLimits(100, 2, 16));
        assertArrayEquals(new int[] {116, 25, 25, 25, 9, 9, 9, 9, 9, 9, 9, 9},
                PartitionWalk.continuationLimits(100, 12, 16), "behind a shallow first, the others as in any fetch");
        assertArrayEquals(new int[] {116}, PartitionWalk.continuationLimits(100, 1, 16));
        assertArrayEquals(new int[] {16, 16}, PartitionWalk.continuationLimits(0, 2, 16), "a sweep: the slack each");
    }

    @Test
    void a_sweep_reads_the_slack_of_every_partition() {
        assertArrayEquals(new int[] {16, 16, 16}, PartitionWalk.scanLimits(0, 3, 16));
    }

    @Test
    void a_row_whose_payload_does_not_fit_in_the_byte_budget_stops_the_walk_before_it() {
        FetchBudget.Meter fetch = new FetchBudget.Meter(FetchBudget.of(10, 250));
        PartitionWalk walk = new PartitionWalk(EPOCH, 10, MAX, fetch);
        assertTrue(walk.accept(Row.undelivered(1), 100));
        assertTrue(walk.accept(Row.undelivered(2), 100));
        assertFalse(walk.accept(Row.undelivered(3), 100), "300 bytes would pass the budget of 250");
        assertEquals(List.of(new Deliver(1, 1, null, 0), new Deliver(2, 1, null, 0)), walk.steps());
        assertFalse(walk.outOfBudget(), "the fetch's bytes are spent, not the partition's share: no more rounds");
        assertThrows(IllegalStateException.class, () -> walk.addBudget(1));
        assertEquals(8, fetch.budget().messagesLeft());
        assertEquals(50, fetch.budget().bytesLeft());
    }

    @Test
    void the_first_message_of_a_fetch_goes_alone_when_it_is_larger_than_the_byte_budget() {
        FetchBudget.Meter fetch = new FetchBudget.Meter(FetchBudget.of(10, 100));
        PartitionWalk walk = new PartitionWalk(EPOCH, 10, MAX, fetch);
        assertTrue(walk.accept(Row.undelivered(1), 5_000));
        assertFalse(walk.accept(Row.undelivered(2), 1));
        assertEquals(1, walk.delivered());
        PartitionWalk next = new PartitionWalk(EPOCH, 10, MAX, fetch);
        assertFalse(next.accept(Row.undelivered(7), 1), "the next partition of the same fetch gets nothing");
    }

    @Test
    void finished_rows_and_dead_letters_take_nothing_from_the_byte_budget() {
        FetchBudget.Meter fetch = new FetchBudget.Meter(FetchBudget.of(10, 100));
        PartitionWalk walk = new PartitionWalk(EPOCH, 10, MAX, fetch);
        assertTrue(walk.accept(row(1, ACKED, 1, 4, EPOCH, false), 1_000));
        assertTrue(walk.accept(row(2, INFLIGHT, MAX, 4, EPOCH - 1, false), 1_000)); // lease lost on the last attempt
        assertTrue(walk.accept(Row.undelivered(3), 100));
        assertEquals(2, walk.steps().size());
        assertTrue(walk.steps().get(0) instanceof DeadLetter);
        assertEquals(0, fetch.budget().bytesLeft());
    }

    @Test
    void a_message_not_yet_due_holds_the_partition_and_the_steps_before_it_stand() {
        PartitionWalk walk = new PartitionWalk(EPOCH, 10, MAX);
        assertEquals(2, offer(walk, Row.undelivered(1), row(2, RETRY, 1, 4, EPOCH, false),
                Row.undelivered(3, true), Row.undelivered(4)));
        assertTrue(walk.stopped(), "the message not yet due stops the walk: the later one waits (ordering)");
        assertFalse(walk.busy(), "not a delivery still out: the earlier steps are written");
        assertEquals(List.of(1L, 2L), walk.steps().stream().map(PartitionWalk.Step::offset).toList());
        assertFalse(walk.outOfBudget(), "held, not out of budget: more budget cannot resume it");
    }

    @Test
    void a_due_delayed_message_goes_out_as_any_first_delivery() {
        PartitionWalk walk = new PartitionWalk(EPOCH, 10, MAX);
        assertEquals(2, offer(walk, Row.undelivered(1, false), Row.undelivered(2)));
        assertEquals(List.of(new Deliver(1, 1, null, 0), new Deliver(2, 1, null, 0)), walk.steps());
    }
}
