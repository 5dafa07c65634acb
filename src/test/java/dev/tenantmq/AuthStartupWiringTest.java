package dev.tenantmq;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.quarkus.test.junit.main.Launch;
import io.quarkus.test.junit.main.LaunchResult;
import io.quarkus.test.junit.main.QuarkusMainTest;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The refuse-to-start rule is wired (issue 13, "Modes"; the rule itself is
 * {@code AuthStartupCheckTest}): the whole application, with mq.auth.mode=none and
 * quarkus.http.host=0.0.0.0, exits at start-up with the reason and what to set. A service that
 * started anyway would not exit, so the test has a time-out instead of hanging.
 */
@QuarkusMainTest
@TestProfile(AuthStartupWiringTest.AllInterfaces.class)
class AuthStartupWiringTest {

    /** The central deployment's host without authentication. */
    public static class AllInterfaces implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("quarkus.http.host", "0.0.0.0", "mq.auth.mode", "none");
        }
    }

    @Test
    @Launch(value = {}, exitCode = 1)
    @Timeout(value = 3, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void mode_none_on_every_interface_refuses_to_start_saying_why(LaunchResult result) {
        String output = result.getOutput() + result.getErrorOutput();
        assertTrue(output.contains("mq.auth.mode=none (no authentication) is allowed only when the API listens on a"
                + " loopback address, but quarkus.http.host is '0.0.0.0'"), output);
        assertTrue(output.contains("MQ_AUTH_MODE=jwt"), output);
    }
}
