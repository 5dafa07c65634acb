package dev.tenantmq.api;

import io.vertx.ext.web.RoutingContext;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.NotSupportedException;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ResourceInfo;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import java.lang.reflect.Method;
import java.util.Arrays;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;

/**
 * A request body sent without a {@code Content-Type} gets 415, as one sent with another type does,
 * and so does one sent with a {@code Content-Encoding} (the API reads bodies uncompressed)
 * (docs/api.md, "Errors"; openapi.yaml declares every request body {@code application/json}).
 * Quarkus REST compares a call's {@code @Consumes} with the header only when the header is there:
 * without it (or with an empty one), a body was read as JSON and served, and a publish stored its
 * messages. Only the calls that take a JSON body are checked, and only when a body was sent: a
 * fetch without a body (all its defaults) and the admin calls named by query parameters alone
 * (reset-offsets, requeue, DELETE) keep working without the header. Runs before authentication,
 * as Quarkus REST's own check of a wrong type does, and answers with the same 415 ({@link ProblemMapper#web}).
 *
 * <p>Two {@code Content-Type} headers get 415 too, on every call that consumes JSON, with or
 * without a body, also when they are equal: the field is a single value (RFC 9110, section 8.3)
 * and servers differ in which of two they read (Quarkus REST read one or the other depending on
 * the call, and served the request as JSON), so neither is read, as two {@code traceparent}
 * headers are not (docs/api.md, "Errors").
 */
public class JsonContentType {
    /**
     * Refuses a body without a media type sent to a call that consumes JSON, two media types sent
     * to such a call, and a compressed body.
     *
     * @throws NotSupportedException 415 problem+json naming {@code Content-Type: application/json}
     *     (and the headers, when there are several), or the {@code Content-Encoding} sent
     */
    @ServerRequestFilter(priority = Priorities.AUTHENTICATION - 1)
    public void requireForBody(ContainerRequestContext request, ResourceInfo resource, RoutingContext ctx) {
        if (ctx.request().headers().getAll(HttpHeaders.CONTENT_TYPE).size() > 1 && consumesJson(resource)) {
            throw new NotSupportedException();
        }
        String type = request.getHeaderString(HttpHeaders.CONTENT_TYPE);
        if ((type == null || type.isBlank()) && BodyReader.bodyBytes(ctx) > 0 && consumesJson(resource)) {
            throw new NotSupportedException();
        }
        if (encoded(request.getHeaderString(HttpHeaders.CONTENT_ENCODING)) && BodyReader.bodyBytes(ctx) > 0) {
            // The body would be parsed as it came, compressed: a 400 "not valid JSON" at column 2.
            throw new NotSupportedException();
        }
    }

    /** Whether a {@code Content-Encoding} header names an encoding other than {@code identity}. */
    static boolean encoded(String contentEncoding) {
        return contentEncoding != null && !contentEncoding.isBlank()
                && !contentEncoding.trim().equalsIgnoreCase("identity");
    }

    /** Whether the matched resource method reads a JSON body: it, or else its class, consumes application/json. */
    private static boolean consumesJson(ResourceInfo resource) {
        Method method = resource.getResourceMethod();
        Class<?> type = resource.getResourceClass();
        Consumes consumes = method != null && method.isAnnotationPresent(Consumes.class)
                ? method.getAnnotation(Consumes.class) : type == null ? null : type.getAnnotation(Consumes.class);
        return consumes != null && Arrays.asList(consumes.value()).contains(MediaType.APPLICATION_JSON);
    }
}
