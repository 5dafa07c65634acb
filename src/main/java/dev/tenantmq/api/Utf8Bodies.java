package dev.tenantmq.api;

import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.Map;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;

/**
 * Request bodies are JSON, and JSON exchanged between systems is UTF-8 (RFC 8259, section 8.1):
 * a body declared in another charset ({@code Content-Type: application/json; charset=iso-8859-1})
 * is refused with 415 naming {@code charset=utf-8}, rather than read as UTF-8 and refused for a
 * byte it does not understand. A body without a charset parameter is read as UTF-8; bytes that are
 * not UTF-8 are a 400 naming the field ({@link JsonErrorWords}).
 */
public class Utf8Bodies {
    /** Answers 415 problem+json for a declared charset other than UTF-8; null (go on) otherwise. */
    @ServerRequestFilter
    public Response refuseOtherCharsets(ContainerRequestContext request) {
        MediaType type = request.getMediaType();
        if (type == null) {
            return null;
        }
        for (Map.Entry<String, String> p : type.getParameters().entrySet()) {
            if (p.getKey().equalsIgnoreCase("charset") && !isUtf8(p.getValue())) {
                return ProblemMapper.problem(415, "unsupported-media-type", "Unsupported Media Type", detail(p.getValue()), null);
            }
        }
        return null;
    }

    /** The detail of the 415, naming the charset sent. */
    static String detail(String charset) {
        return "a JSON body is UTF-8 (RFC 8259, section 8.1): send it with Content-Type: " + MediaType.APPLICATION_JSON
                + " or " + MediaType.APPLICATION_JSON + "; charset=utf-8, not charset=" + charset;
    }

    private static boolean isUtf8(String charset) {
        String c = charset.strip().replace("\"", "");
        return c.equalsIgnoreCase("utf-8") || c.equalsIgnoreCase("utf8");
    }
}
