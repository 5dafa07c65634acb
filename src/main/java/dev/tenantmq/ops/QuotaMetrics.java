package dev.tenantmq.ops;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * Quota rejections (docs/security.md, "Quotas"): {@code mq.quota.rejections}, exported as
 * {@code mq_quota_rejections_total}. Tags {@code tenant} (a served tenant: at most the
 * {@code MQ_TENANTS} list) and {@code quota} ({@code publish_rate}, {@code publish_byte_rate},
 * {@code max_unacked_per_topic} or {@code max_unacked_per_tenant}), so the series are bounded.
 */
@ApplicationScoped
public class QuotaMetrics {
    private final MeterRegistry registry;

    QuotaMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    /** One publish request refused with 429 for {@code quota} of {@code tenant}. */
    public void rejected(String tenant, String quota) {
        Counter.builder("mq.quota.rejections")
                .description("Publish requests refused with 429 because the tenant was over a quota")
                .tags("tenant", tenant, "quota", quota)
                .register(registry)
                .increment();
    }
}
