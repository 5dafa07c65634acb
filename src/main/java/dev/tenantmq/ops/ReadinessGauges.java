package dev.tenantmq.ops;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.util.function.BooleanSupplier;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/**
 * The gauge {@code mq.ready{check}}: 1 or 0 for each part of readiness ({@code /q/health/ready}),
 * so Prometheus can alert on readiness, which its {@code up} metric (the scrape worked) does not
 * show. Each value comes from memory, never from a query at scrape time: {@code scheduler} from
 * the scheduler health check (last tick at most five intervals old), {@code schema} from the
 * schema check's start-up answer kept once up to date, {@code database} from the last queue-gauge
 * refresh of every served tenant (one statement each per {@code mq.metrics.refresh-interval}, a
 * tenant whose refresh took long less often; a failed refresh is retried at the next interval), as
 * the scheduler publishes it in {@link SchedulerStatus}.
 */
@ApplicationScoped
public class ReadinessGauges {
    private final MeterRegistry registry;
    private final SchedulerHealthCheck scheduler;
    private final SchemaHealthCheck schema;
    private final SchedulerStatus status;

    ReadinessGauges(MeterRegistry registry, @Readiness SchedulerHealthCheck scheduler, @Readiness SchemaHealthCheck schema,
                    SchedulerStatus status) {
        this.registry = registry;
        this.scheduler = scheduler;
        this.schema = schema;
        this.status = status;
    }

    void register(@Observes StartupEvent started) {
        gauge("scheduler", () -> scheduler.call().getStatus() == HealthCheckResponse.Status.UP);
        gauge("schema", schema::knownUpToDate);
        gauge("database", status::databaseReachable);
    }

    private void gauge(String check, BooleanSupplier up) {
        Gauge.builder("mq.ready", () -> up.getAsBoolean() ? 1 : 0)
                .description("1 when this part of readiness (/q/health/ready) holds, from memory: scheduler ticking,"
                        + " schema up to date, database reached by the last queue-gauge refresh of every served tenant")
                .tags("check", check)
                .strongReference(true)
                .register(registry);
    }
}
