package dev.tenantmq.model;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import org.junit.jupiter.api.Test;

/** Durations become the microseconds of the SQL binds the same way everywhere. */
class DurationsTest {

    @Test
    void whole_microseconds_are_exact() {
        assertEquals(0, Durations.micros(Duration.ZERO));
        assertEquals(1, Durations.micros(Duration.of(1, ChronoUnit.MICROS)));
        assertEquals(30_000_000, Durations.micros(Duration.ofSeconds(30)));
        assertEquals(43_200_000_000L, Durations.micros(Duration.ofHours(12)));
        assertEquals(1_500, Durations.micros(Duration.ofMillis(1).plusNanos(500_000)));
    }

    @Test
    void a_fraction_of_a_microsecond_is_truncated_toward_zero() {
        assertEquals(1, Durations.micros(Duration.ofNanos(1_999)));
        assertEquals(0, Durations.micros(Duration.ofNanos(999)));
        assertEquals(-1, Durations.micros(Duration.ofNanos(-1_999)));
    }

    @Test
    void a_duration_beyond_the_long_range_saturates_instead_of_throwing() {
        // Duration.toNanos() throws past about 292 years; these must not.
        assertEquals(Long.MAX_VALUE, Durations.micros(Duration.ofDays(365L * 300_000)));
        assertEquals(Long.MAX_VALUE, Durations.micros(Duration.ofSeconds(Long.MAX_VALUE)));
        assertEquals(Long.MIN_VALUE, Durations.micros(Duration.ofSeconds(Long.MIN_VALUE)));
    }

    @Test
    void the_largest_representable_microsecond_count_is_still_exact() {
        Duration max = Duration.of(Long.MAX_VALUE, ChronoUnit.MICROS);
        assertEquals(Long.MAX_VALUE, Durations.micros(max));
        assertEquals(Long.MAX_VALUE - 1, Durations.micros(max.minus(Duration.of(1, ChronoUnit.MICROS))));
    }
}
