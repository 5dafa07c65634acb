package dev.tenantmq.model;

import java.util.Locale;
import java.util.Optional;

/**
 * What a caller may do with a tenant (docs/security.md, "Permissions"): publish to its topics, consume
 * from them (fetch, ack, nack, extend), or use the admin API on it. Granted by the {@code tmq}
 * claim of a bearer JWT ({@link Grants}).
 */
public enum Permission {
    /** {@code POST /tenants/{tenant}/topics/{topic}/messages}. */
    PUBLISH,
    /** Fetch, ack, nack and extend of a consumer group of a topic. */
    CONSUME,
    /** The admin API ({@code /admin/...}) for the tenant. */
    ADMIN;

    /** The name in the claim and in problem details: {@code publish}, {@code consume}, {@code admin}. */
    public String claimName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The permission of a claim name (exact, lower case), or empty for anything else. */
    public static Optional<Permission> ofClaimName(String name) {
        for (Permission p : values()) {
            if (p.claimName().equals(name)) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }
}
