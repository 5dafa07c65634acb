package dev.tenantmq.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tenantmq.config.MqConfig.Auth.Mode;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** mq.auth.mode=none only on loopback; jwt only with key, issuer and audience (docs/security.md, "Modes"). */
class AuthStartupCheckTest {

    @ParameterizedTest
    @ValueSource(strings = {"127.0.0.1", "127.1.2.3", "localhost", "LOCALHOST", "::1", "[::1]", "0:0:0:0:0:0:0:1"})
    void mode_none_starts_on_a_loopback_host(String host) {
        assertEquals(Optional.empty(), AuthStartupCheck.problem(Mode.NONE, host, false, false, false));
    }

    @ParameterizedTest
    @ValueSource(strings = {"0.0.0.0", "::", "10.0.0.5", "192.168.1.1", "mq.example.com", "localhost.evil", ""})
    void mode_none_refuses_any_other_host_saying_why_and_what_to_set(String host) {
        Optional<String> p = AuthStartupCheck.problem(Mode.NONE, host, false, false, false);
        assertTrue(p.isPresent(), host);
        assertTrue(p.get().contains("quarkus.http.host is '" + host + "'"), p.get());
        assertTrue(p.get().contains("MQ_AUTH_MODE=jwt") && p.get().contains("MP_JWT_VERIFY_PUBLICKEY_LOCATION"), p.get());
    }

    @Test
    void mode_jwt_starts_on_any_host_when_key_issuer_and_audience_are_set() {
        assertEquals(Optional.empty(), AuthStartupCheck.problem(Mode.JWT, "0.0.0.0", true, true, true));
        assertEquals(Optional.empty(), AuthStartupCheck.problem(Mode.JWT, "127.0.0.1", true, true, true));
    }

    @Test
    void mode_jwt_names_each_missing_verification_setting() {
        String p = AuthStartupCheck.problem(Mode.JWT, "0.0.0.0", false, true, true).orElseThrow();
        assertTrue(p.contains("mp.jwt.verify.publickey.location") && !p.contains("issuer ("), p);
        p = AuthStartupCheck.problem(Mode.JWT, "0.0.0.0", true, false, true).orElseThrow();
        assertTrue(p.contains("mp.jwt.verify.issuer") && !p.contains("publickey.location ("), p);
        p = AuthStartupCheck.problem(Mode.JWT, "0.0.0.0", true, true, false).orElseThrow();
        assertTrue(p.contains("mp.jwt.verify.audiences"), p);
    }

    @Test
    void only_literal_loopback_addresses_count() {
        assertFalse(AuthStartupCheck.isLoopback(null));
        assertFalse(AuthStartupCheck.isLoopback("128.0.0.1"));
        assertTrue(AuthStartupCheck.isLoopback(" 127.0.0.1 "));
    }
}
