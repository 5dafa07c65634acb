package dev.tenantmq.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tenantmq.LogCapture;
import io.quarkus.runtime.StartupEvent;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.util.List;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;

/**
 * The schema readiness check is quiet from the first probe of a started instance (docs/operations.md, "Health,
 * metrics and the management port": no probe writes a log line): until it keeps an up-to-date answer it asks Flyway, which logs on
 * every call (the database URL at INFO; on MySQL 9.7 a WARN about the version). A fresh check,
 * started as the application starts it, so no earlier probe of the shared test application has
 * warmed it.
 */
@QuarkusTest
class SchemaHealthCheckTest {
    @Inject
    Flyway flyway;

    @Test
    void the_first_probe_after_start_up_writes_no_log_line() {
        SchemaHealthCheck check = new SchemaHealthCheck(flyway);
        check.lookAtStartup(new StartupEvent());
        HealthCheckResponse first;
        List<String> logged;
        try (LogCapture capture = LogCapture.start()) {
            first = check.call();
            logged = capture.lines();
        }
        assertEquals(HealthCheckResponse.Status.UP, first.getStatus());
        assertEquals(List.of(), logged, "log lines written by the first probe's schema check");
    }
}
