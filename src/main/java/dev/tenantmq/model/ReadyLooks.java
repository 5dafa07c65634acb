package dev.tenantmq.model;

import java.time.Duration;
import java.time.Instant;

/**
 * When a fetch that carries acks may lease from the partitions it acknowledges without first
 * asking the database which leased partitions are ready (docs/api.md, "Fetch and ack in
 * one call"). Pure: the caller keeps one {@link Looks} per consumer group and passes the time.
 *
 * <p>A consumer that keeps up with deep partitions acknowledges a full batch with every fetch,
 * and the partitions it acknowledges are the ones that can fill the next batch: the ready-partition
 * query that precedes every fetch then names them again, for one statement per batch. Skipping
 * it would let those partitions keep a saturated consumer to themselves, so a group's fetches in a
 * process skip it only for the length of the interval after a look ({@code
 * mq.fetch.ready-look-interval}); a partition that became ready meanwhile waits at most that long.
 * A skip whose partitions did not fill the fetch (they ran dry) costs a second lease transaction,
 * so after one the group looks first until its next look.
 */
public final class ReadyLooks {
    private ReadyLooks() {}

    /**
     * What a process remembers of one consumer group's looks.
     *
     * @param lastLook when the last ready-partition query of the group's fetches started
     * @param skipFilled whether the last fetch that skipped it filled its budget from the acked
     *     partitions (true until one does not)
     */
    public record Looks(Instant lastLook, boolean skipFilled) {}

    /**
     * Whether a fetch may lease from its acked partitions first, without the query.
     *
     * @param looks the group's looks so far, or null when this process has not looked for it yet
     * @param now the time now
     * @param interval {@code mq.fetch.ready-look-interval}; zero never skips
     * @param ackedReceipts receipts of the group the fetch acknowledges
     * @param maxMessages the fetch's {@code maxMessages}: only the acks of a batch at least that
     *     large suggest that their partitions can fill it
     */
    public static boolean maySkip(Looks looks, Instant now, Duration interval, int ackedReceipts, int maxMessages) {
        return looks != null && looks.skipFilled() && ackedReceipts >= maxMessages && !interval.isZero()
                && now.isBefore(looks.lastLook().plus(interval));
    }

    /** The group's looks after a ready-partition query that started at {@code now}. */
    public static Looks looked(Instant now) {
        return new Looks(now, true);
    }

    /** The group's looks after a fetch skipped the query and {@code filled} its budget or not. */
    public static Looks skipped(Looks looks, boolean filled) {
        return new Looks(looks.lastLook(), filled);
    }
}
