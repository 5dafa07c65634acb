package dev.tenantmq.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;

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
 * The schema readiness check is quiet from its very first call (issue 9, "No probe writes a log
 * line"): before it caches an up-to-date schema it asks Flyway, whose executor logs the database
 * it talks to on every call. A fresh check, so no earlier probe of the shared test application
 * has warmed it.
 */
@QuarkusTest
class SchemaHealthCheckTest {
    @Inject
    Flyway flyway;

    @Test
    void the_first_call_of_a_fresh_check_writes_no_log_line() {
        SchemaHealthCheck check = new SchemaHealthCheck(flyway);
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
        assertEquals(List.of(), logged, "log lines written by the first schema check");
    }
}
