package dev.tenantmq.ops;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.util.function.Supplier;

/**
 * The service's Micrometer meters, exported on {@code /q/metrics}. Names are dot-separated;
 * tags are only {@code tenant} and {@code topic} (low cardinality; never a partition key or
 * message id).
 */
@ApplicationScoped
public class QueueMetrics {
    private final MeterRegistry registry;

    QueueMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    /** Messages stored by publish ({@code mq.messages.published}); duplicates are counted apart. */
    public void published(String tenant, String topic, int stored, int duplicates) {
        registry.counter("mq.messages.published", "tenant", tenant, "topic", topic).increment(stored);
        if (duplicates > 0) {
            registry.counter("mq.messages.duplicates", "tenant", tenant, "topic", topic).increment(duplicates);
        }
    }

    /** Messages handed to consumers ({@code mq.messages.delivered}), of which redeliveries. */
    public void delivered(String tenant, String topic, int delivered, int redelivered) {
        if (delivered == 0) {
            return;
        }
        registry.counter("mq.messages.delivered", "tenant", tenant, "topic", topic).increment(delivered);
        if (redelivered > 0) {
            registry.counter("mq.messages.redelivered", "tenant", tenant, "topic", topic).increment(redelivered);
        }
    }

    /** Acks that acknowledged a delivery ({@code mq.messages.acked}). */
    public void acked(String tenant, String topic, int acked) {
        if (acked == 0) {
            return; // no series for requests that acknowledged nothing (e.g. all receipts INVALID)
        }
        registry.counter("mq.messages.acked", "tenant", tenant, "topic", topic).increment(acked);
    }

    /** Nacks that scheduled a redelivery ({@code mq.messages.nacked}). */
    public void nacked(String tenant, String topic, int nacked) {
        count("mq.messages.nacked", tenant, topic, nacked);
    }

    /**
     * Messages a consumer group dead-lettered ({@code mq.messages.dead_lettered}), tagged by the
     * original topic.
     */
    public void deadLettered(String tenant, String topic, int deadLettered) {
        count("mq.messages.dead_lettered", tenant, topic, deadLettered);
    }

    /** Dead letters handed back by the admin requeue ({@code mq.messages.requeued}), tagged by the original topic. */
    public void requeued(String tenant, String topic, int requeued) {
        count("mq.messages.requeued", tenant, topic, requeued);
    }

    /** Messages deleted by retention ({@code mq.retention.deleted}). */
    public void retentionDeleted(String tenant, String topic, long deleted) {
        count("mq.retention.deleted", tenant, topic, deleted);
    }

    private void count(String name, String tenant, String topic, long n) {
        if (n > 0) {
            registry.counter(name, "tenant", tenant, "topic", topic).increment(n);
        }
    }

    /**
     * Registers the gauge {@code mq.fetch.waiting}: long polls of this process waiting for a
     * message right now. Process-wide, without tags.
     */
    public void fetchWaitingGauge(Supplier<Number> waiting) {
        Gauge.builder("mq.fetch.waiting", waiting)
                .description("Long-poll fetches of this process waiting for a message right now")
                .register(registry);
    }

    /** Duration of one scheduler tick for one triple ({@code mq.scheduler.tick.duration}). */
    public void tick(String tenant, String topic, Duration took) {
        Timer.builder("mq.scheduler.tick.duration").tags("tenant", tenant, "topic", topic).register(registry).record(took);
    }

    /** A failed scheduler tick ({@code mq.scheduler.tick.failures}). */
    public void tickFailed(String tenant, String topic) {
        registry.counter("mq.scheduler.tick.failures", "tenant", tenant, "topic", topic).increment();
    }

    /**
     * Registers, once per (tenant, topic), the gauges {@code mq.leases.held} (leases this process
     * holds) and {@code mq.partitions.discovered} (partitions its last discovery found).
     */
    public void leaseGauges(String tenant, String topic, Supplier<Number> held, Supplier<Number> discovered) {
        Tags tags = Tags.of("tenant", tenant, "topic", topic);
        Gauge.builder("mq.leases.held", held).tags(tags).register(registry);
        Gauge.builder("mq.partitions.discovered", discovered).tags(tags).register(registry);
    }

    /** Removes the gauges {@link #leaseGauges} registered for (tenant, topic). */
    public void removeLeaseGauges(String tenant, String topic) {
        for (String name : new String[] {"mq.leases.held", "mq.partitions.discovered"}) {
            registry.find(name).tags("tenant", tenant, "topic", topic).gauges().forEach(registry::remove);
        }
    }
}
