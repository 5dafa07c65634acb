package dev.tenantmq.scheduler;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** A tenant's queue-gauge refresh that took long is repeated less often (docs/operations.md, "Metrics"). */
class RefreshPacingTest {
    private static final long S = TimeUnit.SECONDS.toNanos(1);

    @Test
    void a_tenant_never_refreshed_is_due() {
        assertTrue(new RefreshPacing().due("t", 0));
    }

    @Test
    void a_refresh_that_took_20_s_is_followed_by_the_next_no_sooner_than_200_s_after_it_started() {
        RefreshPacing pacing = new RefreshPacing();
        long began = 1_000 * S;
        pacing.finished("big", began, began + 20 * S);

        assertFalse(pacing.due("big", began + 20 * S), "at once after it ended");
        assertFalse(pacing.due("big", began + 199 * S));
        assertTrue(pacing.due("big", began + 200 * S));
        assertTrue(pacing.due("small", began + 20 * S), "other tenants are paced by their own refreshes");
    }

    @Test
    void a_quick_refresh_leaves_the_tenant_due_at_the_next_interval() {
        RefreshPacing pacing = new RefreshPacing();
        pacing.finished("t", 0, S / 10); // 100 ms: due again 1 s after it started, within any interval

        assertFalse(pacing.due("t", S / 2));
        assertTrue(pacing.due("t", S));
    }

    @Test
    void nano_time_readings_that_wrap_around_still_compare_in_order() {
        RefreshPacing pacing = new RefreshPacing();
        long began = Long.MAX_VALUE - 5 * S;
        pacing.finished("t", began, began + S); // the next is due 10 s after began, past the wrap

        assertFalse(pacing.due("t", began + 9 * S));
        assertTrue(pacing.due("t", began + 10 * S));
    }

    @Test
    void a_failed_refresh_leaves_the_tenant_due_at_the_next_interval_whatever_the_last_success_took() {
        RefreshPacing pacing = new RefreshPacing();
        pacing.finished("t", 0, 20 * S); // paced until 200 s
        pacing.failed("t"); // e.g. a connection time-out at 30 s

        assertTrue(pacing.due("t", 31 * S));
    }
}
