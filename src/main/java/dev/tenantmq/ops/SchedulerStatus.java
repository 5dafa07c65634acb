package dev.tenantmq.ops;

import dev.tenantmq.config.ProcessIdentity;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What the scheduler publishes about itself for readiness (docs/operations.md, "Metrics"): when its lease
 * tick last finished, and whether the last queue-gauge refresh of each served tenant reached the
 * database. The scheduler writes it; the health check and the readiness gauges read it, so they
 * never call into the scheduler (the arrows run scheduler -> ops only). Held in memory: reading
 * it never runs a query.
 */
@ApplicationScoped
public class SchedulerStatus {
    private final ProcessIdentity identity;
    private final Map<String, Boolean> refreshOk = new ConcurrentHashMap<>();
    private volatile Instant lastTick;

    SchedulerStatus(ProcessIdentity identity) {
        this.identity = identity;
    }

    /** Records that a lease tick finished at {@code at} (the injected clock). */
    public void ticked(Instant at) {
        lastTick = at;
    }

    /** When the last lease tick finished, or null before the first one. */
    public Instant lastTick() {
        return lastTick;
    }

    /**
     * Records the outcome of one tenant's queue-gauge refresh.
     *
     * @return the outcome of the tenant's previous refresh, or null for its first: the caller logs
     *     a failure once per streak
     */
    public Boolean refreshed(String tenant, boolean ok) {
        return refreshOk.put(tenant, ok);
    }

    /**
     * Whether the last refresh of every served tenant reached the database: readiness's view of
     * "database reachable", known without a query at scrape time. False before the first.
     */
    public boolean databaseReachable() {
        return identity.tenantNames().stream().allMatch(t -> Boolean.TRUE.equals(refreshOk.get(t)));
    }
}
