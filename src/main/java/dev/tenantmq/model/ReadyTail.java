package dev.tenantmq.model;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;

/**
 * The ready partitions a look named that its fetch did not reach, kept for the consumer group's
 * next fetches in this process (docs/architecture.md, "The rest of a look"). Pure: the caller
 * keeps at most one per consumer group and passes the time.
 *
 * <p>A look asks for as many ready partitions as the fetch has room for messages, but a fetch
 * over deep partitions claims a few of them ({@link PartitionDepth}), and the next fetch's look
 * named the same partitions again: a ready-partition query that reads hundreds of lease rows to
 * serve a few. Only a look that stopped at its limit leaves a rest worth keeping, and only then
 * does the group's fairness cursor move on after each fetch; the rest is the continuation of that
 * walk. Its partitions stay ready until a fetch of this process leases from them (a subscriber's
 * partitions are delivered only by its own fetches), so the rest is trusted for
 * {@link #TRUST_LOOK_INTERVALS} look intervals ({@code mq.fetch.ready-look-interval}). A kept
 * partition that gave nothing (another fetch here took it, or the lease moved) costs its slot in
 * one lease transaction; a partition that became ready meanwhile among the rest's keys waits for
 * the next round of looks, as one behind the fairness cursor does.
 *
 * @param keys the partitions, in key order, at least one
 * @param lookedAt when the look that named them started
 */
public record ReadyTail(List<String> keys, Instant lookedAt) {
    /** How many look intervals a rest stands in for a look. */
    public static final int TRUST_LOOK_INTERVALS = 10;

    /** @throws IllegalArgumentException when {@code keys} is empty (keep nothing instead) */
    public ReadyTail {
        keys = List.copyOf(keys);
        if (keys.isEmpty()) {
            throw new IllegalArgumentException("a look's rest names at least one partition");
        }
    }

    /**
     * Where a fetch's walk over {@code candidates} (in their order) stopped: the index of the first
     * candidate it did not reach. The walk goes through the claimed candidates in order until the
     * budget is spent, so when it is spent, the candidates after the last one that handed messages
     * out were not walked (claimed ones among them included: they stay ready and must not be passed
     * over); when it is not, the walk reached every candidate. When the budget is spent and no
     * candidate handed anything out, the acked partitions of the fetch, walked after the claimed
     * candidates, spent it: the claimed ones gave nothing and count as reached, and those never
     * claimed ({@code claimedUpTo} on) were not walked.
     *
     * @param gave the candidates (and any other partitions) that handed messages out
     * @param spent whether the fetch's budget is spent
     * @param claimedUpTo the index of the first candidate the fetch did not claim
     */
    public static int firstUnreached(List<String> candidates, Set<String> gave, boolean spent, int claimedUpTo) {
        if (!spent) {
            return candidates.size();
        }
        for (int i = candidates.size() - 1; i >= 0; i--) {
            if (gave.contains(candidates.get(i))) {
                return i + 1;
            }
        }
        return Math.min(claimedUpTo, candidates.size());
    }

    /**
     * The rest of a look that named {@code ready} and left ready partitions out, once its fetch
     * reached the candidates before {@code next} ({@link #firstUnreached}); null when the look saw
     * every ready partition (nothing to continue) or the fetch reached them all.
     *
     * @param leftOut whether the look stopped at its limit
     */
    public static ReadyTail after(List<String> ready, int next, boolean leftOut, Instant lookedAt) {
        if (!leftOut || next >= ready.size()) {
            return null;
        }
        return new ReadyTail(ready.subList(next, ready.size()), lookedAt);
    }

    /**
     * Whether a fetch at {@code now} may lease from the rest instead of looking: within
     * {@link #TRUST_LOOK_INTERVALS} times {@code interval} of its look. A zero interval trusts
     * no rest, as it skips no look.
     */
    public boolean trusted(Instant now, Duration interval) {
        return !interval.isZero() && now.isBefore(lookedAt.plus(interval.multipliedBy(TRUST_LOOK_INTERVALS)));
    }

    /** The last partition of the rest: the look that named it read every leased partition up to here. */
    public String last() {
        return keys.get(keys.size() - 1);
    }

    /**
     * The rest a consumer group keeps after a fetch looked at {@code lookedAt} and left
     * {@code tail} of what it named (null: nothing), while {@code kept} is what the group holds
     * now: the rest of a later look stays; otherwise the new look's rest replaces it.
     *
     * @param kept the group's rest now, or null
     * @param tail what the fetch leaves of its look's partitions, or null
     * @return the rest to hold, or null for none
     */
    public static ReadyTail afterLook(ReadyTail kept, ReadyTail tail, Instant lookedAt) {
        return kept != null && kept.lookedAt().isAfter(lookedAt) ? kept : tail;
    }

    /**
     * The rest a consumer group keeps after a fetch that leased from the rest of the look that
     * started at {@code lookedAt} leaves {@code left} of it (null: it reached every partition),
     * while {@code kept} is what the group holds now. The group's fetches in a process lease from
     * the same rest at once, each claiming partitions the others have not, and each leaves a
     * suffix of the look's partitions: a rest only shrinks. The shorter of two suffixes is where
     * some fetch walked furthest; the partitions before it are leased, or were claimed by another
     * fetch, which signals those it took nothing from. A rest that is gone (used up, or replaced
     * by a later look's, or by none after a look that saw every ready partition) stays gone: a
     * slower fetch must not put back partitions that others have in flight.
     *
     * @param kept the group's rest now, or null
     * @param left what the fetch leaves of the rest it leased from, or null
     * @return the rest to hold, or null for none
     */
    public static ReadyTail afterRest(ReadyTail kept, ReadyTail left, Instant lookedAt) {
        if (kept == null || !kept.lookedAt().equals(lookedAt)) {
            return kept;
        }
        return left == null || left.keys().size() < kept.keys().size() ? left : kept;
    }

    /** What is left after a fetch reached the partitions before {@code next}; null when nothing. */
    public ReadyTail rest(int next) {
        return next >= keys.size() ? null : new ReadyTail(keys.subList(next, keys.size()), lookedAt);
    }
}
