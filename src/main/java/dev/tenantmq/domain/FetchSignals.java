package dev.tenantmq.domain;

import dev.tenantmq.ops.QueueMetrics;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.subscription.UniEmitter;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Wakes long polls without holding a thread or a database connection while they wait. A
 * waiter reads the generation of its (tenant, topic) before it looks for messages, then waits
 * for that generation to pass; a publish or ack through this process, or new leases, advance
 * it. Work from other processes is found by the long poll's periodic re-check instead.
 */
@ApplicationScoped
public class FetchSignals {
    private record Key(String tenant, String topic) {}

    private static final class Slot {
        final AtomicLong generation = new AtomicLong();
        final Set<UniEmitter<? super Void>> waiters = ConcurrentHashMap.newKeySet();
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

    /** The current generation of this (tenant, topic); read it before checking for messages. */
    public long generation(String tenant, String topic) {
        return slot(tenant, topic).generation.get();
    }

    /**
     * Completes when the generation of this (tenant, topic) moves past {@code seen}, or after
     * {@code max} at the latest. Waiting holds only a registration, removed on completion or
     * cancellation.
     */
    public Uni<Void> await(String tenant, String topic, long seen, Duration max) {
        Slot slot = slot(tenant, topic);
        Uni<Void> signalled = Uni.createFrom().emitter(emitter -> {
            slot.waiters.add(emitter);
            waiting.incrementAndGet();
            emitter.onTermination(() -> {
                if (slot.waiters.remove(emitter)) {
                    waiting.decrementAndGet();
                }
            });
            if (slot.generation.get() != seen) {
                emitter.complete(null); // signalled between the read and the registration
            }
        });
        // Vert.x timers refuse delays under 1 ms; a shorter wait would never complete.
        Duration wait = max.compareTo(Duration.ofMillis(1)) < 0 ? Duration.ofMillis(1) : max;
        return signalled.ifNoItem().after(wait).recoverWithItem((Void) null);
    }

    /** Wakes every waiter of this (tenant, topic). */
    public void signal(String tenant, String topic) {
        Slot slot = slot(tenant, topic);
        slot.generation.incrementAndGet();
        for (UniEmitter<? super Void> waiter : slot.waiters) {
            waiter.complete(null);
        }
    }

    private Slot slot(String tenant, String topic) {
        return slots.computeIfAbsent(new Key(tenant, topic), k -> new Slot());
    }
}
