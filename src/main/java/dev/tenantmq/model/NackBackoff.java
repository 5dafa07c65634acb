package dev.tenantmq.model;

import java.time.Duration;

/**
 * Redelivery delay of a nack that names none (SPEC "Ack, nack, extend": exponential backoff with
 * a configurable base and cap), and the one home of its rule.
 *
 * @param base delay after the first failed attempt
 * @param cap longest delay
 */
public record NackBackoff(Duration base, Duration cap) {
    /**
     * The delay after failed attempt {@code attempt}: {@code min(cap, base * 2^(attempt - 1))}; an
     * attempt below 1 counts as 1, and the doubling stops at 2^30 so that it never overflows.
     */
    public Duration after(int attempt) {
        int shift = Math.min(Math.max(attempt - 1, 0), 30);
        Duration d = base.multipliedBy(1L << shift);
        return d.compareTo(cap) > 0 ? cap : d;
    }
}
