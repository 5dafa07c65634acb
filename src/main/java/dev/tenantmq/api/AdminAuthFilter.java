package dev.tenantmq.api;

import dev.tenantmq.config.MqConfig;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ResourceInfo;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Optional;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;

/**
 * The admin role: every {@link AdminResource} call needs {@code Authorization: Bearer <token>}
 * with the token of {@code mq.admin.token} (MQ_ADMIN_TOKEN). Without a configured token the
 * admin API is off (403). Publish and consume endpoints are not affected and never grant it.
 */
public class AdminAuthFilter {
    private static final String BEARER = "Bearer ";
    private final MqConfig config;

    AdminAuthFilter(MqConfig config) {
        this.config = config;
    }

    /** Lets admin calls with the right token through; answers 401 or 403 problem+json otherwise. */
    @ServerRequestFilter(priority = Priorities.AUTHENTICATION)
    public Optional<Response> requireAdmin(ContainerRequestContext request, ResourceInfo resource) {
        if (resource.getResourceClass() != AdminResource.class) {
            return Optional.empty();
        }
        Optional<String> token = config.admin().token();
        if (token.isEmpty()) {
            return Optional.of(ProblemMapper.problem(403, "admin-disabled", "Admin API disabled",
                    "no admin token is configured: set MQ_ADMIN_TOKEN to enable the admin API", null));
        }
        String header = request.getHeaderString(HttpHeaders.AUTHORIZATION);
        if (header != null && header.regionMatches(true, 0, BEARER, 0, BEARER.length())
                && MessageDigest.isEqual(header.substring(BEARER.length()).trim().getBytes(StandardCharsets.UTF_8),
                        token.get().getBytes(StandardCharsets.UTF_8))) {
            return Optional.empty();
        }
        Response unauthorized = ProblemMapper.problem(401, "unauthorized", "Unauthorized",
                "the admin API needs the header Authorization: Bearer <MQ_ADMIN_TOKEN>", null);
        return Optional.of(Response.fromResponse(unauthorized)
                .header(HttpHeaders.WWW_AUTHENTICATE, "Bearer realm=\"tenant-mq admin\"").build());
    }
}
