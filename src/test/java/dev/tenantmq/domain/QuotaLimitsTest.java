package dev.tenantmq.domain;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tenantmq.config.MqConfig;
import io.smallrye.config.SmallRyeConfigBuilder;
import io.smallrye.config.common.MapBackedConfigSource;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** How a tenant's quotas resolve from {@code mq.quota.tenants."<tenant>".*} over {@code mq.quota.default.*}. */
class QuotaLimitsTest {
    private static MqConfig.Quota quota(Map<String, String> values) {
        return new SmallRyeConfigBuilder()
                .withMapping(MqConfig.class)
                .withConverter(java.time.Duration.class, 100, new io.quarkus.runtime.configuration.DurationConverter())
                .withSources(new MapBackedConfigSource("test", values) {})
                .build()
                .getConfigMapping(MqConfig.class)
                .quota();
    }

    @Test
    void nothing_configured_is_unlimited() {
        assertEquals(QuotaLimits.UNLIMITED, QuotaLimits.of(quota(Map.of()), "acc-a"));
    }

    @Test
    void a_tenant_override_replaces_the_default_setting_by_setting() {
        MqConfig.Quota q = quota(Map.of(
                "mq.quota.default.publish-rate", "100",
                "mq.quota.default.max-unacked-per-topic", "5000",
                "mq.quota.tenants.\"acc-a\".publish-rate", "10",
                "mq.quota.tenants.\"acc-a\".publish-burst", "50",
                "mq.quota.tenants.\"acc-b\".max-unacked-per-topic", "0"));
        assertEquals(new QuotaLimits(10, 50, 5000, 0), QuotaLimits.of(q, "acc-a"), "own rate and burst, default unacked");
        assertEquals(new QuotaLimits(100, 100, 0, 0), QuotaLimits.of(q, "acc-b"), "0 lifts the default; burst = rate");
        assertEquals(new QuotaLimits(100, 100, 5000, 0), QuotaLimits.of(q, "other"), "the default");
    }

    @Test
    void the_tenant_wide_unacked_limit_resolves_like_the_others() {
        MqConfig.Quota q = quota(Map.of(
                "mq.quota.default.max-unacked-per-tenant", "100000",
                "mq.quota.tenants.\"acc-a\".max-unacked-per-tenant", "20"));
        assertEquals(new QuotaLimits(0, 0, 0, 20), QuotaLimits.of(q, "acc-a"));
        assertEquals(new QuotaLimits(0, 0, 0, 100000), QuotaLimits.of(q, "acc-b"));
        assertTrue(QuotaLimits.of(q, "acc-b").limitsTenantUnacked());
        Exception negative = assertThrows(IllegalStateException.class,
                () -> QuotaLimits.validate(quota(Map.of("mq.quota.default.max-unacked-per-tenant", "-1"))));
        assertTrue(negative.getMessage().contains("mq.quota.default.max-unacked-per-tenant must be at least 0"),
                negative.getMessage());
    }

    @Test
    void a_burst_without_a_rate_limits_nothing() {
        assertEquals(QuotaLimits.UNLIMITED, QuotaLimits.of(quota(Map.of("mq.quota.default.publish-burst", "10")), "a"));
    }

    @Test
    void a_negative_value_or_an_override_key_that_is_no_tenant_name_refuses_start_naming_the_setting() {
        Exception negative = assertThrows(IllegalStateException.class,
                () -> QuotaLimits.validate(quota(Map.of("mq.quota.tenants.\"acc-a\".publish-rate", "-1"))));
        assertTrue(negative.getMessage().contains("mq.quota.tenants.\"acc-a\".publish-rate must be at least 0"),
                negative.getMessage());
        Exception key = assertThrows(IllegalStateException.class,
                () -> QuotaLimits.validate(quota(Map.of("mq.quota.tenants.\"bad name\".publish-rate", "1"))));
        assertTrue(key.getMessage().contains("mq.quota.tenants.\"bad name\": the key is not a tenant name"),
                key.getMessage());
    }

    @Test
    void the_byte_rate_resolves_like_the_message_rate_and_its_burst_defaults_to_one_seconds_worth() {
        MqConfig.Quota q = quota(Map.of(
                "mq.quota.default.publish-byte-rate", "1000000",
                "mq.quota.tenants.\"acc-a\".publish-byte-burst", "5000000",
                "mq.quota.tenants.\"acc-b\".publish-byte-rate", "0"));
        assertEquals(new QuotaLimits(0, 0, 0, 0, 1_000_000, 5_000_000), QuotaLimits.of(q, "acc-a"));
        assertEquals(QuotaLimits.UNLIMITED, QuotaLimits.of(q, "acc-b"), "0 lifts the default");
        assertEquals(new QuotaLimits(0, 0, 0, 0, 1_000_000, 1_000_000), QuotaLimits.of(q, "other"));
        assertTrue(QuotaLimits.of(q, "other").limitsByteRate());
    }
}
