package dev.tenantmq.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.quarkus.runtime.StartupEvent;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;

/**
 * The schema readiness check is quiet from the first probe of a started instance (issue 9, "No
 * probe writes a log line"): until it keeps an up-to-date answer it asks Flyway, which logs on
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
        List<String> logged = new CopyOnWriteArrayList<>();
        Handler capture = new Handler() {
            @Override
            public void publish(LogRecord r) {
                if (r.getLevel().intValue() >= Level.INFO.intValue()) {
                    logged.add(r.getLoggerName() + " " + r.getLevel() + " " + r.getMessage());
                }
            }

            @Override
            public void flush() {}

            @Override
            public void close() {}
        };
        Logger root = Logger.getLogger("");
        root.addHandler(capture);
        HealthCheckResponse first;
        try {
            first = check.call();
        } finally {
            root.removeHandler(capture);
        }
        assertEquals(HealthCheckResponse.Status.UP, first.getStatus());
        assertEquals(List.of(), logged, "log lines written by the first probe's schema check");
    }
}
