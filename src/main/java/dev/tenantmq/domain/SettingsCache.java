package dev.tenantmq.domain;

import dev.tenantmq.config.MqConfig;
import dev.tenantmq.config.ProcessIdentity;
import dev.tenantmq.model.ConsumeLimits;
import dev.tenantmq.model.EffectiveSettings;
import dev.tenantmq.model.SettingOverrides;
import dev.tenantmq.store.SettingsStore;
import io.smallrye.mutiny.infrastructure.Infrastructure;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jboss.logging.Logger;

/**
 * This process's copy of the per-topic and per-group settings of its served tenants
 * (docs/settings.md, "Per-topic and per-group settings"), so that publish, fetch, ack and nack
 * read them from memory: none of them runs a statement for it. The scheduler tick refreshes it
 * with one bounded statement per served tenant ({@link #refreshInBackground}); so a change made
 * through another instance applies here within one {@code mq.tick-interval} (plus the time of
 * that statement). The instance that takes the change refreshes its tenant at once.
 *
 * <p>A tenant whose refresh fails keeps its last rows (logged once per failure streak); before
 * its first refresh, a tenant has no overrides: the global settings apply.
 */
@ApplicationScoped
public class SettingsCache {
    private static final Logger LOG = Logger.getLogger(SettingsCache.class);
    /**
     * Most override rows of one tenant (topics plus groups with settings): the bound of the tick's
     * statement. A change that would store more is refused (409).
     */
    public static final int MAX_ROWS_PER_TENANT = 10_000;

    /** The overrides of one tenant, by topic, then by group ("" for the topic's own). */
    private record TenantSettings(Map<String, Map<String, SettingOverrides>> byTopic, int rows) {
        static final TenantSettings NONE = new TenantSettings(Map.of(), 0);

        SettingOverrides of(String topic, String group) {
            return byTopic.getOrDefault(topic, Map.of()).getOrDefault(group, SettingOverrides.NONE);
        }
    }

    private final SettingsStore store;
    private final dev.tenantmq.config.Stopping stopping;
    private final ProcessIdentity identity;
    private final SettingOverrides global;
    private final Map<String, TenantSettings> tenants = new ConcurrentHashMap<>();
    private final Set<String> failing = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean running = new AtomicBoolean();

    SettingsCache(SettingsStore store, ProcessIdentity identity, MqConfig config, dev.tenantmq.config.Stopping stopping) {
        this.stopping = stopping;
        this.store = store;
        this.identity = identity;
        this.global = global(config);
    }

    /**
     * The process's settings as overrides with every field set: the source {@code global}. The
     * visibility timeouts are the built-in ones ({@link ConsumeLimits}); retention and the dedup
     * window count in whole seconds, the backoff in milliseconds.
     */
    static SettingOverrides global(MqConfig config) {
        return new SettingOverrides(config.maxDeliveries(), ConsumeLimits.DEFAULT_VISIBILITY_SECONDS,
                ConsumeLimits.MAX_VISIBILITY_SECONDS, config.nack().backoffBase().toMillis(),
                config.nack().backoffCap().toMillis(), seconds(config.retention().maxAge()),
                seconds(config.publish().dedupWindow()), true);
    }

    private static long seconds(Duration d) {
        return d.getSeconds();
    }

    /** The global settings (every field set). */
    public SettingOverrides global() {
        return global;
    }

    /**
     * The settings that apply to a topic (group null) or a consumer group on it, from memory.
     */
    public EffectiveSettings effective(String tenant, String topic, String consumerGroup) {
        TenantSettings t = tenants.getOrDefault(tenant, TenantSettings.NONE);
        if (t.rows() == 0) {
            return EffectiveSettings.resolve(global, SettingOverrides.NONE, SettingOverrides.NONE);
        }
        return EffectiveSettings.resolve(global, t.of(topic, ""),
                consumerGroup == null ? SettingOverrides.NONE : t.of(topic, consumerGroup));
    }

    /** The longest dedup window of any topic of the tenant (the global one included), as this process knows it. */
    public Duration longestDedupWindow(String tenant) {
        long longest = global.dedupWindowSeconds();
        for (Map<String, SettingOverrides> groups : tenants.getOrDefault(tenant, TenantSettings.NONE).byTopic().values()) {
            Long w = groups.getOrDefault("", SettingOverrides.NONE).dedupWindowSeconds();
            if (w != null && w > longest) {
                longest = w;
            }
        }
        return Duration.ofSeconds(longest);
    }

    /** How many override rows this process holds for the tenant. */
    public int rows(String tenant) {
        return tenants.getOrDefault(tenant, TenantSettings.NONE).rows();
    }

    /**
     * Called by every scheduler tick: refreshes every served tenant on a worker thread, unless the
     * previous tick's refresh still runs (then this tick's is skipped, not queued).
     */
    public void refreshInBackground() {
        if (!running.compareAndSet(false, true)) {
            return;
        }
        try {
            Infrastructure.getDefaultWorkerPool().execute(() -> {
                try {
                    refreshAll();
                } finally {
                    running.set(false);
                }
            });
        } catch (RuntimeException rejected) {
            running.set(false); // pool shutting down
        }
    }

    /** What one tick does, on the calling thread: {@link #refresh} of every served tenant. */
    public void refreshAll() {
        for (String tenant : identity.tenantNames()) {
            refresh(tenant);
        }
    }

    /**
     * Reads the tenant's rows (one statement, at most {@link #MAX_ROWS_PER_TENANT}) and replaces
     * what this process holds. A failure keeps the last rows.
     *
     * @return whether the refresh succeeded
     */
    public boolean refresh(String tenant) {
        try {
            SettingsStore.TenantRows read = store.tenant(tenant, MAX_ROWS_PER_TENANT);
            Map<String, Map<String, SettingOverrides>> byTopic = new HashMap<>();
            for (SettingsStore.Row r : read.rows()) {
                byTopic.computeIfAbsent(r.topic(), k -> new HashMap<>()).put(r.consumerGroup().orElse(""), r.overrides());
            }
            tenants.put(tenant, new TenantSettings(byTopic, read.rows().size()));
            if (read.truncated()) {
                LOG.warnf("tenant=%s has more than %d per-topic/per-group settings rows; the rest are ignored",
                        tenant, MAX_ROWS_PER_TENANT);
            }
            if (failing.remove(tenant)) {
                LOG.infof("settings refresh for tenant=%s recovered", tenant);
            }
            return true;
        } catch (RuntimeException ex) {
            if (stopping.now()) {
                LOG.debugf("settings refresh for tenant=%s cut short by the shutdown: %s", tenant, ex.getMessage());
            } else if (failing.add(tenant)) {
                LOG.warnf("settings refresh failed for tenant=%s (its last known settings stay in use): %s", tenant,
                        ex.getMessage());
            }
            return false;
        }
    }
}
