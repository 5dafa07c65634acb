package dev.tenantmq.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The partitions signalled since a group's last complete look (docs/architecture.md, "News between looks"). */
class ReadyNewsTest {
    private static final Instant T0 = Instant.parse("2026-12-05T00:00:00Z");
    private static final Instant UNTIL = T0.plusSeconds(1);

    private static ReadyNews trustedAfterALookThatSawEverything() {
        ReadyNews news = new ReadyNews();
        news.lookEnded(news.lookStarted(), true, List.of(), UNTIL);
        return news;
    }

    @Test
    void nothing_stands_in_for_a_look_before_the_first_complete_one() {
        ReadyNews news = new ReadyNews();
        news.touched(List.of("a"), T0);
        assertNull(news.take(T0));
        assertFalse(news.trusted(T0));
    }

    @Test
    void keys_signalled_while_a_complete_look_ran_and_after_it_are_taken_once_in_key_order() {
        ReadyNews news = new ReadyNews();
        long look = news.lookStarted();
        news.touched(List.of("c"), T0); // may have committed after the look read its partition
        news.lookEnded(look, true, List.of("b"), UNTIL); // b was ready, and its fetch did not reach it
        news.touched(List.of("a", "c"), T0.plusMillis(10));
        assertEquals(List.of("a", "b", "c"), news.take(T0.plusMillis(20)));
        assertEquals(List.of(), news.take(T0.plusMillis(30)), "taken out; trusted, nothing new");
    }

    @Test
    void a_look_that_stopped_at_its_limit_grants_no_trust_and_keeps_nothing() {
        ReadyNews news = new ReadyNews();
        long look = news.lookStarted();
        news.touched(List.of("a"), T0);
        news.lookEnded(look, false, List.of("b"), UNTIL);
        assertNull(news.take(T0));
        news.touched(List.of("c"), T0);
        news.lookEnded(news.lookStarted(), true, List.of(), UNTIL);
        assertEquals(List.of(), news.take(T0), "c came between the looks: the second one saw it");
    }

    @Test
    void a_change_without_keys_ends_the_trust_and_one_during_a_look_denies_it() {
        ReadyNews news = trustedAfterALookThatSawEverything();
        news.touched(List.of("a"), T0);
        news.unknown(); // a nack for redelivery at once, a requeue: which partitions is not known
        assertNull(news.take(T0));

        long look = news.lookStarted();
        news.unknown(); // the look may have read those partitions before the change
        news.lookEnded(look, true, List.of(), UNTIL);
        assertNull(news.take(T0));
    }

    @Test
    void trust_ends_at_the_end_of_the_window() {
        ReadyNews news = trustedAfterALookThatSawEverything();
        news.touched(List.of("a"), T0);
        assertTrue(news.trusted(UNTIL.minusNanos(1)));
        assertNull(news.take(UNTIL), "a partition that became ready unsignalled waits at most the window");
        news.touched(List.of("b"), UNTIL.plusMillis(1));
        assertNull(news.take(UNTIL.plusMillis(2)), "nothing is gathered after the window");
    }

    @Test
    void only_the_latest_look_grants_trust() {
        ReadyNews news = new ReadyNews();
        long first = news.lookStarted();
        long second = news.lookStarted();
        news.lookEnded(first, true, List.of("x"), UNTIL); // a later look started: it decides
        assertNull(news.take(T0));
        news.lookEnded(second, true, List.of(), UNTIL);
        assertEquals(List.of(), news.take(T0));
    }

    @Test
    void keys_put_back_unreached_come_first_after_the_last_one_reached() {
        ReadyNews news = trustedAfterALookThatSawEverything();
        news.touched(List.of("a", "b", "c", "d"), T0);
        List<String> taken = news.take(T0);
        assertEquals(List.of("a", "b", "c", "d"), taken);
        news.putBack(taken.subList(2, 4), "b"); // the budget ran out at b
        news.touched(List.of("a"), T0); // a again, published meanwhile
        assertEquals(List.of("c", "d", "a"), news.take(T0), "after b first, so a hot a does not starve c and d");
    }

    @Test
    void too_many_keys_are_dropped_and_the_next_fetch_looks() {
        ReadyNews news = trustedAfterALookThatSawEverything();
        List<String> keys = new ArrayList<>();
        for (int i = 0; i <= ReadyNews.MAX_KEYS; i++) {
            keys.add("k" + i);
        }
        news.touched(keys.subList(0, ReadyNews.MAX_KEYS), T0);
        assertTrue(news.trusted(T0));
        news.touched(keys.subList(ReadyNews.MAX_KEYS, keys.size()), T0);
        assertNull(news.take(T0));
    }
}
