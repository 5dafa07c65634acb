package dev.tenantmq.model;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.function.Function;

/**
 * How many partitions of one (tenant, consumer group, topic) a subscriber should lease, which free
 * ones it takes, and which of its own it gives up (SPEC section 5, "Fair share"; RFC "Subscriber
 * discovery"). Pure: the scheduler reads the heartbeats and leases, asks these rules, and writes
 * the result. Every live subscriber computes the same split from the same rows, so they agree
 * without talking to each other.
 */
public final class LeaseShare {
    private LeaseShare() {}

    /**
     * This subscriber's fair share of {@code partitions} among the {@code live} subscribers:
     * floor(P/S), plus one for the first P mod S subscribers in name order, so the shares add up
     * to P exactly (30 over 4 is 8/8/7/7) and every subscriber computes the same split.
     *
     * @param partitions partitions with work (P, at least 0)
     * @param live the live subscribers of the triple, in any order; must contain {@code me}
     * @param me this subscriber's name
     * @return this subscriber's share, 0..P
     * @throws IllegalArgumentException when {@code me} is not among {@code live}
     */
    public static int fairShare(int partitions, Collection<String> live, String me) {
        List<String> sorted = live.stream().distinct().sorted().toList();
        int rank = sorted.indexOf(me);
        if (rank < 0) {
            throw new IllegalArgumentException("subscriber '" + me + "' is not among the live ones " + sorted);
        }
        int base = partitions / sorted.size();
        return base + (rank < partitions % sorted.size() ? 1 : 0);
    }

    /**
     * How many leases to acquire in this tick: the gap between this subscriber's share and what
     * it holds, at most {@code perTick}. A topic with more partitions than that is leased over
     * several ticks (docs/architecture.md, "The scheduler's tick"), so no tick's transaction
     * grows with the topic: at 100,000 partitions one tick writing every lease and offsets row
     * took over two seconds, past the tick and near a lease's renewal.
     *
     * @param share this subscriber's fair share ({@link #fairShare})
     * @param held the live leases it holds among the partitions with work
     * @param perTick the most to acquire in one tick, at least 1 ({@code mq.max-lease-acquisitions-per-tick})
     * @return 0 when it holds its share or more, else {@code min(share - held, perTick)}
     */
    public static int acquisitionsThisTick(int share, int held, int perTick) {
        return Math.max(0, Math.min(share - held, perTick));
    }

    /**
     * The free partitions to lease: the first {@code n} of {@code active} (in its order) that no
     * lease row names at all. Partitions with an expired lease are taken over separately, with a
     * new epoch.
     *
     * @param active partitions with work, in the order they should be taken
     * @param leased every partition that has a lease row, live or expired, of any holder
     * @param n how many at most (a negative {@code n} takes none)
     */
    public static List<String> freshToAcquire(Collection<String> active, Set<String> leased, int n) {
        List<String> fresh = new ArrayList<>();
        for (String p : active) {
            if (fresh.size() >= n) {
                break;
            }
            if (!leased.contains(p)) {
                fresh.add(p);
            }
        }
        return fresh;
    }

    /**
     * Picks {@code n} of this subscriber's leases to give up: partitions with nothing in flight
     * first, so a rebalance rarely causes redeliveries; busy ones only when there are not enough
     * others. Within each kind, the highest partition keys go first, so the choice is the same on
     * every tick.
     *
     * @param mine this subscriber's live leases
     * @param key a lease's partition key
     * @param n how many to give up (at most {@code mine.size()} are returned)
     * @param busy partitions with messages in flight for the group
     */
    public static <L> List<L> surplus(List<L> mine, Function<L, String> key, int n, Set<String> busy) {
        List<L> ordered = new ArrayList<>(mine);
        ordered.sort(Comparator.comparing((L l) -> busy.contains(key.apply(l)))
                .thenComparing(key, Comparator.reverseOrder()));
        return List.copyOf(ordered.subList(0, Math.max(0, Math.min(n, ordered.size()))));
    }

    /**
     * How old a lease must be before a tick renews it (docs/architecture.md, "The scheduler's
     * tick"). Renewing every held lease on every tick rewrote every lease row of a topic each
     * tick (100,000 rows at 100,000 partitions, half a second); renewed only once older than
     * this, a lease is rewritten about every {@code renewAfter + tick}, and still renewed:
     * <ul>
     * <li>well before it expires: {@code renewAfter + tick < leaseDuration};</li>
     * <li>and well within {@code heartbeatTimeout}, the age below which the orphan sweep never ends
     * a lease ({@code renewAfter + tick < heartbeatTimeout}); the sweep also spares a lease whose
     * holder heart-beat within it, judged when the sweep runs, for a holder whose ticks run late.</li>
     * </ul>
     * Half of the margin between the tick and the shorter of the two timeouts is left for a tick
     * that runs late.
     *
     * @param tick the scheduler interval ({@code mq.tick-interval}); the configuration holds it
     *             shorter than both timeouts
     * @param heartbeatTimeout {@code mq.heartbeat-timeout}
     * @param leaseDuration {@code mq.lease-duration}
     * @return {@code (min(heartbeatTimeout, leaseDuration) - tick) / 2}, or zero (renew on every
     *         tick) when the tick is not shorter than both
     */
    public static Duration renewAfter(Duration tick, Duration heartbeatTimeout, Duration leaseDuration) {
        Duration margin = (heartbeatTimeout.compareTo(leaseDuration) < 0 ? heartbeatTimeout : leaseDuration).minus(tick);
        return margin.isNegative() ? Duration.ZERO : margin.dividedBy(2);
    }

    /**
     * Whether the orphan sweep has anything to end: a lease read unexpired whose holder is not
     * among the live subscribers. When none is, the tick skips the sweep's statement, which reads
     * every lease row of the triple: a lease that became an orphan after the read was taken by a
     * subscriber just then, so renewed just then, and the sweep would leave it anyway.
     *
     * @param unexpiredHolders the holders of the triple's unexpired leases, as read in this tick
     * @param live the live subscribers the sweep is given
     */
    public static boolean anyOrphan(Collection<String> unexpiredHolders, Collection<String> live) {
        Set<String> alive = Set.copyOf(live);
        return unexpiredHolders.stream().anyMatch(holder -> !alive.contains(holder));
    }
}
