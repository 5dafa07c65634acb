package dev.tenantmq.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.StringJoiner;

/**
 * The HTTP calls of the CLI: java.net.http and Jackson, no generated client (docs/operations.md, "CLI", says
 * why). Every request carries {@code Authorization: Bearer <token>} when a token is set, data
 * plane included, so the same token can carry a JWT there. Query values and path segments are
 * percent-encoded here as UTF-8, so partition keys with spaces, slashes, '%', '+' or emoji need
 * no escaping by the user. The token never appears in an exception message.
 */
public final class TmqClient {
    /** TCP connect timeout. */
    static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);
    /**
     * Whole-request timeout: the longest long poll the contract allows (30 s, FetchRequest
     * waitSeconds) plus 15 s for the answer.
     */
    static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(45);

    private final URI base;
    private final String token;
    private final HttpClient http;

    /** A client of the service at {@code baseUrl} (for example http://127.0.0.1:8080). */
    public TmqClient(String baseUrl, String token) {
        String trimmed = baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl;
        this.base = parseUrl(trimmed, baseUrl);
        this.token = token == null || token.isEmpty() ? null : token;
        this.http = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(CONNECT_TIMEOUT)
                .build();
    }

    /**
     * The base URL, or the one plain error for every kind of bad {@code --url}: java.net.URI's own
     * words ("Illegal character in path at index 3") say nothing about the option.
     */
    private static URI parseUrl(String trimmed, String given) {
        URI uri;
        try {
            uri = new URI(trimmed);
        } catch (URISyntaxException e) {
            uri = null;
        }
        if (uri == null || uri.getScheme() == null || !(uri.getScheme().equals("http") || uri.getScheme().equals("https"))
                || uri.getHost() == null) {
            throw new IllegalArgumentException("--url must be an http(s) URL such as http://127.0.0.1:8080, not "
                    + (given.isEmpty() ? "an empty value" : given));
        }
        if (uri.getPort() > 65535) {
            throw new IllegalArgumentException("--url has port " + uri.getPort() + ": a port is 1..65535");
        }
        // Paths are appended to the base: a query or fragment in it would swallow them (every
        // call would go to "/"), and the answers would be read as if they were the call's own.
        if (uri.getRawQuery() != null || uri.getRawFragment() != null) {
            throw new IllegalArgumentException("--url is the service's base URL, without '?' or '#': " + given);
        }
        return uri;
    }

    /**
     * Why a call got no answer, in plain words: the JDK client's own texts ("HTTP/1.1 header parser
     * received no bytes", "Connection reset") name its internals, not what happened.
     */
    static String why(IOException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof java.net.UnknownHostException || t instanceof java.nio.channels.UnresolvedAddressException) {
                return "unknown host";
            }
        }
        if (e instanceof java.net.ConnectException && !(e instanceof java.net.http.HttpConnectTimeoutException)) {
            return "connection refused";
        }
        if (e instanceof java.net.http.HttpConnectTimeoutException) {
            return "no connection within " + CONNECT_TIMEOUT.toSeconds() + " s";
        }
        if (e instanceof java.net.http.HttpTimeoutException) {
            return "no answer within " + REQUEST_TIMEOUT.toSeconds() + " s";
        }
        // EOF before the status line, a reset, a TLS failure: the connection ended without an answer.
        return "the connection ended before an answer (the service stopped, or --url reaches something that does not speak "
                + (e instanceof javax.net.ssl.SSLException ? "this TLS" : "HTTP") + ")";
    }

    /** Whether a token is configured (for the hint after a 401). */
    public boolean hasToken() {
        return token != null;
    }

    /** The base URL, without credentials of any kind. */
    public String baseUrl() {
        return base.toString();
    }

    /**
     * GET, answering the raw JSON text of a 2xx response. Like every call here: an error status
     * throws {@link ApiError}, no answer {@link Unreachable}, and a 2xx answer that is not JSON
     * {@link UnreadableAnswer}.
     */
    public String get(String path, Map<String, String> query) {
        return send("GET", path, query, null);
    }

    /** DELETE, answering the raw JSON text of a 2xx response. */
    public String delete(String path, Map<String, String> query) {
        return send("DELETE", path, query, null);
    }

    /** POST of a JSON body (or none when null), answering the raw JSON text of a 2xx response. */
    public String post(String path, Map<String, String> query, String jsonBody) {
        return send("POST", path, query, jsonBody);
    }

    /** PUT of a JSON body, answering the raw JSON text of a 2xx response. */
    public String put(String path, Map<String, String> query, String jsonBody) {
        return send("PUT", path, query, jsonBody);
    }

    /** A query map in insertion order; null values are left out. */
    public static Map<String, String> query(String... keyValues) {
        Map<String, String> q = new LinkedHashMap<>();
        for (int i = 0; i < keyValues.length; i += 2) {
            if (keyValues[i + 1] != null) {
                q.put(keyValues[i], keyValues[i + 1]);
            }
        }
        return q;
    }

    /**
     * A path segment percent-encoded as UTF-8 (RFC 3986 section 3.3): everything but unreserved
     * characters. Tenant, topic and group names are [A-Za-z0-9._:-], so this changes only ':'.
     *
     * @param option the option the value came from, named in the error for a value that is not a
     *     path segment at all (empty, "." or "..")
     * @throws IllegalArgumentException for such a value (exit 2)
     */
    public static String segment(String option, String s) {
        // Empty, "." and ".." change the path itself (RFC 3986 section 5.2.4 removes dot segments,
        // also percent-encoded ones), so the call would reach another resource and answer 404.
        if (s.isEmpty() || s.equals(".") || s.equals("..")) {
            throw new IllegalArgumentException(option + " must be a name, not " + (s.isEmpty() ? "an empty value" : "'" + s + "'")
                    + " (names start with a letter or a digit)");
        }
        return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
    }

    /**
     * A query value percent-encoded as UTF-8. URLEncoder writes form encoding, so the space it
     * writes as '+' becomes %20, and a '+' of the value is %2B.
     */
    public static String queryValue(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
    }

    private String send(String method, String path, Map<String, String> query, String jsonBody) {
        StringBuilder uri = new StringBuilder(base.toString()).append(path);
        if (query != null && !query.isEmpty()) {
            StringJoiner qs = new StringJoiner("&", "?", "");
            query.forEach((k, v) -> qs.add(queryValue(k) + "=" + queryValue(v)));
            uri.append(qs);
        }
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(uri.toString()))
                .timeout(REQUEST_TIMEOUT)
                .header("Accept", "application/json, application/problem+json");
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        if (jsonBody != null) {
            request.header("Content-Type", "application/json")
                    .method(method, HttpRequest.BodyPublishers.ofString(jsonBody, StandardCharsets.UTF_8));
        } else {
            request.method(method, HttpRequest.BodyPublishers.noBody());
        }
        HttpResponse<String> response;
        try {
            response = http.send(request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new Unreachable("cannot reach " + base + ": " + why(e), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Unreachable("interrupted while calling " + base, e);
        }
        int status = response.statusCode();
        if (status >= 200 && status < 300) {
            try {
                Json.parse(response.body()); // checked here, where the request can be named
            } catch (InvalidJson e) {
                throw new UnreadableAnswer(method + " " + path, response.body(), e);
            }
            return response.body();
        }
        JsonNode problem = null;
        try {
            JsonNode parsed = Json.parse(response.body());
            if (parsed.isObject()) {
                problem = parsed;
            }
        } catch (InvalidJson notJson) {
            // Not a problem document: the raw body is shown instead.
        }
        throw new ApiError(status, response.body(), problem);
    }
}
