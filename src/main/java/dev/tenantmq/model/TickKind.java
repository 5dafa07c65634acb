package dev.tenantmq.model;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * What one scheduler tick does for one (tenant, consumer group, topic) that this process serves
 * (docs/architecture.md, "Dormant groups"). Pure: the scheduler knows when the triple was last
 * fetched here and which subscribers are live, and asks this rule.
 *
 * <p>Transitions, judged anew on every tick:
 * <ul>
 *   <li>{@link #FULL} to {@link #DORMANT}: no fetch of the triple here for {@code mq.dormant-after}
 *       (a waiting long poll counts as a fetch: it re-checks, and so touches the triple, every
 *       {@code mq.fetch.recheck-interval}), and the live subscribers are the ones of the last full
 *       tick.</li>
 *   <li>{@link #DORMANT} to {@link #FULL}: a fetch (the registry ticks the triple at once, so the
 *       fetch finds its share leased), or a change in the live subscribers: one joined or one
 *       died, and the shares move.</li>
 * </ul>
 */
public enum TickKind {
    /**
     * Heartbeat, discovery, fair share, acquire, renew, release the surplus, orphan sweep, dead
     * letters of expired last attempts, idle-lease release and heartbeat purge (SPEC section 5).
     */
    FULL,
    /**
     * Heartbeat, renewal of the leases held, and dead letters of expired last attempts; nothing
     * that reads every partition or lease row of the triple. The leases stay as the last full tick
     * left them, so the shares of the other subscribers do not move: no partition is acquired,
     * taken over, released as surplus or released as idle until the triple is fetched again or the
     * live subscribers change. A dormant triple is still dropped after {@code mq.interest-timeout}.
     */
    DORMANT;

    /**
     * The kind of this tick for one triple.
     *
     * @param sinceLastFetch time since the last fetch of the triple here (never negative)
     * @param dormantAfter {@code mq.dormant-after}; zero: never dormant
     * @param live the live subscribers read by this tick's heartbeat, in name order
     * @param liveAtLastFullTick those of the triple's last full tick here that finished, in name
     *     order, or {@code null} when it had none (a triple's first tick, and the one after a
     *     failing tick, is full)
     * @return {@link #DORMANT} when {@code dormantAfter} is positive, the triple was not fetched
     *     for that long and its live subscribers are those of its last full tick; else {@link #FULL}
     */
    public static TickKind of(Duration sinceLastFetch, Duration dormantAfter, List<String> live,
                              List<String> liveAtLastFullTick) {
        return quiet(sinceLastFetch, dormantAfter) && Objects.equals(live, liveAtLastFullTick) ? DORMANT : FULL;
    }

    /**
     * Whether a triple went without a fetch long enough to be dormant. A fetch after such a quiet
     * ends the dormancy, and the triple is ticked in full at once instead of at the next periodic
     * tick, so the fetch finds the partitions that gained work meanwhile leased.
     *
     * @param sinceLastFetch time since the triple's last fetch here (never negative)
     * @param dormantAfter {@code mq.dormant-after}; zero: never dormant
     * @return whether {@code dormantAfter} is positive and at most {@code sinceLastFetch}
     */
    public static boolean quiet(Duration sinceLastFetch, Duration dormantAfter) {
        return !dormantAfter.isZero() && !dormantAfter.isNegative() && sinceLastFetch.compareTo(dormantAfter) >= 0;
    }
}
