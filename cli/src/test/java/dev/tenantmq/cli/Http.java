package dev.tenantmq.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.function.Consumer;

/**
 * Plain HTTP to the service for what the CLI has no command for: fetch and nack a message
 * until it is dead-lettered, to give {@code tmq dlq} and {@code tmq requeue} something to work on.
 */
final class Http {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private final String baseUrl;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    Http(String baseUrl) {
        this.baseUrl = baseUrl;
    }

    /** POSTs JSON to a data-plane path and answers the JSON answer (fails on a non-2xx). */
    JsonNode post(String path, String json) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(baseUrl + path))
                .timeout(Duration.ofSeconds(45))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json, StandardCharsets.UTF_8)).build(),
                HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        if (r.statusCode() / 100 != 2) {
            throw new AssertionError("POST " + path + " answered " + r.statusCode() + ": " + r.body());
        }
        return MAPPER.readTree(r.body());
    }

    /** Stored messages of a topic per GET /admin/topics (0 when it is not listed). */
    long storedMessages(String token, String tenant, String topic) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(baseUrl + "/admin/topics?limit=10000&tenant=" + tenant))
                .header("Authorization", "Bearer " + token).GET().build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        if (r.statusCode() != 200) {
            throw new AssertionError("GET /admin/topics answered " + r.statusCode() + ": " + r.body());
        }
        for (JsonNode row : MAPPER.readTree(r.body()).path("topics")) {
            if (row.path("topic").asText().equals(topic)) {
                return row.path("messages").asLong();
            }
        }
        return 0;
    }

    /** Fetches what {@code group} gets of {@code topic} and acks it. */
    int fetchAndAck(String tenant, String topic, String group) throws Exception {
        return fetchAndSettle(tenant, topic, group, "ack", body -> { });
    }

    /**
     * One round of failing: fetches what {@code group} gets of {@code topic} and nacks it with
     * no delay. With MQ_MAX_DELIVERIES 2, two rounds over a message dead-letter it.
     */
    int fetchAndNack(String tenant, String topic, String group, String reason) throws Exception {
        return fetchAndSettle(tenant, topic, group, "nack", body -> body.put("delaySeconds", 0).put("reason", reason));
    }

    /** Fetches up to 100 messages (waiting 1 s) and settles them all with one {@code verb} call; answers how many. */
    private int fetchAndSettle(String tenant, String topic, String group, String verb, Consumer<ObjectNode> options)
            throws Exception {
        String base = "/tenants/" + tenant + "/topics/" + topic + "/consumer-groups/" + group;
        JsonNode messages = post(base + "/fetch", "{\"maxMessages\":100,\"waitSeconds\":1}").path("messages");
        if (messages.isEmpty()) {
            return 0;
        }
        ObjectNode body = MAPPER.createObjectNode();
        var receipts = body.putArray("receipts");
        messages.forEach(m -> receipts.add(m.path("receipt").asText()));
        options.accept(body);
        post(base + "/" + verb, MAPPER.writeValueAsString(body));
        return messages.size();
    }
}
