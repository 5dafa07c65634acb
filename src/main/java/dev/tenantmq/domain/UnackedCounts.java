package dev.tenantmq.domain;

import java.time.Duration;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * This process's view of the unacknowledged messages of each (tenant, topic) it publishes to
 * under a limit (docs/security.md, "Quotas": {@code mq.quota.*.max-unacked-per-topic}). The view is the
 * database's count as of the last {@link #refresh()} (the scheduler tick), plus the messages
 * this process stored since, plus the batches it is storing right now. So publish never counts
 * rows: only the first publish to a topic (or the first after it was idle) reads the count.
 *
 * <p>Within one process a batch is admitted only if all of it fits, and concurrent batches
 * reserve their room first, so they cannot overshoot together. Across processes the limit is
 * approximate: each process learns of the others' publishes, and of acks anywhere, on its next
 * refresh, one {@code mq.tick-interval} later, as with SQS's approximate counts.
 *
 * <p>{@link TenantQuotas} keeps a second instance for {@code max-unacked-per-tenant}, whose
 * counter counts every topic of the tenant and whose "topic" is one fixed scope per tenant.
 */
public final class UnackedCounts {
    /** Reads the database's count of a topic's unacknowledged messages, at most {@code atMost}. */
    @FunctionalInterface
    public interface Counter {
        long count(String tenant, String topic, long atMost);
    }

    private final Counter counter;
    private final LongSupplier nanoTime;
    private final long idleNanos;
    private final Map<Key, TopicCount> topics = new ConcurrentHashMap<>();

    /**
     * @param counter the database count
     * @param nanoTime monotonic time in nanoseconds ({@code System::nanoTime} in production)
     * @param idleAfter a topic with no publish for this long is forgotten on the next refresh
     */
    public UnackedCounts(Counter counter, LongSupplier nanoTime, Duration idleAfter) {
        this.counter = counter;
        this.nanoTime = nanoTime;
        this.idleNanos = idleAfter.toNanos();
    }

    private record Key(String tenant, String topic) {}

    /** One topic's count. Every field is guarded by the instance's monitor. */
    private static final class TopicCount {
        long limit;
        boolean loaded;
        /** The database's count at the last refresh. */
        long counted;
        /** Messages this process stored since that count was taken. */
        long storedSince;
        /** Messages of batches admitted and not yet stored or failed. */
        long inFlight;
        long lastUsedNanos;
    }

    /** Room taken for one admitted batch: settle it once with {@link #stored} or {@link #cancel}. */
    public final class Reservation {
        private final TopicCount topic;
        private final int messages;

        private Reservation(TopicCount topic, int messages) {
            this.topic = topic;
            this.messages = messages;
        }

        /** The batch was stored; {@code newMessages} of it were new (not duplicates). */
        public void stored(int newMessages) {
            synchronized (topic) {
                topic.inFlight -= messages;
                topic.storedSince += newMessages;
            }
        }

        /** The batch was not stored (an error): its room is free again. */
        public void cancel() {
            synchronized (topic) {
                topic.inFlight -= messages;
            }
        }
    }

    /**
     * Admits a batch of {@code messages} if it fits under {@code limit} whole.
     *
     * @return the reservation, or null when the batch does not fit (nothing is reserved)
     * @throws dev.tenantmq.model.StoreUnavailableException when the first count of the topic cannot be read
     */
    public Reservation tryReserve(String tenant, String topic, int messages, long limit) {
        TopicCount t = topics.computeIfAbsent(new Key(tenant, topic), k -> new TopicCount());
        synchronized (t) {
            t.limit = limit;
            t.lastUsedNanos = nanoTime.getAsLong();
            if (!t.loaded) {
                // Only the first publish to the topic reads the database; others of the topic wait for it.
                t.counted = counter.count(tenant, topic, limit);
                t.storedSince = 0;
                t.loaded = true;
            }
            if (t.counted + t.storedSince + t.inFlight + messages > limit) {
                return null;
            }
            t.inFlight += messages;
            return new Reservation(t, messages);
        }
    }

    /**
     * Re-reads the count of every topic published to recently, and forgets the topics idle
     * for longer than {@code idleAfter}. A count that fails is kept and retried next time.
     *
     * @return how many topics were refreshed
     */
    public int refresh() {
        int refreshed = 0;
        long now = nanoTime.getAsLong();
        for (Iterator<Map.Entry<Key, TopicCount>> it = topics.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<Key, TopicCount> e = it.next();
            TopicCount t = e.getValue();
            long storedBefore;
            long limit;
            synchronized (t) {
                if (!t.loaded) {
                    continue;
                }
                if (now - t.lastUsedNanos > idleNanos && t.inFlight == 0) {
                    it.remove();
                    continue;
                }
                storedBefore = t.storedSince;
                limit = t.limit;
            }
            // Outside the lock, so publishes go on meanwhile. A batch stored while the count runs
            // may be counted twice until the next refresh: the view errs on the full side.
            long counted;
            try {
                counted = counter.count(e.getKey().tenant(), e.getKey().topic(), limit);
            } catch (RuntimeException failed) {
                continue;
            }
            synchronized (t) {
                t.counted = counted;
                t.storedSince -= storedBefore;
            }
            refreshed++;
        }
        return refreshed;
    }
}
