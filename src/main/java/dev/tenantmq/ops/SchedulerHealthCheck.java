package dev.tenantmq.ops;

import dev.tenantmq.config.MqConfig;
import dev.tenantmq.scheduler.LeaseScheduler;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/**
 * Readiness: the lease scheduler is ticking (its last tick is at most five intervals old).
 * Before the first tick the process is given five intervals from start-up.
 */
@Readiness
@ApplicationScoped
public class SchedulerHealthCheck implements HealthCheck {
    private final LeaseScheduler scheduler;
    private final MqConfig config;
    private final Clock clock;
    private final Instant started;

    SchedulerHealthCheck(LeaseScheduler scheduler, MqConfig config, Clock clock) {
        this.scheduler = scheduler;
        this.config = config;
        this.clock = clock;
        this.started = clock.instant();
    }

    @Override
    public HealthCheckResponse call() {
        Instant last = scheduler.lastTick();
        Duration allowed = config.tickInterval().multipliedBy(5);
        Instant reference = last != null ? last : started;
        boolean ticking = Duration.between(reference, clock.instant()).compareTo(allowed) <= 0;
        return HealthCheckResponse.named("scheduler")
                .status(ticking)
                .withData("lastTick", last != null ? last.toString() : "none yet")
                .build();
    }
}
