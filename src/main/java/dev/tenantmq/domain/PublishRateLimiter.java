package dev.tenantmq.domain;

import io.github.bucket4j.Bucket;
import io.github.bucket4j.ConsumptionProbe;
import io.github.bucket4j.TimeMeter;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * The publish-rate quota: one Bucket4j token bucket per tenant in this process (docs/security.md, "Quotas"), of
 * capacity {@link QuotaLimits#publishBurst()} tokens, refilled greedily at
 * {@link QuotaLimits#publishRate()} tokens per second. A batch of n messages takes n tokens at
 * once or none. Buckets live as long as the process; there is one per served tenant at most.
 * Time comes from an injected nanosecond source, so tests drive it without sleeping.
 */
public final class PublishRateLimiter {
    private final TimeMeter time;
    private final Map<String, Bucket> buckets = new ConcurrentHashMap<>();

    /** @param nanoTime a monotonic time source in nanoseconds ({@code System::nanoTime} in production) */
    public PublishRateLimiter(LongSupplier nanoTime) {
        this.time = new TimeMeter() {
            @Override
            public long currentTimeNanos() {
                return nanoTime.getAsLong();
            }

            @Override
            public boolean isWallClockBased() {
                return false;
            }
        };
    }

    /**
     * Takes {@code messages} tokens from the tenant's bucket, or none.
     *
     * @param limits the tenant's limits; must limit the rate ({@link QuotaLimits#limitsRate()})
     *     and {@code messages} must not exceed its burst
     * @return 0 when the tokens were taken, else the whole seconds (at least 1) after which
     *     enough tokens will have accumulated: the {@code Retry-After} value
     */
    public long tryAcquire(String tenant, QuotaLimits limits, int messages) {
        if (messages > limits.publishBurst()) {
            throw new IllegalArgumentException("a batch of " + messages + " exceeds the burst " + limits.publishBurst());
        }
        Bucket bucket = buckets.computeIfAbsent(tenant, t -> newBucket(limits));
        ConsumptionProbe probe = bucket.tryConsumeAndReturnRemaining(messages);
        if (probe.isConsumed()) {
            return 0;
        }
        long nanos = probe.getNanosToWaitForRefill();
        return Math.max(1, (nanos + 999_999_999L) / 1_000_000_000L);
    }

    private Bucket newBucket(QuotaLimits limits) {
        return Bucket.builder()
                .addLimit(limit -> limit.capacity(limits.publishBurst())
                        .refillGreedy(limits.publishRate(), Duration.ofSeconds(1)))
                .withCustomTimePrecision(time)
                .build();
    }
}
