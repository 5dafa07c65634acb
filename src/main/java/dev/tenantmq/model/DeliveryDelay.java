package dev.tenantmq.model;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/**
 * When a published message may be delivered first (docs/api.md, "Delayed delivery"): after a
 * number of seconds from its publish, or at a point in time. The one home of the delay rule:
 * a delay reaches at most the retention maximum age ({@code mq.retention.max-age}) ahead,
 * because retention deletes a message that age after its publish, delivered or not.
 *
 * <p>Exactly one of the two forms is set. The store turns it into the message's
 * {@code deliver_at}: the database clock plus {@link #afterMicros()}, or {@link #at()} as given,
 * so "due" is judged by the database clock, as visibility is.
 *
 * @param afterMicros the delay from the publish, in microseconds, or null
 * @param at the due time, or null
 * @param given the value as the client gave it, which an error ends with ({@code (got ...)}), as
 *     every range error does (docs/api.md, "Errors"): the number of seconds, of any size, or the
 *     text of the time; never null
 */
public record DeliveryDelay(Long afterMicros, Instant at, String given) {
    /** Field name of the relative form in a published message. */
    public static final String AFTER_FIELD = "deliverAfterSeconds";
    /** Field name of the absolute form in a published message. */
    public static final String AT_FIELD = "deliverAt";

    /** DATETIME(6) text, as the database prints it; a {@code LocalDateTime} bind loses the fraction on MariaDB. */
    private static final DateTimeFormatter SQL_TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSSSSS");

    public DeliveryDelay {
        if ((afterMicros == null) == (at == null)) {
            throw new IllegalArgumentException("exactly one of afterMicros and at");
        }
        if (given == null) {
            given = afterMicros != null ? Long.toString(afterMicros / 1_000_000) : at.toString();
        }
    }

    /** A delay whose value, as given, is its own. */
    public DeliveryDelay(Long afterMicros, Instant at) {
        this(afterMicros, at, null);
    }

    /**
     * Longest relative delay, in seconds: 100 years. It is beyond the retention max-age a topic
     * may set (at most 3650 days), and short enough for exact nanosecond arithmetic
     * ({@link #dueIn}). A longer one, whatever its size, stands for itself as one second more
     * ({@link #afterSeconds}), which {@link #problem} refuses naming the bound.
     */
    public static final long LONGEST_AFTER_SECONDS = 100L * 366 * 24 * 3600;

    /**
     * A delay of {@code seconds} (at least 0) from the publish. A delay longer than
     * {@link #LONGEST_AFTER_SECONDS} is kept as one second more than that, which is too far
     * for any retention ({@link #problem}).
     */
    public static DeliveryDelay afterSeconds(long seconds) {
        return afterSeconds(seconds, Long.toString(seconds));
    }

    /**
     * {@link #afterSeconds(long)}, given as {@code given}: a number too large for a long stands
     * for itself as {@link Long#MAX_VALUE} seconds, and its error names the number given.
     */
    public static DeliveryDelay afterSeconds(long seconds, String given) {
        if (seconds < 0) {
            throw new IllegalArgumentException("a delay is at least 0 seconds: " + seconds);
        }
        return new DeliveryDelay(Durations.micros(Duration.ofSeconds(Math.min(seconds, LONGEST_AFTER_SECONDS + 1))),
                null, given);
    }

    /** Due at {@code at}. */
    public static DeliveryDelay at(Instant at) {
        return new DeliveryDelay(null, at);
    }

    /** Due at {@code at}, given as {@code given}: a time past the stored years stands for itself as the last one. */
    public static DeliveryDelay at(Instant at, String given) {
        return new DeliveryDelay(null, at, given);
    }

    /**
     * The rule, checked once, in publish: the delay may reach at most {@code maxAge} ahead of
     * {@code now}, and a relative one at most {@link #LONGEST_AFTER_SECONDS}. A {@code deliverAt}
     * in the past is allowed: the message is due at once.
     *
     * @param field the request field to name, e.g. {@code messages[2].deliverAt}
     * @param maxAge the topic's effective retention maximum age
     * @param maxAgeSetting where {@code maxAge} is set, as the error names it: {@code
     *     mq.retention.max-age}, or the topic's override ({@link EffectiveSettings#retentionMaxAgeSetting})
     * @return the broken rule, or null when the delay is allowed
     */
    public FieldError problem(String field, Duration maxAge, String maxAgeSetting, Instant now) {
        long maxMicros = Durations.micros(maxAge);
        long micros = afterMicros != null ? afterMicros : Durations.micros(Duration.between(now, at));
        if (micros > maxMicros) {
            return new FieldError(field, "must be at most the retention maximum age (" + maxAgeSetting + ", "
                    + maxAge.toSeconds() + " s) ahead " + got() + ": retention deletes a message that long after its"
                    + " publish");
        }
        if (afterMicros != null && afterMicros > Durations.micros(Duration.ofSeconds(LONGEST_AFTER_SECONDS))) {
            // Only under a retention longer than 100 years.
            return new FieldError(field, "must be between 0 and " + LONGEST_AFTER_SECONDS + " seconds (100 years) "
                    + got());
        }
        return null;
    }

    /** What was given, as an error ends with it: at most 40 characters. */
    private String got() {
        return "(got " + (given.length() <= 40 ? given : given.substring(0, 40) + "...") + ")";
    }

    /** The due time as DATETIME(6) text in UTC, for the absolute form; null for the relative one. */
    public String atText() {
        return at == null ? null : LocalDateTime.ofInstant(at, ZoneOffset.UTC).format(SQL_TIME);
    }

    /**
     * How long from {@code now} until the message is due by this process's clock, never negative:
     * when to wake the long polls of this process for it.
     */
    public Duration dueIn(Instant now) {
        Duration d = afterMicros != null ? Duration.ofNanos(Math.multiplyExact(afterMicros, 1000L))
                : Duration.between(now, at);
        return d.isNegative() ? Duration.ZERO : d;
    }
}
