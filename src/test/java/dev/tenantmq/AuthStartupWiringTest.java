package dev.tenantmq;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.quarkus.test.junit.main.LaunchResult;
import io.quarkus.test.junit.main.QuarkusMainLauncher;
import io.quarkus.test.junit.main.QuarkusMainTest;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The refuse-to-start rule is wired (docs/security.md, "Modes"; the rule itself is
 * {@code AuthStartupCheckTest}): the whole application, with mq.auth.mode=none and
 * quarkus.http.host=0.0.0.0, exits at start-up with the reason and what to set. A service that
 * started anyway would not exit, so the launch has a bound of 3 minutes instead of hanging.
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
    void mode_none_on_every_interface_refuses_to_start_saying_why(QuarkusMainLauncher launcher) {
        // A service that started anyway would wait for a shutdown signal: fail after a bound instead of hanging.
        LaunchResult result = assertTimeoutPreemptively(Duration.ofMinutes(3), () -> launcher.launch());
        String output = result.getOutput() + result.getErrorOutput();
        assertEquals(1, result.exitCode(), output);
        assertTrue(output.contains("mq.auth.mode=none (no authentication) is allowed only when the API listens on a"
                + " loopback address, but quarkus.http.host is '0.0.0.0'"), output);
        assertTrue(output.contains("MQ_AUTH_MODE=jwt"), output);
    }
}
