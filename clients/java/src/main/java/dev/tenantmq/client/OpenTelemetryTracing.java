package dev.tenantmq.client;

import dev.tenantmq.client.model.DeliveredMessage;
import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.TextMapGetter;
import java.util.HashMap;
import java.util.Map;

/**
 * The consumer span of one message: a child of the span that published it (the message's
 * {@code traceparent} and {@code tracestate}), current while the handler runs, so the handler's
 * own spans and calls continue the publisher's trace. A message without trace context starts a
 * new trace under the thread's current context. Attributes follow the messaging semantic
 * conventions and stay bounded: no partition key, message id or receipt.
 */
final class OpenTelemetryTracing implements MessageTracing {
    private static final AttributeKey<String> SYSTEM = AttributeKey.stringKey("messaging.system");
    private static final AttributeKey<String> OPERATION_NAME = AttributeKey.stringKey("messaging.operation.name");
    private static final AttributeKey<String> OPERATION_TYPE = AttributeKey.stringKey("messaging.operation.type");
    private static final AttributeKey<String> DESTINATION = AttributeKey.stringKey("messaging.destination.name");
    private static final AttributeKey<String> CONSUMER_GROUP = AttributeKey.stringKey("messaging.consumer.group.name");
    private static final AttributeKey<String> TENANT = AttributeKey.stringKey("tenantmq.tenant");
    private static final AttributeKey<String> ERROR_TYPE = AttributeKey.stringKey("error.type");

    private final Object openTelemetry;
    private final String tenant;
    private final String topic;
    private final String consumerGroup;

    /** @param openTelemetry an {@link OpenTelemetry}, or null for {@link GlobalOpenTelemetry} (read on each message) */
    OpenTelemetryTracing(Object openTelemetry, String tenant, String topic, String consumerGroup) {
        this.openTelemetry = openTelemetry;
        this.tenant = tenant;
        this.topic = topic;
        this.consumerGroup = consumerGroup;
    }

    @Override
    public Handling start(DeliveredMessage message) {
        OpenTelemetry otel = openTelemetry == null ? GlobalOpenTelemetry.get() : (OpenTelemetry) openTelemetry;
        Tracer tracer = otel.getTracer("dev.tenantmq.client");
        Context parent = Context.current();
        if (message.getTraceparent() != null) {
            Map<String, String> carrier = new HashMap<>();
            carrier.put("traceparent", message.getTraceparent());
            if (message.getTracestate() != null) {
                carrier.put("tracestate", message.getTracestate());
            }
            parent = W3CTraceContextPropagator.getInstance().extract(parent, carrier, GETTER);
        }
        Span span = tracer.spanBuilder("process")
                .setParent(parent)
                .setSpanKind(SpanKind.CONSUMER)
                .setAttribute(SYSTEM, "tenant-mq")
                .setAttribute(OPERATION_NAME, "process")
                .setAttribute(OPERATION_TYPE, "process")
                .setAttribute(TENANT, tenant)
                .setAttribute(DESTINATION, topic)
                .setAttribute(CONSUMER_GROUP, consumerGroup)
                .startSpan();
        Scope scope = span.makeCurrent();
        return new Handling() {
            @Override
            public void failed(Throwable failure) {
                span.setStatus(StatusCode.ERROR);
                span.setAttribute(ERROR_TYPE, failure.getClass().getName());
            }

            @Override
            public void close() {
                scope.close();
                span.end();
            }
        };
    }

    private static final TextMapGetter<Map<String, String>> GETTER = new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(Map<String, String> carrier) {
            return carrier.keySet();
        }

        @Override
        public String get(Map<String, String> carrier, String key) {
            return carrier == null ? null : carrier.get(key);
        }
    };
}
