package dev.tenantmq.api;

import dev.tenantmq.config.MqConfig;
import dev.tenantmq.model.Grants;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ResourceInfo;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;
import java.util.Optional;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;

/**
 * The admin role: every {@link AdminResource} and {@link DeletionResource} call needs {@code Authorization: Bearer <token>}
 * with either the static token of {@code mq.admin.token} (MQ_ADMIN_TOKEN; an admin of every
 * tenant, compared in constant time) or, with {@code mq.auth.mode=jwt}, a JWT whose {@code tmq}
 * claim grants {@code admin} on some tenant ({@link AdminResource} then checks the tenant of each
 * call through {@link Caller}). With neither configured the admin API is off (403). Publish and
 * consume endpoints are not affected, and the static token grants nothing on them.
 */
public class AdminAuthFilter {
    private static final String REALM = "tenant-mq admin";
    private final MqConfig config;
    private final BearerAuth auth;
    private final Caller caller;

    AdminAuthFilter(MqConfig config, BearerAuth auth, Caller caller) {
        this.config = config;
        this.auth = auth;
        this.caller = caller;
    }

    /** Lets admin calls with the static token or an admin JWT through; answers 401 or 403 problem+json otherwise. */
    @ServerRequestFilter(priority = Priorities.AUTHENTICATION)
    public Optional<Response> requireAdmin(ContainerRequestContext request, ResourceInfo resource) {
        if (resource.getResourceClass() != AdminResource.class && resource.getResourceClass() != DeletionResource.class) {
            return Optional.empty();
        }
        Optional<String> token = config.admin().token();
        boolean jwt = config.auth().mode() == MqConfig.Auth.Mode.JWT;
        if (token.isEmpty() && !jwt) {
            return Optional.of(ProblemMapper.problem(403, "admin-disabled", "Admin API disabled",
                    "no admin token is configured: set MQ_ADMIN_TOKEN to enable the admin API", null));
        }
        String bearer = BearerAuth.bearerToken(request.getHeaderString(HttpHeaders.AUTHORIZATION));
        if (bearer != null && token.isPresent() && BearerAuth.sameSecret(bearer, token.get())) {
            caller.set(Grants.unrestrictedAdmin());
            return Optional.empty();
        }
        if (bearer != null && jwt) {
            BearerAuth.Verified verified = auth.verify(bearer);
            if (verified.grants().isEmpty()) {
                return Optional.of(BearerAuth.unauthorized(REALM, verified.failure()
                        + " (the admin API takes MQ_ADMIN_TOKEN or a JWT with the admin permission)", true));
            }
            if (!verified.grants().get().isAnyAdmin()) {
                return Optional.of(BearerAuth.forbidden("permission 'admin' is not granted to this caller on any"
                        + " tenant (tmq claim, docs/security.md)"));
            }
            caller.set(verified.grants().get());
            return Optional.empty();
        }
        return Optional.of(BearerAuth.unauthorized(REALM, jwt
                ? "the admin API needs the header Authorization: Bearer <MQ_ADMIN_TOKEN or a JWT with the admin permission>"
                : "the admin API needs the header Authorization: Bearer <MQ_ADMIN_TOKEN>", bearer != null && jwt));
    }
}
