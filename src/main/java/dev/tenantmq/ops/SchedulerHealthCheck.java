package dev.tenantmq.ops;

import dev.tenantmq.config.MqConfig;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/**
 * Readiness: the lease scheduler is ticking (its last tick, as it publishes it in
 * {@link SchedulerStatus}, is at most five intervals old). Before the first tick the process is
 * given five intervals from start-up.
 */
@Readiness
@ApplicationScoped
public class SchedulerHealthCheck implements HealthCheck {
    private final SchedulerStatus status;
    private final MqConfig config;
    private final Clock clock;
    private final Instant started;

    SchedulerHealthCheck(SchedulerStatus status, MqConfig config, Clock clock) {
        this.status = status;
        this.config = config;
        this.clock = clock;
        this.started = clock.instant();
    }

    @Override
    public HealthCheckResponse call() {
        Instant last = status.lastTick();
        Duration allowed = config.tickInterval().multipliedBy(5);
        Instant reference = last != null ? last : started;
        boolean ticking = Duration.between(reference, clock.instant()).compareTo(allowed) <= 0;
        return HealthCheckResponse.named("scheduler")
                .status(ticking)
                .withData("lastTick", last != null ? last.toString() : "none yet")
                .build();
    }
}
