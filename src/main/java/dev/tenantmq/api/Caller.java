package dev.tenantmq.api;

import dev.tenantmq.domain.AdminService;
import dev.tenantmq.domain.Receipt;
import dev.tenantmq.domain.ReceiptSigning;
import dev.tenantmq.domain.ReceiptTokens;
import dev.tenantmq.model.DeadLetterPolicy;
import dev.tenantmq.model.Grants;
import dev.tenantmq.model.Permission;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Optional;

/**
 * The permissions of the current request's caller, set by {@link TenantAuthFilter} or
 * {@link AdminAuthFilter} before the resource method runs, and checked by the resources where
 * the request body or query names more tenants (receipts, admin scopes). Without a filter having
 * set them, everything is denied (fail closed).
 */
@RequestScoped
public class Caller {
    @Inject
    ReceiptSigning signing;
    private Grants grants;

    void set(Grants grants) {
        this.grants = grants;
    }

    /** @throws AccessDeniedException unless the caller holds {@code permission} on the tenant's topic (any consumer group) */
    void require(Permission permission, String tenant, String topic) {
        if (grants == null || !grants.allows(permission, tenant, topic)) {
            throw new AccessDeniedException(denial(permission, tenant, topic));
        }
    }

    /**
     * Publish to a topic (docs/security.md, "Permissions"): {@code publish} on the tenant and topic,
     * and for a dead-letter topic ({@code <topic><mq.dlq-suffix>}, {@link DeadLetterPolicy#isDeadLetterTopic})
     * also {@code admin} on the tenant, so that a publisher cannot forge dead letters.
     *
     * @throws AccessDeniedException naming the permission, or the dead-letter rule
     */
    void requirePublish(String tenant, String topic, String dlqSuffix) {
        require(Permission.PUBLISH, tenant, topic);
        if (DeadLetterPolicy.isDeadLetterTopic(topic, dlqSuffix) && !grants.allows(Permission.ADMIN, tenant, null)) {
            throw new AccessDeniedException("topic '" + topic + "' is a dead-letter topic (its name ends with mq.dlq-suffix '"
                    + dlqSuffix + "'): publishing to it needs permission 'admin' on tenant '" + tenant
                    + "' besides 'publish', which this caller does not hold (tmq claim, docs/security.md)");
        }
    }

    /**
     * Consume from a consumer group (fetch, ack, nack, extend): {@code consume} on the tenant, a
     * grant whose topics cover the topic and whose group pattern covers the group.
     *
     * @throws AccessDeniedException naming the permission, or the grants whose group pattern does not match
     */
    void requireConsume(String tenant, String topic, String group) {
        if (grants == null || !grants.allows(Permission.CONSUME, tenant, topic, group)) {
            throw new AccessDeniedException(consumeDenial(tenant, topic, group));
        }
    }

    /**
     * Every receipt the caller presents must be of a tenant, topic and consumer group it may
     * consume (docs/security.md, "Permissions": a receipt presented under another tenant's token
     * gets 403, even when it is valid). A receipt that does not decode (not signed by this
     * service: docs/security.md, "Receipt signing") names no tenant; it is left to the service,
     * which answers INVALID.
     *
     * @return the tokens with what each names, decoded here once: hand them to the service
     * @throws AccessDeniedException naming the receipt's index, tenant and the {@code consume} permission
     */
    ReceiptTokens requireReceipts(List<String> receipts) {
        return requireReceipts("receipts", receipts);
    }

    /**
     * As {@link #requireReceipts(List)}, for the receipts of the field {@code field} (a fetch's
     * {@code ack}).
     *
     * @return the tokens with what each names, decoded here once: hand them to the service, which
     *     reads the same decode
     */
    ReceiptTokens requireReceipts(String field, List<String> receipts) {
        ReceiptTokens tokens = signing.tokens(receipts);
        for (int i = 0; i < tokens.size(); i++) {
            Optional<Receipt> r = tokens.receipt(i);
            if (r.isPresent() && (grants == null
                    || !grants.allows(Permission.CONSUME, r.get().tenant(), r.get().topic(), r.get().consumerGroup()))) {
                throw new AccessDeniedException(field + "[" + i + "] belongs to another queue: "
                        + consumeDenial(r.get().tenant(), r.get().topic(), r.get().consumerGroup()));
            }
        }
        return tokens;
    }

    /**
     * The admin scope of a listing or a message call: one tenant needs {@code admin} on it,
     * {@code allTenants=true} needs an admin of every tenant.
     *
     * @throws AccessDeniedException naming the tenant, or the rule for {@code allTenants=true}
     */
    void requireAdmin(AdminService.Scope scope) {
        if (scope.tenant().isPresent()) {
            require(Permission.ADMIN, scope.tenant().get().value(), null);
        } else if (grants == null || !grants.isUnrestrictedAdmin()) {
            throw new AccessDeniedException("allTenants=true needs an admin of every tenant (tmq claim \"*\": [\"admin\"]"
                    + " or the static admin token); this caller may administer only "
                    + (grants == null ? List.of() : grants.adminTenants().orElseThrow()) + ": ask with tenant=<t>");
        }
    }

    /**
     * The tenants of {@code served} this caller may administer, in their order: all of them for
     * an unrestricted admin, none without grants (fail closed). What {@code GET /admin/tenants}
     * shows, so a restricted admin's tenant picker offers only its own tenants.
     */
    List<String> administrable(List<String> served) {
        if (grants == null) {
            return List.of();
        }
        return grants.adminTenants().map(only -> served.stream().filter(only::contains).toList()).orElse(served);
    }

    private String consumeDenial(String tenant, String topic, String group) {
        List<String> narrowed = grants == null ? List.of() : grants.groupNarrowed(Permission.CONSUME, tenant, topic, group);
        if (narrowed.isEmpty()) {
            return denial(Permission.CONSUME, tenant, topic);
        }
        return "permission 'consume' on tenant '" + tenant + "' (topic '" + topic + "') is granted to this caller only for"
                + " other consumer groups than '" + group + "': the group pattern after '/' of " + narrowed
                + " does not match it (a consume grant's consumer groups, tmq claim, docs/security.md)";
    }

    private static String denial(Permission permission, String tenant, String topic) {
        return "permission '" + permission.claimName() + "' on tenant '" + tenant + "'"
                + (topic == null || permission == Permission.ADMIN ? "" : " (topic '" + topic + "')")
                + " is not granted to this caller (tmq claim, docs/security.md)";
    }
}
