package dev.tenantmq.ops;

import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.MigrationInfo;

/**
 * Readiness: the database schema is at the version this build expects (no pending or failed
 * Flyway migration). Database reachability itself is the datasource's own readiness check.
 */
@Readiness
@ApplicationScoped
public class SchemaHealthCheck implements HealthCheck {
    private final Flyway flyway;

    SchemaHealthCheck(Flyway flyway) {
        this.flyway = flyway;
    }

    @Override
    public HealthCheckResponse call() {
        try {
            var info = flyway.info();
            MigrationInfo current = info.current();
            int pending = info.pending().length;
            boolean failed = java.util.Arrays.stream(info.all()).anyMatch(m -> m.getState().isFailed());
            return HealthCheckResponse.named("schema")
                    .status(pending == 0 && !failed && current != null)
                    .withData("version", current != null ? current.getVersion().getVersion() : "none")
                    .withData("pending", pending)
                    .build();
        } catch (RuntimeException e) {
            return HealthCheckResponse.named("schema").down().withData("error", "database unreachable").build();
        }
    }
}
