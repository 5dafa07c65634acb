package dev.tenantmq.client;

import dev.tenantmq.client.model.DeliveredMessage;

/**
 * How the {@link ConsumerRunner} traces the handling of one message (docs/api.md, "Trace
 * context"). The OpenTelemetry API is an optional dependency of this client: only
 * {@link OpenTelemetryTracing} names its classes, and it is loaded only when the API is on the
 * class path, so the runner works without it.
 */
interface MessageTracing {
    /** One message's handling; {@link #close()} ends it. */
    interface Handling extends AutoCloseable {
        /** The handler threw: the span is marked failed. */
        void failed(Throwable failure);

        @Override
        void close();
    }

    /** Starts the handling of {@code message}, current on this thread until closed. */
    Handling start(DeliveredMessage message);

    /** Traces nothing. */
    MessageTracing NONE = message -> new Handling() {
        @Override
        public void failed(Throwable failure) {}

        @Override
        public void close() {}
    };

    /**
     * Tracing with the given {@code io.opentelemetry.api.OpenTelemetry} (null: the global one,
     * which the OpenTelemetry Java agent or SDK autoconfiguration registers), or {@link #NONE}
     * when the OpenTelemetry API is not on the class path.
     */
    static MessageTracing of(Object openTelemetry, String tenant, String topic, String consumerGroup) {
        if (openTelemetry == null && !apiPresent()) {
            return NONE;
        }
        return new OpenTelemetryTracing(openTelemetry, tenant, topic, consumerGroup);
    }

    /** Whether the OpenTelemetry API can be loaded. */
    static boolean apiPresent() {
        try {
            Class.forName("io.opentelemetry.api.GlobalOpenTelemetry", false, MessageTracing.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }
}
