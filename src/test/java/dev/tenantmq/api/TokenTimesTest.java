package dev.tenantmq.api;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The token time rules smallrye-jwt leaves to {@link BearerAuth} (docs/security.md, "Token times"), at their edges. */
class TokenTimesTest {
    private static final long NOW = 1_800_000_000L;
    private static final long LEEWAY = 30;
    private static final Duration DAY = Duration.ofHours(24);

    @Test
    void an_iat_up_to_the_leeway_ahead_passes_and_one_second_more_is_refused() {
        assertNull(BearerAuth.timeFault(NOW + LEEWAY, NOW + 600, NOW, LEEWAY, DAY));
        String fault = BearerAuth.timeFault(NOW + LEEWAY + 1, NOW + 600, NOW, LEEWAY, DAY);
        assertTrue(fault != null && fault.contains("issued in the future") && fault.contains("30 s"), fault);
    }

    @Test
    void a_lifetime_of_exactly_the_maximum_passes_and_one_second_more_is_refused_naming_the_setting() {
        assertNull(BearerAuth.timeFault(NOW, NOW + DAY.toSeconds(), NOW, LEEWAY, DAY));
        String fault = BearerAuth.timeFault(NOW, NOW + DAY.toSeconds() + 1, NOW, LEEWAY, DAY);
        assertTrue(fault != null && fault.contains("mq.auth.max-token-lifetime") && fault.contains("86400 s"), fault);
    }

    @Test
    void a_token_without_iat_or_exp_is_refused_naming_the_required_claims() {
        String fault = BearerAuth.timeFault(null, NOW + 60, NOW, LEEWAY, DAY);
        assertTrue(fault != null && fault.contains("iat"), fault);
        fault = BearerAuth.timeFault(NOW, null, NOW, LEEWAY, DAY);
        assertTrue(fault != null && fault.contains("exp"), fault);
    }
}
