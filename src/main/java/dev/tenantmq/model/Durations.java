package dev.tenantmq.model;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The one conversion of a {@link Duration} to the microseconds that the SQL binds take
 * ({@code DATETIME(6)} arithmetic: {@code INTERVAL ? MICROSECOND}). One home, so that every
 * caller rounds and overflows the same way.
 */
public final class Durations {
    private Durations() {}

    /**
     * Whole microseconds of {@code d}, truncated toward zero (a 1.9 µs duration is 1 µs).
     * Saturates at {@link Long#MAX_VALUE} (and, for a negative duration, at {@link Long#MIN_VALUE})
     * instead of throwing: {@code Duration.toNanos()} overflows past about 292 years, a
     * configured retention or timeout could be that long, and "longer than any stored time" is
     * the meaning such a value has in a query.
     */
    public static long micros(Duration d) {
        return TimeUnit.MICROSECONDS.convert(d);
    }
}
