package dev.tenantmq.api.dto;

import dev.tenantmq.model.ConsumeLimits;
import dev.tenantmq.model.SettingOverrides;

/**
 * The overrides of a topic, or of a consumer group on it (docs/settings.md, "Per-topic and
 * per-group settings"): the body of {@code PUT /admin/settings}, and the stored overrides in its
 * answer. Every field is optional and nullable: absent or null inherits (a group's from its
 * topic's, a topic's from the global setting). The bounds are the global settings' own
 * ({@code dev.tenantmq.model.SettingOverrides}).
 *
 * @param maxDeliveries failed attempts after which a message is dead-lettered, at least 1 ({@code mq.max-deliveries})
 * @param defaultVisibilitySeconds visibility timeout of a fetch that names none, 1..43200 (global: 30)
 * @param maxVisibilitySeconds largest visibility timeout a fetch or extend may ask for, 1..43200 (global: 43200)
 * @param nackBackoffBaseMillis backoff after the first failed attempt, 0..43200000 ms ({@code mq.nack.backoff-base})
 * @param nackBackoffCapMillis longest backoff, 0..43200000 ms ({@code mq.nack.backoff-cap})
 * @param retentionMaxAgeSeconds age after which retention deletes a message, at least 0; topics only
 *     ({@code mq.retention.max-age})
 * @param dedupWindowSeconds how long a deleted message's identity stays a duplicate, at least 0; topics only
 *     ({@code mq.publish.dedup-window})
 * @param deadLetterEnabled false: failed messages are retried without limit, never dead-lettered
 */
public record SettingsRequest(
        @IntegerRange(min = SettingOverrides.MIN_MAX_DELIVERIES, max = Integer.MAX_VALUE) Integer maxDeliveries,
        @IntegerRange(min = 1, max = ConsumeLimits.MAX_VISIBILITY_SECONDS) Integer defaultVisibilitySeconds,
        @IntegerRange(min = 1, max = ConsumeLimits.MAX_VISIBILITY_SECONDS) Integer maxVisibilitySeconds,
        @IntegerRange(min = 0, max = SettingOverrides.MAX_BACKOFF_MILLIS, unit = "milliseconds") Long nackBackoffBaseMillis,
        @IntegerRange(min = 0, max = SettingOverrides.MAX_BACKOFF_MILLIS, unit = "milliseconds") Long nackBackoffCapMillis,
        @IntegerRange(min = 0, max = SettingOverrides.MAX_AGE_SECONDS, unit = "seconds") Long retentionMaxAgeSeconds,
        @IntegerRange(min = 0, max = SettingOverrides.MAX_AGE_SECONDS, unit = "seconds") Long dedupWindowSeconds,
        Boolean deadLetterEnabled) {}
