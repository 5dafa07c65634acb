package dev.tenantmq;

import static dev.tenantmq.Api.msg;
import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tenantmq.ops.MessagingSpans;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.data.LinkData;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import io.restassured.specification.RequestSpecification;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Test;

/**
 * Trace context from publish to consume (docs/api.md, "Trace context"; docs/operations.md,
 * "Traces"): a publish request's {@code traceparent} and {@code tracestate} come back with every
 * delivery of its messages, and the service's spans of publish, fetch and ack continue the
 * callers' traces with bounded attributes. The OpenTelemetry SDK is on for this class only, and
 * spans go to the in-memory exporter ({@link InMemorySpans}).
 */
@QuarkusTest
@TestProfile(TraceContextTest.TracingOn.class)
class TraceContextTest {
    /** The SDK on, as an operator turns it on; the test profile builds no OTLP exporter. */
    public static class TracingOn implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("quarkus.otel.sdk.disabled", "false");
        }
    }

    private static final AttributeKey<String> TENANT = AttributeKey.stringKey("tenantmq.tenant");

    private final String tenant = TestIds.tenant();
    private final String topic = TestIds.topic();
    private final String group = TestIds.group();

    @Inject
    InMemorySpanExporter spans;

    @Test
    void a_publish_with_a_traceparent_is_delivered_with_it_and_its_spans_continue_that_trace() {
        String traceId = hex(16);
        String parentId = hex(8);
        String traceparent = "00-" + traceId + "-" + parentId + "-01";
        publish(Map.of("traceparent", traceparent, "tracestate", "vendor1=opaque,tmq@acme=x"),
                msg("order-1", "evt-1", 1), msg("order-2", "evt-2", 2));

        JsonPath fetched = fetch(Map.of());
        assertEquals(List.of(traceparent, traceparent), fetched.getList("messages.traceparent"));
        assertEquals(List.of("vendor1=opaque,tmq@acme=x", "vendor1=opaque,tmq@acme=x"),
                fetched.getList("messages.tracestate"));
        JsonPath inspected = admin().queryParam("tenant", tenant).queryParam("topic", topic)
                .queryParam("partitionKey", "order-1").queryParam("id", "evt-1")
                .get("/admin/messages").then().statusCode(200).extract().jsonPath();
        assertEquals(traceparent, inspected.getString("traceparent"));
        JsonPath browsed = admin().queryParam("tenant", tenant).queryParam("topic", topic)
                .get("/admin/messages/browse").then().statusCode(200).extract().jsonPath();
        assertEquals(List.of(traceparent, traceparent), browsed.getList("messages.traceparent"));

        // The HTTP server span continues the caller's span; the publish span is its child.
        SpanData server = awaitSpan(s -> s.getKind() == SpanKind.SERVER && s.getTraceId().equals(traceId)
                && s.getParentSpanId().equals(parentId));
        SpanData publish = awaitSpan(s -> s.getName().equals("publish") && s.getTraceId().equals(traceId));
        assertEquals(server.getSpanId(), publish.getParentSpanId());
        assertEquals("POST /tenants/{tenant}/topics/{topic}/messages", server.getName());
        assertEquals(2L, publish.getAttributes().get(AttributeKey.longKey("messaging.batch.message_count")));
        assertEquals(topic, publish.getAttributes().get(AttributeKey.stringKey("messaging.destination.name")));
        assertEquals(tenant, publish.getAttributes().get(TENANT));
        // The fetch span (in the consumer's own trace) links to the trace each message was published in.
        SpanData fetch = awaitSpan(s -> s.getName().equals("fetch") && tenant.equals(s.getAttributes().get(TENANT))
                && topic.equals(s.getAttributes().get(AttributeKey.stringKey("messaging.destination.name"))));
        List<String> linked = fetch.getLinks().stream().map(LinkData::getSpanContext)
                .map(c -> c.getTraceId() + "-" + c.getSpanId()).toList();
        assertEquals(List.of(traceId + "-" + parentId, traceId + "-" + parentId), linked);
        assertEquals(group, fetch.getAttributes().get(AttributeKey.stringKey("messaging.consumer.group.name")));
    }

    @Test
    void the_ack_span_continues_the_trace_of_the_ack_request() {
        publish(Map.of(), msg("k", "a", 1));
        List<String> receipts = fetch(Map.of()).getList("messages.receipt");
        String traceId = hex(16);
        given().contentType(ContentType.JSON).header("traceparent", "00-" + traceId + "-" + hex(8) + "-01")
                .body(Map.of("receipts", receipts))
                .post("/tenants/{t}/topics/{topic}/consumer-groups/{g}/ack", tenant, topic, group)
                .then().statusCode(200);
        SpanData ack = awaitSpan(s -> s.getName().equals("ack") && s.getTraceId().equals(traceId));
        assertEquals(group, ack.getAttributes().get(AttributeKey.stringKey("messaging.consumer.group.name")));
        assertEquals("settle", ack.getAttributes().get(AttributeKey.stringKey("messaging.operation.type")));
        assertEquals(1L, ack.getAttributes().get(AttributeKey.longKey("messaging.batch.message_count")));
    }

    @Test
    void spans_carry_only_bounded_attributes_and_templated_names_never_a_key_an_id_or_a_receipt() {
        String key = "key-" + hex(6);
        String id = "id-" + hex(6);
        publish(Map.of("traceparent", "00-" + hex(16) + "-" + hex(8) + "-01"), msg(key, id, 1));
        JsonPath fetched = fetch(Map.of());
        String receipt = fetched.getString("messages[0].receipt");
        Api.ack(tenant, topic, group, List.of(receipt));
        // A path no resource answers: its server span must not be named after the raw path.
        given().contentType(ContentType.JSON).body("{}")
                .post("/tenants/{t}/topics/{topic}/nothing-here", tenant, topic).then().statusCode(404);
        awaitSpan(s -> s.getName().equals("ack") && tenant.equals(s.getAttributes().get(TENANT))
                && group.equals(s.getAttributes().get(AttributeKey.stringKey("messaging.consumer.group.name"))));
        await().atMost(Duration.ofSeconds(20)).until(() -> spans.getFinishedSpanItems().stream()
                .anyMatch(s -> s.getKind() == SpanKind.SERVER && s.getStatus() != null
                        && "404".equals(String.valueOf(s.getAttributes().get(AttributeKey.longKey("http.response.status_code"))))));

        List<SpanData> all = spans.getFinishedSpanItems();
        List<SpanData> ours = all.stream().filter(s -> List.of("publish", "fetch", "ack").contains(s.getName())
                && tenant.equals(s.getAttributes().get(TENANT)) && topic.equals(
                        s.getAttributes().get(AttributeKey.stringKey("messaging.destination.name")))).toList();
        assertEquals(List.of("publish", "fetch", "ack"), ours.stream().map(SpanData::getName).toList());
        for (SpanData s : ours) {
            for (var attribute : s.getAttributes().asMap().entrySet()) {
                assertTrue(MessagingSpans.attributeKeys().contains(attribute.getKey().getKey()),
                        s.getName() + " carries " + attribute.getKey());
            }
            assertEquals(MessagingSpans.SYSTEM, s.getAttributes().get(AttributeKey.stringKey("messaging.system")));
        }
        for (SpanData s : all) {
            for (String value : List.of(key, id, receipt, topic, group)) {
                assertFalse(s.getName().contains(value), "span name " + s.getName() + " holds " + value);
            }
            for (var attribute : s.getAttributes().asMap().entrySet()) {
                String value = String.valueOf(attribute.getValue());
                for (String secret : List.of(key, id, receipt)) {
                    assertFalse(value.contains(secret), s.getName() + " " + attribute.getKey() + "=" + value);
                }
                assertFalse(attribute.getKey().getKey().startsWith("db."), "a database span: " + s.getName());
            }
            assertTrue(s.getKind() != SpanKind.CLIENT, "no client span (JDBC is not instrumented): " + s.getName());
        }
    }

    @Test
    void a_publish_without_a_traceparent_is_delivered_without_one() {
        publish(Map.of("tracestate", "vendor1=opaque"), msg("k", "a", 1));
        JsonPath fetched = fetch(Map.of());
        assertEquals(1, fetched.getList("messages").size());
        Map<String, Object> message = fetched.getMap("messages[0]");
        assertFalse(message.containsKey("traceparent"), "no traceparent field: " + message);
        assertFalse(message.containsKey("tracestate"), "a tracestate without a traceparent is not kept: " + message);
    }

    @Test
    void an_invalid_traceparent_is_ignored_not_an_error() {
        String traceId = hex(16);
        List<String> invalid = List.of(
                "00-" + traceId.toUpperCase() + "-" + hex(8) + "-01", // uppercase hex
                "00-" + "0".repeat(32) + "-" + hex(8) + "-01", // all-zero trace id
                "00-" + traceId + "-" + "0".repeat(16) + "-01", // all-zero parent id
                "ff-" + traceId + "-" + hex(8) + "-01", // the forbidden version
                "00-" + traceId + "-" + hex(8) + "-01-extra", // version 00 has no more fields
                "00-" + traceId + "-" + hex(8), // no flags
                "not a traceparent");
        for (int i = 0; i < invalid.size(); i++) {
            publish(Map.of("traceparent", invalid.get(i), "tracestate", "vendor1=opaque"), msg("k", "m" + i, i));
        }
        List<Map<String, Object>> got = fetch(Map.of()).getList("messages");
        assertEquals(invalid.size(), got.size());
        for (Map<String, Object> m : got) {
            assertNull(m.get("traceparent"), "ignored: " + m);
            assertNull(m.get("tracestate"), "dropped with its traceparent: " + m);
        }
    }

    @Test
    void a_future_version_is_read_as_version_00_and_an_invalid_tracestate_is_dropped_alone() {
        String traceId = hex(16);
        String parentId = hex(8);
        publish(Map.of("traceparent", "01-" + traceId + "-" + parentId + "-01-future", "tracestate", "Not Valid"),
                msg("k", "a", 1));
        Map<String, Object> m = fetch(Map.of()).getMap("messages[0]");
        assertEquals("00-" + traceId + "-" + parentId + "-01", m.get("traceparent"));
        assertNull(m.get("tracestate"));
    }

    @Test
    void a_dead_letter_keeps_the_trace_context_of_the_message_it_copies() {
        String traceparent = "00-" + hex(16) + "-" + hex(8) + "-01";
        publish(Map.of("traceparent", traceparent), msg("k", "poison", 1));
        for (int attempt = 1; attempt <= 5; attempt++) { // the test profile's mq.max-deliveries
            List<String> receipts = fetch(Map.of()).getList("messages.receipt");
            assertEquals(List.of("NACKED"), Api.nack(tenant, topic, group, receipts, 0, "fails"));
        }
        JsonPath dead = given().contentType(ContentType.JSON).body(Map.of("maxMessages", 10, "waitSeconds", 5))
                .post("/tenants/{t}/topics/{topic}/consumer-groups/{g}/fetch", tenant, topic + ".dlq", TestIds.group())
                .then().statusCode(200).extract().jsonPath();
        assertEquals(List.of("poison"), dead.getList("messages.id"));
        assertEquals(List.of(traceparent), dead.getList("messages.traceparent"));
    }

    private void publish(Map<String, String> headers, Map<String, Object>... messages) {
        given().contentType(ContentType.JSON).headers(headers).body(Map.of("messages", List.of(messages)))
                .post("/tenants/{t}/topics/{topic}/messages", tenant, topic).then().statusCode(201);
    }

    private JsonPath fetch(Map<String, String> headers) {
        return given().contentType(ContentType.JSON).headers(headers)
                .body(Map.of("maxMessages", 100, "waitSeconds", 5))
                .post("/tenants/{t}/topics/{topic}/consumer-groups/{g}/fetch", tenant, topic, group)
                .then().statusCode(200).extract().jsonPath();
    }

    private static RequestSpecification admin() {
        return given().header("Authorization", "Bearer " + AdminTest.TOKEN);
    }

    private SpanData awaitSpan(java.util.function.Predicate<SpanData> which) {
        SpanData[] found = new SpanData[1];
        await().atMost(Duration.ofSeconds(20)).until(() -> {
            found[0] = spans.getFinishedSpanItems().stream().filter(which).findFirst().orElse(null);
            return found[0] != null;
        });
        assertNotNull(found[0]);
        return found[0];
    }

    private static String hex(int bytes) {
        byte[] b = new byte[bytes];
        ThreadLocalRandom.current().nextBytes(b);
        b[0] |= 1; // never all zeros
        return HexFormat.of().formatHex(b);
    }
}
