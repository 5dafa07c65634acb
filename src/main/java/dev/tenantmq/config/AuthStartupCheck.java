package dev.tenantmq.config;

import io.quarkus.runtime.Startup;
import jakarta.enterprise.context.ApplicationScoped;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;
import org.eclipse.microprofile.config.Config;

/**
 * Refuses to start a service that would be open to the network (docs/security.md, "Modes"):
 * {@code mq.auth.mode=none} only on a loopback {@code quarkus.http.host}, and {@code jwt} only
 * with a verification key, an issuer and an audience configured, so that every token is checked
 * for all three. The rule is {@link #problem}, a pure function; this bean applies it at start-up.
 */
@Startup
@ApplicationScoped
public class AuthStartupCheck {
    private static final Pattern IPV4 = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");

    AuthStartupCheck(MqConfig mq, Config config) {
        problem(mq.auth().mode(), config.getOptionalValue("quarkus.http.host", String.class).orElse("0.0.0.0"),
                config.getOptionalValue("mp.jwt.verify.publickey.location", String.class).isPresent()
                        || config.getOptionalValue("mp.jwt.verify.publickey", String.class).isPresent(),
                config.getOptionalValue("mp.jwt.verify.issuer", String.class).isPresent(),
                config.getOptionalValue("mp.jwt.verify.audiences", String.class).isPresent())
                .ifPresent(p -> {
                    throw new IllegalStateException(p);
                });
    }

    /**
     * Why this configuration must not start, or empty when it may.
     *
     * @param host the value of {@code quarkus.http.host}
     * @param key whether {@code mp.jwt.verify.publickey.location} or {@code mp.jwt.verify.publickey} is set
     * @param issuer whether {@code mp.jwt.verify.issuer} is set
     * @param audiences whether {@code mp.jwt.verify.audiences} is set
     */
    public static Optional<String> problem(MqConfig.Auth.Mode mode, String host, boolean key, boolean issuer,
                                           boolean audiences) {
        if (mode == MqConfig.Auth.Mode.NONE) {
            if (isLoopback(host)) {
                return Optional.empty();
            }
            return Optional.of("mq.auth.mode=none (no authentication) is allowed only when the API listens on a"
                    + " loopback address, but quarkus.http.host is '" + host + "', so anyone who reaches the port"
                    + " could publish and consume for every tenant. Set MQ_AUTH_MODE=jwt with"
                    + " MP_JWT_VERIFY_PUBLICKEY_LOCATION (a PEM public key file or a JWKS URL), MP_JWT_VERIFY_ISSUER"
                    + " and MP_JWT_VERIFY_AUDIENCES (docs/security.md), or QUARKUS_HTTP_HOST=127.0.0.1 for a sidecar");
        }
        List<String> missing = new ArrayList<>();
        if (!key) {
            missing.add("mp.jwt.verify.publickey.location (MP_JWT_VERIFY_PUBLICKEY_LOCATION: a PEM public key file"
                    + " or a JWKS URL)");
        }
        if (!issuer) {
            missing.add("mp.jwt.verify.issuer (MP_JWT_VERIFY_ISSUER)");
        }
        if (!audiences) {
            missing.add("mp.jwt.verify.audiences (MP_JWT_VERIFY_AUDIENCES)");
        }
        return missing.isEmpty() ? Optional.empty()
                : Optional.of("mq.auth.mode=jwt needs " + String.join(", ", missing)
                        + ": without them tokens could not be verified for their signer, issuer and audience"
                        + " (docs/security.md)");
    }

    /**
     * True for {@code localhost} and literal loopback addresses (127.0.0.0/8, {@code ::1}).
     * Other host names are not resolved: a name may point anywhere, so it counts as not loopback.
     */
    static boolean isLoopback(String host) {
        String h = host == null ? "" : host.trim().toLowerCase(Locale.ROOT);
        if (h.equals("localhost")) {
            return true;
        }
        if (h.startsWith("[") && h.endsWith("]")) {
            h = h.substring(1, h.length() - 1);
        }
        if (!IPV4.matcher(h).matches() && !(h.contains(":") && h.matches("[0-9a-f:.]+"))) {
            return false;
        }
        try {
            return InetAddress.getByName(h).isLoopbackAddress(); // a literal: no DNS look-up
        } catch (UnknownHostException e) {
            return false;
        }
    }
}
