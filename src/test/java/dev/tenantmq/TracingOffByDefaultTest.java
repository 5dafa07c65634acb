package dev.tenantmq;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Without configuration the OpenTelemetry SDK is off (docs/operations.md, "Traces"): no span is
 * recorded, while the trace context of a publish is still stored and delivered.
 */
@QuarkusTest
class TracingOffByDefaultTest {
    private final String tenant = TestIds.tenant();
    private final String topic = TestIds.topic();

    @Inject
    InMemorySpanExporter spans;

    @Test
    void the_trace_context_is_delivered_and_no_span_is_recorded_by_default() {
        String traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
        given().contentType(ContentType.JSON).header("traceparent", traceparent)
                .body(Map.of("messages", List.of(Api.msg("k", "a", 1))))
                .post("/tenants/{t}/topics/{topic}/messages", tenant, topic).then().statusCode(201);
        String delivered = given().contentType(ContentType.JSON).body(Map.of("maxMessages", 10, "waitSeconds", 5))
                .post("/tenants/{t}/topics/{topic}/consumer-groups/{g}/fetch", tenant, topic, TestIds.group())
                .then().statusCode(200).extract().jsonPath().getString("messages[0].traceparent");
        assertEquals(traceparent, delivered);
        assertTrue(spans.getFinishedSpanItems().stream()
                        .noneMatch(s -> tenant.equals(s.getAttributes().get(AttributeKey.stringKey("tenantmq.tenant")))),
                "no span while the SDK is disabled");
        assertEquals(List.of(), spans.getFinishedSpanItems().stream().map(s -> s.getName()).toList());
    }
}
