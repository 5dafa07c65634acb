package dev.tenantmq.api;

import dev.tenantmq.config.MqConfig;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.quarkus.runtime.configuration.MemorySize;
import io.smallrye.mutiny.Uni;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpVersion;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.Response;
import java.io.ByteArrayInputStream;
import java.util.concurrent.atomic.AtomicBoolean;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;

/**
 * Reads each request body in full on the event loop, before the request reaches a resource
 * method and so before it takes a worker thread (docs/security.md, "Slow clients"). Quarkus REST
 * would otherwise read the body of a blocking resource method on its worker thread, where a
 * client sending one byte every few seconds holds the thread as long as it likes.
 *
 * <p>A body must arrive within {@code mq.http.body-read-timeout} (else 408) and within
 * {@code quarkus.http.limits.max-body-size} (else 413); one client address and one tenant may
 * send {@code mq.http.max-body-reads-per-client} and {@code mq.http.max-body-reads-per-tenant}
 * bodies at once (else 429). Each of these answers is problem+json and closes the connection, as
 * the rest of the body is never read. A client that goes away mid-body is one INFO line
 * ({@link ClientGone}).
 *
 * <p>It is a pre-matching request filter rather than a Vert.x route ahead of Quarkus REST: Quarkus
 * REST pauses the request when it takes it over, and Vert.x refuses to pause an HTTP/2 request
 * whose body was read already ("Request has already been read"). Here the request is taken over
 * first, then read, and the body handed on as the entity stream, with bytes that are not UTF-8
 * marked so that the JSON parser refuses them ({@link Utf8Body}).
 */
@ApplicationScoped
public class BodyReader {
    private static final Logger LOG = Logger.getLogger(BodyReader.class);
    private final Vertx vertx;
    private final long timeoutMillis;
    private final long maxBodyBytes;
    private final BodyReadSlots slots;

    BodyReader(Vertx vertx, MqConfig config,
               @ConfigProperty(name = "quarkus.http.limits.max-body-size") MemorySize maxBodySize) {
        this.vertx = vertx;
        this.timeoutMillis = config.http().bodyReadTimeout().toMillis();
        this.maxBodyBytes = maxBodySize.asLongValue();
        this.slots = new BodyReadSlots(config.http().maxBodyReadsPerClient(), config.http().maxBodyReadsPerTenant());
    }

    /** The counts of bodies in flight (tests). */
    BodyReadSlots slots() {
        return slots;
    }

    /**
     * Reads the body, if the request has one, and continues with it as the entity stream; or
     * answers 408, 413 or 429 problem+json (see the class comment).
     */
    @ServerRequestFilter(preMatching = true)
    public Uni<Response> read(ContainerRequestContext request, RoutingContext ctx) {
        HttpServerRequest http = ctx.request();
        if (ctx.body() != null && ctx.body().buffer() != null) {
            // Read already by a body handler on an earlier route (none of this service's reads
            // one): hand it on, so that its content type and UTF-8 are still checked.
            handOn(request, ctx, ctx.body().buffer().getBytes());
            return Uni.createFrom().nullItem();
        }
        if (http.isEnded() || !hasBody(http)) {
            return Uni.createFrom().nullItem();
        }
        String client = http.remoteAddress() == null ? "unknown" : http.remoteAddress().hostAddress();
        BodyReadSlots.Result held = slots.acquire(client, tenantOf(http.path()));
        if (held.slot() == null) {
            LOG.infof("refused a request body of %s: %s", client, held.refusal() == BodyReadSlots.Refusal.CLIENT
                    ? "too many bodies of this client at once" : "too many bodies of this tenant at once");
            return Uni.createFrom().item(closing(ctx, tooMany(held.refusal())));
        }
        BodyReadSlots.Slot slot = held.slot();
        return Uni.createFrom().emitter(done -> {
            AtomicBoolean over = new AtomicBoolean();
            Buffer body = Buffer.buffer();
            long timer = vertx.setTimer(timeoutMillis, id -> {
                if (over.compareAndSet(false, true)) {
                    slot.release();
                    LOG.infof("closed a request whose body did not arrive within %d ms: %s %s from %s (%d bytes read)",
                            timeoutMillis, http.method(), http.path(), client, body.length());
                    done.complete(closing(ctx, timedOut()));
                }
            });
            http.handler(chunk -> {
                if (over.get()) {
                    return;
                }
                if (body.length() + (long) chunk.length() > maxBodyBytes) {
                    over.set(true);
                    vertx.cancelTimer(timer);
                    slot.release();
                    done.complete(closing(ctx, tooLarge(body.length() + (long) chunk.length())));
                    return;
                }
                body.appendBuffer(chunk);
            });
            http.endHandler(v -> {
                if (over.compareAndSet(false, true)) {
                    vertx.cancelTimer(timer);
                    slot.release();
                    handOn(request, ctx, body.getBytes());
                    done.complete(null);
                }
            });
            http.exceptionHandler(e -> {
                if (over.compareAndSet(false, true)) {
                    vertx.cancelTimer(timer);
                    slot.release();
                    // A closed connection: ProblemMapper logs it as one INFO line (ClientGone).
                    done.fail(e);
                }
            });
            if ("100-continue".equalsIgnoreCase(http.getHeader(HttpHeaders.EXPECT))) {
                ctx.response().writeContinue();
            }
            http.resume();
        });
    }

    /** Where the request's {@link RoutingContext} keeps the number of body bytes read ({@link #bodyBytes}). */
    private static final String BODY_BYTES = "tenant-mq.body-bytes";

    /** The body read, as the entity stream the resource method reads; its length is kept for {@link #bodyBytes}. */
    private static void handOn(ContainerRequestContext request, RoutingContext ctx, byte[] body) {
        ctx.put(BODY_BYTES, body.length);
        request.setEntityStream(new ByteArrayInputStream(Utf8Body.forParser(body)));
    }

    /** How many bytes of body the request sent: 0 when it sent none. */
    static int bodyBytes(RoutingContext ctx) {
        Integer n = ctx.get(BODY_BYTES);
        return n == null ? 0 : n;
    }

    /**
     * Whether a body may follow the headers: chunked, a declared length above 0, or an open HTTP/2
     * stream. Chunked first: the chunks are the body whatever a Content-Length beside them says
     * (RFC 9112 section 6.3; Netty drops that header only from an HTTP/1.1 request).
     */
    static boolean hasBody(HttpServerRequest http) {
        if (http.headers().contains(HttpHeaders.TRANSFER_ENCODING)) {
            return true;
        }
        String length = http.getHeader(HttpHeaders.CONTENT_LENGTH);
        if (length != null) {
            try {
                return Long.parseLong(length.trim()) > 0;
            } catch (NumberFormatException e) {
                return false; // Vert.x refuses a malformed length itself
            }
        }
        // HTTP/2 has no Transfer-Encoding: DATA frames may follow unless the stream ended. Methods
        // without a body are left to Quarkus REST.
        return http.version() == HttpVersion.HTTP_2 && !HttpMethod.GET.equals(http.method())
                && !HttpMethod.HEAD.equals(http.method()) && !HttpMethod.OPTIONS.equals(http.method());
    }

    /** The tenant a path names ({@code /tenants/{tenant}/...}), decoded; null for other paths. */
    static String tenantOf(String path) {
        if (path == null || !path.startsWith("/tenants/")) {
            return null;
        }
        int start = "/tenants/".length();
        int end = path.indexOf('/', start);
        String raw = end < 0 ? path.substring(start) : path.substring(start, end);
        return raw.isEmpty() ? null : QueryStringDecoder.decodeComponent(raw);
    }

    /** The rest of the body is never read: the connection cannot carry another request. */
    private static Response closing(RoutingContext ctx, Response answer) {
        ctx.addEndHandler(ended -> {
            if (ctx.request().version() != HttpVersion.HTTP_2) {
                ctx.request().connection().close();
            } else if (!ctx.request().isEnded()) {
                ctx.response().reset(0x8); // CANCEL: this stream only, not the connection's others
            }
        });
        return Response.fromResponse(answer).header(HttpHeaders.CONNECTION.toString(), "close").build();
    }

    private Response timedOut() {
        return ProblemMapper.problem(408, "request-timeout", "Request Timeout",
                "the request body did not arrive within " + timeoutMillis + " ms (mq.http.body-read-timeout): send it"
                        + " at once, or in fewer, faster parts", null);
    }

    /** @param arrived the bytes that had arrived when the limit was passed */
    private Response tooLarge(long arrived) {
        return Response.status(413).type(ProblemMapper.PROBLEM_JSON)
                .entity(ProblemMapper.bodyTooLarge(maxBodyBytes, arrived, false)).build();
    }

    private static Response tooMany(BodyReadSlots.Refusal refusal) {
        String detail = refusal == BodyReadSlots.Refusal.CLIENT
                ? "this client is sending too many request bodies at once (mq.http.max-body-reads-per-client):"
                        + " finish or close some, then retry"
                : "too many request bodies for this tenant are arriving at once (mq.http.max-body-reads-per-tenant):"
                        + " retry shortly";
        return Response.fromResponse(ProblemMapper.problem(429, "too-many-requests", "Too Many Requests", detail, null))
                .header("Retry-After", "1").build();
    }
}
