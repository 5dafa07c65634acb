package dev.tenantmq.model;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.TreeSet;

/**
 * The partitions of one consumer group that may have become ready since the group's last complete
 * look in this process, as the signals of this process named them (docs/architecture.md, "News
 * between looks"). Pure: no clock, no database; the caller passes the time. Thread-safe: the
 * signals of publishes and acks record into it while the group's fetches take from it.
 *
 * <p>A look that walks every partition the process leases for the group and stops at no limit sees
 * every ready partition. After it, a partition becomes ready through a publish, an ack or a new
 * lease in this process, which signals its key; a requeue, a nack for redelivery at once, dead
 * letters or an offset reset, which signal without keys ({@link #unknown}); or, seen by no signal
 * here, through another instance's publish or ack, a visibility timeout, a nack's backoff or a
 * delivery delay that ran out. So for a while
 * after such a look, the keys signalled since it, and the ready partitions it named that its fetch
 * did not reach, are all the ready partitions a look would find but for the last kind; a busy
 * consumer's fetch may lease from them instead of looking again, and the last kind waits for the
 * next look, at most the trust window ({@link #lookEnded}).
 *
 * <p>States: no trust (the start, after a change without keys, after a look that stopped at its
 * limit, after the window ran out, after {@link #MAX_KEYS} keys) → a look started (keys recorded
 * from its start) → trusted until the window's end, when the look saw every ready partition. A
 * later look's start clears what an earlier one gathered; only the latest look's end grants trust.
 */
public final class ReadyNews {
    /** Most keys kept: past it the news is dropped and the group's next fetch looks. */
    public static final int MAX_KEYS = 4096;

    /** Number of the latest look started; 0 before the first. */
    private long look;
    /** Whether {@link #look} is still running: keys are recorded for it. */
    private boolean looking;
    /** When the trust of the latest complete look ends; null while nothing is trusted. */
    private Instant trustedUntil;
    private final TreeSet<String> keys = new TreeSet<>();
    /** The last key a fetch reached: the next take starts after it, so every key gets its turn. */
    private String resumeAfter = "";

    /**
     * A look that may see every ready partition starts now: what was gathered before it is
     * dropped (the look sees it), and keys signalled from now on are recorded for it.
     *
     * @return the look's number, for {@link #lookEnded}
     */
    public synchronized long lookStarted() {
        look++;
        looking = true;
        trustedUntil = null;
        keys.clear();
        resumeAfter = "";
        return look;
    }

    /**
     * The look numbered {@code ticket} ended. When it saw every ready partition, the keys signalled
     * since its start stand in for a look until {@code trustUntil}; {@code unreached}, the ready
     * partitions it named that its fetch did not reach, join them. Nothing changes when a later
     * look has started meanwhile (that one decides), and nothing is trusted when a change without
     * keys came while it ran: the look may have read before it.
     *
     * @param sawAll whether the look walked every partition and stopped at no limit
     */
    public synchronized void lookEnded(long ticket, boolean sawAll, Collection<String> unreached, Instant trustUntil) {
        if (ticket != look || !looking) {
            return;
        }
        looking = false;
        if (!sawAll) {
            keys.clear();
            return;
        }
        trustedUntil = trustUntil;
        add(unreached);
    }

    /** A publish, an ack or a delay that ran out, at {@code now}, touched {@code partitions}. */
    public synchronized void touched(Collection<String> partitions, Instant now) {
        if (trustedUntil != null && !now.isBefore(trustedUntil)) {
            drop();
        }
        if (looking || trustedUntil != null) {
            add(partitions);
        }
    }

    /**
     * A change whose partitions are unknown (a nack for redelivery at once, a requeue, dead
     * letters, an offset reset): nothing stands in for a look until the next complete one.
     */
    public synchronized void unknown() {
        drop();
    }

    /**
     * The keys gathered, when they may stand in for a look at {@code now}: in key order from the
     * first after the last key a fetch reached, then from the start, and taken out (a fetch that
     * does not reach some puts them back, {@link #putBack}). Null when they may not: no complete
     * look, or its trust ran out; the caller looks. Empty when trusted but nothing was signalled.
     */
    public synchronized List<String> take(Instant now) {
        if (trustedUntil == null) {
            return null;
        }
        if (!now.isBefore(trustedUntil)) {
            drop();
            return null;
        }
        List<String> out = new ArrayList<>(keys.size());
        out.addAll(keys.tailSet(resumeAfter, false));
        out.addAll(keys.headSet(resumeAfter, true));
        keys.clear();
        return out;
    }

    /**
     * A fetch took {@code unreached} and did not reach them (its budget ran out first): they are
     * still ready, and come first at the next take, after {@code lastReached}. Kept only while a
     * look runs or the trust lasts.
     */
    public synchronized void putBack(Collection<String> unreached, String lastReached) {
        if (looking || trustedUntil != null) {
            add(unreached);
            if (lastReached != null) {
                resumeAfter = lastReached;
            }
        }
    }

    /** Whether the news stands in for a look at {@code now}. */
    public synchronized boolean trusted(Instant now) {
        return trustedUntil != null && now.isBefore(trustedUntil);
    }

    private void add(Collection<String> partitions) {
        keys.addAll(partitions);
        if (keys.size() > MAX_KEYS) {
            drop(); // too much news: a look is cheaper than keeping it
        }
    }

    private void drop() {
        looking = false;
        trustedUntil = null;
        keys.clear();
        resumeAfter = "";
    }
}
