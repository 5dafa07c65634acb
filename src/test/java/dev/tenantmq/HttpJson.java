package dev.tenantmq;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/** A thread-safe JSON-over-HTTP client for tests that drive the service from many threads. */
public final class HttpJson {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final String base;

    /** @param base e.g. http://localhost:8081 */
    public HttpJson(String base) {
        this.base = base.endsWith("/") ? base.substring(0, base.length() - 1) : base;
    }

    /** POSTs {@code body} (serialized to JSON) and returns the parsed response; fails on a non-2xx status. */
    public JsonNode post(String path, Object body) {
        return postAsync(path, body).join();
    }

    /** Asynchronous {@link #post}. */
    public CompletableFuture<JsonNode> postAsync(String path, Object body) {
        try {
            HttpRequest request = HttpRequest.newBuilder(URI.create(base + path))
                    .timeout(Duration.ofSeconds(60))
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body)))
                    .build();
            return client.sendAsync(request, HttpResponse.BodyHandlers.ofString()).thenApply(r -> {
                if (r.statusCode() / 100 != 2) {
                    throw new IllegalStateException("POST " + path + " -> " + r.statusCode() + ": " + r.body());
                }
                try {
                    return JSON.readTree(r.body());
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
        } catch (Exception e) {
            return CompletableFuture.failedFuture(e);
        }
    }
}
