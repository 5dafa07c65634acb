package dev.tenantmq.domain;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The publish-rate token bucket (docs/security.md, "Quotas"), driven by a fake nanosecond clock: no sleeps, and
 * no timing asserted, only what the bucket admits at given instants.
 */
class PublishRateLimiterTest {
    private static final long SECOND = 1_000_000_000L;
    private final AtomicLong now = new AtomicLong(42 * SECOND);
    private final PublishRateLimiter limiter = new PublishRateLimiter(now::get);

    /** 10 messages per second, burst 10. */
    private static final QuotaLimits TEN_PER_SECOND = new QuotaLimits(10, 10, 0, 0);

    @Test
    void a_full_bucket_admits_its_burst_and_then_refuses_with_the_seconds_until_refill() {
        assertEquals(0, limiter.tryAcquire("a", TEN_PER_SECOND, 10));
        assertEquals(1, limiter.tryAcquire("a", TEN_PER_SECOND, 1), "empty: one token comes back within 1 s");
    }

    @Test
    void a_batch_takes_all_its_tokens_or_none() {
        assertEquals(0, limiter.tryAcquire("a", TEN_PER_SECOND, 6));
        assertEquals(1, limiter.tryAcquire("a", TEN_PER_SECOND, 5), "5 do not fit in the 4 left");
        assertEquals(0, limiter.tryAcquire("a", TEN_PER_SECOND, 4), "the refused batch took none of the 4");
        assertEquals(1, limiter.tryAcquire("a", TEN_PER_SECOND, 1));
    }

    @Test
    void tokens_refill_at_the_rate_as_time_passes() {
        assertEquals(0, limiter.tryAcquire("a", TEN_PER_SECOND, 10));
        now.addAndGet(SECOND / 2);
        assertEquals(0, limiter.tryAcquire("a", TEN_PER_SECOND, 5), "half a second refills 5");
        assertEquals(1, limiter.tryAcquire("a", TEN_PER_SECOND, 1));
        now.addAndGet(10 * SECOND);
        assertEquals(0, limiter.tryAcquire("a", TEN_PER_SECOND, 10), "refills up to the burst");
        assertEquals(1, limiter.tryAcquire("a", TEN_PER_SECOND, 1), "and no further");
    }

    @Test
    void retry_after_is_the_whole_seconds_until_the_batch_fits() {
        QuotaLimits slow = new QuotaLimits(2, 10, 0, 0); // 2 per second, burst 10
        assertEquals(0, limiter.tryAcquire("a", slow, 10));
        assertEquals(3, limiter.tryAcquire("a", slow, 5), "5 tokens at 2/s take 2.5 s, rounded up");
        now.addAndGet(2 * SECOND + SECOND / 2);
        assertEquals(0, limiter.tryAcquire("a", slow, 5), "after 2.5 s they fit");
    }

    @Test
    void each_tenant_has_its_own_bucket() {
        assertEquals(0, limiter.tryAcquire("a", TEN_PER_SECOND, 10));
        assertEquals(1, limiter.tryAcquire("a", TEN_PER_SECOND, 1));
        assertEquals(0, limiter.tryAcquire("b", TEN_PER_SECOND, 10), "b is not slowed by a");
    }

    @Test
    void a_batch_larger_than_the_burst_is_a_caller_error_not_a_wait() {
        assertThrows(IllegalArgumentException.class, () -> limiter.tryAcquire("a", TEN_PER_SECOND, 11));
    }

    @Test
    void tokens_given_back_are_there_again_up_to_the_capacity() {
        assertEquals(0, limiter.tryAcquire("a", 1_000, 100, 1_000));
        assertEquals(6, limiter.tryAcquire("a", 1_000, 100, 600), "empty: 600 tokens at 100/s take 6 s");
        limiter.giveBack("a", 600);
        assertEquals(0, limiter.tryAcquire("a", 1_000, 100, 600), "the 600 given back");
        limiter.giveBack("a", 5_000);
        assertEquals(0, limiter.tryAcquire("a", 1_000, 100, 1_000));
        assertEquals(1, limiter.tryAcquire("a", 1_000, 100, 1), "5000 given back filled it to its capacity only");
    }
}
