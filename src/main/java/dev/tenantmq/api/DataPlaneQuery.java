package dev.tenantmq.api;

import dev.tenantmq.model.InvalidRequestException;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ResourceInfo;
import java.util.Set;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;

/**
 * The data plane (publish, fetch, ack, nack, extend, committed) takes no query parameters: every
 * option is a body field (docs/api.md, "Errors"). A query parameter is refused with 400 naming
 * it, as the admin API refuses one it does not take ({@link StrictQuery}): {@code fetch?waitSeconds=99}
 * would otherwise answer at once with the body's defaults, and the caller would never learn why.
 * Runs after authentication, so an unauthenticated caller learns nothing about the call.
 */
public class DataPlaneQuery {
    /**
     * Refuses a data-plane request that has a query string.
     *
     * @throws InvalidRequestException naming the first query parameter (400 problem+json)
     */
    @ServerRequestFilter(priority = Priorities.USER)
    public void refuseQueryParameters(ContainerRequestContext request, ResourceInfo resource) {
        Class<?> c = resource.getResourceClass();
        if (c != MessagesResource.class && c != ConsumerGroupResource.class) {
            return;
        }
        StrictQuery.parse(request.getUriInfo().getRequestUri().getRawQuery(), Set.of());
    }
}
