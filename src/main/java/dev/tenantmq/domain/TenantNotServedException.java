package dev.tenantmq.domain;

import dev.tenantmq.model.Tenant;

/** The tenant is valid but not in this process's {@code MQ_TENANTS}; maps to HTTP 403. */
public class TenantNotServedException extends RuntimeException {
    /** @param tenant the tenant that was asked for */
    public TenantNotServedException(Tenant tenant) {
        super("tenant '" + tenant.value() + "' is not served by this process (see MQ_TENANTS)");
    }
}
