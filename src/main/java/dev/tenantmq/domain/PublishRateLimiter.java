package dev.tenantmq.domain;

import io.github.bucket4j.Bucket;
import io.github.bucket4j.ConsumptionProbe;
import io.github.bucket4j.TimeMeter;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * A publish-rate quota: one Bucket4j token bucket per tenant in this process (docs/security.md, "Quotas"), of
 * capacity {@link QuotaLimits#publishBurst()} tokens, refilled greedily at
 * {@link QuotaLimits#publishRate()} tokens per second. A batch of n messages takes n tokens at
 * once or none. The byte rate is a second limiter of the same kind, whose tokens are payload bytes
 * ({@link #tryAcquire(String, long, long, long)}). Buckets live as long as the process; there is one per served tenant at most.
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
        return tryAcquire(tenant, limits.publishBurst(), limits.publishRate(), messages);
    }

    /**
     * Takes {@code tokens} from the tenant's bucket of capacity {@code burst}, refilled at
     * {@code perSecond}, or none. The bucket is made on first use with these numbers.
     *
     * @return 0 when the tokens were taken, else the whole seconds (at least 1) after which
     *     enough tokens will have accumulated: the {@code Retry-After} value
     * @throws IllegalArgumentException when {@code tokens} exceeds {@code burst}: no wait could make them fit
     */
    public long tryAcquire(String tenant, long burst, long perSecond, long tokens) {
        if (tokens > burst) {
            throw new IllegalArgumentException("a batch of " + tokens + " exceeds the burst " + burst);
        }
        Bucket bucket = buckets.computeIfAbsent(tenant, t -> newBucket(burst, perSecond));
        ConsumptionProbe probe = bucket.tryConsumeAndReturnRemaining(tokens);
        if (probe.isConsumed()) {
            return 0;
        }
        long nanos = probe.getNanosToWaitForRefill();
        return Math.max(1, (nanos + 999_999_999L) / 1_000_000_000L);
    }

    /**
     * Gives back tokens an admitted batch took, when another quota refused the batch after all
     * (a refused batch takes nothing). The bucket never holds more than its capacity.
     */
    public void giveBack(String tenant, long tokens) {
        Bucket bucket = buckets.get(tenant);
        if (bucket != null && tokens > 0) {
            bucket.addTokens(tokens);
        }
    }

    private Bucket newBucket(long burst, long perSecond) {
        return Bucket.builder()
                .addLimit(limit -> limit.capacity(burst).refillGreedy(perSecond, Duration.ofSeconds(1)))
                .withCustomTimePrecision(time)
                .build();
    }
}
