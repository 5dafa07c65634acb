package dev.tenantmq.api;

/**
 * A valid caller without the permission it needs (docs/security.md, "Permissions"): answered 403 problem+json
 * ({@code urn:tenant-mq:problem:forbidden}) naming the tenant and the permission, before any
 * database access.
 */
public class AccessDeniedException extends RuntimeException {
    /** @param detail the problem detail: which permission on which tenant (and topic) is missing */
    public AccessDeniedException(String detail) {
        super(detail, null, false, false);
    }
}
