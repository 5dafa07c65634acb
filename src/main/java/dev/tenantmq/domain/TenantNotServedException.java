package dev.tenantmq.domain;

import dev.tenantmq.config.ProcessIdentity;
import dev.tenantmq.model.Tenant;

/**
 * The tenant is not in this process's {@code MQ_TENANTS}; maps to HTTP 403. An illegal argument
 * for the Java callers of a served-tenants-only operation (retention's purges).
 */
public class TenantNotServedException extends IllegalArgumentException {
    /** The rule, as the answer's errors entry for the field {@code tenant} words it. */
    private static final String RULE = "is not served by this process (see MQ_TENANTS)";

    private final String tenant;

    /** @param tenant the tenant that was asked for */
    public TenantNotServedException(Tenant tenant) {
        this(tenant.value());
    }

    private TenantNotServedException(String tenant) {
        super("tenant '" + tenant + "' " + RULE);
        this.tenant = tenant;
    }

    /**
     * The rule and the tenant given, for the errors entry naming the field {@code tenant}, as every
     * answer about a request field has one (docs/api.md, "Errors").
     */
    public String rule() {
        return RULE + " (got '" + tenant + "')";
    }

    /**
     * The one home of the rule "only a served tenant" (SPEC section 6, {@code MQ_TENANTS}), for
     * every operation that needs it: publish, consume and retention.
     *
     * @param tenant a tenant name, valid or not
     * @throws TenantNotServedException when {@code identity} does not serve {@code tenant}
     */
    public static void requireServed(ProcessIdentity identity, String tenant) {
        if (!identity.tenantNames().contains(tenant)) {
            throw new TenantNotServedException(tenant);
        }
    }

    /** As {@link #requireServed(ProcessIdentity, String)}, for a validated tenant. */
    public static void requireServed(ProcessIdentity identity, Tenant tenant) {
        requireServed(identity, tenant.value());
    }
}
