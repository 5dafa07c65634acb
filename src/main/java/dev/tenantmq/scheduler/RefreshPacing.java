package dev.tenantmq.scheduler;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * When each tenant's next refresh of the queue gauges may start (docs/operations.md, "Metrics"):
 * no sooner than {@value #SHARE} times as long as its last successful one took, counted from when
 * that one started; the scheduler also starts a round of refreshes at most once per
 * {@code mq.metrics.refresh-interval}. The refresh counts every partition's messages above each
 * group's committed offset, so its cost grows with partitions times groups and with the backlog:
 * with 100,000 partitions a tenant's refresh took 7 to 26 s and restarted as soon as it ended, so
 * one database core did little else. Paced, such a tenant's gauges are older, and their refresh
 * takes at most a {@value #SHARE}th of the time. Pure: the caller passes its
 * {@code System.nanoTime()} readings, so the rule is tested without a clock.
 */
final class RefreshPacing {
    /** A refresh that took {@code d} is followed by the next no sooner than {@code SHARE * d} after it started. */
    static final int SHARE = 10;

    private final Map<String, Long> notBefore = new ConcurrentHashMap<>();

    /** Whether {@code tenant}'s next refresh may start at {@code nowNanos} (a tenant never refreshed may). */
    boolean due(String tenant, long nowNanos) {
        Long next = notBefore.get(tenant);
        return next == null || nowNanos - next >= 0;
    }

    /**
     * Records a successful refresh of {@code tenant} that ran from {@code beganNanos} to
     * {@code endedNanos}.
     */
    void finished(String tenant, long beganNanos, long endedNanos) {
        long took = Math.max(0, endedNanos - beganNanos);
        notBefore.put(tenant, beganNanos + (took > Long.MAX_VALUE / (2 * SHARE) ? Long.MAX_VALUE / 2 : SHARE * took));
    }

    /**
     * Records a failed refresh: the tenant is due again at the next interval, so its gauges and
     * readiness ({@code mq_ready}) recover as soon as the database does. A failure is mostly a
     * time-out waiting for a connection or an answer, which costs the database nothing.
     */
    void failed(String tenant) {
        notBefore.remove(tenant);
    }
}
