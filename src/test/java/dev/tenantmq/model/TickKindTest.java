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

    @Test
    void a_triple_fetched_within_dormant_after_gets_a_full_tick() {
        assertEquals(TickKind.FULL, TickKind.of(Duration.ofSeconds(9), AFTER, LIVE, LIVE));
        assertEquals(TickKind.FULL, TickKind.of(Duration.ZERO, AFTER, LIVE, LIVE));
    }

    @Test
    void a_triple_not_fetched_for_dormant_after_with_the_same_live_subscribers_is_dormant() {
        assertEquals(TickKind.DORMANT, TickKind.of(AFTER, AFTER, LIVE, List.of("pod-a", "pod-b")));
        assertEquals(TickKind.DORMANT, TickKind.of(Duration.ofMinutes(4), AFTER, LIVE, LIVE));
    }

    @Test
    void a_subscriber_that_joins_or_dies_makes_a_quiet_triple_tick_in_full_so_the_shares_move() {
        assertEquals(TickKind.FULL, TickKind.of(Duration.ofMinutes(1), AFTER, List.of("pod-a", "pod-b", "pod-c"), LIVE));
        assertEquals(TickKind.FULL, TickKind.of(Duration.ofMinutes(1), AFTER, List.of("pod-a"), LIVE));
    }

    @Test
    void a_triple_without_a_full_tick_yet_gets_one_however_quiet() {
        assertEquals(TickKind.FULL, TickKind.of(Duration.ofMinutes(1), AFTER, LIVE, null));
    }

    @Test
    void dormant_after_zero_makes_every_tick_full() {
        assertEquals(TickKind.FULL, TickKind.of(Duration.ofMinutes(4), Duration.ZERO, LIVE, LIVE));
    }

    @Test
    void a_triple_is_quiet_from_dormant_after_without_a_fetch_and_never_when_it_is_zero() {
        assertTrue(TickKind.quiet(AFTER, AFTER));
        assertFalse(TickKind.quiet(Duration.ofSeconds(9), AFTER));
        assertFalse(TickKind.quiet(Duration.ofMinutes(4), Duration.ZERO));
    }
}
