package dev.tenantmq.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The rest of a ready-partition look that the group's next fetches lease from (docs/architecture.md, "The rest of a look"). */
class ReadyTailTest {
    private static final Instant T0 = Instant.parse("2026-12-05T00:00:00Z");
    private static final Duration INTERVAL = Duration.ofMillis(100);
    private static final List<String> READY = List.of("a", "b", "c", "d", "e");

    @Test
    void a_spent_walk_stops_after_the_last_candidate_that_handed_messages_out() {
        // b spent the budget; c was claimed with it but not walked, and stays in the rest.
        assertEquals(2, ReadyTail.firstUnreached(READY, Set.of("a", "b"), true, 3));
        assertEquals(2, ReadyTail.firstUnreached(READY, Set.of("b", "zz-acked"), true, 3), "a gave nothing before b");
        assertEquals(5, ReadyTail.firstUnreached(READY, Set.of("e"), true, 5));
    }

    @Test
    void a_walk_with_budget_left_reached_every_candidate() {
        assertEquals(5, ReadyTail.firstUnreached(READY, Set.of("a"), false, 5));
        assertEquals(5, ReadyTail.firstUnreached(READY, Set.of(), false, 5));
    }

    @Test
    void when_only_acked_partitions_handed_messages_out_the_claimed_candidates_count_as_reached() {
        // They were walked before the acked partitions and gave nothing: offering them again would waste a slot.
        assertEquals(5, ReadyTail.firstUnreached(READY, Set.of("zz-acked"), true, 5));
        // Those never claimed were never walked: they stay ready and come next.
        assertEquals(2, ReadyTail.firstUnreached(READY, Set.of("zz-acked"), true, 2));
    }

    @Test
    void only_a_look_that_stopped_at_its_limit_leaves_a_rest() {
        ReadyTail rest = ReadyTail.after(READY, 2, true, T0);
        assertEquals(List.of("c", "d", "e"), rest.keys());
        assertEquals("e", rest.last());
        assertEquals(T0, rest.lookedAt());
        assertNull(ReadyTail.after(READY, 2, false, T0), "the look saw every ready partition");
        assertNull(ReadyTail.after(READY, 5, true, T0), "the fetch reached them all");
    }

    @Test
    void a_rest_shrinks_as_fetches_reach_its_partitions_and_keeps_its_look_time() {
        ReadyTail rest = ReadyTail.after(READY, 1, true, T0);
        ReadyTail less = rest.rest(2);
        assertEquals(List.of("d", "e"), less.keys());
        assertEquals(T0, less.lookedAt());
        assertNull(rest.rest(4));
    }

    @Test
    void a_rest_is_trusted_for_ten_look_intervals_and_never_with_a_zero_interval() {
        ReadyTail rest = ReadyTail.after(READY, 1, true, T0);
        assertTrue(rest.trusted(T0.plusMillis(999), INTERVAL));
        assertFalse(rest.trusted(T0.plusMillis(1000), INTERVAL));
        assertFalse(rest.trusted(T0, Duration.ZERO), "mq.fetch.ready-look-interval 0 looks every time");
    }

    @Test
    void of_two_rests_of_one_look_the_group_keeps_the_one_a_fetch_walked_furthest_in() {
        ReadyTail look = new ReadyTail(READY, T0);
        // Two fetches leased from the rest at once: one reached a, the other skipped a (claimed) and took b.
        ReadyTail afterA = look.rest(1);
        ReadyTail afterB = look.rest(2);
        assertEquals(afterB, ReadyTail.afterRest(afterB, afterA, T0), "the later keep of the shorter walk loses");
        assertEquals(afterB, ReadyTail.afterRest(afterA, afterB, T0));
        assertEquals(afterA, ReadyTail.afterRest(look, afterA, T0), "alone, a fetch shrinks the rest it leased from");
        assertEquals(look, ReadyTail.afterRest(look, look.rest(0), T0), "a fetch that reached nothing leaves it");
        assertNull(ReadyTail.afterRest(afterB, null, T0), "a fetch that reached every partition ends it");
    }

    @Test
    void a_rest_that_is_gone_stays_gone_when_a_slower_fetch_of_it_finishes() {
        ReadyTail look = new ReadyTail(READY, T0);
        // Another fetch used it up, or a look that saw every ready partition ended it: the slower
        // fetch would put back partitions others have in flight.
        assertNull(ReadyTail.afterRest(null, look.rest(1), T0));
        ReadyTail later = new ReadyTail(List.of("x", "y"), T0.plusMillis(5));
        assertEquals(later, ReadyTail.afterRest(later, look.rest(1), T0), "a later look's rest stays");
        assertEquals(later, ReadyTail.afterRest(later, null, T0));
    }

    @Test
    void a_looks_rest_replaces_the_rest_of_an_earlier_look_but_not_of_a_later_one() {
        ReadyTail earlier = new ReadyTail(List.of("a", "b"), T0);
        ReadyTail later = new ReadyTail(READY, T0.plusMillis(5));
        assertEquals(later, ReadyTail.afterLook(earlier, later, later.lookedAt()), "even when longer");
        assertNull(ReadyTail.afterLook(earlier, null, later.lookedAt()), "a later look that saw everything ends it");
        assertEquals(later, ReadyTail.afterLook(later, earlier, T0), "a slower fetch's earlier look");
        assertEquals(later, ReadyTail.afterLook(later, null, T0));
        assertEquals(earlier, ReadyTail.afterLook(null, earlier, T0));
    }

    @Test
    void a_rest_names_at_least_one_partition() {
        assertThrows(IllegalArgumentException.class, () -> new ReadyTail(List.of(), T0));
    }
}
