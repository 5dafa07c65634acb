package dev.tenantmq;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.quarkus.test.junit.QuarkusTest;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;

/**
 * Health probes are quiet: Kubernetes calls them every few seconds, so a probe that logs fills
 * the logs with thousands of lines a day (issues "rough edges" and "sidecar").
 */
@QuarkusTest
class HealthProbeTest {
    @Test
    void readiness_and_liveness_probes_write_no_log_line() {
        given().get("/q/health/ready").then().statusCode(200).body("status", equalTo("UP"));
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
        try {
            for (int i = 0; i < 5; i++) {
                given().get("/q/health/ready").then().statusCode(200).body("checks.find { it.name == 'schema' }.status",
                        equalTo("UP"));
                given().get("/q/health/live").then().statusCode(200);
            }
        } finally {
            root.removeHandler(capture);
        }
        assertEquals(List.of(), logged.stream().filter(l -> !l.contains("LeaseScheduler") && !l.contains("RetentionJob"))
                .toList(), "log lines written while probes ran");
    }
}
