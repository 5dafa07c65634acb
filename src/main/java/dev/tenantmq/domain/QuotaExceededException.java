package dev.tenantmq.domain;

/**
 * A publish over one of its tenant's quotas (docs/security.md, "Quotas"): HTTP 429 with {@code Retry-After}.
 * Nothing of the batch was stored.
 */
public class QuotaExceededException extends RuntimeException {
    /** Which quota; its {@link #setting} names the setting's last segment, and its tag value is {@link #tag}. */
    public enum Kind {
        /** {@code publish-rate}: messages per second through this process. */
        PUBLISH_RATE("publish-rate", "publish_rate"),
        /** {@code publish-byte-rate}: payload bytes per second through this process. */
        PUBLISH_BYTE_RATE("publish-byte-rate", "publish_byte_rate"),
        /** {@code max-unacked-per-topic}: unacknowledged messages one topic may hold. */
        MAX_UNACKED_PER_TOPIC("max-unacked-per-topic", "max_unacked_per_topic"),
        /** {@code max-unacked-per-tenant}: unacknowledged messages all topics of the tenant may hold together. */
        MAX_UNACKED_PER_TENANT("max-unacked-per-tenant", "max_unacked_per_tenant");

        private final String setting;
        private final String tag;

        Kind(String setting, String tag) {
            this.setting = setting;
            this.tag = tag;
        }

        /** The setting's name under {@code mq.quota.default.} (and in the problem's {@code quota}). */
        public String setting() {
            return setting;
        }

        /** The metric tag value. */
        public String tag() {
            return tag;
        }
    }

    private final String tenant;
    private final Kind kind;
    private final long limit;
    private final long retryAfterSeconds;

    /**
     * @param limit the limit reached, in the setting's unit
     * @param retryAfterSeconds whole seconds after which a retry may pass, at least 1
     * @param detail the problem's detail: what was refused and why
     */
    public QuotaExceededException(String tenant, Kind kind, long limit, long retryAfterSeconds, String detail) {
        super(detail);
        this.tenant = tenant;
        this.kind = kind;
        this.limit = limit;
        this.retryAfterSeconds = retryAfterSeconds;
    }

    /** The tenant over its quota. */
    public String tenant() {
        return tenant;
    }

    /** Which quota was reached. */
    public Kind kind() {
        return kind;
    }

    /** The limit that was reached, in the setting's unit. */
    public long limit() {
        return limit;
    }

    /** Whole seconds after which a retry may pass (the {@code Retry-After} header), at least 1. */
    public long retryAfterSeconds() {
        return retryAfterSeconds;
    }
}
