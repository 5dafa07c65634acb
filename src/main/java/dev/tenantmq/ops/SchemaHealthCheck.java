package dev.tenantmq.ops;

import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.MigrationInfo;

/**
 * Readiness: the database schema is at the version this build expects (no pending or failed
 * Flyway migration). Database reachability itself is the datasource's own readiness check.
 *
 * <p>Once the schema is found up to date the answer is kept: a running instance's schema only
 * moves forward (a newer build migrating), which this build tolerates. Flyway logs on every
 * call (on MySQL 9.7 a WARN that the version is newer than it was verified with), so the check
 * runs once at start-up, after the migration, and probes ask Flyway only while the schema is not
 * up to date: a Kubernetes probe every few seconds writes no log line.
 */
@Readiness
@ApplicationScoped
public class SchemaHealthCheck implements HealthCheck {
    private final Flyway flyway;
    /** The version found up to date, once it was; null until then. */
    private volatile String upToDate;

    SchemaHealthCheck(Flyway flyway) {
        this.flyway = flyway;
    }

    /** Looks once at start-up, so that the first probe finds the answer kept (see above). */
    void lookAtStartup(@Observes StartupEvent started) {
        call();
    }

    /** Whether the schema was found up to date (kept once it was); no query. For the gauge {@code mq.ready}. */
    public boolean knownUpToDate() {
        return upToDate != null;
    }

    @Override
    public HealthCheckResponse call() {
        String version = upToDate;
        if (version != null) {
            return HealthCheckResponse.named("schema").up().withData("version", version).withData("pending", 0).build();
        }
        try {
            var info = flyway.info();
            MigrationInfo current = info.current();
            int pending = info.pending().length;
            boolean failed = java.util.Arrays.stream(info.all()).anyMatch(m -> m.getState().isFailed());
            boolean ready = pending == 0 && !failed && current != null;
            String found = current != null ? current.getVersion().getVersion() : "none";
            if (ready) {
                upToDate = found;
            }
            return HealthCheckResponse.named("schema")
                    .status(ready)
                    .withData("version", found)
                    .withData("pending", pending)
                    .build();
        } catch (RuntimeException e) {
            return HealthCheckResponse.named("schema").down().withData("error", "database unreachable").build();
        }
    }
}
