package dev.tenantmq;

import static io.restassured.RestAssured.given;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import java.util.List;
import java.util.Map;

/** Small REST Assured helpers for the queue API, used by the HTTP tests. */
public final class Api {
    /** Reads answers into the typed views ({@link Published}, {@link Delivered}). */
    private static final ObjectMapper JSON = JsonMapper.builder()
            // As strict as the casts it replaces: 2.0 or "2" is no integer, null no number.
            .disable(MapperFeature.ALLOW_COERCION_OF_SCALARS)
            .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
            .build();

    private Api() {}

    /** POSTs a publish body and returns the raw response. */
    public static Response publish(String tenant, String topic, Object body) {
        return given().contentType(ContentType.JSON).body(body)
                .post("/tenants/{t}/topics/{topic}/messages", tenant, topic);
    }

    /** Publishes messages of the form {partitionKey, id, payload}; asserts 201. */
    public static Published publishOk(String tenant, String topic, List<Map<String, Object>> messages) {
        return read(publish(tenant, topic, Map.of("messages", messages)).then().statusCode(201).extract().asString(),
                Published.class);
    }

    /**
     * Publishes one message to each of {@code keys}, then fetches (up to 100, waiting 1 s) and acks
     * until every one was delivered: the first fetches register the group and lease the
     * partitions, so afterwards this process leases them all and the group has nothing in flight.
     */
    public static void seedAndDrain(String tenant, String topic, String group, List<String> keys) {
        List<Map<String, Object>> seed = new java.util.ArrayList<>();
        for (int i = 0; i < keys.size(); i++) {
            seed.add(msg(keys.get(i), "seed-" + keys.get(i), i));
        }
        publishOk(tenant, topic, seed);
        java.util.Set<String> seen = new java.util.HashSet<>();
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(60)).until(() -> {
            List<Delivered> got = fetchOk(tenant, topic, group, Fetch.upTo(100).waitSeconds(1));
            if (!got.isEmpty()) {
                ack(tenant, topic, group, Delivered.receipts(got));
            }
            seen.addAll(Delivered.ids(got));
            return seen.size() == keys.size();
        });
    }

    /** A message map. */
    public static Map<String, Object> msg(String partitionKey, String id, Object payload) {
        return Map.of("partitionKey", partitionKey, "id", id, "payload", payload);
    }

    /** POSTs a fetch and returns the raw response. */
    public static Response fetch(String tenant, String topic, String group, Map<String, Object> body) {
        return given().contentType(ContentType.JSON).body(body)
                .post("/tenants/{t}/topics/{topic}/consumer-groups/{g}/fetch", tenant, topic, group);
    }

    /** Fetches and returns the messages, in delivery order; asserts 200. */
    public static List<Delivered> fetchOk(String tenant, String topic, String group, Fetch request) {
        return read(fetch(tenant, topic, group, request.body()).then().statusCode(200).extract().asString(),
                FetchAnswer.class).messages();
    }

    /**
     * Fetches carrying the ack of {@code receipts} (docs/api.md, "Fetch and ack in one call");
     * asserts 200.
     */
    public static AckingAnswer fetchAcking(String tenant, String topic, String group, Fetch request,
                                           List<String> receipts) {
        Map<String, Object> body = new java.util.HashMap<>(request.body());
        body.put("ack", List.copyOf(receipts));
        return read(fetch(tenant, topic, group, body).then().statusCode(200).extract().asString(), AckingAnswer.class);
    }

    /** A fetch answer with the results of the acks the fetch carried, each {@code receipt} and {@code status}. */
    @com.fasterxml.jackson.annotation.JsonIgnoreProperties(ignoreUnknown = true)
    public record AckingAnswer(List<Delivered> messages, List<Map<String, String>> ackResults) {
        /** The ack statuses, in the order of the receipts. */
        public List<String> statuses() {
            return ackResults.stream().map(r -> r.get("status")).toList();
        }
    }

    /** Acks receipts and returns the statuses in order; asserts 200. */
    public static List<String> ack(String tenant, String topic, String group, List<String> receipts) {
        return given().contentType(ContentType.JSON).body(Map.of("receipts", receipts))
                .post("/tenants/{t}/topics/{topic}/consumer-groups/{g}/ack", tenant, topic, group)
                .then().statusCode(200).extract().jsonPath().getList("results.status");
    }

    /** Nacks receipts (delaySeconds null means backoff) and returns the statuses in order; asserts 200. */
    public static List<String> nack(String tenant, String topic, String group, List<String> receipts, Integer delaySeconds,
                                    String reason) {
        Map<String, Object> body = new java.util.HashMap<>();
        body.put("receipts", receipts);
        if (delaySeconds != null) {
            body.put("delaySeconds", delaySeconds);
        }
        if (reason != null) {
            body.put("reason", reason);
        }
        return given().contentType(ContentType.JSON).body(body)
                .post("/tenants/{t}/topics/{topic}/consumer-groups/{g}/nack", tenant, topic, group)
                .then().statusCode(200).extract().jsonPath().getList("results.status");
    }

    /** A fetch answer (openapi.yaml {@code FetchResponse}). */
    @com.fasterxml.jackson.annotation.JsonIgnoreProperties(ignoreUnknown = true)
    record FetchAnswer(List<Delivered> messages) {}

    private static <T> T read(String json, Class<T> type) {
        try {
            return JSON.readValue(json, type);
        } catch (JsonProcessingException e) {
            throw new AssertionError("not a " + type.getSimpleName() + ": " + json, e);
        }
    }
}
