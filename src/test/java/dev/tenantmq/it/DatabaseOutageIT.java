package dev.tenantmq.it;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A database outage (SPEC section 4: 503 with {@code Retry-After}; "Operations endpoints":
 * readiness). The test owns its database: a MariaDB server that it really stops and starts
 * again, under the packaged service. During the outage publish, fetch and ack answer 503
 * problem+json with {@code Retry-After} and write nothing, and readiness is DOWN; once the
 * database is back the same process is ready again, and every message stored before the outage
 * is still there and is consumed.
 */
class DatabaseOutageIT {
    private static final String TENANT = "outage-tenant";
    private static final String TOPIC = "orders";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration VISIBILITY = Duration.ofSeconds(60);

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final List<AutoCloseable> cleanup = new ArrayList<>();
    private String base;
    private String management;

    @AfterEach
    void stopEverything() throws Exception {
        CloseAll.lastFirst(cleanup);
    }

    @Test
    void a_database_outage_answers_503_with_retry_after_and_the_service_recovers_with_nothing_lost() throws Exception {
        StoppableDatabase db = StoppableDatabase.start();
        cleanup.add(db);
        ServiceProcess service = ServiceProcess.start("outage", db.database(), TENANT);
        cleanup.add(service);
        base = service.baseUrl();
        management = service.managementUrl();

        assertEquals(201, publish("p", "m1", "m2", "m3").statusCode());
        List<JsonNode> first = fetchUntil("g", 2);
        assertEquals(List.of("m1", "m2"), ids(first));
        assertEquals(List.of("ACKED"), ack("g", first.subList(0, 1)));
        JsonNode inFlight = first.get(1);

        db.stop();

        await("readiness goes DOWN").atMost(Duration.ofSeconds(60)).until(() -> readiness().statusCode() == 503);
        assertEquals("DOWN", JSON.readTree(readiness().body()).path("status").asText());
        assertUnavailable("publish", publish("p", "during-outage"));
        assertUnavailable("fetch", post(groupPath("g") + "/fetch",
                Map.of("maxMessages", 10, "waitSeconds", 0, "visibilitySeconds", 30)));
        assertUnavailable("ack", post(groupPath("g") + "/ack", Map.of("receipts", List.of(inFlight.get("receipt").asText()))));
        assertUnavailable("fetch of a new group", post(groupPath("fresh") + "/fetch",
                Map.of("maxMessages", 10, "waitSeconds", 0, "visibilitySeconds", 30)));

        db.restart();

        await("readiness comes back UP").atMost(Duration.ofSeconds(90)).until(() -> readiness().statusCode() == 200);
        assertEquals("UP", JSON.readTree(readiness().body()).path("status").asText());
        assertEquals(201, publish("p", "m4").statusCode(), "publish works again");

        // A group that never consumed sees exactly what was stored: the outage lost nothing and
        // the refused publish wrote nothing.
        assertEquals(List.of("m1", "m2", "m3", "m4"), ids(fetchUntil("fresh", 4)));

        // The first group goes on: m1 stays acknowledged, m2's ack during the outage changed
        // nothing, and everything after it is delivered.
        String late = ack("g", List.of(inFlight)).get(0);
        assertTrue(Set.of("ACKED", "STALE").contains(late), "the outage-time receipt is acked or stale, got " + late);
        Set<String> remaining = new LinkedHashSet<>(late.equals("ACKED") ? List.of("m3", "m4") : List.of("m2", "m3", "m4"));
        Set<String> consumed = new LinkedHashSet<>();
        await("the group consumes the rest").atMost(Duration.ofSeconds(90)).until(() -> {
            List<JsonNode> got = fetch("g", 10);
            ids(got).forEach(id -> assertFalse(id.equals("m1"), "m1 was acknowledged before the outage"));
            if (!got.isEmpty()) {
                assertEquals(List.of(), ack("g", got).stream().filter(s -> !s.equals("ACKED")).toList());
                consumed.addAll(ids(got));
            }
            return consumed.containsAll(remaining);
        });
        assertEquals(remaining, consumed);
    }

    private static void assertUnavailable(String what, HttpResponse<String> r) throws IOException {
        assertEquals(503, r.statusCode(), what + ": " + r.body());
        assertEquals("application/problem+json", r.headers().firstValue("Content-Type").orElse("").split(";")[0],
                what + " content type");
        String retryAfter = r.headers().firstValue("Retry-After").orElse("");
        assertTrue(retryAfter.matches("[1-9][0-9]*"), what + " Retry-After is a delay in seconds: '" + retryAfter + "'");
        JsonNode problem = JSON.readTree(r.body());
        assertEquals(503, problem.path("status").asInt(), what);
        assertFalse(problem.path("title").asText().isEmpty(), what + " has a title");
        assertFalse(r.body().contains("Exception") || r.body().contains("at dev.tenantmq"), what + " leaks no internals");
    }

    private HttpResponse<String> publish(String partitionKey, String... ids) throws IOException, InterruptedException {
        List<Map<String, Object>> messages = new ArrayList<>();
        for (String id : ids) {
            messages.add(Map.of("partitionKey", partitionKey, "id", id, "payload", Map.of("id", id)));
        }
        return post("/tenants/" + TENANT + "/topics/" + TOPIC + "/messages", Map.of("messages", messages));
    }

    /** Fetches until {@code n} messages came (the first fetch registers interest, then the scheduler leases). */
    private List<JsonNode> fetchUntil(String group, int n) {
        List<JsonNode> got = new ArrayList<>();
        await().atMost(Duration.ofSeconds(60)).until(() -> {
            got.addAll(fetch(group, n - got.size()));
            return got.size() >= n;
        });
        return got;
    }

    private List<JsonNode> fetch(String group, int max) throws IOException, InterruptedException {
        HttpResponse<String> r = post(groupPath(group) + "/fetch",
                Map.of("maxMessages", max, "waitSeconds", 1, "visibilitySeconds", VISIBILITY.toSeconds()));
        assertEquals(200, r.statusCode(), r.body());
        List<JsonNode> out = new ArrayList<>();
        JSON.readTree(r.body()).path("messages").forEach(out::add);
        return out;
    }

    private List<String> ack(String group, List<JsonNode> messages) throws IOException, InterruptedException {
        List<String> receipts = messages.stream().map(m -> m.get("receipt").asText()).toList();
        HttpResponse<String> r = post(groupPath(group) + "/ack", Map.of("receipts", receipts));
        assertEquals(200, r.statusCode(), r.body());
        List<String> out = new ArrayList<>();
        JSON.readTree(r.body()).path("results").forEach(x -> out.add(x.get("status").asText()));
        return out;
    }

    private static List<String> ids(List<JsonNode> messages) {
        return messages.stream().map(m -> m.get("id").asText()).toList();
    }

    private static String groupPath(String group) {
        return "/tenants/" + TENANT + "/topics/" + TOPIC + "/consumer-groups/" + group;
    }

    private HttpResponse<String> readiness() throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create(management + "/q/health/ready")).timeout(Duration.ofSeconds(30))
                .GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> post(String path, Object body) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(60))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body))).build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
