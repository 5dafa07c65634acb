package dev.tenantmq.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** When a scheduler tick of a triple is full and when it is dormant (docs/architecture.md, "Dormant groups"). */
class TickKindTest {
    private static final Duration AFTER = Duration.ofSeconds(10);
    private static final List<String> LIVE = List.of("pod-a", "pod-b");
    /** The last full tick a moment ago, and the default span between a dormant triple's full ticks. */
    private static final Duration SOON = Duration.ofSeconds(2);
    private static final Duration EVERY = TickKind.fullTickEvery(Duration.ofMinutes(5));

    /** A last full tick made while the triple was already quiet. */
    private static TickKind.LastFullTick quietTick(List<String> live, Duration since) {
        return new TickKind.LastFullTick(live, since, true);
    }

    @Test
    void a_triple_fetched_within_dormant_after_gets_a_full_tick() {
        assertEquals(TickKind.FULL, TickKind.of(Duration.ofSeconds(9), AFTER, LIVE, quietTick(LIVE, SOON), EVERY));
        assertEquals(TickKind.FULL, TickKind.of(Duration.ZERO, AFTER, LIVE, quietTick(LIVE, SOON), EVERY));
    }

    @Test
    void a_triple_not_fetched_for_dormant_after_with_the_same_live_subscribers_is_dormant() {
        assertEquals(TickKind.DORMANT, TickKind.of(AFTER, AFTER, LIVE, quietTick(List.of("pod-a", "pod-b"), SOON), EVERY));
        assertEquals(TickKind.DORMANT, TickKind.of(Duration.ofMinutes(4), AFTER, LIVE, quietTick(LIVE, Duration.ofSeconds(59)), EVERY));
    }

    @Test
    void a_subscriber_that_joins_or_dies_makes_a_quiet_triple_tick_in_full_so_the_shares_move() {
        assertEquals(TickKind.FULL, TickKind.of(Duration.ofMinutes(1), AFTER, List.of("pod-a", "pod-b", "pod-c"), quietTick(LIVE, SOON), EVERY));
        assertEquals(TickKind.FULL, TickKind.of(Duration.ofMinutes(1), AFTER, List.of("pod-a"), quietTick(LIVE, SOON), EVERY));
    }

    @Test
    void a_triple_without_a_full_tick_yet_gets_one_however_quiet() {
        assertEquals(TickKind.FULL, TickKind.of(Duration.ofMinutes(1), AFTER, LIVE, null, EVERY));
    }

    @Test
    void dormant_after_zero_makes_every_tick_full() {
        assertEquals(TickKind.FULL, TickKind.of(Duration.ofMinutes(4), Duration.ZERO, LIVE, quietTick(LIVE, SOON), EVERY));
    }

    @Test
    void a_triple_is_quiet_from_dormant_after_without_a_fetch_and_never_when_it_is_zero() {
        assertTrue(TickKind.quiet(AFTER, AFTER));
        assertFalse(TickKind.quiet(Duration.ofSeconds(9), AFTER));
        assertFalse(TickKind.quiet(Duration.ofMinutes(4), Duration.ZERO));
    }

    @Test
    void a_dormant_triple_still_ticks_in_full_once_a_minute_or_each_idle_lease_timeout_when_shorter() {
        assertEquals(Duration.ofMinutes(1), EVERY);
        assertEquals(Duration.ofSeconds(20), TickKind.fullTickEvery(Duration.ofSeconds(20)));
        assertEquals(TickKind.FULL, TickKind.of(Duration.ofMinutes(4), AFTER, LIVE, quietTick(LIVE, Duration.ofMinutes(1)), EVERY));
        assertEquals(TickKind.DORMANT, TickKind.of(Duration.ofMinutes(4), AFTER, LIVE, quietTick(LIVE, Duration.ofSeconds(59)), EVERY));
    }

    @Test
    void a_triple_is_quiet_only_after_two_long_poll_rechecks_so_a_waiting_poll_never_looks_quiet() {
        assertEquals(AFTER, TickKind.quietAfter(AFTER, Duration.ofMillis(500)));
        assertEquals(Duration.ofSeconds(12), TickKind.quietAfter(AFTER, Duration.ofSeconds(6)));
        assertEquals(Duration.ofHours(2), TickKind.quietAfter(AFTER, Duration.ofHours(1)));
        assertEquals(Duration.ZERO, TickKind.quietAfter(Duration.ZERO, Duration.ofMillis(500)));
    }

    @Test
    void a_triple_that_goes_quiet_gets_one_full_tick_before_it_is_dormant() {
        TickKind.LastFullTick whileFetched = new TickKind.LastFullTick(LIVE, SOON, false);
        assertEquals(TickKind.FULL, TickKind.of(AFTER, AFTER, LIVE, whileFetched, EVERY));
        assertEquals(TickKind.DORMANT, TickKind.of(AFTER, AFTER, LIVE, quietTick(LIVE, SOON), EVERY));
    }

    @Test
    void a_quiet_triple_hands_back_its_drained_leases_at_once_and_an_active_one_after_the_idle_lease_timeout() {
        Duration idleLeaseTimeout = Duration.ofMinutes(5);
        assertEquals(Duration.ZERO, TickKind.idleAfter(true, idleLeaseTimeout));
        assertEquals(idleLeaseTimeout, TickKind.idleAfter(false, idleLeaseTimeout));
    }
}
