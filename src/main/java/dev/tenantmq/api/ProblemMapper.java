package dev.tenantmq.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.exc.InputCoercionException;
import com.fasterxml.jackson.core.exc.StreamReadException;
import com.fasterxml.jackson.core.io.JsonEOFException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.exc.InvalidNullException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import dev.tenantmq.api.dto.IntegerRange;
import dev.tenantmq.api.dto.Problem;
import dev.tenantmq.api.dto.PublishRequest;
import dev.tenantmq.api.dto.QuotaProblem;
import dev.tenantmq.domain.ConflictException;
import dev.tenantmq.model.InvalidRequestException;
import dev.tenantmq.domain.NotFoundException;
import dev.tenantmq.model.PayloadTooLargeException;
import dev.tenantmq.domain.QuotaExceededException;
import dev.tenantmq.domain.TenantNotServedException;
import dev.tenantmq.model.StoreUnavailableException;
import dev.tenantmq.model.TopicBeingDeletedException;
import jakarta.ws.rs.NotAllowedException;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Request;
import jakarta.ws.rs.core.UriInfo;
import jakarta.ws.rs.core.Response;
import java.lang.reflect.RecordComponent;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.eclipse.microprofile.config.ConfigProvider;
import org.jboss.logging.Logger;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

/**
 * The one place exceptions become HTTP responses: RFC 9457 {@code application/problem+json}
 * (SPEC section 4, "Errors everywhere"). Client mistakes get 4xx naming the field and rule;
 * unexpected errors get a bare 500 with no stack trace or class name.
 */
public class ProblemMapper {
    private static final Logger LOG = Logger.getLogger(ProblemMapper.class);
    /** Media type of every error response. */
    public static final String PROBLEM_JSON = "application/problem+json";
    private static final String TYPE = "urn:tenant-mq:problem:";

    @ServerExceptionMapper
    Response invalid(InvalidRequestException e) {
        List<Problem.FieldError> errors = e.errors().stream()
                .map(f -> new Problem.FieldError(f.field(), f.message())).toList();
        String detail = errors.stream().map(f -> f.field() + " " + f.message()).collect(Collectors.joining("; "));
        return problem(400, "invalid-request", "Invalid request", detail, errors);
    }

    /** A tenant outside MQ_TENANTS: the path's {@code tenant} is the field at fault (docs/api.md, "Errors"). */
    @ServerExceptionMapper
    Response notServed(TenantNotServedException e) {
        return problem(403, "tenant-not-served", "Tenant not served", e.getMessage(),
                List.of(new Problem.FieldError("tenant", e.rule())));
    }

    /** A caller without the permission (docs/security.md, "Permissions"): names the tenant and the permission. */
    @ServerExceptionMapper
    Response denied(AccessDeniedException e) {
        return problem(403, "forbidden", "Forbidden", e.getMessage(), null);
    }

    @ServerExceptionMapper
    Response notFound(NotFoundException e) {
        return problem(404, "not-found", "Not found", e.getMessage(), null);
    }

    @ServerExceptionMapper
    Response conflict(ConflictException e) {
        return problem(409, "conflict", "Conflict", e.getMessage(), null);
    }

    @ServerExceptionMapper
    Response topicBeingDeleted(TopicBeingDeletedException e) {
        return problem(409, "topic-being-deleted", "Topic being deleted", e.getMessage(), null);
    }

    @ServerExceptionMapper
    Response tooLarge(PayloadTooLargeException e) {
        return problem(413, "payload-too-large", "Payload too large", e.getMessage(),
                List.of(new Problem.FieldError(e.field(), e.rule())));
    }

    /**
     * The one answer to a request body over {@code quarkus.http.limits.max-body-size}, whether its
     * declared length says so ({@link HttpRoutes}) or its bytes as they arrive ({@link BodyReader}):
     * 413 naming the setting, its value and the size, as far as it is known (docs/api.md, "Errors").
     *
     * @param limitBytes the setting's value
     * @param sizeBytes the declared length, or the bytes that had arrived when the limit was passed;
     *     null when neither is known
     * @param declared whether {@code sizeBytes} is the declared length
     */
    static Problem bodyTooLarge(long limitBytes, Long sizeBytes, boolean declared) {
        String size = sizeBytes == null ? "" : declared ? sizeBytes + " bytes (its Content-Length), "
                : "at least " + sizeBytes + " bytes, ";
        String rule = "is " + size + "over the limit of " + limitBytes + " bytes (quarkus.http.limits.max-body-size)";
        return body(413, "payload-too-large", "Payload too large", "the request body " + rule,
                List.of(new Problem.FieldError("body", rule)));
    }

    /**
     * A publish over a tenant quota (docs/security.md, "Quotas"): 429 with {@code Retry-After} in whole seconds
     * (RFC 9110 section 10.2.3), naming the tenant, the quota and its limit.
     */
    @ServerExceptionMapper
    Response overQuota(QuotaExceededException e) {
        return Response.status(429)
                .type(PROBLEM_JSON)
                .header("Retry-After", Long.toString(e.retryAfterSeconds()))
                .entity(new QuotaProblem(TYPE + "quota-exceeded", "Quota exceeded", 429, e.getMessage(), e.tenant(),
                        e.kind().setting(), e.limit()))
                .build();
    }

    @ServerExceptionMapper
    Response unavailable(StoreUnavailableException e) {
        LOG.warnf("database unavailable: %s", e.getCause() != null ? e.getCause().getMessage() : e.getMessage());
        Response r = problem(503, "database-unavailable", "Database unavailable",
                "the database is unreachable; nothing was changed, retry later", null);
        return Response.fromResponse(r).header("Retry-After", "1").build();
    }

    /** A body of the wrong shape: unknown field, wrong type. */
    @ServerExceptionMapper
    Response badShape(MismatchedInputException e, HttpHeaders headers) {
        return badJson(e, headers);
    }

    /** The shape of a publish body, as a detail names it when a body misses it (openapi.yaml, PublishRequest). */
    static final String PUBLISH_SHAPE = "a publish body is {\"messages\": [...]}, a list of messages"
            + " each with partitionKey and payload";

    /**
     * Malformed JSON or a body of the wrong shape. The detail says what to send in plain words:
     * a field's expected type and the value given, a number out of range, where malformed JSON
     * stops (line and column); never the parser's class or setting names.
     */
    @ServerExceptionMapper
    Response badJson(JsonProcessingException e, HttpHeaders headers) {
        return badJson(e, headers == null || headers.getMediaType() == null ? null
                : headers.getMediaType().getParameters().get(MediaType.CHARSET_PARAMETER));
    }

    /**
     * {@link #badJson(JsonProcessingException, HttpHeaders)} for a body sent with {@code charset}
     * (the Content-Type parameter, null when absent). The body is read as UTF-8 whatever it says:
     * for application/json the parameter has no effect (RFC 8259, section 11), and a detail about
     * bytes that are not UTF-8 says so when another charset was declared.
     */
    Response badJson(JsonProcessingException e, String charset) {
        String field = "body";
        Throwable parse = parseError(e);
        // Text that is not JSON, wherever it is: the same words and position at the top and inside messages[...].
        boolean syntax = parse instanceof JsonProcessingException && !(parse instanceof InputCoercionException)
                || isTrailingText(e);
        // A mapping failure at the root is valid JSON of the wrong shape (an array, a string...).
        String message = syntax ? malformed(parse instanceof JsonProcessingException p ? p : e)
                : e instanceof MismatchedInputException mi
                ? "must be a JSON object" + JsonErrorWords.given(mi).map(g -> ", not " + g).orElse("")
                        + (mi.getTargetType() == PublishRequest.class ? ": " + PUBLISH_SHAPE : " (see openapi.yaml)")
                : malformed(parse instanceof JsonProcessingException p ? p : e);
        // The exception's path names the field, a syntax error's too when it is inside a field's value
        // (ParseErrorFields). A body that ends early is the body's fault, not that of the field it ended in.
        if (e instanceof JsonMappingException m && !m.getPath().isEmpty() && !(parse instanceof JsonEOFException)) {
            field = path(m.getPath());
            message = syntax ? message
                    : e instanceof RawJson.InvalidValueException ? m.getOriginalMessage()
                    // a message's field at the top: the body is one message without the wrapper
                    : e instanceof UnrecognizedPropertyException u && u.getReferringClass() == PublishRequest.class
                            ? "is not a known field: " + PUBLISH_SHAPE
                    : e instanceof UnrecognizedPropertyException ? "is not a known field"
                    : e instanceof InvalidNullException ? "must not be null: omit the field to use its default"
                    : e instanceof MismatchedInputException mi ? JsonErrorWords.wrongType(mi)
                    : outOfRange(m).orElseGet(() -> "is not valid: " + shortReason(m.getOriginalMessage()));
        }
        if (charset != null && !isUtf8(charset) && message.contains(JsonErrorWords.NOT_UTF8)) {
            message += "; charset=" + charset + " has no effect: JSON is always UTF-8 (RFC 8259, sections 8.1 and 11)";
        }
        return problem(400, "invalid-request", "Invalid request", field + " " + message,
                List.of(new Problem.FieldError(field, message)));
    }

    /**
     * A number too large or too small for its field's Java type (the parser refuses it before the
     * request is validated): the field's range in the words of the range rules, when the field
     * declares it ({@link IntegerRange}), else that the number is out of range.
     */
    private static Optional<String> outOfRange(JsonMappingException m) {
        return JsonErrorWords.outOfRangeValue(m.getOriginalMessage()).map(given -> {
            IntegerRange range = range(m.getPath());
            return range == null ? JsonErrorWords.outOfRange(m.getOriginalMessage()).orElseThrow()
                    : JsonErrorWords.outsideRange(given, range.min(), max(range), range.unit());
        });
    }

    /** The declared range of the field a path ends in, or null when it declares none. */
    private static IntegerRange range(List<JsonMappingException.Reference> path) {
        if (path.isEmpty()) {
            return null;
        }
        JsonMappingException.Reference last = path.get(path.size() - 1);
        Object from = last.getFrom();
        Class<?> type = from instanceof Class<?> c ? c : from == null ? null : from.getClass();
        if (type == null || !type.isRecord() || last.getFieldName() == null) {
            return null;
        }
        for (RecordComponent component : type.getRecordComponents()) {
            if (component.getName().equals(last.getFieldName())) {
                return component.getAnnotation(IntegerRange.class);
            }
        }
        return null;
    }

    /** The largest value of a range: the deployment's setting when the range names one, else its fixed maximum. */
    private static long max(IntegerRange range) {
        if (range.maxSetting().isEmpty()) {
            return range.max();
        }
        return ConfigProvider.getConfig().getOptionalValue(range.maxSetting(), Long.class).orElse(range.max());
    }

    private static boolean isUtf8(String charset) {
        String c = charset.strip().replace("\"", "");
        return c.equalsIgnoreCase("utf-8") || c.equalsIgnoreCase("utf8");
    }

    /** The parser's own error in {@code e} or its causes (malformed JSON rather than a wrong shape), or null. */
    private static Throwable parseError(JsonProcessingException e) {
        for (Throwable t = e; t != null && t.getCause() != t; t = t.getCause()) {
            if (t instanceof StreamReadException) {
                return t;
            }
        }
        return null;
    }

    /** Text after the body's one JSON value, which the mapper (not the parser) finds. */
    private static boolean isTrailingText(JsonProcessingException e) {
        return e instanceof MismatchedInputException && e.getOriginalMessage() != null
                && e.getOriginalMessage().startsWith("Trailing token");
    }

    /** "is not valid JSON", with the reason in plain words and where the parser stopped. */
    private static String malformed(JsonProcessingException e) {
        Optional<String> reason = JsonErrorWords.known(e.getOriginalMessage());
        String where = reason.filter(r -> r.contains(" line ")).isPresent() ? "" : JsonErrorWords.at(e.getLocation());
        return "is not valid JSON" + reason.map(r -> ": " + r).orElse("") + where;
    }

    /**
     * An unsupported method on a known path: 405 with the {@code Allow} header that RFC 9110
     * section 15.5.6 requires (RESTEasy Reactive's own 405 carries none). {@code OPTIONS} is
     * answered for every resource path with the same list ({@link HttpRoutes}) and {@code HEAD}
     * wherever {@code GET} is, so both are listed.
     */
    @ServerExceptionMapper
    Response notAllowed(NotAllowedException e, UriInfo uri, Request request) {
        String allow = allowedMethods(uri.getRequestUri().getRawPath());
        Response r = problem(405, "method-not-allowed", "Method Not Allowed",
                notAllowedDetail(request.getMethod(), allow), null);
        return allow == null ? r : Response.fromResponse(r).header(HttpHeaders.ALLOW, allow).build();
    }

    /** The detail of a 405: the refused method and the ones the path serves (its {@code Allow}). */
    static String notAllowedDetail(String method, String allow) {
        return allow == null ? method + " is not allowed on this path"
                : method + " is not allowed on this path; it allows " + allow;
    }

    /** The methods each route of the resources serves, as the {@code Allow} header lists them (openapi.yaml's paths). */
    private static final Map<Pattern, String> ALLOW = new LinkedHashMap<>();

    static {
        ALLOW.put(Pattern.compile("/tenants/[^/]+/topics/[^/]+/messages/?"), "POST, OPTIONS");
        ALLOW.put(Pattern.compile("/tenants/[^/]+/topics/[^/]+/messages/committed/?"), "POST, OPTIONS");
        ALLOW.put(Pattern.compile("/tenants/[^/]+/topics/[^/]+/consumer-groups/[^/]+/(fetch|ack|extend|nack)/?"),
                "POST, OPTIONS");
        ALLOW.put(Pattern.compile("/admin/(topics|consumer-groups)/?"), "GET, HEAD, DELETE, OPTIONS"); // DeletionResource
        ALLOW.put(Pattern.compile("/admin/(offsets|leases|subscribers|tenants)/?"), "GET, HEAD, OPTIONS");
        ALLOW.put(Pattern.compile("/admin/messages/?"), "GET, HEAD, DELETE, OPTIONS");
        ALLOW.put(Pattern.compile("/admin/messages/requeue/?"), "POST, OPTIONS");
        ALLOW.put(Pattern.compile("/admin/messages/browse/?"), "GET, HEAD, OPTIONS");
        ALLOW.put(Pattern.compile("/admin/settings/?"), "GET, HEAD, PUT, DELETE, OPTIONS");
        ALLOW.put(Pattern.compile("/admin/consumer-groups/reset-offsets/?"), "POST, OPTIONS");
    }

    /** The {@code Allow} value of a raw request path, or null for a path of no resource. */
    static String allowedMethods(String rawPath) {
        for (Map.Entry<Pattern, String> e : ALLOW.entrySet()) {
            if (e.getKey().matcher(rawPath).matches()) {
                return e.getValue();
            }
        }
        return null;
    }

    /** JAX-RS errors (404 unknown path, 406, 415 wrong media type...), kept with their status. */
    @ServerExceptionMapper
    Response web(WebApplicationException e, UriInfo uri, HttpHeaders headers) {
        int status = e.getResponse().getStatus();
        if (status >= 500) {
            return unexpected(e);
        }
        Throwable cause = e.getCause();
        if (cause instanceof JsonProcessingException j) {
            return badJson(j, headers);
        }
        Response.StatusType type = Response.Status.fromStatusCode(status);
        String title = type != null ? type.getReasonPhrase() : "Error";
        // Every request body of the API is JSON (openapi.yaml): say which header was wrong or missing.
        String encoding = headers.getHeaderString(HttpHeaders.CONTENT_ENCODING);
        List<String> types = headers.getRequestHeader(HttpHeaders.CONTENT_TYPE);
        String detail = status == 415 && types != null && types.size() > 1 ? severalContentTypes(types)
                : status == 415 && JsonContentType.encoded(encoding)
                ? "Content-Encoding: " + abbreviated(encoding.trim()) + " is not supported: send the body uncompressed, without"
                        + " Content-Encoding"
                : status == 415 ? "the request body must be JSON: send it with Content-Type: "
                + MediaType.APPLICATION_JSON
                : status == 406 ? NOT_ACCEPTABLE
                : status == 404 ? unknownPath(uri.getRequestUri().getRawPath())
                : title;
        return problem(status, title.toLowerCase().replace(' ', '-'), title, detail, null);
    }

    /**
     * The detail of a 415 for several {@code Content-Type} headers ({@link JsonContentType}): how
     * many, what they say, and the one header to send.
     */
    static String severalContentTypes(List<String> types) {
        return "the request has " + types.size() + " Content-Type headers ("
                + types.stream().map(t -> abbreviated(t.trim())).collect(Collectors.joining(", "))
                + "): send one, Content-Type: " + MediaType.APPLICATION_JSON;
    }

    /** A header value as a detail shows it: at most 64 characters. */
    private static String abbreviated(String value) {
        return value.length() <= 64 ? value : value.substring(0, 64) + "...";
    }

    /** The detail of a 406: the media types every answer of the API has (openapi.yaml). */
    static final String NOT_ACCEPTABLE = "the API answers " + MediaType.APPLICATION_JSON + " and " + PROBLEM_JSON
            + " (errors): send Accept: " + MediaType.APPLICATION_JSON + ", or no Accept header";

    /** The detail of a 404 for a path no resource serves: the path, and where the API's paths are listed. */
    static String unknownPath(String rawPath) {
        String shown = rawPath.length() <= 200 ? rawPath : rawPath.substring(0, 200) + "...";
        return "no resource at " + shown + ": the API's paths are listed at / and described in /q/openapi"
                + " (messages are under /tenants/{tenant}/topics/{topic}/...)";
    }

    @ServerExceptionMapper
    Response unexpected(Throwable e) {
        if (ClientGone.isClientGone(e)) {
            // Not a server error: the client closed the connection (or gave up) first. Nobody
            // receives the answer; it says so for the access log.
            LOG.infof("client went away before its answer: %s", ClientGone.describe(e));
            return problem(499, "client-closed-request", "Client closed request",
                    "the client closed the connection before the answer", null);
        }
        LOG.error("unexpected error", e);
        return problem(500, "internal", "Internal error", "the service failed unexpectedly", null);
    }

    /** The parser's own reason (a limit such as nesting depth or number length), without location details. */
    private static String shortReason(String message) {
        String s = message == null ? "" : message;
        // Jackson appends the input location and parser details; the field is already named.
        for (String tail : new String[] {"\n", " at [Source", " (through reference chain"}) {
            int cut = s.indexOf(tail);
            if (cut > 0) {
                s = s.substring(0, cut);
            }
        }
        // "Numeric value (99999999999) out of range of int (-2147483648 - 2147483647)" names Java types.
        return JsonErrorWords.plain(s.replaceAll("out of range of (int|long)[^;]*", "out of range").trim());
    }

    private static String path(List<JsonMappingException.Reference> refs) {
        StringBuilder sb = new StringBuilder();
        for (JsonMappingException.Reference r : refs) {
            if (r.getFieldName() != null) {
                if (!sb.isEmpty()) {
                    sb.append('.');
                }
                sb.append(r.getFieldName());
            } else if (r.getIndex() >= 0) {
                sb.append('[').append(r.getIndex()).append(']');
            }
        }
        return sb.isEmpty() ? "body" : sb.toString();
    }

    static Response problem(int status, String slug, String title, String detail, List<Problem.FieldError> errors) {
        return Response.status(status)
                .type(PROBLEM_JSON)
                .entity(body(status, slug, title, detail, errors))
                .build();
    }

    /** The problem document itself, for responses written outside JAX-RS (see {@link HttpRoutes}). */
    static Problem body(int status, String slug, String title, String detail, List<Problem.FieldError> errors) {
        return new Problem(TYPE + slug, title, status, detail, errors);
    }
}
