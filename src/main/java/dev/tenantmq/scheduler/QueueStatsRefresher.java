package dev.tenantmq.scheduler;

import dev.tenantmq.config.MqConfig;
import dev.tenantmq.config.ProcessIdentity;
import dev.tenantmq.ops.QueueGauges;
import dev.tenantmq.ops.SchedulerStatus;
import dev.tenantmq.store.QueueStatsStore;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.smallrye.mutiny.infrastructure.Infrastructure;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jboss.logging.Logger;

/**
 * Refreshes the queue gauges ({@link QueueGauges}) on the scheduler tick, at most once per
 * {@code mq.metrics.refresh-interval}, and a tenant whose last refresh took long less often
 * ({@link RefreshPacing}): one {@link QueueStatsStore#stats} read (a few statements) per tenant
 * of {@code MQ_TENANTS}, each as its own worker task, so a slow tenant delays no other and a tenant
 * whose refresh still runs is skipped, not queued. A failing tenant keeps its last figures, is
 * counted and logged once per failure streak.
 */
@ApplicationScoped
public class QueueStatsRefresher {
    private static final Logger LOG = Logger.getLogger(QueueStatsRefresher.class);
    private static final double MICROS_PER_SECOND = 1_000_000.0;

    private final QueueStatsStore store;
    private final QueueGauges gauges;
    private final ProcessIdentity identity;
    private final MqConfig config;
    private final MeterRegistry registry;
    private final Set<String> running = ConcurrentHashMap.newKeySet();
    /** Each tenant's next refresh waits for its pacing: a refresh that took long is repeated less often. */
    private final RefreshPacing pacing = new RefreshPacing();
    /** Where each tenant's refresh outcome is published for readiness. */
    private final SchedulerStatus status;
    private final dev.tenantmq.config.Stopping stopping;
    private volatile long lastStartNanos;
    private volatile boolean started;

    QueueStatsRefresher(QueueStatsStore store, QueueGauges gauges, ProcessIdentity identity, MqConfig config,
                        MeterRegistry registry, SchedulerStatus status, dev.tenantmq.config.Stopping stopping) {
        this.stopping = stopping;
        this.status = status;
        this.store = store;
        this.gauges = gauges;
        this.identity = identity;
        this.config = config;
        this.registry = registry;
    }

    /** Called by every scheduler tick; starts a refresh of every served tenant when one is due. */
    void refreshIfDue() {
        long now = System.nanoTime();
        if (started && now - lastStartNanos < config.metrics().refreshInterval().toNanos()) {
            return;
        }
        started = true;
        lastStartNanos = now;
        for (String tenant : identity.tenantNames()) {
            if (!pacing.due(tenant, now)) {
                continue; // its last refresh took long: it waits SHARE times as long (RefreshPacing)
            }
            if (!running.add(tenant)) {
                continue; // its previous refresh is still running
            }
            try {
                Infrastructure.getDefaultWorkerPool().execute(() -> {
                    try {
                        refresh(tenant);
                    } finally {
                        running.remove(tenant);
                    }
                });
            } catch (RuntimeException rejected) {
                running.remove(tenant); // pool shutting down
            }
        }
    }

    /** The failure counter of a tenant, registered (at 0) by its first refresh so that rate() sees it. */
    private Counter failures(String tenant) {
        return Counter.builder("mq.metrics.refresh.failures")
                .description("Failed refreshes of the queue gauges (mq.group.*) of a tenant; its gauges keep"
                        + " the figures of its last successful refresh")
                .tags("tenant", tenant).register(registry);
    }

    /** Runs the tenant's statement and publishes its figures. */
    void refresh(String tenant) {
        long began = System.nanoTime();
        failures(tenant);
        try {
            List<QueueStatsStore.QueueStatsRow> rows = store.stats(tenant, config.dlqSuffix());
            List<QueueGauges.GroupFigures> figures = new ArrayList<>();
            Set<String> topics = new HashSet<>();
            for (QueueStatsStore.QueueStatsRow r : rows) {
                if (r.consumerGroup() == null) {
                    topics.add(r.topic()); // a topic exists while it has stored messages (GET /admin/topics)
                }
            }
            for (QueueStatsStore.QueueStatsRow r : rows) {
                // A group's figures of a topic without messages are all 0 (its dead letters keep their
                // originals stored), and offsets rows stay forever: such a topic's series go.
                if (r.consumerGroup() != null && topics.contains(r.topic())) {
                    figures.add(new QueueGauges.GroupFigures(r.topic(), r.consumerGroup(), r.lag(), r.inFlight(),
                            r.deadLetters(), Math.max(0, r.oldestAgeMicros()) / MICROS_PER_SECOND));
                }
            }
            gauges.publish(tenant, figures, topics, began);
            pacing.finished(tenant, began, System.nanoTime());
            if (Boolean.FALSE.equals(status.refreshed(tenant, true))) {
                LOG.infof("queue metrics refresh for tenant=%s recovered", tenant);
            }
        } catch (RuntimeException ex) {
            failures(tenant).increment();
            if (stopping.now()) {
                LOG.debugf("queue metrics refresh for tenant=%s cut short by the shutdown: %s", tenant, ex.getMessage());
            } else if (!Boolean.FALSE.equals(status.refreshed(tenant, false))) {
                LOG.warnf("queue metrics refresh failed for tenant=%s (the gauges keep their last figures): %s",
                        tenant, ex.getMessage());
            }
            pacing.failed(tenant); // a time-out cost the database nothing: retried at the next interval
        } finally {
            Timer.builder("mq.metrics.refresh.duration")
                    .description("Time of one tenant's queue-gauge statement (one per tenant and refresh)")
                    .tags("tenant", tenant).register(registry).record(System.nanoTime() - began,
                            java.util.concurrent.TimeUnit.NANOSECONDS);
        }
    }
}
