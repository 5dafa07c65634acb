package dev.tenantmq.model;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Which publish groups may take their head locks (docs/architecture.md, "Group commit"), without threads. */
class HeadQueueTest {
    private final HeadQueue queue = new HeadQueue();

    private static Set<String> keys(String... keys) {
        return new HashSet<>(List.of(keys));
    }

    private Set<String> started(String... keys) {
        Set<String> group = keys(keys);
        queue.waitFor(group);
        queue.start(group);
        return group;
    }

    @Test
    void a_group_waits_while_a_running_transaction_writes_one_of_its_partitions_and_starts_when_it_ends() {
        Set<String> running = started("a", "b");
        Set<String> next = keys("b", "c");
        queue.waitFor(next);
        assertFalse(queue.mayStart(next));
        queue.finish(running);
        assertTrue(queue.mayStart(next));
    }

    @Test
    void groups_without_a_shared_partition_start_independently() {
        started("a", "b");
        Set<String> other = keys("c");
        queue.waitFor(other);
        assertTrue(queue.mayStart(other));
    }

    @Test
    void groups_that_share_a_partition_start_in_the_order_they_began_waiting() {
        Set<String> running = started("a");
        Set<String> first = keys("a", "b");
        Set<String> second = keys("b");
        queue.waitFor(first);
        queue.waitFor(second);
        assertFalse(queue.mayStart(second), "second shares b with first, which waits before it");
        queue.finish(running);
        assertFalse(queue.mayStart(second), "first has not started yet");
        assertTrue(queue.mayStart(first));
        queue.start(first);
        assertFalse(queue.mayStart(second), "first runs now and writes b");
        queue.finish(first);
        assertTrue(queue.mayStart(second));
    }

    @Test
    void a_waiting_group_that_grows_into_a_running_partition_waits_for_it() {
        started("a");
        Set<String> open = keys("b");
        queue.waitFor(open);
        assertTrue(queue.mayStart(open));
        open.add("a"); // a request for partition a joined the open group
        assertFalse(queue.mayStart(open));
    }

    @Test
    void a_partition_written_by_two_running_groups_is_free_when_both_ended() {
        Set<String> one = started("a");
        Set<String> two = started("a"); // an interrupted wait starts anyway
        Set<String> next = keys("a");
        queue.waitFor(next);
        queue.finish(one);
        assertFalse(queue.mayStart(next));
        queue.finish(two);
        assertTrue(queue.mayStart(next));
        queue.start(next);
        queue.finish(next);
        assertTrue(queue.idle());
    }

    @Test
    void asking_for_a_group_that_is_not_waiting_or_finishing_one_twice_is_a_bug() {
        Set<String> stranger = keys("a");
        assertThrows(IllegalStateException.class, () -> queue.mayStart(stranger));
        assertThrows(IllegalStateException.class, () -> queue.start(stranger));
        queue.waitFor(keys("a"));
        assertThrows(IllegalStateException.class, () -> queue.start(keys("a")), "compared by identity, not by value");
        Set<String> once = started("b");
        queue.finish(once);
        assertThrows(IllegalStateException.class, () -> queue.finish(once), "finished twice");
    }
}
