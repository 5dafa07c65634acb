package dev.tenantmq.domain;

import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Wakes this process's long polls when a delayed message it published falls due (docs/api.md,
 * "Delayed delivery"), through the same {@link FetchSignals} signal a publish sends for a message
 * that is due at once: a poll waiting for the topic looks at the partitions again at the due time
 * instead of at its next re-check ({@code mq.fetch.recheck-interval}). Long polls of other
 * processes find the message on their re-check, as they find messages published elsewhere.
 *
 * <p>One timer task per publish request and due time, on one daemon thread; the signal is a
 * few map operations. At most {@value #MAX_PENDING} wakes wait at once: past that, a delayed
 * message is found by the re-check, so a flood of long delays cannot grow the heap without bound.
 */
@ApplicationScoped
public class DueWakes {
    /** Most wakes waiting at once in this process. */
    static final int MAX_PENDING = 100_000;

    /**
     * Added to each wake: the due time is judged by the database clock, which may read a hair
     * behind this process's timers; a wake a moment late still looks once the message is due.
     */
    static final Duration MARGIN = Duration.ofMillis(5);

    private final FetchSignals signals;
    private final AtomicInteger pending = new AtomicInteger();
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "tmq-due-wakes");
        t.setDaemon(true);
        return t;
    });

    DueWakes(FetchSignals signals) {
        this.signals = signals;
    }

    /**
     * Signals {@code partitions} of the (tenant, topic) for {@code messages} messages once
     * {@code dueIn} has passed (plus {@link #MARGIN}); nothing when {@link #MAX_PENDING} wakes wait
     * already.
     */
    public void wakeAt(String tenant, String topic, Collection<String> partitions, int messages, Duration dueIn) {
        if (pending.incrementAndGet() > MAX_PENDING) {
            pending.decrementAndGet();
            return; // the re-check finds it
        }
        List<String> keys = List.copyOf(partitions);
        timer.schedule(() -> {
            pending.decrementAndGet();
            signals.signal(tenant, topic, keys, messages);
        }, dueIn.plus(MARGIN).toNanos(), TimeUnit.NANOSECONDS);
    }

    /** Wakes waiting now (for tests and diagnostics). */
    public int pending() {
        return pending.get();
    }

    @PreDestroy
    void stop() {
        timer.shutdownNow();
    }
}
