package dev.tenantmq.client;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.NullNode;
import dev.tenantmq.client.ConsumerRunnerTest.ScriptedApi;
import dev.tenantmq.client.model.DeliveredMessage;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/**
 * The runner continues each message's trace around the handler (docs/api.md, "Trace context"):
 * the handler runs inside a CONSUMER span whose parent is the message's traceparent.
 */
class ConsumerRunnerTracingTest {
    private static final String TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
    private static final String PUBLISHER_SPAN = "00f067aa0ba902b7";

    private final InMemorySpanExporter spans = InMemorySpanExporter.create();
    private final OpenTelemetrySdk otel = OpenTelemetrySdk.builder()
            .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(spans)).build())
            .build();

    private static DeliveredMessage msg(String key, long offset, String traceparent) {
        return new DeliveredMessage().partitionKey(key).id(key + offset).offset(offset)
                .payload(NullNode.getInstance()).deliveryAttempt(1).receipt("r-" + key + offset)
                .traceparent(traceparent).tracestate(traceparent == null ? null : "congo=t61rcWkgMzE");
    }

    @Test
    void theHandlerRunsInAConsumerSpanWhoseParentIsThePublishersSpan() throws Exception {
        ScriptedApi api = new ScriptedApi(List.of(List.of(
                msg("a", 1, "00-" + TRACE_ID + "-" + PUBLISHER_SPAN + "-01"), msg("b", 2, null))));
        Map<String, String> traceSeenByHandler = new ConcurrentHashMap<>();
        try (ConsumerRunner r = ConsumerRunner.builder(api, "t", "orders", "g").waitSeconds(1).openTelemetry(otel)
                .handler(m -> {
                    traceSeenByHandler.put(m.getId(), Span.current().getSpanContext().getTraceId());
                    if (m.getId().equals("b2")) {
                        throw new IllegalStateException("b is broken");
                    }
                }).build().start()) {
            await().atMost(Duration.ofSeconds(10)).until(() -> r.acked() == 1 && r.nacked() == 1);
        }
        List<SpanData> finished = spans.getFinishedSpanItems();
        assertEquals(2, finished.size(), finished.toString());
        SpanData traced = finished.get(0);
        assertEquals("process", traced.getName());
        assertEquals(SpanKind.CONSUMER, traced.getKind());
        assertEquals(TRACE_ID, traced.getTraceId());
        assertEquals(PUBLISHER_SPAN, traced.getParentSpanId());
        assertEquals("t61rcWkgMzE", traced.getSpanContext().getTraceState().get("congo"), "the tracestate goes with it");
        assertEquals(TRACE_ID, traceSeenByHandler.get("a1"), "the span is current while the handler runs");
        assertEquals("orders", traced.getAttributes().get(AttributeKey.stringKey("messaging.destination.name")));
        assertEquals("g", traced.getAttributes().get(AttributeKey.stringKey("messaging.consumer.group.name")));
        for (var key : traced.getAttributes().asMap().keySet()) {
            assertFalse(key.getKey().contains("message.id") || key.getKey().contains("key"), "bounded: " + key);
        }

        SpanData untraced = finished.get(1);
        assertNotEquals(TRACE_ID, untraced.getTraceId(), "a message without trace context starts a new trace");
        assertFalse(untraced.getParentSpanContext().isValid());
        assertEquals(StatusCode.ERROR, untraced.getStatus().getStatusCode());
        assertEquals(IllegalStateException.class.getName(),
                untraced.getAttributes().get(AttributeKey.stringKey("error.type")));
    }

    @Test
    void withTracingOffTheHandlerRunsOutsideAnySpan() throws Exception {
        ScriptedApi api = new ScriptedApi(List.of(List.of(msg("a", 1, "00-" + TRACE_ID + "-" + PUBLISHER_SPAN + "-01"))));
        try (ConsumerRunner r = ConsumerRunner.builder(api, "t", "orders", "g").waitSeconds(1).openTelemetry(otel)
                .tracing(false).handler(m -> assertFalse(Span.current().getSpanContext().isValid())).build().start()) {
            await().atMost(Duration.ofSeconds(10)).until(() -> r.acked() == 1);
        }
        assertTrue(spans.getFinishedSpanItems().isEmpty());
    }
}
