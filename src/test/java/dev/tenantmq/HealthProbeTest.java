package dev.tenantmq;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import java.net.URL;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Health probes are quiet and live on the management interface: Kubernetes calls them every
 * few seconds, so a probe that logs fills the logs with thousands of lines a day (docs/operations.md,
 * "Health, metrics and the management port"), and a sidecar binds the API to 127.0.0.1 while the kubelet
 * reaches the probes on the pod IP (management port).
 */
@QuarkusTest
class HealthProbeTest {
    /** Probes per endpoint: about a minute of a Kubernetes probe every few seconds. */
    private static final int PROBES = 20;

    @TestHTTPResource(value = "/health/ready", management = true)
    URL ready;

    @TestHTTPResource(value = "/health/live", management = true)
    URL live;

    @TestHTTPResource(value = "/health/started", management = true)
    URL started;

    @TestHTTPResource("/")
    URL api;

    @Test
    void probes_are_served_on_the_management_port_and_not_on_the_api_port() {
        assertNotEquals(api.getPort(), ready.getPort(), "management and API ports");
        given().get(ready).then().statusCode(200).body("status", equalTo("UP"));
        given().get("/q/health/ready").then().statusCode(404);
        given().get("/q/metrics").then().statusCode(404);
    }

    @Test
    void startup_readiness_and_liveness_probes_write_no_log_line() {
        given().get(ready).then().statusCode(200).body("status", equalTo("UP"));
        List<String> logged;
        try (LogCapture capture = LogCapture.start()) {
            for (int i = 0; i < PROBES; i++) {
                given().get(ready).then().statusCode(200).body("checks.find { it.name == 'schema' }.status", equalTo("UP"));
                given().get(live).then().statusCode(200);
                given().get(started).then().statusCode(200);
            }
            logged = capture.lines();
        }
        // The scheduler and retention log on their own timers, not because of a probe.
        assertEquals(List.of(), logged.stream().filter(l -> !l.contains("LeaseScheduler") && !l.contains("RetentionJob"))
                .toList(), "log lines written while probes ran");
    }
}
