package dev.tenantmq.ops;

import dev.tenantmq.config.MqConfig;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jboss.logging.Logger;

/**
 * Bounds the {@code topic} label of every {@code mq.*} meter (docs/operations.md, "Metrics"): a
 * tenant gets at most {@code mq.metrics.max-topics} distinct topic values, first come first
 * served; later topics are counted under {@link #OTHER} (logged once per tenant). A topic that no
 * longer exists (no stored message, as the queue gauges' refresh finds, and no consumer group of
 * this process polling it) loses its series and frees its place.
 */
@ApplicationScoped
public class TopicLabels {
    /** The label of the topics past the limit. Not a valid topic name (SPEC section 3: starts with a letter or digit). */
    public static final String OTHER = "_other";

    private static final Logger LOG = Logger.getLogger(TopicLabels.class);
    /** Meters the lease scheduler registers and removes itself (see {@code LeaseScheduler.forget}). */
    private static final Set<String> SCHEDULER_GAUGES = Set.of("mq.leases.held", "mq.partitions.discovered");

    private final MeterRegistry registry;
    private final int maxTopics;
    /** Per tenant: the admitted topics, each with the {@link System#nanoTime()} it was last counted. */
    private final Map<String, Map<String, Long>> admitted = new ConcurrentHashMap<>();
    private final Set<String> foldLogged = ConcurrentHashMap.newKeySet();

    TopicLabels(MeterRegistry registry, MqConfig config) {
        this.registry = registry;
        this.maxTopics = Math.max(1, config.metrics().maxTopics());
    }

    /** The label value for {@code topic} of {@code tenant}: the topic itself, or {@link #OTHER} past the limit. */
    public String label(String tenant, String topic) {
        Map<String, Long> topics = admitted.computeIfAbsent(tenant, k -> new ConcurrentHashMap<>());
        long now = System.nanoTime();
        if (topics.computeIfPresent(topic, (k, v) -> now) != null) {
            return topic;
        }
        synchronized (topics) {
            if (topics.containsKey(topic) || topics.size() < maxTopics) {
                topics.put(topic, now);
                return topic;
            }
        }
        if (foldLogged.add(tenant)) {
            LOG.warnf("tenant %s has more than mq.metrics.max-topics=%d topics on /q/metrics: the others are counted"
                    + " under topic=\"%s\" (logged once per tenant)", tenant, maxTopics, OTHER);
        }
        return OTHER;
    }

    /**
     * Removes the series of the admitted topics of {@code tenant} that are not in {@code existing}
     * and were not counted since {@code sinceNanos} (when the refresh that found {@code existing}
     * started, so a publish to a new topic during it keeps its series). Topics whose lease gauges
     * are still registered (a consumer group of this process polls them) keep theirs.
     *
     * @return the topics whose series were removed
     */
    public List<String> retainExisting(String tenant, Set<String> existing, long sinceNanos) {
        Map<String, Long> topics = admitted.get(tenant);
        List<String> removed = new ArrayList<>();
        if (topics == null) {
            return removed;
        }
        synchronized (topics) {
            for (Map.Entry<String, Long> e : List.copyOf(topics.entrySet())) {
                String topic = e.getKey();
                if (existing.contains(topic) || e.getValue() - sinceNanos > 0 || hasSchedulerGauges(tenant, topic)) {
                    continue;
                }
                topics.remove(topic);
                for (Meter m : registry.getMeters()) {
                    Meter.Id id = m.getId();
                    if (id.getName().startsWith("mq.") && !SCHEDULER_GAUGES.contains(id.getName())
                            && tenant.equals(id.getTag("tenant")) && topic.equals(id.getTag("topic"))) {
                        registry.remove(m);
                    }
                }
                removed.add(topic);
            }
        }
        return removed;
    }

    private boolean hasSchedulerGauges(String tenant, String topic) {
        return registry.find("mq.leases.held").tags("tenant", tenant, "topic", topic).gauge() != null;
    }
}
