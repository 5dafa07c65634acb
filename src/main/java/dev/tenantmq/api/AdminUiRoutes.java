package dev.tenantmq.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.quarkus.vertx.http.runtime.RouteConstants;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

/**
 * The admin web UI's static shell under {@code /admin/ui/} (docs/operations.md, "Admin web UI"): the files
 * in {@code META-INF/resources/admin/ui/} are served on the API port by Quarkus's static
 * resources; this route adds their security headers and keeps the service's HTTP rules there.
 * The shell holds no data and no secret, so it needs no token: every datum the page shows
 * comes from the admin API ({@link AdminResource}), which checks the bearer token the
 * operator enters ({@link AdminAuthFilter}).
 */
@ApplicationScoped
public class AdminUiRoutes {
    /** Where the UI lives; {@code /admin/ui} redirects here. */
    public static final String BASE = "/admin/ui/";
    /** Methods the UI's paths serve, as a 405's and OPTIONS' {@code Allow} lists them. */
    static final String ALLOW = "GET, HEAD, OPTIONS";
    /**
     * Scripts, styles and API calls only from this origin, no inline script or style, no
     * plugins, no framing (clickjacking), forms post nowhere else: the token the page holds
     * can only go to this service.
     */
    public static final String CSP = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
            + "img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

    private final ObjectMapper json;

    AdminUiRoutes(ObjectMapper json) {
        this.json = json;
    }

    void register(@Observes Router router) {
        // Ahead of the static resources and of HttpRoutes' OPTIONS route.
        router.routeWithRegex("/admin/ui(/.*)?").order(RouteConstants.ROUTE_ORDER_UPLOAD_LIMIT - 2).handler(this::ui);
    }

    private void ui(RoutingContext ctx) {
        HttpMethod method = ctx.request().method();
        var headers = ctx.response().headers();
        headers.set("Content-Security-Policy", CSP);
        headers.set("X-Content-Type-Options", "nosniff");
        headers.set("Referrer-Policy", "no-referrer");
        headers.set("X-Frame-Options", "DENY");
        // The shell is small; no-cache makes a new version show at once after an upgrade.
        headers.set(HttpHeaders.CACHE_CONTROL, "no-cache");
        if (HttpMethod.OPTIONS.equals(method)) {
            ctx.response().putHeader(HttpHeaders.ALLOW, ALLOW).setStatusCode(200).end();
            return;
        }
        if (!HttpMethod.GET.equals(method) && !HttpMethod.HEAD.equals(method)) {
            ctx.response().putHeader(HttpHeaders.ALLOW, ALLOW);
            problem(ctx, 405, "method-not-allowed", "Method Not Allowed",
                    ProblemMapper.notAllowedDetail(method.name(), ALLOW));
            return;
        }
        if (ctx.request().path().equals("/admin/ui")) {
            ctx.response().putHeader(HttpHeaders.LOCATION, BASE).setStatusCode(302).end();
            return;
        }
        ctx.next(); // the static file, or 404 problem+json when there is none
    }

    private void problem(RoutingContext ctx, int status, String slug, String title, String detail) {
        try {
            ctx.response().setStatusCode(status).putHeader(HttpHeaders.CONTENT_TYPE, ProblemMapper.PROBLEM_JSON)
                    .end(json.writeValueAsString(ProblemMapper.body(status, slug, title, detail, null)));
        } catch (JsonProcessingException e) {
            ctx.fail(500, e);
        }
    }
}
