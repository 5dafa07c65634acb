package dev.tenantmq.jdbc;

import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;

/**
 * Tells the service that a transaction which published through {@link TransactionalPublisher}
 * committed (docs/transactional-publish.md, "Waking consumers"): one
 * {@code POST /tenants/{tenant}/topics/{topic}/messages/committed} naming the partitions, so that
 * long polls waiting on them wake as after an HTTP publish. Best-effort: asynchronous, never
 * throws, and a notice that is lost (the service down, the process gone between commit and
 * notice) costs a waiting poll at most one re-check interval ({@code mq.fetch.recheck-interval});
 * the messages are committed either way. Call it only after the commit: a notice before it wakes
 * polls that find nothing.
 */
public final class CommitNotifier {
    private final HttpClient http;
    private final URI baseUrl;
    private final String bearerToken;
    private final Duration timeout;

    /**
     * A notifier that gives a notice up after 5 seconds.
     *
     * @param baseUrl the service (or its load balancer), e.g. {@code http://tenant-mq:8080}
     * @param bearerToken a JWT with the publish permission (mq.auth.mode=jwt), or null with mq.auth.mode=none
     */
    public CommitNotifier(URI baseUrl, String bearerToken) {
        this(baseUrl, bearerToken, Duration.ofSeconds(5));
    }

    /**
     * @param timeout how long one notice may take, connecting included; past it the notice is
     *     given up (-1), which costs waiting polls at most their re-check interval
     */
    public CommitNotifier(URI baseUrl, String bearerToken, Duration timeout) {
        this.http = HttpClient.newBuilder().connectTimeout(timeout).build();
        this.baseUrl = baseUrl;
        this.bearerToken = bearerToken;
        this.timeout = timeout;
    }

    /**
     * Sends the notice for the new (not duplicate) messages of {@code results}; nothing when all
     * were duplicates.
     *
     * @return completes with the HTTP status (200 when the service woke its polls), or -1 when the
     *     notice could not be sent; never completes exceptionally
     */
    public CompletableFuture<Integer> committed(String tenant, String topic, List<TransactionalPublisher.Result> results) {
        Set<String> keys = new TreeSet<>();
        results.stream().filter(r -> !r.duplicate()).forEach(r -> keys.add(r.partitionKey()));
        if (keys.isEmpty()) {
            return CompletableFuture.completedFuture(200);
        }
        StringBuilder body = new StringBuilder("{\"partitionKeys\":[");
        for (String k : keys) {
            body.append(body.charAt(body.length() - 1) == '[' ? "" : ",").append(quote(k));
        }
        body.append("]}");
        HttpRequest.Builder request = HttpRequest.newBuilder(baseUrl.resolve("/tenants/" + path(tenant) + "/topics/"
                        + path(topic) + "/messages/committed"))
                .timeout(timeout)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body.toString()));
        if (bearerToken != null) {
            request.header("Authorization", "Bearer " + bearerToken);
        }
        try {
            return http.sendAsync(request.build(), HttpResponse.BodyHandlers.discarding())
                    .thenApply(HttpResponse::statusCode)
                    .exceptionally(e -> -1);
        } catch (RuntimeException e) {
            return CompletableFuture.completedFuture(-1);
        }
    }

    private static String path(String segment) {
        return URLEncoder.encode(segment, StandardCharsets.UTF_8).replace("+", "%20");
    }

    /** A JSON string literal (partition keys are well-formed Unicode, checked at publish). */
    private static String quote(String s) {
        StringBuilder out = new StringBuilder("\"");
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            } else if (c < 0x20) {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        return out.append('"').toString();
    }
}
