package dev.tenantmq.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tenantmq.api.dto.Problem;
import io.quarkus.runtime.LaunchMode;
import io.quarkus.runtime.configuration.MemorySize;
import io.quarkus.vertx.http.runtime.RouteConstants;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.util.LinkedHashMap;
import java.util.Map;
import org.eclipse.microprofile.config.ConfigProvider;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * What the HTTP layer answers outside the JAX-RS resources: {@code /} (a small JSON index of
 * where things are), and RFC 9457 problem+json for a body over
 * {@code quarkus.http.limits.max-body-size} (413), which Quarkus's own limit would end with a
 * bare status and an empty body before any resource runs. Error responses of the service are
 * problem+json (SPEC section 4, "Errors everywhere"); {@link ProblemMapper} covers those raised
 * inside a resource. A request line with a malformed percent-escape is the exception: Quarkus
 * answers it with a bare 400 before any route runs (see docs/api.md, "Errors").
 */
@ApplicationScoped
public class HttpRoutes {
    private static final org.jboss.logging.Logger LOG = org.jboss.logging.Logger.getLogger(HttpRoutes.class);
    private final ObjectMapper json;
    /** {@code quarkus.http.limits.max-body-size} in bytes. */
    private final long maxBodyBytes;
    /** {@code quarkus.management.port}: health and metrics are served there, not on the API port. */
    private final int managementPort;

    HttpRoutes(ObjectMapper json, @ConfigProperty(name = "quarkus.http.limits.max-body-size") MemorySize maxBodySize,
               @ConfigProperty(name = "quarkus.management.port", defaultValue = "9000") int managementPort) {
        this.json = json;
        this.maxBodyBytes = maxBodySize.asLongValue();
        this.managementPort = managementPort;
    }

    void register(@Observes Router router) {
        router.route("/").handler(this::root);
        // Health and metrics live on the management interface: on the API port, say where.
        router.route("/q/health*").handler(this::onManagementPort);
        router.route("/q/metrics*").handler(this::onManagementPort);
        // OPTIONS lists the same methods as a 405's Allow (RESTEasy's own answer lists methods of
        // other paths of the same resource class).
        router.route().method(HttpMethod.OPTIONS).handler(this::options);
        // Just ahead of Quarkus's own body-size route, which ends an oversized request with a bare 413.
        router.route().order(RouteConstants.ROUTE_ORDER_UPLOAD_LIMIT - 1)
                .handler(this::limitBody)
                .failureHandler(this::failure);
    }

    /**
     * A body declared larger than the limit gets 413 problem+json at once. A body without a
     * declared length (chunked) goes on unread: {@link BodyReader} reads it as it reads every
     * body, within the read timeout, the size limit and the per-client and per-tenant counts of
     * bodies in flight (docs/security.md, "Slow clients"); read here by a body handler, it was
     * held to none of them but the size.
     */
    private void limitBody(RoutingContext ctx) {
        Long length = declaredLength(ctx);
        if (length != null && length > maxBodyBytes) {
            ctx.fail(413);
            return;
        }
        ctx.next();
    }

    /** Methods the index {@code /} serves, as its {@code Allow} header lists them. */
    static final String ROOT_ALLOW = "GET, HEAD, OPTIONS";

    /**
     * The index: GET answers it, HEAD its headers, OPTIONS its {@code Allow}; any other method is
     * 405 problem+json with {@code Allow} (RFC 9110 section 15.5.6), as on every resource path.
     */
    private void root(RoutingContext ctx) {
        HttpMethod method = ctx.request().method();
        if (HttpMethod.GET.equals(method) || HttpMethod.HEAD.equals(method)) {
            index(ctx);
            return;
        }
        if (HttpMethod.OPTIONS.equals(method)) {
            ctx.response().putHeader(HttpHeaders.ALLOW, ROOT_ALLOW).setStatusCode(200).end();
            return;
        }
        ctx.response().putHeader(HttpHeaders.ALLOW, ROOT_ALLOW);
        write(ctx, 405, ProblemMapper.PROBLEM_JSON, ProblemMapper.body(405, "method-not-allowed", "Method Not Allowed",
                ProblemMapper.notAllowedDetail(method.name(), ROOT_ALLOW), null));
    }

    /** OPTIONS on a resource path: 200 with the methods it serves, the same list a 405 names. */
    private void options(RoutingContext ctx) {
        String allow = ProblemMapper.allowedMethods(ctx.request().path());
        if (allow == null) {
            ctx.next(); // the index, or no resource: handled elsewhere
            return;
        }
        ctx.response().putHeader(HttpHeaders.ALLOW, allow).setStatusCode(200).end();
    }

    private void index(RoutingContext ctx) {
        Map<String, Object> links = new LinkedHashMap<>();
        links.put("openapi", "/q/openapi");
        links.put("adminUi", AdminUiRoutes.BASE);
        if (LaunchMode.current().isDevOrTest()) {
            links.put("swaggerUi", "/q/swagger-ui");
        }
        // Health and metrics are on the management interface (its own port, every interface).
        String management = managementBase(ctx);
        links.put("health", management + "/q/health");
        links.put("metrics", management + "/q/metrics");
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("service", "tenant-mq");
        body.put("api", "/tenants/{tenant}/topics/{topic}/messages (see openapi)");
        body.put("links", links);
        write(ctx, 200, "application/json", body);
    }

    /** The management interface as this request's host reaches it, e.g. {@code http://localhost:9000}. */
    private String managementBase(RoutingContext ctx) {
        String host = ctx.request().authority() != null ? ctx.request().authority().host() : "localhost";
        return "http://" + host + ":" + managementPort();
    }

    /**
     * The management interface's port: {@code quarkus.management.port} read when asked, for once
     * the interface is bound Quarkus answers that key with the port it listens on (a free one in
     * tests); the value configured at start-up otherwise.
     */
    private int managementPort() {
        return ConfigProvider.getConfig().getOptionalValue("quarkus.management.port", Integer.class)
                .filter(p -> p > 0).orElse(managementPort);
    }

    /**
     * {@code /q/health} or {@code /q/metrics} asked on the API port: 404 problem+json that names
     * the management port, where they are served (docs/operations.md, "Health, metrics and the management port").
     */
    private void onManagementPort(RoutingContext ctx) {
        String there = managementBase(ctx) + ctx.request().path();
        write(ctx, 404, ProblemMapper.PROBLEM_JSON, ProblemMapper.body(404, "not-found", "Not Found",
                ctx.request().path() + " is served on the management port " + managementPort() + ", not the API port: "
                        + there, null));
    }

    /**
     * A 413 of the declared body length (this route) as problem+json. Anything
     * else, and a response already started, goes on to the default handling.
     */
    private void failure(RoutingContext ctx) {
        if (ctx.failure() != null && ClientGone.isClientGone(ctx.failure())) {
            // The client closed the connection before its answer: not a server error, and no
            // answer can reach it (the default handling would log an ERROR with a stack trace).
            LOG.infof("client went away before its answer: %s %s: %s", ctx.request().method(), ctx.request().path(),
                    ClientGone.describe(ctx.failure()));
            if (!ctx.response().closed() && !ctx.response().ended()) {
                ctx.response().close();
            }
            return;
        }
        if (ctx.response().headWritten()) {
            ctx.next();
            return;
        }
        int status = ctx.statusCode();
        Problem problem = switch (status) {
            case 413 -> ProblemMapper.bodyTooLarge(maxBodyBytes, declaredLength(ctx), true);
            default -> null;
        };
        if (problem == null) {
            ctx.next();
            return;
        }
        if (status == 413) {
            // The rest of the body is not read: the connection cannot be reused.
            ctx.response().putHeader(HttpHeaders.CONNECTION, "close");
        }
        write(ctx, status, ProblemMapper.PROBLEM_JSON, problem);
    }

    /**
     * The body length the request declares, or null when it declares none: no Content-Length, one
     * beside Transfer-Encoding (then it is not the body's, RFC 9112 section 6.3), or a malformed
     * one (Vert.x itself rejects that).
     */
    private static Long declaredLength(RoutingContext ctx) {
        String declared = ctx.request().getHeader(HttpHeaders.CONTENT_LENGTH);
        if (declared == null || ctx.request().headers().contains(HttpHeaders.TRANSFER_ENCODING)) {
            return null;
        }
        try {
            return Long.parseLong(declared.trim());
        } catch (NumberFormatException e) {
            return null;
        }
    }

    private void write(RoutingContext ctx, int status, String type, Object body) {
        String text;
        try {
            text = json.writeValueAsString(body);
        } catch (JsonProcessingException e) {
            ctx.fail(500, e);
            return;
        }
        ctx.response().setStatusCode(status).putHeader(HttpHeaders.CONTENT_TYPE, type).end(text);
    }
}
