package dev.tenantmq.api;

import dev.tenantmq.config.MqConfig;
import dev.tenantmq.model.Grants;
import dev.tenantmq.model.Permission;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ResourceInfo;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MultivaluedMap;
import jakarta.ws.rs.core.Response;
import java.util.Optional;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;

/**
 * Authentication and authorization of the data plane (docs/security.md), before the resource method and
 * so before any database access: publish needs {@code publish}, fetch, ack, nack and extend need
 * {@code consume} on the path's tenant, topic and consumer group; publishing to a dead-letter
 * topic also needs {@code admin}. With {@code mq.auth.mode=none} (loopback only,
 * see {@code AuthStartupCheck}) every caller may publish and consume.
 */
public class TenantAuthFilter {
    static final String REALM = "tenant-mq";
    private final MqConfig config;
    private final BearerAuth auth;
    private final Caller caller;

    TenantAuthFilter(MqConfig config, BearerAuth auth, Caller caller) {
        this.config = config;
        this.auth = auth;
        this.caller = caller;
    }

    /** Answers 401 (no or bad token) or 403 (no permission) problem+json; lets permitted calls through. */
    @ServerRequestFilter(priority = Priorities.AUTHENTICATION)
    public Optional<Response> authorize(ContainerRequestContext request, ResourceInfo resource) {
        Permission needed = resource.getResourceClass() == MessagesResource.class ? Permission.PUBLISH
                : resource.getResourceClass() == ConsumerGroupResource.class ? Permission.CONSUME : null;
        if (needed == null) {
            return Optional.empty();
        }
        if (config.auth().mode() == MqConfig.Auth.Mode.NONE) {
            caller.set(Grants.unauthenticatedDataPlane());
            return Optional.empty();
        }
        String token = BearerAuth.bearerToken(request.getHeaderString(HttpHeaders.AUTHORIZATION));
        if (token == null) {
            return Optional.of(BearerAuth.unauthorized(REALM,
                    "this call needs the header Authorization: Bearer <JWT> (mq.auth.mode=jwt)", false));
        }
        BearerAuth.Verified verified = auth.verify(token);
        if (verified.grants().isEmpty()) {
            return Optional.of(BearerAuth.unauthorized(REALM, verified.failure(), true));
        }
        caller.set(verified.grants().get());
        MultivaluedMap<String, String> path = request.getUriInfo().getPathParameters();
        try {
            if (needed == Permission.PUBLISH) {
                caller.requirePublish(path.getFirst("tenant"), path.getFirst("topic"), config.dlqSuffix());
            } else {
                caller.requireConsume(path.getFirst("tenant"), path.getFirst("topic"), path.getFirst("consumerGroup"));
            }
        } catch (AccessDeniedException e) {
            return Optional.of(BearerAuth.forbidden(e.getMessage()));
        }
        return Optional.empty();
    }
}
