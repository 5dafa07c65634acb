package dev.tenantmq.domain;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smallrye.mutiny.helpers.test.UniAssertSubscriber;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The wake rules of long polls (docs/architecture.md, "Long polls"): a signal is either taken
 * by a waiting poll of the group or makes the group's polls that were looking meanwhile look
 * again; a signal a waiting poll took does not send every other poll back to the database.
 */
class FetchSignalsTest {
    private static final String T = "tenant-a", TOPIC = "topic-a", G = "group-a";
    /** Long enough that a wait still pending after the assertion's read is a wait, not a wake. */
    private static final Duration LONG = Duration.ofSeconds(30);

    private final FetchSignals signals = new FetchSignals();

    private UniAssertSubscriber<FetchSignals.Wake> waitFrom(long seen) {
        return signals.await(T, TOPIC, G, seen, LONG).subscribe().withSubscriber(UniAssertSubscriber.create());
    }

    @Test
    void a_signal_taken_by_a_waiting_poll_does_not_wake_a_poll_that_was_looking_meanwhile() {
        UniAssertSubscriber<FetchSignals.Wake> waiting = waitFrom(signals.generation(T, TOPIC, G));
        long seenByLooker = signals.generation(T, TOPIC, G); // a poll starts a look

        signals.signal(T, TOPIC, List.of("p"), 1); // a publish of one message, while it looks

        assertEquals(Set.of("p"), waiting.awaitItem().getItem().partitions(), "the waiting poll took the signal, with its partition");
        UniAssertSubscriber<FetchSignals.Wake> looker = waitFrom(seenByLooker); // the look found nothing
        looker.assertNotTerminated(); // the signal was taken: the poll that looked waits instead of looking again
        looker.cancel();
    }

    /** docs/architecture.md, "News between looks". */
    @Test
    void every_signal_goes_into_each_groups_news_by_name_and_one_without_names_ends_its_trust() {
        java.time.Instant until = java.time.Instant.now().plus(LONG);
        dev.tenantmq.model.ReadyNews news = signals.news(T, TOPIC, G);
        news.lookEnded(news.lookStarted(), true, List.of(), until); // a look saw every ready partition
        UniAssertSubscriber<FetchSignals.Wake> first = waitFrom(signals.generation(T, TOPIC, G));
        signals.signal(T, TOPIC, List.of("p"), 1); // taken by the waiting poll, and news all the same
        assertEquals(Set.of("p"), first.awaitItem().getItem().partitions());

        UniAssertSubscriber<FetchSignals.Wake> second = waitFrom(signals.generation(T, TOPIC, G));
        signals.signalNewLeases(T, TOPIC, List.of("q"));
        FetchSignals.Wake afterLeases = second.awaitItem().getItem();
        assertTrue(afterLeases.signalled());
        assertEquals(Set.of(), afterLeases.partitions(), "new leases: the poll asks which partitions are ready");

        assertEquals(List.of("p", "q"), news.take(java.time.Instant.now()));

        signals.signal(T, TOPIC, 1); // a nack: which partition is not said
        assertEquals(null, news.take(java.time.Instant.now()), "the next fetch looks");
    }

    @Test
    void a_signal_no_poll_was_waiting_for_wakes_the_polls_that_were_looking_when_they_wait() {
        long seen = signals.generation(T, TOPIC, G);

        signals.signal(T, TOPIC, List.of("p"), 1); // nobody waits: every poll of the group is looking

        FetchSignals.Wake wake = waitFrom(seen).awaitItem().getItem();
        assertTrue(wake.signalled(), "woken at once");
        assertEquals(Set.of(), wake.partitions(), "partitions unknown: it looks at every partition");
    }

    @Test
    void a_signal_for_more_messages_than_polls_waiting_wakes_those_and_the_ones_that_were_looking() {
        UniAssertSubscriber<FetchSignals.Wake> waiting = waitFrom(signals.generation(T, TOPIC, G));
        long seenByLooker = signals.generation(T, TOPIC, G);

        signals.signal(T, TOPIC, List.of("p", "q"), 2); // two messages, one waiting poll

        assertTrue(waiting.awaitItem().getItem().signalled());
        assertTrue(waitFrom(seenByLooker).awaitItem().getItem().signalled(), "the second message is the looking poll's");
    }

    @Test
    void another_groups_missed_signal_does_not_wake_this_groups_polls() {
        long seen = signals.generation(T, TOPIC, G);
        UniAssertSubscriber<FetchSignals.Wake> other = signals.await(T, TOPIC, "group-b",
                signals.generation(T, TOPIC, "group-b"), LONG).subscribe().withSubscriber(UniAssertSubscriber.create());
        UniAssertSubscriber<FetchSignals.Wake> mine = waitFrom(seen);

        signals.signal(T, TOPIC, List.of("p"), 1); // one waiting poll in each group takes it

        assertTrue(other.awaitItem().getItem().signalled());
        assertTrue(mine.awaitItem().getItem().signalled());
        UniAssertSubscriber<FetchSignals.Wake> next = waitFrom(seen);
        next.assertNotTerminated(); // each group's poll took the signal: nothing missed
        next.cancel();
    }

    @Test
    void every_signal_of_the_topic_counts_whether_a_poll_took_it_or_not() {
        long before = signals.signalsSent(T, TOPIC);
        UniAssertSubscriber<FetchSignals.Wake> waiting = waitFrom(signals.generation(T, TOPIC, G));

        signals.signal(T, TOPIC, List.of("p"), 1); // taken by the waiting poll
        signals.signal(T, TOPIC, List.of("q"), 1); // taken by nobody
        signals.signal(T, TOPIC, List.of("r"), 0); // nothing deliverable: no signal

        assertTrue(waiting.awaitItem().getItem().signalled());
        assertEquals(before + 2, signals.signalsSent(T, TOPIC));
        assertEquals(0, signals.signalsSent(T, "other-topic"), "another topic's count is its own");
    }

    @Test
    void a_signal_for_many_messages_of_one_partition_wakes_one_poll_and_misses_nothing() {
        UniAssertSubscriber<FetchSignals.Wake> first = waitFrom(signals.generation(T, TOPIC, G));
        UniAssertSubscriber<FetchSignals.Wake> second = waitFrom(signals.generation(T, TOPIC, G));
        long seenByLooker = signals.generation(T, TOPIC, G);

        signals.signal(T, TOPIC, List.of("p"), 100); // a publish of 100 messages to one partition

        assertEquals(Set.of("p"), first.awaitItem().getItem().partitions(), "the longest-waiting poll takes it");
        second.assertNotTerminated(); // the partition gives one batch at a time: a second poll would find it held
        UniAssertSubscriber<FetchSignals.Wake> looker = waitFrom(seenByLooker);
        looker.assertNotTerminated(); // one poll per partition was all the signal could use: nothing missed
        second.cancel();
        looker.cancel();
    }
}
