package dev.tenantmq.model;

import java.time.Duration;

/**
 * The settings that apply to one (tenant, topic) or (tenant, topic, consumer group), each with
 * where its value came from (docs/settings.md, "Per-topic and per-group settings"): the group's
 * override beats the topic's, which beats the global setting. {@link #resolve} is the one home
 * of that rule; the admin API shows its result, and the service acts on it.
 */
public record EffectiveSettings(Value<Integer> maxDeliveries, Value<Integer> defaultVisibilitySeconds,
                                Value<Integer> maxVisibilitySeconds, Value<Long> nackBackoffBaseMillis,
                                Value<Long> nackBackoffCapMillis, Value<Long> retentionMaxAgeSeconds,
                                Value<Long> dedupWindowSeconds, Value<Boolean> deadLetterEnabled) {

    /** Where an effective value came from. */
    public enum Source {
        /** The consumer group's override on the topic. */
        GROUP,
        /** The topic's override. */
        TOPIC,
        /** The process's global {@code mq.*} setting (or built-in default). */
        GLOBAL
    }

    /** One effective value and its source. */
    public record Value<T>(T value, Source source) {}

    /**
     * Resolves every setting: the group's override if set, else the topic's, else the global one.
     * Retention and dedup window are the topic's only.
     *
     * @param global every field set: the process's settings
     * @param topic the topic's overrides ({@link SettingOverrides#NONE} when none)
     * @param group the group's overrides ({@link SettingOverrides#NONE} when none, or when no group is asked about)
     */
    public static EffectiveSettings resolve(SettingOverrides global, SettingOverrides topic, SettingOverrides group) {
        Value<Integer> maxVisibility = pick(group.maxVisibilitySeconds(), topic.maxVisibilitySeconds(),
                global.maxVisibilitySeconds());
        Value<Integer> defaultVisibility = pick(group.defaultVisibilitySeconds(), topic.defaultVisibilitySeconds(),
                global.defaultVisibilitySeconds());
        if (defaultVisibility.value() > maxVisibility.value()) {
            // A group may lower the maximum below a default its topic set: the maximum is what fetches get.
            defaultVisibility = maxVisibility;
        }
        return new EffectiveSettings(
                pick(group.maxDeliveries(), topic.maxDeliveries(), global.maxDeliveries()),
                defaultVisibility,
                maxVisibility,
                pick(group.nackBackoffBaseMillis(), topic.nackBackoffBaseMillis(), global.nackBackoffBaseMillis()),
                pick(group.nackBackoffCapMillis(), topic.nackBackoffCapMillis(), global.nackBackoffCapMillis()),
                pick(null, topic.retentionMaxAgeSeconds(), global.retentionMaxAgeSeconds()),
                pick(null, topic.dedupWindowSeconds(), global.dedupWindowSeconds()),
                pick(group.deadLetterEnabled(), topic.deadLetterEnabled(), global.deadLetterEnabled()));
    }

    private static <T> Value<T> pick(T group, T topic, T global) {
        if (group != null) {
            return new Value<>(group, Source.GROUP);
        }
        if (topic != null) {
            return new Value<>(topic, Source.TOPIC);
        }
        if (global == null) {
            throw new IllegalArgumentException("the global settings must set every field");
        }
        return new Value<>(global, Source.GLOBAL);
    }

    /**
     * The visibility timeout of a fetch that names none: the default, capped at the maximum (a
     * group may lower the maximum below a default its topic set).
     */
    public Duration defaultVisibility() {
        return Duration.ofSeconds(Math.min(defaultVisibilitySeconds.value(), maxVisibilitySeconds.value()));
    }

    /** The largest visibility timeout a fetch or extend may ask for. */
    public Duration maxVisibility() {
        return Duration.ofSeconds(maxVisibilitySeconds.value());
    }

    /** The backoff of a nack without delay. */
    public NackBackoff backoff() {
        return new NackBackoff(Duration.ofMillis(nackBackoffBaseMillis.value()), Duration.ofMillis(nackBackoffCapMillis.value()));
    }

    /** Age after which retention deletes a message of the topic. */
    public Duration retentionMaxAge() {
        return Duration.ofSeconds(retentionMaxAgeSeconds.value());
    }

    /**
     * Where {@link #retentionMaxAge} is set, as an error names it: the global
     * {@code mq.retention.max-age}, or the override a user would look for in the settings view.
     */
    public String retentionMaxAgeSetting() {
        return switch (retentionMaxAgeSeconds.source()) {
            case GROUP -> "the consumer group's retentionMaxAgeSeconds";
            case TOPIC -> "the topic's retentionMaxAgeSeconds";
            case GLOBAL -> "mq.retention.max-age";
        };
    }

    /** How long a deleted message's identity stays a duplicate. */
    public Duration dedupWindow() {
        return Duration.ofSeconds(dedupWindowSeconds.value());
    }

    /**
     * The broken rule of a visibility timeout that a fetch ({@code visibilitySeconds}) or extend asks
     * for above this topic's or group's maximum, if any.
     */
    public java.util.Optional<FieldError> visibilityAboveMaximum(Duration visibility) {
        if (visibility == null || visibility.compareTo(maxVisibility()) <= 0) {
            return java.util.Optional.empty();
        }
        return java.util.Optional.of(new FieldError("visibilitySeconds", "must be at most "
                + maxVisibilitySeconds.value() + " (maxVisibilitySeconds of this " + switch (maxVisibilitySeconds.source()) {
                    case GROUP -> "consumer group";
                    case TOPIC -> "topic";
                    case GLOBAL -> "service";
                } + "; got " + visibility.toSeconds() + ")"));
    }
}
