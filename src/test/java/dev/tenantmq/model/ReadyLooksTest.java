package dev.tenantmq.model;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** When a fetch carrying acks may skip the ready-partition query (docs/api.md, "Fetch and ack in one call"). */
class ReadyLooksTest {
    private static final Instant T0 = Instant.parse("2026-12-01T00:00:00Z");
    private static final Duration INTERVAL = Duration.ofMillis(100);

    @Test
    void a_fetch_acking_a_full_batch_within_the_interval_after_a_look_skips_the_next() {
        ReadyLooks.Looks looks = ReadyLooks.looked(T0);
        assertTrue(ReadyLooks.maySkip(looks, T0.plusMillis(99), INTERVAL, 100, 100));
        assertTrue(ReadyLooks.maySkip(looks, T0.plusMillis(10), INTERVAL, 150, 100), "more receipts than the fetch takes");
    }

    @Test
    void once_the_interval_has_passed_since_the_last_look_the_fetch_looks_again() {
        // The fairness bound: a partition that became ready waits at most the interval behind the acked ones.
        ReadyLooks.Looks looks = ReadyLooks.looked(T0);
        assertFalse(ReadyLooks.maySkip(looks, T0.plusMillis(100), INTERVAL, 100, 100));
        assertFalse(ReadyLooks.maySkip(ReadyLooks.skipped(looks, true), T0.plusMillis(150), INTERVAL, 100, 100),
                "skips do not move the last look");
    }

    @Test
    void acks_of_less_than_the_fetch_takes_or_no_look_yet_or_a_zero_interval_never_skip() {
        ReadyLooks.Looks looks = ReadyLooks.looked(T0);
        assertFalse(ReadyLooks.maySkip(looks, T0, INTERVAL, 99, 100), "a batch short of the fetch: its partitions ran dry");
        assertFalse(ReadyLooks.maySkip(null, T0, INTERVAL, 100, 100), "no look of the group in this process yet");
        assertFalse(ReadyLooks.maySkip(looks, T0, Duration.ZERO, 100, 100), "mq.fetch.ready-look-interval 0");
    }

    @Test
    void a_skip_whose_partitions_did_not_fill_the_fetch_makes_the_next_ones_look_until_a_look() {
        ReadyLooks.Looks dry = ReadyLooks.skipped(ReadyLooks.looked(T0), false);
        assertFalse(ReadyLooks.maySkip(dry, T0.plusMillis(1), INTERVAL, 100, 100));
        assertTrue(ReadyLooks.maySkip(ReadyLooks.looked(T0.plusMillis(2)), T0.plusMillis(3), INTERVAL, 100, 100));
    }
}
