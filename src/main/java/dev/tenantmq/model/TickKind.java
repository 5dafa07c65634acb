package dev.tenantmq.model;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * What one scheduler tick does for one (tenant, consumer group, topic) that this process serves
 * (docs/architecture.md, "Dormant groups"). Pure: the scheduler knows when the triple was last
 * fetched here, when its last full tick finished and which subscribers are live, and asks this
 * rule.
 *
 * <p>Transitions, judged anew on every tick:
 * <ul>
 *   <li>{@link #FULL} to {@link #DORMANT}: no fetch of the triple here for {@code mq.dormant-after}
 *       (a waiting long poll counts as a fetch: it re-checks, and so touches the triple, every
 *       {@code mq.fetch.recheck-interval}: see {@link #quietAfter}), the live subscribers are the
 *       ones of the last full tick, and that tick was itself a quiet one. So the first tick after
 *       the triple goes quiet is full: it hands back the leases of partitions with nothing
 *       pending ({@link #idleAfter}), and the dormant ticks after it renew only what has work.</li>
 *   <li>{@link #DORMANT} to {@link #FULL}: a fetch (the registry ticks the triple at once, so the
 *       fetch finds its share leased), a change in the live subscribers (one joined or one died,
 *       and the shares move), or {@link #fullTickEvery} since the last full tick, so a surplus or
 *       an idle lease is released within that even while nobody fetches.</li>
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
     * (a quiet one, which handed back the drained ones: {@link #idleAfter}) left them, so the
     * shares of the other subscribers do not move: no partition is acquired, taken over, released
     * as surplus or released as idle until the triple is fetched again or the live subscribers
     * change. A dormant triple is still dropped after {@code mq.interest-timeout}.
     */
    DORMANT;

    /**
     * The triple's last full tick here that finished.
     *
     * @param live its live subscribers, in name order
     * @param since how long ago it finished (never negative)
     * @param quiet whether the triple was {@link #quiet} when it ran, so that tick handed back the
     *     leases of its drained partitions ({@link #idleAfter})
     */
    public record LastFullTick(List<String> live, Duration since, boolean quiet) {}

    /**
     * The kind of this tick for one triple.
     *
     * @param sinceLastFetch time since the last fetch of the triple here (never negative)
     * @param dormantAfter {@link #quietAfter}; zero: never dormant
     * @param live the live subscribers read by this tick's heartbeat, in name order
     * @param last the triple's last full tick here that finished, or {@code null} when it had none
     *     (a triple's first tick, and the one after a failing tick, is full)
     * @param fullEvery {@link #fullTickEvery}
     * @return {@link #DORMANT} when {@code dormantAfter} is positive, the triple was not fetched
     *     for that long, its live subscribers are those of its last full tick, and that tick was
     *     a quiet one younger than {@code fullEvery}; else {@link #FULL}
     */
    public static TickKind of(Duration sinceLastFetch, Duration dormantAfter, List<String> live, LastFullTick last,
                              Duration fullEvery) {
        return quiet(sinceLastFetch, dormantAfter) && last != null && last.quiet()
                && Objects.equals(live, last.live()) && last.since().compareTo(fullEvery) < 0 ? DORMANT : FULL;
    }

    /**
     * After how long without a commit a leased partition with nothing pending for the group (no
     * message above its committed offset, no delivery in flight or requeued) is idle for this
     * instance's own leases: a full tick hands its lease back and does not take it. An active
     * triple keeps a drained partition for {@code mq.idle-lease-timeout}, so a consumer that
     * keeps up does not re-lease it for every message. A quiet triple's consumers here stopped,
     * or work on a batch they fetched (whose partitions are in flight, so never idle), so it
     * keeps only the partitions with work: its dormant ticks then rewrite no lease of a drained
     * partition every few seconds. The fair share still counts a partition as idle only after
     * {@code mq.idle-lease-timeout}, as every instance counts it, so a quiet instance's share
     * does not shrink and it hands back no partition with work as surplus. Its next fetch ticks
     * it in full at once, which leases the partitions that have work by then
     * (docs/architecture.md, "Dormant groups").
     *
     * @param quiet whether the triple is {@link #quiet} at this full tick
     * @param idleLeaseTimeout {@code mq.idle-lease-timeout}
     * @return zero for a quiet triple, else {@code idleLeaseTimeout}
     */
    public static Duration idleAfter(boolean quiet, Duration idleLeaseTimeout) {
        return quiet ? Duration.ZERO : idleLeaseTimeout;
    }

    /**
     * How long a triple goes without a fetch before it is quiet: {@code mq.dormant-after}, or twice
     * {@code mq.fetch.recheck-interval} when that is longer, since a waiting long poll touches its
     * triple at every re-check and must never look quiet (a setting that turns re-checks off, as
     * some tests do, so turns dormancy off in effect).
     *
     * @param dormantAfter {@code mq.dormant-after}; zero: never dormant
     * @param recheckInterval {@code mq.fetch.recheck-interval}
     * @return zero when {@code dormantAfter} is zero, else the longer of the two
     */
    public static Duration quietAfter(Duration dormantAfter, Duration recheckInterval) {
        if (dormantAfter.isZero()) {
            return Duration.ZERO;
        }
        Duration twoRechecks = recheckInterval.multipliedBy(2);
        return twoRechecks.compareTo(dormantAfter) > 0 ? twoRechecks : dormantAfter;
    }

    /** The longest a dormant triple goes without a full tick, at most. */
    public static final Duration MAX_DORMANT_SPAN = Duration.ofMinutes(1);

    /**
     * How often a dormant triple still ticks in full: {@link #MAX_DORMANT_SPAN}, or
     * {@code mq.idle-lease-timeout} when shorter, so its idle leases are released about when an
     * active triple's are, and a surplus its instance holds goes back within a minute.
     *
     * @param idleLeaseTimeout {@code mq.idle-lease-timeout}
     * @return the shorter of the two
     */
    public static Duration fullTickEvery(Duration idleLeaseTimeout) {
        return idleLeaseTimeout.compareTo(MAX_DORMANT_SPAN) < 0 ? idleLeaseTimeout : MAX_DORMANT_SPAN;
    }

    /**
     * Whether a triple went without a fetch long enough to be dormant. A fetch after such a quiet
     * ends the dormancy, and the triple is ticked in full at once instead of at the next periodic
     * tick, so the fetch finds the partitions that gained work meanwhile leased.
     *
     * @param sinceLastFetch time since the triple's last fetch here (never negative)
     * @param dormantAfter {@link #quietAfter}; zero: never dormant
     * @return whether {@code dormantAfter} is positive and at most {@code sinceLastFetch}
     */
    public static boolean quiet(Duration sinceLastFetch, Duration dormantAfter) {
        return !dormantAfter.isZero() && !dormantAfter.isNegative() && sinceLastFetch.compareTo(dormantAfter) >= 0;
    }
}
