package dev.tenantmq.ops;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * The service's Micrometer meters, exported on {@code /q/metrics}. Names are dot-separated;
 * tags are only {@code tenant} and {@code topic} (low cardinality; never a partition key or
 * message id), the topic bounded by {@link TopicLabels} ({@code mq.metrics.max-topics}). Every
 * meter has HELP text, and each counter counts exactly what its name says (docs/operations.md, "Metrics").
 */
@ApplicationScoped
public class QueueMetrics {
    private static final String TICK_FAILURES_HELP =
            "Scheduler ticks that failed for a (tenant, consumer group, topic); the next tick retries";
    private final MeterRegistry registry;
    private final TopicLabels labels;

    QueueMetrics(MeterRegistry registry, TopicLabels labels) {
        this.registry = registry;
        this.labels = labels;
    }

    /** Messages stored by publish ({@code mq.messages.published}); duplicates are counted apart. */
    public void published(String tenant, String topic, int stored, int duplicates) {
        counter("mq.messages.published", "Messages stored by publish (duplicates not included)", tenant, topic)
                .increment(stored);
        count("mq.messages.duplicates", "Published messages answered duplicate: true (already stored or within"
                + " mq.publish.dedup-window), not stored again", tenant, topic, duplicates);
    }

    /** Messages handed to consumers ({@code mq.messages.delivered}), of which redeliveries. */
    public void delivered(String tenant, String topic, int delivered, int redelivered) {
        if (delivered == 0) {
            return;
        }
        count("mq.messages.delivered", "Messages handed to consumers by fetch, redeliveries included", tenant, topic,
                delivered);
        count("mq.messages.redelivered", "Messages handed to consumers by fetch again (deliveryAttempt above 1 or"
                + " handed back), a subset of mq.messages.delivered", tenant, topic, redelivered);
    }

    /** Acks that acknowledged a delivery ({@code mq.messages.acked}). */
    public void acked(String tenant, String topic, int acked) {
        if (acked == 0) {
            return; // no series for requests that acknowledged nothing (e.g. all receipts INVALID)
        }
        count("mq.messages.acked", "Receipts answered ACKED (a delivery acknowledged)", tenant, topic, acked);
    }

    /**
     * Receipts answered NACKED ({@code mq.messages.nacked}), those that dead-lettered their message
     * included (which {@link #deadLettered} counts too).
     */
    public void nacked(String tenant, String topic, int nacked) {
        count("mq.messages.nacked", "Receipts answered NACKED, including nacks of a last attempt that dead-lettered"
                + " the message (also counted in mq.messages.dead_lettered)", tenant, topic, nacked);
    }

    /**
     * Messages a consumer group dead-lettered ({@code mq.messages.dead_lettered}), tagged by the
     * original topic.
     */
    public void deadLettered(String tenant, String topic, int deadLettered) {
        count("mq.messages.dead_lettered", "Messages dead-lettered for a consumer group (by nack, fetch or"
                + " scheduler tick), tagged by the original topic; one per group", tenant, topic, deadLettered);
    }

    /** Dead letters handed back by the admin requeue ({@code mq.messages.requeued}), tagged by the original topic. */
    public void requeued(String tenant, String topic, int requeued) {
        count("mq.messages.requeued", "Dead letters handed back to a consumer group by the admin requeue, tagged"
                + " by the original topic; one per group", tenant, topic, requeued);
    }

    /** Messages deleted by retention ({@code mq.retention.deleted}). */
    public void retentionDeleted(String tenant, String topic, long deleted) {
        count("mq.retention.deleted", "Messages deleted by retention (consumed, or older than"
                + " mq.retention.max-age)", tenant, topic, deleted);
    }

    private void count(String name, String help, String tenant, String topic, long n) {
        if (n > 0) {
            counter(name, help, tenant, topic).increment(n);
        }
    }

    private Counter counter(String name, String help, String tenant, String topic) {
        return Counter.builder(name).description(help)
                .tags("tenant", tenant, "topic", labels.label(tenant, topic)).register(registry);
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
        // The failure counter exists from the first tick, at 0, so rate() and the alert see a series.
        counter("mq.scheduler.tick.failures", TICK_FAILURES_HELP, tenant, topic);
        Timer.builder("mq.scheduler.tick.duration")
                .description("Time of one scheduler tick's lease work for one (tenant, consumer group, topic)")
                .tags("tenant", tenant, "topic", labels.label(tenant, topic)).register(registry).record(took);
    }

    /** A failed scheduler tick ({@code mq.scheduler.tick.failures}). */
    public void tickFailed(String tenant, String topic) {
        counter("mq.scheduler.tick.failures", TICK_FAILURES_HELP, tenant, topic).increment();
    }

    /**
     * Registers, once per (tenant, topic), the gauges {@code mq.leases.held} (leases this process
     * holds) and {@code mq.partitions.discovered} (partitions its last discovery found).
     */
    public void leaseGauges(String tenant, String topic, Supplier<Number> held, Supplier<Number> discovered) {
        String label = labels.label(tenant, topic);
        if (TopicLabels.OTHER.equals(label)) {
            // Past mq.metrics.max-topics: one _other gauge per tenant sums the folded topics.
            folded.put(List.of(tenant, topic), List.of(held, discovered));
            registerLeaseGauges(tenant, label, () -> sumFolded(tenant, 0), () -> sumFolded(tenant, 1));
        } else {
            registerLeaseGauges(tenant, label, held, discovered);
        }
    }

    private void registerLeaseGauges(String tenant, String label, Supplier<Number> held, Supplier<Number> discovered) {
        Tags tags = Tags.of("tenant", tenant, "topic", label);
        Gauge.builder("mq.leases.held", held).tags(tags)
                .description("Partition leases this process holds for the topic, summed over its consumer groups")
                .register(registry);
        Gauge.builder("mq.partitions.discovered", discovered).tags(tags)
                .description("Partitions (with stored messages) the last discovery found for the topic, summed over"
                        + " this process's consumer groups of it")
                .register(registry);
    }

    /** Lease-gauge suppliers (held, discovered) of the topics folded into _other, by (tenant, topic). */
    private final Map<List<String>, List<Supplier<Number>>> folded = new ConcurrentHashMap<>();

    private double sumFolded(String tenant, int which) {
        return folded.entrySet().stream().filter(e -> e.getKey().get(0).equals(tenant))
                .mapToDouble(e -> e.getValue().get(which).get().doubleValue()).sum();
    }

    /** Removes the gauges {@link #leaseGauges} registered for (tenant, topic). */
    public void removeLeaseGauges(String tenant, String topic) {
        String label = topic;
        if (folded.remove(List.of(tenant, topic)) != null) {
            if (folded.keySet().stream().anyMatch(k -> k.get(0).equals(tenant))) {
                return; // other folded topics of the tenant still count under _other
            }
            label = TopicLabels.OTHER;
        }
        for (String name : new String[] {"mq.leases.held", "mq.partitions.discovered"}) {
            registry.find(name).tags("tenant", tenant, "topic", label).gauges().forEach(registry::remove);
        }
    }
}
