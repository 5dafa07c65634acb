package dev.tenantmq.ops;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.ToDoubleFunction;

/**
 * The per (tenant, topic, consumer group) queue gauges (docs/operations.md, "Metrics"): lag, in-flight deliveries,
 * dead letters and the age of the oldest unacknowledged message. The scheduler computes them on
 * its tick ({@code scheduler.QueueStatsRefresher}) and {@link #publish}es them here; the gauges
 * read only this in-memory snapshot, so a scrape of {@code /q/metrics} never queries the
 * database. Values are as of the tenant's last refresh ({@code mq.metrics.refresh-interval}).
 */
@ApplicationScoped
public class QueueGauges {
    /** One consumer group's figures for one topic of a tenant, as a refresh found them. */
    public record GroupFigures(String topic, String consumerGroup, long lag, long inFlight, long deadLetters,
                               double oldestAgeSeconds) {}

    private record Key(String tenant, String topic, String consumerGroup) {}

    /** The current values of one series set; replaced as a whole on each refresh. */
    private record Values(long lag, long inFlight, long deadLetters, double oldestAgeSeconds) {
        Values plus(Values o) {
            return new Values(lag + o.lag, inFlight + o.inFlight, deadLetters + o.deadLetters,
                    Math.max(oldestAgeSeconds, o.oldestAgeSeconds));
        }
    }

    private record Def(String name, String unit, String help, ToDoubleFunction<Values> value) {}

    private static final List<Def> DEFS = List.of(
            new Def("mq.group.lag", null,
                    "Messages above the consumer group's committed offset, summed over the partitions it has read"
                            + " (as GET /admin/offsets counts lag); as of the last refresh", v -> v.lag),
            new Def("mq.group.inflight", null,
                    "Deliveries of the consumer group within their visibility timeout; as of the last refresh",
                    v -> v.inFlight),
            new Def("mq.group.dead_letters", null,
                    "Dead letters of the consumer group still stored in its dead-letter topic <topic><mq.dlq-suffix>;"
                            + " as of the last refresh", v -> v.deadLetters),
            new Def("mq.group.oldest.age", "seconds",
                    "Age of the consumer group's oldest unacknowledged message by the database clock (0 when none);"
                            + " as of the last refresh", v -> v.oldestAgeSeconds));

    private final MeterRegistry registry;
    private final TopicLabels labels;
    /** The snapshot the gauges read, by series key. */
    private final Map<Key, Values> snapshot = new ConcurrentHashMap<>();
    /** The registered gauges of each key. */
    private final Map<Key, List<Gauge>> gauges = new ConcurrentHashMap<>();

    QueueGauges(MeterRegistry registry, TopicLabels labels) {
        this.registry = registry;
        this.labels = labels;
    }

    /**
     * Replaces the snapshot of {@code tenant} with {@code figures}, the refresh started at
     * {@code startedNanos} ({@link System#nanoTime()}) found. Series of consumer groups no longer
     * found are removed; so are every {@code mq.*} series of topics not in {@code existingTopics}
     * (no stored message) that were not counted since then.
     */
    public synchronized void publish(String tenant, List<GroupFigures> figures, Set<String> existingTopics,
                                     long startedNanos) {
        Map<Key, Values> fresh = new HashMap<>();
        for (GroupFigures f : figures) {
            Key key = new Key(tenant, labels.label(tenant, f.topic()), f.consumerGroup());
            fresh.merge(key, new Values(f.lag(), f.inFlight(), f.deadLetters(), f.oldestAgeSeconds()), Values::plus);
        }
        for (Key old : new HashSet<>(snapshot.keySet())) {
            if (old.tenant().equals(tenant) && !fresh.containsKey(old)) {
                snapshot.remove(old);
                List<Gauge> gone = gauges.remove(old);
                if (gone != null) {
                    gone.forEach(registry::remove);
                }
            }
        }
        snapshot.putAll(fresh);
        for (Key key : fresh.keySet()) {
            gauges.computeIfAbsent(key, this::register);
        }
        labels.retainExisting(tenant, existingTopics, startedNanos);
    }

    private List<Gauge> register(Key key) {
        return DEFS.stream().map(d -> Gauge.builder(d.name(), () -> {
                    Values v = snapshot.get(key);
                    return v == null ? Double.NaN : d.value().applyAsDouble(v);
                })
                .description(d.help())
                .baseUnit(d.unit())
                .tags("tenant", key.tenant(), "topic", key.topic(), "consumer_group", key.consumerGroup())
                .strongReference(true)
                .register(registry)).toList();
    }
}
