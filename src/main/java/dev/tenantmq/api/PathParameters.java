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
 * segment's field and the rule a name follows, as an escaped {@code %3B} in a name is; a
 * {@code ;} in a fixed segment names {@code path}.
 * Before the resource is chosen, and after the body is read ({@link BodyReader}).
 */
public class PathParameters {
    /**
     * The data plane's paths, {@code /tenants/{tenant}/topics/{topic}/consumer-groups/{consumerGroup}/...}
     * split at {@code /}: the fixed segment each named one follows, by index, and the field it holds.
     */
    private static final String[] FIXED = {"", "tenants", null, "topics", null, "consumer-groups", null};
    private static final Map<Integer, String> FIELDS = Map.of(2, "tenant", 4, "topic", 6, "consumerGroup");

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
            String field = named(segments, i);
            if (field == null) {
                throw InvalidRequestException.of("path", "must not contain ';' (no path of this API takes matrix"
                        + " parameters): segment " + i + " of " + (raw.length() <= 200 ? raw : raw.substring(0, 200) + "..."));
            }
            throw InvalidRequestException.of(field, Identifiers.nameProblem(decoded(segments[i])));
        }
    }

    /** The field segment {@code i} holds when the segments before it are a data-plane path's; else null. */
    private static String named(String[] segments, int i) {
        String field = FIELDS.get(i);
        if (field == null) {
            return null;
        }
        for (int j = 0; j < i; j++) {
            if (FIXED[j] != null && !FIXED[j].equals(segments[j])) {
                return null;
            }
        }
        return field;
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
