package dev.tenantmq.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** When a fetch carrying acks may skip the ready-partition query (docs/api.md, "Fetch and ack in one call"). */
class ReadyLooksTest {
    private static final Instant T0 = Instant.parse("2026-12-01T00:00:00Z");
    private static final Duration INTERVAL = Duration.ofMillis(100);

    private static ReadyLooks.Looks lookAt(long millis) {
        return ReadyLooks.looked(null, T0.plusMillis(millis));
    }

    @Test
    void a_fetch_acking_a_full_batch_within_the_interval_after_a_look_skips_the_next() {
        assertTrue(ReadyLooks.maySkip(lookAt(0), T0.plusMillis(99), INTERVAL, 100, 100));
        assertTrue(ReadyLooks.maySkip(lookAt(0), T0.plusMillis(10), INTERVAL, 150, 100), "more receipts than the fetch takes");
    }

    @Test
    void once_the_interval_has_passed_since_the_last_look_the_fetch_looks_again() {
        // The fairness bound: a partition that became ready waits at most the interval behind the acked ones.
        assertFalse(ReadyLooks.maySkip(lookAt(0), T0.plusMillis(100), INTERVAL, 100, 100));
        ReadyLooks.Looks skipped = ReadyLooks.skipped(lookAt(0), T0.plusMillis(50), INTERVAL, true);
        assertFalse(ReadyLooks.maySkip(skipped, T0.plusMillis(150), INTERVAL, 100, 100), "skips do not move the last look");
    }

    @Test
    void acks_of_less_than_the_fetch_takes_or_no_look_yet_or_a_zero_interval_never_skip() {
        assertFalse(ReadyLooks.maySkip(lookAt(0), T0, INTERVAL, 99, 100), "a batch short of the fetch: its partitions ran dry");
        assertFalse(ReadyLooks.maySkip(null, T0, INTERVAL, 100, 100), "no look of the group in this process yet");
        assertFalse(ReadyLooks.maySkip(lookAt(0), T0, Duration.ZERO, 100, 100), "mq.fetch.ready-look-interval 0");
    }

    @Test
    void skips_that_do_not_fill_their_fetch_stop_the_skipping_for_twice_as_long_each_time_until_one_fills() {
        // A consumer of one message at a time at a low rate: each "full" batch's partition is empty next time.
        ReadyLooks.Looks looks = ReadyLooks.skipped(lookAt(0), T0.plusMillis(10), INTERVAL, false);
        assertEquals(T0.plusMillis(110), looks.skipAgainAt());
        looks = ReadyLooks.looked(looks, T0.plusMillis(20));
        assertFalse(ReadyLooks.maySkip(looks, T0.plusMillis(30), INTERVAL, 1, 1), "the look after it does not lift the pause");
        looks = ReadyLooks.looked(looks, T0.plusMillis(110));
        assertTrue(ReadyLooks.maySkip(looks, T0.plusMillis(110), INTERVAL, 1, 1));
        looks = ReadyLooks.skipped(looks, T0.plusMillis(110), INTERVAL, false);
        assertEquals(T0.plusMillis(310), looks.skipAgainAt(), "200 ms after the second");
        for (int i = 0; i < 20; i++) {
            looks = ReadyLooks.skipped(looks, T0, INTERVAL, false);
        }
        assertEquals(ReadyLooks.LONGEST_BACKOFF, looks.backoff());

        looks = ReadyLooks.skipped(ReadyLooks.looked(looks, T0.plusSeconds(20)), T0.plusSeconds(20), INTERVAL, true);
        assertEquals(Duration.ZERO, looks.backoff(), "a skip that fills its fetch resets the pause");
        assertTrue(ReadyLooks.maySkip(looks, T0.plusSeconds(20).plusMillis(1), INTERVAL, 100, 100));
    }
}
