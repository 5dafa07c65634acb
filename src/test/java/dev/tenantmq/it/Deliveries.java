package dev.tenantmq.it;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** What one consumer group received, across all its consumer processes. */
public final class Deliveries {
    private final Set<String> ids = new HashSet<>();
    private final Map<String, Long> lastFirstDelivery = new HashMap<>();
    private final List<String> orderViolations = new ArrayList<>();
    private int duplicates;
    private int acked;
    private int stale;
    private long lastDeliveryNanos = System.nanoTime();
    private long longestGapNanos;
    private boolean measuringGaps;

    /** Records one delivery; a redelivered id counts as a duplicate and is not order-checked again. */
    public synchronized void record(String partitionKey, long offset, String id) {
        long now = System.nanoTime();
        if (measuringGaps) {
            longestGapNanos = Math.max(longestGapNanos, now - lastDeliveryNanos);
        }
        lastDeliveryNanos = now;
        if (!ids.add(id)) {
            duplicates++;
            return;
        }
        Long prev = lastFirstDelivery.put(partitionKey, offset);
        if (prev != null && prev >= offset) {
            orderViolations.add(partitionKey + ": offset " + offset + " first delivered after " + prev);
        }
    }

    /** Starts (or restarts) measuring the longest pause between two deliveries of the group. */
    public synchronized void startGapMeasurement() {
        measuringGaps = true;
        lastDeliveryNanos = System.nanoTime();
        longestGapNanos = 0;
    }

    /** Longest pause between two deliveries since {@link #startGapMeasurement}, in milliseconds. */
    public synchronized long longestGapMillis() {
        return Math.max(longestGapNanos, System.nanoTime() - lastDeliveryNanos) / 1_000_000;
    }

    /** Counts one receipt answered ACKED. */
    public synchronized void acked() {
        acked++;
    }

    /** Counts one receipt answered STALE that the scenario explains (its lease moved or its visibility ran out). */
    public synchronized void staleExplained() {
        stale++;
    }

    /** Receipts answered ACKED. */
    public synchronized int ackedCount() {
        return acked;
    }

    /** Receipts answered STALE, each explained by a lease move or a visibility expiry. */
    public synchronized int staleCount() {
        return stale;
    }

    /** Every id received at least once. */
    public synchronized Set<String> ids() {
        return Set.copyOf(ids);
    }

    public synchronized boolean containsAll(Set<String> expected) {
        return ids.containsAll(expected);
    }

    public synchronized Set<String> missing(Set<String> expected) {
        Set<String> m = new HashSet<>(expected);
        m.removeAll(ids);
        return m;
    }

    public synchronized List<String> orderViolations() {
        return List.copyOf(orderViolations);
    }

    public synchronized int duplicates() {
        return duplicates;
    }
}
