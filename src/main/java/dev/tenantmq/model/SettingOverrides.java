package dev.tenantmq.model;

import java.util.ArrayList;
import java.util.List;

/**
 * The overrides of one topic, or of one consumer group on a topic, of the global {@code mq.*}
 * settings (docs/settings.md, "Per-topic and per-group settings"). A null field inherits: a
 * group's from its topic's, a topic's from the global setting. Retention and duplicate detection
 * act on a topic's messages, whoever consumes them, so {@link #retentionMaxAgeSeconds} and
 * {@link #dedupWindowSeconds} exist for a topic only.
 *
 * <p>This is the one home of the bounds of these values: {@code config.MqConfig} declares its
 * global settings with the same constants, so an override and a global setting accept exactly the
 * same range.
 *
 * @param maxDeliveries failed attempts after which a message is dead-lettered ({@code mq.max-deliveries}); at least 1
 * @param defaultVisibilitySeconds visibility timeout of a fetch that names none, 1..43200
 * @param maxVisibilitySeconds largest visibility timeout a fetch or extend may ask for, 1..43200
 * @param nackBackoffBaseMillis delay after the first failed attempt of a nack without delay
 *     ({@code mq.nack.backoff-base}), 0..43200000 ms
 * @param nackBackoffCapMillis longest such delay ({@code mq.nack.backoff-cap}), 0..43200000 ms
 * @param retentionMaxAgeSeconds age after which retention deletes a message of the topic, acknowledged
 *     or not ({@code mq.retention.max-age}); 0..{@link #MAX_AGE_SECONDS} (3650 days)
 * @param dedupWindowSeconds how long a deleted message's identity stays a duplicate
 *     ({@code mq.publish.dedup-window}); 0..{@link #MAX_AGE_SECONDS} (3650 days)
 * @param deadLetterEnabled false: failed messages are retried without limit, never dead-lettered
 */
public record SettingOverrides(Integer maxDeliveries, Integer defaultVisibilitySeconds, Integer maxVisibilitySeconds,
                               Long nackBackoffBaseMillis, Long nackBackoffCapMillis, Long retentionMaxAgeSeconds,
                               Long dedupWindowSeconds, Boolean deadLetterEnabled) {
    /** No override at all: everything inherits. */
    public static final SettingOverrides NONE = new SettingOverrides(null, null, null, null, null, null, null, null);

    /** Fewest failed attempts before dead-lettering, of {@code mq.max-deliveries} and of an override. */
    public static final int MIN_MAX_DELIVERIES = 1;
    /** Longest nack backoff, base or cap, in seconds: as long as the longest nack delay. */
    public static final int MAX_BACKOFF_SECONDS = ConsumeLimits.MAX_DELAY_SECONDS;
    /** Longest nack backoff of an override, in milliseconds. */
    public static final long MAX_BACKOFF_MILLIS = MAX_BACKOFF_SECONDS * 1000L;
    /** The message of a maximum deliveries below 1. */
    public static final String MAX_DELIVERIES_RULE = "must be at least " + MIN_MAX_DELIVERIES;
    /** The message of a nack backoff out of range. */
    public static final String BACKOFF_RULE = "must be between 0 and 43200s (the longest nack delay)";
    /** The message of a negative age or window. */
    public static final String NOT_NEGATIVE = "must not be negative";
    /**
     * Longest retention max-age or dedup window, of an override and of the global
     * {@code mq.retention.max-age} and {@code mq.publish.dedup-window}, in days. Beyond about
     * 2,000 years {@code UTC_TIMESTAMP(6) - INTERVAL} leaves the DATETIME range and its
     * comparison is NULL, which would turn the rule off instead of stretching it.
     */
    public static final int MAX_AGE_DAYS = 3650;
    /** {@link #MAX_AGE_DAYS} in seconds. */
    public static final long MAX_AGE_SECONDS = MAX_AGE_DAYS * 24L * 3600;
    /** The message of a global retention max-age or dedup window above {@link #MAX_AGE_DAYS}. */
    public static final String MAX_AGE_RULE = "must be at most " + MAX_AGE_DAYS + "d (a longer age leaves the"
            + " DATETIME range of the database and would turn the rule off)";

    /** Whether nothing is overridden. */
    public boolean isEmpty() {
        return equals(NONE);
    }

    /**
     * The broken rules of these overrides, in field order, each naming its field: the ranges of the
     * global settings, the default visibility at most the maximum and the nack backoff base at
     * most its cap when both are set here, and no retention or dedup window for a consumer group
     * ({@code forGroup}). {@link #problems(boolean, EffectiveSettings)} adds what the inherited
     * settings make of the backoff.
     *
     * @return empty when the overrides may be stored
     */
    public List<FieldError> problems(boolean forGroup) {
        List<FieldError> out = new ArrayList<>();
        if (maxDeliveries != null && maxDeliveries < MIN_MAX_DELIVERIES) {
            out.add(new FieldError("maxDeliveries", MAX_DELIVERIES_RULE + " (got " + maxDeliveries + ")"));
        }
        visibility("defaultVisibilitySeconds", defaultVisibilitySeconds, out);
        visibility("maxVisibilitySeconds", maxVisibilitySeconds, out);
        if (defaultVisibilitySeconds != null && maxVisibilitySeconds != null
                && defaultVisibilitySeconds > maxVisibilitySeconds) {
            out.add(new FieldError("defaultVisibilitySeconds", "must be at most maxVisibilitySeconds ("
                    + maxVisibilitySeconds + "; got " + defaultVisibilitySeconds + ")"));
        }
        backoff(BASE_FIELD, nackBackoffBaseMillis, out);
        backoff(CAP_FIELD, nackBackoffCapMillis, out);
        if (nackBackoffBaseMillis != null && nackBackoffCapMillis != null && out.stream().noneMatch(
                f -> f.field().equals(BASE_FIELD) || f.field().equals(CAP_FIELD))
                && nackBackoffBaseMillis > nackBackoffCapMillis) {
            out.add(new FieldError(BASE_FIELD, "must be at most " + CAP_FIELD + " (" + nackBackoffCapMillis
                    + " ms; got " + nackBackoffBaseMillis + "): the backoff never exceeds its cap"));
        }
        topicOnly("retentionMaxAgeSeconds", retentionMaxAgeSeconds, forGroup, out);
        topicOnly("dedupWindowSeconds", dedupWindowSeconds, forGroup, out);
        return out;
    }

    /**
     * The broken rules of these overrides over the settings they inherit: those of
     * {@link #problems(boolean)}, and a nack backoff base above its cap, where this level sets the
     * base, the cap or both, and the other comes from this level or is inherited (docs/settings.md,
     * "Per-topic and per-group settings"). A backoff is {@code min(cap, base * 2^(attempt - 1))}
     * ({@link NackBackoff}), so a base above the cap would never be waited: it is a mistake to
     * name, not a value to store.
     *
     * @param inherited what this level inherits: the global settings for a topic, the topic's
     *     effective settings for a consumer group
     * @return empty when the overrides may be stored
     */
    public List<FieldError> problems(boolean forGroup, EffectiveSettings inherited) {
        List<FieldError> out = problems(forGroup);
        if (out.stream().anyMatch(f -> f.field().equals(BASE_FIELD) || f.field().equals(CAP_FIELD))) {
            return out; // a base or cap out of its range is named already
        }
        long base = nackBackoffBaseMillis != null ? nackBackoffBaseMillis : inherited.nackBackoffBaseMillis().value();
        long cap = nackBackoffCapMillis != null ? nackBackoffCapMillis : inherited.nackBackoffCapMillis().value();
        if (base <= cap || (nackBackoffBaseMillis == null && nackBackoffCapMillis == null)) {
            return out;
        }
        if (nackBackoffBaseMillis != null) {
            out.add(new FieldError(BASE_FIELD, "must be at most " + CAP_FIELD + " (" + cap + " ms"
                    + (nackBackoffCapMillis != null ? "" : ", " + inheritedFrom(inherited.nackBackoffCapMillis(), "cap"))
                    + "; got " + base + "): the backoff never exceeds its cap"));
        } else {
            out.add(new FieldError(CAP_FIELD, "must be at least " + BASE_FIELD + " (" + base + " ms, "
                    + inheritedFrom(inherited.nackBackoffBaseMillis(), "base") + "; got " + cap
                    + "): the backoff never exceeds its cap"));
        }
        return out;
    }

    /** Field names of the nack backoff in a request and an answer. */
    public static final String BASE_FIELD = "nackBackoffBaseMillis";
    public static final String CAP_FIELD = "nackBackoffCapMillis";

    private static String inheritedFrom(EffectiveSettings.Value<Long> v, String which) {
        return switch (v.source()) {
            case GROUP, TOPIC -> "the topic's";
            case GLOBAL -> "the global mq.nack.backoff-" + which;
        };
    }

    private static void visibility(String field, Integer seconds, List<FieldError> out) {
        if (seconds != null && (seconds < 1 || seconds > ConsumeLimits.MAX_VISIBILITY_SECONDS)) {
            out.add(new FieldError(field, "must be between 1 and " + ConsumeLimits.MAX_VISIBILITY_SECONDS
                    + " (got " + seconds + ")"));
        }
    }

    private static void backoff(String field, Long millis, List<FieldError> out) {
        if (millis != null && (millis < 0 || millis > MAX_BACKOFF_MILLIS)) {
            out.add(new FieldError(field, "must be between 0 and " + MAX_BACKOFF_MILLIS
                    + " milliseconds (the longest nack delay; got " + millis + ")"));
        }
    }

    private static void topicOnly(String field, Long seconds, boolean forGroup, List<FieldError> out) {
        if (seconds == null) {
            return;
        }
        if (forGroup) {
            out.add(new FieldError(field, "applies to the whole topic: set it without consumerGroup"));
        } else if (seconds < 0 || seconds > MAX_AGE_SECONDS) {
            out.add(new FieldError(field, "must be between 0 and " + MAX_AGE_SECONDS + " seconds (" + MAX_AGE_DAYS
                    + " days; got "
                    + seconds + ")"));
        }
    }
}
