package dev.tenantmq.domain;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The unacknowledged-messages view of {@code max-unacked-per-topic} (docs/security.md, "Quotas"): the database's
 * count as of the last refresh, plus this process's stored and in-flight batches. A fake
 * database count and a fake clock drive it.
 */
class UnackedCountsTest {
    private final Map<String, Long> database = new HashMap<>();
    private final List<String> reads = new ArrayList<>();
    private final AtomicLong now = new AtomicLong();
    private final UnackedCounts counts = new UnackedCounts((tenant, topic, atMost) -> {
        reads.add(tenant + "/" + topic);
        return Math.min(atMost, database.getOrDefault(tenant + "/" + topic, 0L));
    }, now::get, Duration.ofMinutes(5));

    @Test
    void a_batch_is_admitted_only_when_all_of_it_fits() {
        database.put("a/t", 7L);
        assertNull(counts.tryReserve("a", "t", 4, 10), "7 + 4 > 10");
        assertNotNull(counts.tryReserve("a", "t", 3, 10), "7 + 3 = 10 fits");
        assertNull(counts.tryReserve("a", "t", 1, 10), "full now");
    }

    @Test
    void only_the_first_publish_to_a_topic_reads_the_database() {
        counts.tryReserve("a", "t", 1, 10).stored(1);
        counts.tryReserve("a", "t", 1, 10).stored(1);
        assertEquals(List.of("a/t"), reads);
    }

    @Test
    void stored_messages_count_until_the_next_refresh_sees_them_in_the_database() {
        counts.tryReserve("a", "t", 6, 10).stored(6);
        assertNull(counts.tryReserve("a", "t", 5, 10), "6 stored since the count");
        database.put("a/t", 6L);
        counts.refresh();
        assertNull(counts.tryReserve("a", "t", 5, 10), "now 6 in the database, none since: still full");
        assertNotNull(counts.tryReserve("a", "t", 4, 10));
    }

    @Test
    void acks_seen_by_the_refresh_free_room() {
        database.put("a/t", 10L);
        assertNull(counts.tryReserve("a", "t", 1, 10));
        database.put("a/t", 2L); // consumers acked 8
        counts.refresh();
        assertNotNull(counts.tryReserve("a", "t", 8, 10));
    }

    @Test
    void duplicates_and_failed_batches_give_their_room_back() {
        UnackedCounts.Reservation dup = counts.tryReserve("a", "t", 10, 10);
        assertNull(counts.tryReserve("a", "t", 1, 10), "in flight: reserved");
        dup.stored(0); // all duplicates: nothing new stored
        UnackedCounts.Reservation failed = counts.tryReserve("a", "t", 10, 10);
        assertNotNull(failed);
        failed.cancel();
        assertNotNull(counts.tryReserve("a", "t", 10, 10), "the failed batch took no room");
    }

    @Test
    void topics_are_counted_apart() {
        database.put("a/t", 10L);
        assertNull(counts.tryReserve("a", "t", 1, 10));
        assertNotNull(counts.tryReserve("a", "u", 10, 10), "another topic of the tenant");
        assertNotNull(counts.tryReserve("b", "t", 10, 10), "the same topic of another tenant");
    }

    @Test
    void a_topic_idle_past_the_timeout_is_forgotten_and_counted_afresh() {
        counts.tryReserve("a", "t", 1, 10).stored(1);
        now.addAndGet(Duration.ofMinutes(5).plusSeconds(1).toNanos());
        assertEquals(0, counts.refresh(), "forgotten, not refreshed");
        counts.tryReserve("a", "t", 1, 10);
        assertEquals(List.of("a/t", "a/t"), reads, "the next publish reads the count again");
    }

    @Test
    void a_failing_refresh_keeps_the_last_view() {
        UnackedCounts failing = new UnackedCounts((tenant, topic, atMost) -> {
            if (!reads.isEmpty()) {
                throw new IllegalStateException("database down");
            }
            reads.add("first");
            return 9;
        }, now::get, Duration.ofMinutes(5));
        assertNotNull(failing.tryReserve("a", "t", 1, 10));
        assertEquals(0, failing.refresh());
        assertNull(failing.tryReserve("a", "t", 1, 10), "still 9 + 1 in flight");
    }
}
