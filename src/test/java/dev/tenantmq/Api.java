package dev.tenantmq;

import static io.restassured.RestAssured.given;

import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import io.restassured.response.Response;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Small REST Assured helpers for the queue API, used by the HTTP tests. */
public final class Api {
    private Api() {}

    /** POSTs a publish body and returns the raw response. */
    public static Response publish(String tenant, String topic, Object body) {
        return given().contentType(ContentType.JSON).body(body)
                .post("/tenants/{t}/topics/{topic}/messages", tenant, topic);
    }

    /** Publishes messages of the form {partitionKey, id, payload}; asserts 201. */
    public static JsonPath publishOk(String tenant, String topic, List<Map<String, Object>> messages) {
        return publish(tenant, topic, Map.of("messages", messages)).then().statusCode(201).extract().jsonPath();
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

    /** Fetches and returns the messages; asserts 200. */
    public static List<Map<String, Object>> fetchOk(String tenant, String topic, String group, int max, int waitSeconds,
                                                    int visibilitySeconds) {
        return fetch(tenant, topic, group, Map.of("maxMessages", max, "waitSeconds", waitSeconds,
                "visibilitySeconds", visibilitySeconds)).then().statusCode(200).extract().jsonPath().getList("messages");
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

    /** Receipts of fetched messages. */
    public static List<String> receipts(List<Map<String, Object>> messages) {
        List<String> out = new ArrayList<>();
        messages.forEach(m -> out.add((String) m.get("receipt")));
        return out;
    }
}
