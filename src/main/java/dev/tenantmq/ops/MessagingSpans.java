package dev.tenantmq.ops;

import dev.tenantmq.model.TraceContext;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.TracerProvider;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The service's spans of publish, fetch and ack (docs/operations.md, "Traces"): children of the
 * HTTP server span, which continues the request's {@code traceparent}. Their attributes are
 * bounded, as metric labels are: the messaging semantic conventions' system, operation,
 * destination (the topic) and consumer group, the tenant, and a message count; never a partition
 * key, a message id, a receipt or an error message (which may quote them). Span names are the
 * operation alone ({@code publish}, {@code fetch}, {@code ack}): a topic is a caller's name, and
 * the conventions leave it out of the name when it is not of low cardinality.
 *
 * <p>With the OpenTelemetry SDK disabled ({@code quarkus.otel.sdk.disabled=true}, the default)
 * the tracer is the API's no-op one: a span costs a method call and nothing is recorded.
 */
@ApplicationScoped
public class MessagingSpans {
    /** {@code messaging.system}: this queue, by the conventions' rule for systems they do not list. */
    public static final String SYSTEM = "tenant-mq";

    static final AttributeKey<String> MESSAGING_SYSTEM = AttributeKey.stringKey("messaging.system");
    static final AttributeKey<String> OPERATION_NAME = AttributeKey.stringKey("messaging.operation.name");
    static final AttributeKey<String> OPERATION_TYPE = AttributeKey.stringKey("messaging.operation.type");
    static final AttributeKey<String> DESTINATION = AttributeKey.stringKey("messaging.destination.name");
    static final AttributeKey<String> CONSUMER_GROUP = AttributeKey.stringKey("messaging.consumer.group.name");
    static final AttributeKey<Long> MESSAGE_COUNT = AttributeKey.longKey("messaging.batch.message_count");
    /** The tenant: no convention names it, so it has this service's namespace. */
    static final AttributeKey<String> TENANT = AttributeKey.stringKey("tenantmq.tenant");
    /** The failure's exception class (the conventions' {@code error.type}); never its message. */
    static final AttributeKey<String> ERROR_TYPE = AttributeKey.stringKey("error.type");

    /** The traced operations, with the conventions' operation type of each. */
    public enum Operation {
        PUBLISH("publish", "send"),
        FETCH("fetch", "receive"),
        ACK("ack", "settle");

        private final String spanName;
        private final String type;

        Operation(String spanName, String type) {
            this.spanName = spanName;
            this.type = type;
        }
    }

    private final Tracer tracer;

    MessagingSpans(OpenTelemetry openTelemetry, @ConfigProperty(name = "quarkus.otel.sdk.disabled") boolean disabled) {
        this.tracer = disabled ? TracerProvider.noop().get("dev.tenantmq")
                : openTelemetry.getTracer("dev.tenantmq");
    }

    /**
     * Starts the span of one operation, a child of the current context (the HTTP server span).
     *
     * @param tenant the validated tenant
     * @param topic the validated topic
     * @param consumerGroup the validated consumer group, or null for publish
     * @return the running span; end it with {@link Traced#end()}
     */
    public Traced start(Operation op, String tenant, String topic, String consumerGroup) {
        var builder = tracer.spanBuilder(op.spanName)
                .setSpanKind(SpanKind.INTERNAL)
                .setAttribute(MESSAGING_SYSTEM, SYSTEM)
                .setAttribute(OPERATION_NAME, op.spanName)
                .setAttribute(OPERATION_TYPE, op.type)
                .setAttribute(TENANT, tenant)
                .setAttribute(DESTINATION, topic);
        if (consumerGroup != null) {
            builder.setAttribute(CONSUMER_GROUP, consumerGroup);
        }
        return new Traced(builder.startSpan());
    }

    /** A running span of {@link #start}. */
    public static final class Traced {
        private final Span span;

        private Traced(Span span) {
            this.span = span;
        }

        /** Records how many messages the operation handled (published, delivered or settled). */
        public void messages(int count) {
            span.setAttribute(MESSAGE_COUNT, (long) count);
        }

        /**
         * Links the span to the trace each delivered message was published in (the conventions'
         * links of a receive span); messages without trace context add none.
         */
        public void linkTo(Collection<TraceContext> published) {
            if (!span.isRecording()) {
                return;
            }
            for (TraceContext t : published) {
                if (t != null) {
                    SpanContext remote = remote(t);
                    if (remote.isValid()) {
                        span.addLink(remote);
                    }
                }
            }
        }

        /** Marks the span failed with the exception's class; its message may name a key or an id. */
        public void failed(Throwable error) {
            span.setStatus(StatusCode.ERROR);
            span.setAttribute(ERROR_TYPE, error.getClass().getName());
        }

        /** Ends the span. */
        public void end() {
            span.end();
        }
    }

    /** The span context a stored trace context names, parsed by the API's W3C propagator. */
    static SpanContext remote(TraceContext t) {
        Map<String, String> headers = t.tracestate() == null ? Map.of("traceparent", t.traceparent())
                : Map.of("traceparent", t.traceparent(), "tracestate", t.tracestate());
        Context extracted = W3CTraceContextPropagator.getInstance().extract(Context.root(), headers, MAP_GETTER);
        return Span.fromContext(extracted).getSpanContext();
    }

    private static final TextMapGetter<Map<String, String>> MAP_GETTER = new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(Map<String, String> carrier) {
            return carrier.keySet();
        }

        @Override
        public String get(Map<String, String> carrier, String key) {
            return carrier == null ? null : carrier.get(key);
        }
    };

    /** The attribute keys a span of this class may carry: what a test holds them to. */
    public static List<String> attributeKeys() {
        return List.of(MESSAGING_SYSTEM.getKey(), OPERATION_NAME.getKey(), OPERATION_TYPE.getKey(), DESTINATION.getKey(),
                CONSUMER_GROUP.getKey(), MESSAGE_COUNT.getKey(), TENANT.getKey(), ERROR_TYPE.getKey());
    }
}
