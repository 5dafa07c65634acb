package dev.tenantmq.api;

import dev.tenantmq.model.Identifiers;
import dev.tenantmq.model.InvalidRequestException;
import jakarta.ws.rs.Priorities;
import io.vertx.ext.web.RoutingContext;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;

/**
 * Refuses a path with a {@code ;} in it (docs/api.md, "Identifiers"). JAX-RS reads what follows
 * a {@code ;} in a path segment as matrix parameters and drops it from the path parameter, so
 * {@code /tenants/demo/topics/orders;x/messages} would publish to topic {@code orders}: a
 * request the caller did not mean, answered 201. No path of this API takes matrix parameters,
 * and {@code ;} is not a character of a name, so such a request is refused with 400 naming the
 * segment's field and the rule a name follows, as an escaped {@code %3B} in the same place is.
 * Before the resource is chosen, and after the body is read ({@link BodyReader}).
 */
public class PathParameters {
    /** The path segment before each named segment, and the name of the field it holds. */
    private static final Map<String, String> FIELD_AFTER = Map.of("tenants", "tenant", "topics", "topic",
            "consumer-groups", "consumerGroup");

    /**
     * Refuses a request whose path has a {@code ;}.
     *
     * @throws InvalidRequestException naming the segment's field ({@code tenant}, {@code topic},
     *     {@code consumerGroup}) or else {@code path} (400 problem+json)
     */
    @ServerRequestFilter(preMatching = true, priority = Priorities.USER + 100)
    public void refuseMatrixParameters(RoutingContext ctx) {
        // As sent: the request URI JAX-RS offers has the matrix parameters taken out already.
        String raw = ctx.request().path();
        if (raw == null || raw.indexOf(';') < 0) {
            return;
        }
        String[] segments = raw.split("/", -1);
        for (int i = 0; i < segments.length; i++) {
            if (segments[i].indexOf(';') < 0) {
                continue;
            }
            String field = i > 0 ? FIELD_AFTER.get(segments[i - 1]) : null;
            if (field == null) {
                throw InvalidRequestException.of("path", "must not contain ';' (no path of this API takes matrix"
                        + " parameters): segment " + i + " of " + raw);
            }
            throw InvalidRequestException.of(field, Identifiers.nameProblem(decoded(segments[i])));
        }
    }

    /** The segment percent-decoded, or as sent when its escapes are malformed. */
    private static String decoded(String segment) {
        try {
            return URLDecoder.decode(segment.replace("+", "%2B"), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return segment;
        }
    }
}
