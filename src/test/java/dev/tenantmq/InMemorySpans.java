package dev.tenantmq;

import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

/**
 * The span exporter of the tests: Quarkus exports to every {@code SpanExporter} bean
 * ({@code quarkus.otel.traces.exporter=cdi}), and the test profile builds no OTLP exporter. Spans
 * reach it only where a test turns the SDK on ({@link TraceContextTest}); it is off by default.
 */
public class InMemorySpans {
    @Produces
    @Singleton
    InMemorySpanExporter inMemorySpanExporter() {
        return InMemorySpanExporter.create();
    }
}
