package dev.tenantmq.model;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Which publish groups of one (tenant, topic) in this process may start their transaction
 * (docs/architecture.md, "Group commit"). A publish transaction locks the head row of every
 * partition it writes and holds the locks until it commits; a group that shares a partition with
 * a running transaction would only wait for that lock inside its own transaction, holding a pooled
 * connection while it waits. So a group starts only when no running transaction and no group that
 * began waiting before it shares one of its partitions: it waits in the process instead, where
 * later requests can still join it, and groups that share a partition start in the order they
 * began waiting. Groups without a shared partition start independently. A transaction counts as
 * running here until its statements are done and its commit starts, when the database is about
 * to release its locks ({@link #finish}).
 *
 * <p>Pure and not thread-safe: the caller guards one instance per (tenant, topic). A group is
 * named by its set of partition keys, compared by identity: an open group's set grows as
 * requests join it.
 */
public final class HeadQueue {
    /** Partition key to the number of running transactions that write it. */
    private final Map<String, Integer> running = new HashMap<>();
    /** The waiting groups' partition keys, in the order they began waiting. */
    private final List<Set<String>> waiting = new ArrayList<>();

    /** A group begins waiting; {@code keys} is its own set, which may still grow while it waits. */
    public void waitFor(Set<String> keys) {
        waiting.add(keys);
    }

    /**
     * Whether the waiting group {@code keys} may start now: no running transaction writes one of
     * its partitions, and no group that began waiting before it shares one.
     *
     * @throws IllegalStateException when the group is not waiting
     */
    public boolean mayStart(Set<String> keys) {
        for (String key : keys) {
            if (running.containsKey(key)) {
                return false;
            }
        }
        for (Set<String> earlier : waiting) {
            if (earlier == keys) {
                return true;
            }
            if (shares(earlier, keys)) {
                return false;
            }
        }
        throw new IllegalStateException("not a waiting group");
    }

    /**
     * The waiting group {@code keys} starts its transaction (whether or not {@link #mayStart}
     * said so: an interrupted wait starts anyway, and waits for the head locks in the database).
     */
    public void start(Set<String> keys) {
        for (int i = 0; i < waiting.size(); i++) {
            if (waiting.get(i) == keys) {
                waiting.remove(i);
                keys.forEach(k -> running.merge(k, 1, Integer::sum));
                return;
            }
        }
        throw new IllegalStateException("not a waiting group");
    }

    /**
     * The group {@code keys} is committing, or failed: its partitions are free of it. Once per
     * group.
     *
     * @throws IllegalStateException when one of its partitions is not written by a running group
     *     (a group finished twice, or never started)
     */
    public void finish(Set<String> keys) {
        for (String key : keys) {
            if (!running.containsKey(key)) {
                throw new IllegalStateException("partition " + key + " is not written by a running group");
            }
        }
        for (String key : keys) {
            running.computeIfPresent(key, (k, n) -> n == 1 ? null : n - 1);
        }
    }

    /** Whether nothing is running or waiting. */
    public boolean idle() {
        return running.isEmpty() && waiting.isEmpty();
    }

    private static boolean shares(Collection<String> a, Set<String> b) {
        for (String key : a) {
            if (b.contains(key)) {
                return true;
            }
        }
        return false;
    }
}
