package dev.tenantmq.domain;

import dev.tenantmq.ops.QueueMetrics;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.subscription.UniEmitter;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Wakes long polls without holding a thread or a database connection while they wait. A
 * waiter reads the generation of its (tenant, topic) before it looks for messages, then waits
 * for a signal; a publish or ack through this process, or new leases, signal. Work from other
 * processes is found by the long poll's periodic re-check instead.
 *
 * <p>A signal says how many messages it may have made deliverable, and wakes at most that many
 * waiters of each consumer group, the longest-waiting first: one published message costs each
 * group one look, not one per waiting poll (the thundering herd). A waiter that the signal did
 * not pick stays registered; its later timer re-check is rate-limited per group by
 * {@link ConsumeService}. A waiter whose generation moved between its read and its registration
 * (it was looking while the signal came) counts as woken, so no signal is lost.
 */
@ApplicationScoped
public class FetchSignals {
    /** Wakes every waiter of each group: for changes whose number of deliverable messages is unknown. */
    public static final int ALL = Integer.MAX_VALUE;

    private record Key(String tenant, String topic) {}

    /**
     * One waiting poll. Its state moves once, from waiting to woken (by a signal) or to gone (its
     * wait ended by time-out or cancellation), so a signal never spends a wake on a gone waiter.
     */
    private static final class Waiter {
        private static final int WAITING = 0, WOKEN = 1, GONE = 2;
        final UniEmitter<? super Boolean> emitter;
        final AtomicInteger state = new AtomicInteger(WAITING);

        Waiter(UniEmitter<? super Boolean> emitter) {
            this.emitter = emitter;
        }
    }

    private static final class Slot {
        final AtomicLong generation = new AtomicLong();
        /** Waiters per consumer group, in registration order. */
        final ConcurrentMap<String, Queue<Waiter>> groups = new ConcurrentHashMap<>();
    }

    private final ConcurrentMap<Key, Slot> slots = new ConcurrentHashMap<>();
    /** Registrations currently waiting, over all slots (the {@code mq.fetch.waiting} gauge). */
    private final AtomicInteger waiting = new AtomicInteger();

    FetchSignals(QueueMetrics metrics) {
        metrics.fetchWaitingGauge(waiting::get);
    }

    /**
     * Long polls of this process that are waiting right now (registered for a signal, not
     * looking for messages). A poll that is looking (its first look, a signalled look, or a
     * timer re-check) is not counted until it waits again.
     */
    public int waiting() {
        return waiting.get();
    }

    /** Long polls of this process waiting right now on this (tenant, topic), over all its consumer groups. */
    public int waiting(String tenant, String topic) {
        Slot slot = slots.get(new Key(tenant, topic));
        return slot == null ? 0 : slot.groups.values().stream().mapToInt(Queue::size).sum();
    }

    /** The current generation of this (tenant, topic); read it before checking for messages. */
    public long generation(String tenant, String topic) {
        return slot(tenant, topic).generation.get();
    }

    /**
     * Waits for a signal that picks this waiter, or for {@code max} at the latest. Completes with
     * {@code true} when woken by a signal, or at once when the generation of this (tenant, topic)
     * is no longer {@code seen} (a signal came while the caller looked); {@code false} after
     * {@code max}. Waiting holds only a registration, removed on completion or cancellation.
     *
     * @param consumerGroup the group the waiter fetches for; signals wake a bounded number per group
     * @param seen the generation read before the caller's last look
     */
    public Uni<Boolean> await(String tenant, String topic, String consumerGroup, long seen, Duration max) {
        Slot slot = slot(tenant, topic);
        Uni<Boolean> signalled = Uni.createFrom().emitter(emitter -> {
            Waiter w = new Waiter(emitter);
            Queue<Waiter> queue = slot.groups.computeIfAbsent(consumerGroup, g -> new ConcurrentLinkedQueue<>());
            queue.add(w);
            waiting.incrementAndGet();
            emitter.onTermination(() -> {
                w.state.compareAndSet(Waiter.WAITING, Waiter.GONE);
                queue.remove(w);
                waiting.decrementAndGet();
            });
            if (slot.generation.get() != seen && w.state.compareAndSet(Waiter.WAITING, Waiter.WOKEN)) {
                emitter.complete(true); // signalled between the read and the registration
            }
        });
        // Vert.x timers refuse delays under 1 ms; a shorter wait would never complete.
        Duration wait = max.compareTo(Duration.ofMillis(1)) < 0 ? Duration.ofMillis(1) : max;
        return signalled.ifNoItem().after(wait).recoverWithItem(false);
    }

    /**
     * Records a change that may have made up to {@code deliverable} messages of this (tenant,
     * topic) deliverable, and wakes up to that many waiters of each consumer group.
     *
     * @param deliverable an upper bound of the messages that became deliverable, or {@link #ALL}
     */
    public void signal(String tenant, String topic, int deliverable) {
        if (deliverable <= 0) {
            return;
        }
        Slot slot = slot(tenant, topic);
        slot.generation.incrementAndGet();
        for (Queue<Waiter> queue : slot.groups.values()) {
            int woken = 0;
            for (Waiter w; woken < deliverable && (w = queue.poll()) != null; ) {
                if (w.state.compareAndSet(Waiter.WAITING, Waiter.WOKEN)) {
                    w.emitter.complete(true);
                    woken++;
                }
            }
        }
    }

    private Slot slot(String tenant, String topic) {
        return slots.computeIfAbsent(new Key(tenant, topic), k -> new Slot());
    }
}
