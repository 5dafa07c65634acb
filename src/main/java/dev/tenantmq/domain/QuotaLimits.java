package dev.tenantmq.domain;

import dev.tenantmq.config.MqConfig;
import dev.tenantmq.model.Identifiers;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/**
 * The quotas of one tenant, resolved from {@code mq.quota.tenants."<tenant>".*} over
 * {@code mq.quota.default.*} (docs/security.md, "Quotas"). 0 means unlimited.
 *
 * @param publishRate messages per second through this process; 0 unlimited
 * @param publishBurst token-bucket capacity in messages: the configured burst, or one second's worth
 * @param maxUnackedPerTopic most unacknowledged messages one topic may hold; 0 unlimited
 * @param maxUnackedPerTenant most unacknowledged messages all topics of the tenant may hold together; 0 unlimited
 * @param publishByteRate payload bytes per second through this process; 0 unlimited
 * @param publishByteBurst byte token-bucket capacity: the configured byte burst, or one second's worth
 */
public record QuotaLimits(long publishRate, long publishBurst, long maxUnackedPerTopic, long maxUnackedPerTenant,
                          long publishByteRate, long publishByteBurst) {
    /** No limit at all: what every tenant gets unless configured. */
    public static final QuotaLimits UNLIMITED = new QuotaLimits(0, 0, 0, 0, 0, 0);

    /** Limits without a tenant-wide unacknowledged limit and without a byte rate. */
    public QuotaLimits(long publishRate, long publishBurst, long maxUnackedPerTopic) {
        this(publishRate, publishBurst, maxUnackedPerTopic, 0, 0, 0);
    }

    /** Limits without a byte rate. */
    public QuotaLimits(long publishRate, long publishBurst, long maxUnackedPerTopic, long maxUnackedPerTenant) {
        this(publishRate, publishBurst, maxUnackedPerTopic, maxUnackedPerTenant, 0, 0);
    }

    /** Whether a publish rate in payload bytes applies. */
    public boolean limitsByteRate() {
        return publishByteRate > 0;
    }

    /** Whether a publish rate applies. */
    public boolean limitsRate() {
        return publishRate > 0;
    }

    /** Whether a limit on unacknowledged messages per topic applies. */
    public boolean limitsUnacked() {
        return maxUnackedPerTopic > 0;
    }

    /** Whether a limit on the unacknowledged messages of the whole tenant applies. */
    public boolean limitsTenantUnacked() {
        return maxUnackedPerTenant > 0;
    }

    /** The limits of {@code tenant}: its override for each setting it names, else the default. */
    public static QuotaLimits of(MqConfig.Quota config, String tenant) {
        MqConfig.Quota.Limits defaults = config.defaults();
        MqConfig.Quota.Limits own = config.tenants().get(tenant);
        long rate = pick(own == null ? OptionalLong.empty() : own.publishRate(), defaults.publishRate());
        long burst = pick(own == null ? OptionalLong.empty() : own.publishBurst(), defaults.publishBurst());
        long unacked = pick(own == null ? OptionalLong.empty() : own.maxUnackedPerTopic(), defaults.maxUnackedPerTopic());
        long tenantUnacked = pick(own == null ? OptionalLong.empty() : own.maxUnackedPerTenant(),
                defaults.maxUnackedPerTenant());
        long byteRate = pick(own == null ? OptionalLong.empty() : own.publishByteRate(), defaults.publishByteRate());
        long byteBurst = pick(own == null ? OptionalLong.empty() : own.publishByteBurst(), defaults.publishByteBurst());
        return new QuotaLimits(rate, rate == 0 ? 0 : (burst > 0 ? burst : rate), unacked, tenantUnacked, byteRate,
                byteRate == 0 ? 0 : (byteBurst > 0 ? byteBurst : byteRate));
    }

    private static long pick(OptionalLong own, OptionalLong fallback) {
        return own.isPresent() ? own.getAsLong() : fallback.orElse(0);
    }

    /**
     * Start-up check of the quota settings that Bean Validation cannot express: the override
     * keys are tenant names (SPEC section 3), and no value is negative (also refused by the
     * mapping's constraints; repeated here so the message names the setting).
     *
     * @throws IllegalStateException naming each setting that is wrong
     */
    public static void validate(MqConfig.Quota config) {
        List<String> problems = new ArrayList<>();
        check(problems, "mq.quota.default", config.defaults());
        for (Map.Entry<String, MqConfig.Quota.Limits> e : config.tenants().entrySet()) {
            String name = "mq.quota.tenants.\"" + e.getKey() + "\"";
            String problem = Identifiers.nameProblem(e.getKey());
            if (problem != null) {
                problems.add(name + ": the key is not a tenant name: " + problem);
            }
            check(problems, name, e.getValue());
        }
        if (!problems.isEmpty()) {
            throw new IllegalStateException("quota settings are invalid: " + String.join("; ", problems));
        }
    }

    private static void check(List<String> problems, String prefix, MqConfig.Quota.Limits limits) {
        checkOne(problems, prefix + ".publish-rate", limits.publishRate());
        checkOne(problems, prefix + ".publish-burst", limits.publishBurst());
        checkOne(problems, prefix + ".max-unacked-per-topic", limits.maxUnackedPerTopic());
        checkOne(problems, prefix + ".max-unacked-per-tenant", limits.maxUnackedPerTenant());
        checkOne(problems, prefix + ".publish-byte-rate", limits.publishByteRate());
        checkOne(problems, prefix + ".publish-byte-burst", limits.publishByteBurst());
    }

    private static void checkOne(List<String> problems, String setting, OptionalLong value) {
        if (value.isPresent() && value.getAsLong() < 0) {
            problems.add(setting + " must be at least 0 (0 is unlimited), got " + value.getAsLong());
        }
    }
}
