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
 * mq.fetch.ready-look-interval}), and only while the group's last look took every ready
 * partition (the caller's fairness cursor is not kept): a partition that became ready meanwhile
 * waits at most that long. When a look leaves ready partitions out, no fetch skips: each one
 * looks, or leases from the rest of the last look ({@link ReadyTail}), so that the fairness cursor
 * moves on to them with each fetch. A skip whose partitions did not fill the
 * fetch (they ran dry, or a consumer takes one message at a time) costs a second lease transaction, so after one the group's fetches do not skip for a
 * while: the interval, doubled after each further such skip up to {@link #LONGEST_BACKOFF}, and
 * reset by a skip that fills its fetch.
 */
public final class ReadyLooks {
    /** The longest a group's fetches stop skipping after skips that did not fill their fetch. */
    public static final Duration LONGEST_BACKOFF = Duration.ofSeconds(10);

    private ReadyLooks() {}

    /**
     * What a process remembers of one consumer group's looks.
     *
     * @param lastLook when the last ready-partition query of the group's fetches started
     * @param skipAgainAt the first time a fetch may skip again (after skips that did not fill)
     * @param backoff how long the last skip that did not fill stopped the skipping; zero after a
     *     skip that filled its fetch
     */
    public record Looks(Instant lastLook, Instant skipAgainAt, Duration backoff) {}

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
        return looks != null && !interval.isZero() && ackedReceipts >= maxMessages
                && now.isBefore(looks.lastLook().plus(interval)) && !now.isBefore(looks.skipAgainAt());
    }

    /** The group's looks after a ready-partition query that started at {@code now} ({@code looks} null: the first). */
    public static Looks looked(Looks looks, Instant now) {
        return looks == null ? new Looks(now, now, Duration.ZERO) : new Looks(now, looks.skipAgainAt(), looks.backoff());
    }

    /**
     * The group's looks after a fetch at {@code now} skipped the query and {@code filled} its
     * budget from the acked partitions, or not: then no fetch skips for the interval, or twice as
     * long as after the previous such skip, up to {@link #LONGEST_BACKOFF}.
     */
    public static Looks skipped(Looks looks, Instant now, Duration interval, boolean filled) {
        if (filled) {
            return new Looks(looks.lastLook(), now, Duration.ZERO);
        }
        Duration backoff = looks.backoff().isZero() ? interval : looks.backoff().multipliedBy(2);
        if (backoff.compareTo(LONGEST_BACKOFF) > 0) {
            backoff = LONGEST_BACKOFF;
        }
        return new Looks(looks.lastLook(), now.plus(backoff), backoff);
    }
}
