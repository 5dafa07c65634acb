package dev.tenantmq.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/** The fair-share, acquire and surplus rules of the scheduler (SPEC section 5, "Fair share"). */
class LeaseShareTest {
    @Test
    void thirty_partitions_over_four_subscribers_split_eight_eight_seven_seven_in_name_order() {
        List<String> live = List.of("d", "b", "a", "c");
        assertEquals(8, LeaseShare.fairShare(30, live, "a"));
        assertEquals(8, LeaseShare.fairShare(30, live, "b"));
        assertEquals(7, LeaseShare.fairShare(30, live, "c"));
        assertEquals(7, LeaseShare.fairShare(30, live, "d"));
    }

    @Test
    void the_shares_of_all_live_subscribers_add_up_to_every_partition_exactly_once() {
        for (int subscribers = 1; subscribers <= 7; subscribers++) {
            List<String> live = new ArrayList<>();
            for (int i = 0; i < subscribers; i++) {
                live.add("pod-" + i);
            }
            for (int partitions = 0; partitions <= 40; partitions++) {
                int total = 0;
                int min = Integer.MAX_VALUE;
                int max = 0;
                for (String me : live) {
                    int share = LeaseShare.fairShare(partitions, live, me);
                    total += share;
                    min = Math.min(min, share);
                    max = Math.max(max, share);
                }
                assertEquals(partitions, total, partitions + " over " + subscribers);
                assertEquals(true, max - min <= 1, "shares differ by at most one: " + partitions + " over " + subscribers);
            }
        }
    }

    @Test
    void fewer_partitions_than_subscribers_leave_the_last_names_without_a_share() {
        List<String> live = List.of("a", "b", "c");
        assertEquals(1, LeaseShare.fairShare(2, live, "a"));
        assertEquals(1, LeaseShare.fairShare(2, live, "b"));
        assertEquals(0, LeaseShare.fairShare(2, live, "c"));
        assertEquals(0, LeaseShare.fairShare(0, live, "a"));
    }

    @Test
    void a_subscriber_missing_from_the_live_list_is_a_bug() {
        assertThrows(IllegalArgumentException.class, () -> LeaseShare.fairShare(3, List.of("a"), "b"));
    }

    @Test
    void fresh_partitions_are_the_first_unleased_ones_in_order_up_to_the_need() {
        List<String> active = List.of("p1", "p2", "p3", "p4", "p5");
        assertEquals(List.of("p2", "p4"), LeaseShare.freshToAcquire(active, Set.of("p1", "p3"), 2));
        assertEquals(List.of("p2", "p4", "p5"), LeaseShare.freshToAcquire(active, Set.of("p1", "p3"), 10));
        assertEquals(List.of(), LeaseShare.freshToAcquire(active, Set.of(), 0));
        assertEquals(List.of(), LeaseShare.freshToAcquire(active, Set.of(), -1));
    }

    @Test
    void surplus_gives_up_idle_partitions_before_busy_ones_highest_key_first() {
        List<String> mine = List.of("a", "b", "c", "d");
        Set<String> busy = Set.of("c", "d");
        assertEquals(List.of("b", "a"), LeaseShare.surplus(mine, Function.identity(), 2, busy));
        assertEquals(List.of("b", "a", "d"), LeaseShare.surplus(mine, Function.identity(), 3, busy),
                "a busy partition only when there are not enough idle ones");
        assertEquals(List.of("b"), LeaseShare.surplus(mine, Function.identity(), 1, busy));
    }

    @Test
    void surplus_never_returns_more_than_held_nor_a_negative_count() {
        assertEquals(List.of("b", "a"), LeaseShare.surplus(List.of("a", "b"), Function.identity(), 5, Set.of()));
        assertEquals(List.of(), LeaseShare.surplus(List.of("a", "b"), Function.identity(), 0, Set.of()));
        assertEquals(List.of(), LeaseShare.surplus(List.of("a", "b"), Function.identity(), -1, Set.of()));
    }

    @Test
    void surplus_reads_the_partition_key_of_any_lease_type() {
        record Lease(String partitionKey, long epoch) {}
        List<Lease> mine = List.of(new Lease("x", 1), new Lease("y", 2));
        assertEquals(List.of(new Lease("x", 1)), LeaseShare.surplus(mine, Lease::partitionKey, 1, Set.of("y")));
    }
    @Test
    void a_tick_acquires_the_gap_to_the_share_but_never_more_than_its_bound() {
        assertEquals(10_000, LeaseShare.acquisitionsThisTick(100_000, 0, 10_000), "a large topic: the bound");
        assertEquals(10_000, LeaseShare.acquisitionsThisTick(100_000, 80_000, 10_000), "still short by more than the bound");
        assertEquals(3, LeaseShare.acquisitionsThisTick(100_000, 99_997, 10_000), "the last few");
        assertEquals(0, LeaseShare.acquisitionsThisTick(8, 8, 10_000), "holds its share");
        assertEquals(0, LeaseShare.acquisitionsThisTick(7, 8, 10_000), "holds more than its share: releases, acquires nothing");
        assertEquals(1, LeaseShare.acquisitionsThisTick(30, 0, 1));
    }


    @Test
    void a_lease_is_renewed_once_older_than_half_the_margin_between_the_tick_and_the_shorter_timeout() {
        // The defaults: tick 2 s, heartbeat timeout 10 s, lease 30 s.
        assertEquals(Duration.ofSeconds(4), LeaseShare.renewAfter(Duration.ofSeconds(2), Duration.ofSeconds(10), Duration.ofSeconds(30)));
        // A lease shorter than the heartbeat timeout bounds it instead.
        assertEquals(Duration.ofMillis(1500), LeaseShare.renewAfter(Duration.ofSeconds(1), Duration.ofSeconds(10), Duration.ofSeconds(4)));
        // A tick not shorter than a timeout renews on every tick.
        assertEquals(Duration.ZERO, LeaseShare.renewAfter(Duration.ofSeconds(10), Duration.ofSeconds(10), Duration.ofSeconds(30)));
        assertEquals(Duration.ZERO, LeaseShare.renewAfter(Duration.ofSeconds(20), Duration.ofSeconds(10), Duration.ofSeconds(30)));
    }

    @Test
    void a_lease_renewed_at_its_renewal_age_plus_a_tick_is_never_near_expiry_or_the_orphan_sweep() {
        for (long tick = 1; tick <= 20; tick++) {
            for (long heartbeat = tick + 1; heartbeat <= 40; heartbeat++) {
                for (long lease = tick + 1; lease <= 40; lease++) {
                    Duration oldest = LeaseShare.renewAfter(Duration.ofSeconds(tick), Duration.ofSeconds(heartbeat),
                            Duration.ofSeconds(lease)).plusSeconds(tick);
                    String what = "tick " + tick + " s, heartbeat timeout " + heartbeat + " s, lease " + lease + " s";
                    assertTrue(oldest.compareTo(Duration.ofSeconds(heartbeat)) < 0, what);
                    assertTrue(oldest.compareTo(Duration.ofSeconds(lease)) < 0, what);
                }
            }
        }
    }

    @Test
    void the_orphan_sweep_has_work_only_for_an_unexpired_lease_of_a_subscriber_that_is_not_live() {
        assertFalse(LeaseShare.anyOrphan(List.of("a", "b", "a"), List.of("a", "b", "c")));
        assertFalse(LeaseShare.anyOrphan(List.of(), List.of("a")));
        assertTrue(LeaseShare.anyOrphan(List.of("a", "gone"), List.of("a", "b")));
    }
}

