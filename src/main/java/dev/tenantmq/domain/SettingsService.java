package dev.tenantmq.domain;

import dev.tenantmq.model.ConsumeLimits;
import dev.tenantmq.model.ConsumerGroup;
import dev.tenantmq.model.EffectiveSettings;
import dev.tenantmq.model.InvalidRequestException;
import dev.tenantmq.model.SettingOverrides;
import dev.tenantmq.model.Tenant;
import dev.tenantmq.model.Topic;
import dev.tenantmq.store.SettingsStore;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Optional;

/**
 * Reading and changing the per-topic and per-group settings through the admin API
 * (docs/settings.md, "Per-topic and per-group settings"). Reads go to the database, so the answer
 * is what is stored now; what each instance acts on is its {@link SettingsCache}, refreshed on
 * every scheduler tick, and at once on the instance that made the change.
 */
@ApplicationScoped
public class SettingsService {
    private final SettingsStore store;
    private final SettingsCache cache;
    private final dev.tenantmq.config.ProcessIdentity identity;

    SettingsService(SettingsStore store, SettingsCache cache, dev.tenantmq.config.ProcessIdentity identity) {
        this.store = store;
        this.cache = cache;
        this.identity = identity;
    }

    /**
     * The stored overrides of a topic and optionally of one group on it, and the settings that
     * result, each with its source.
     *
     * @param topicOverrides the topic's own ({@link SettingOverrides#NONE} when none)
     * @param groupOverrides the group's ({@link SettingOverrides#NONE} when none or no group asked)
     */
    public record View(Tenant tenant, Topic topic, Optional<ConsumerGroup> consumerGroup, EffectiveSettings effective,
                       SettingOverrides topicOverrides, SettingOverrides groupOverrides) {}

    /**
     * The settings of a topic, or of a consumer group on it, as stored now.
     *
     * @throws dev.tenantmq.model.StoreUnavailableException when the database is unreachable (503)
     */
    public View view(Tenant tenant, Topic topic, Optional<ConsumerGroup> group) {
        SettingOverrides topicRow = store.read(tenant.value(), topic.value(), Optional.empty());
        SettingOverrides groupRow = group.isEmpty() ? SettingOverrides.NONE
                : store.read(tenant.value(), topic.value(), group.map(ConsumerGroup::value));
        return new View(tenant, topic, group, EffectiveSettings.resolve(cache.global(), topicRow, groupRow), topicRow,
                groupRow);
    }

    /**
     * Replaces the overrides of a topic, or of a consumer group on it: a field left null inherits.
     * All null is {@link #clear}.
     *
     * @return the settings afterwards
     * @throws InvalidRequestException naming each field out of its bounds (400), the bounds of the
     *     global settings ({@link SettingOverrides#problems}), or a nack backoff base above its cap,
     *     set here or inherited
     * @throws ConflictException when the tenant already has {@link SettingsCache#MAX_ROWS_PER_TENANT} rows (409)
     */
    public View replace(Tenant tenant, Topic topic, Optional<ConsumerGroup> group, SettingOverrides overrides) {
        ConsumeLimits.require(overrides.problems(group.isPresent()));
        // What this level inherits: a group its topic's settings (as stored now), a topic the global ones.
        SettingOverrides topicRow = group.isEmpty() ? SettingOverrides.NONE
                : store.read(tenant.value(), topic.value(), Optional.empty());
        ConsumeLimits.require(overrides.problems(group.isPresent(),
                EffectiveSettings.resolve(cache.global(), topicRow, SettingOverrides.NONE)));
        if (!overrides.isEmpty() && cache.rows(tenant.value()) >= SettingsCache.MAX_ROWS_PER_TENANT
                && store.read(tenant.value(), topic.value(), group.map(ConsumerGroup::value)).isEmpty()) {
            throw new ConflictException("the tenant has " + SettingsCache.MAX_ROWS_PER_TENANT
                    + " settings rows, the most there may be: clear some first");
        }
        store.replace(tenant.value(), topic.value(), group.map(ConsumerGroup::value), overrides);
        changed(tenant);
        return view(tenant, topic, group);
    }

    /**
     * Removes the overrides of a topic, or of a consumer group on it (a topic's clear leaves its
     * groups' overrides in place): everything of that level inherits again.
     *
     * @return the settings afterwards
     */
    public View clear(Tenant tenant, Topic topic, Optional<ConsumerGroup> group) {
        store.replace(tenant.value(), topic.value(), group.map(ConsumerGroup::value), SettingOverrides.NONE);
        changed(tenant);
        return view(tenant, topic, group);
    }

    /** This instance applies its own change at once; the others on their next tick. */
    private void changed(Tenant tenant) {
        if (identity.serves(tenant)) {
            cache.refresh(tenant.value());
        }
    }
}
