package dev.tenantmq.api;

import dev.tenantmq.model.Grants;
import dev.tenantmq.config.MqConfig;
import io.smallrye.jwt.auth.principal.JWTParser;
import io.smallrye.jwt.auth.principal.ParseException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.json.JsonArray;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.eclipse.microprofile.jwt.Claims;
import org.eclipse.microprofile.jwt.JsonWebToken;
import org.jose4j.jwt.consumer.ErrorCodes;
import org.jose4j.jwt.consumer.InvalidJwtException;

/**
 * Bearer credentials (docs/security.md, "Modes"; RFC 6750): reads the {@code Authorization} header, verifies a JWT
 * with quarkus-smallrye-jwt's {@link JWTParser} (signature against {@code mp.jwt.verify.publickey.location},
 * expiry, {@code mp.jwt.verify.issuer}, {@code mp.jwt.verify.audiences}), then the time rules the library
 * leaves out ({@link #timeFault}; docs/security.md, "Token times"), and turns its {@code tmq}
 * claim into {@link Grants}. Nothing here logs: a token or secret never reaches a log line, and
 * neither does the library's own reason (it quotes the token's claims).
 */
@ApplicationScoped
public class BearerAuth {
    private static final String BEARER = "Bearer ";
    /** The registered claims every token needs besides iss and aud (docs/security.md, "Modes"). */
    private static final String REQUIRED_CLAIMS = "sub (or upn), iat and exp";
    /** smallrye-jwt's leeway for exp and nbf, which the iat rule shares (docs/security.md, "Token times"). */
    static final String LEEWAY = "mp.jwt.verify.clock.skew";
    private final JWTParser parser;
    private final Clock clock;
    /** {@link #LEEWAY} in seconds. */
    private final long leewaySeconds;
    /** {@code mq.auth.max-token-lifetime}. */
    private final Duration maxLifetime;

    BearerAuth(JWTParser parser, Clock clock, MqConfig config,
               @ConfigProperty(name = LEEWAY, defaultValue = "60") int leewaySeconds) {
        this.parser = parser;
        this.clock = clock;
        this.leewaySeconds = leewaySeconds;
        this.maxLifetime = config.auth().maxTokenLifetime();
    }

    /** The token of an {@code Authorization: Bearer <token>} header (scheme case-insensitive), or null. */
    static String bearerToken(String header) {
        if (header == null || !header.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
            return null;
        }
        String token = header.substring(BEARER.length()).trim();
        return token.isEmpty() ? null : token;
    }

    /**
     * Compares a presented secret with the configured one in constant time: both are hashed with
     * SHA-256 first, so neither the content nor the length of the configured secret changes how
     * long {@link MessageDigest#isEqual} takes.
     */
    static boolean sameSecret(String presented, String configured) {
        try {
            MessageDigest a = MessageDigest.getInstance("SHA-256");
            MessageDigest b = MessageDigest.getInstance("SHA-256");
            return MessageDigest.isEqual(a.digest(presented.getBytes(StandardCharsets.UTF_8)),
                    b.digest(configured.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every JRE", e);
        }
    }

    /**
     * Verifies a JWT and reads its grants.
     *
     * @return the grants, or empty with the reason (for the 401's detail and {@code error_description})
     */
    Verified verify(String token) {
        JsonWebToken jwt;
        try {
            jwt = parser.parse(token);
        } catch (ParseException e) {
            return new Verified(Optional.empty(), reason(e));
        } catch (RuntimeException e) {
            return new Verified(Optional.empty(), "the bearer token could not be verified");
        }
        String timeFault = timeFault(seconds(jwt.getClaim(Claims.iat.name())), seconds(jwt.getClaim(Claims.exp.name())),
                clock.instant().getEpochSecond(), leewaySeconds, maxLifetime);
        if (timeFault != null) {
            return new Verified(Optional.empty(), timeFault);
        }
        return new Verified(Optional.of(Grants.parse(plain(jwt.getClaim(Grants.CLAIM)))), null);
    }

    /**
     * The time rules smallrye-jwt leaves to us (docs/security.md, "Token times"); it checks exp and nbf
     * itself, with the same leeway. A token issued in the future beyond the leeway is refused (a
     * clock that far off, or a token minted to outlive its apparent age), and so is one issued for
     * longer than {@code mq.auth.max-token-lifetime}.
     *
     * @param iat the token's iat in epoch seconds, or null when absent
     * @param exp the token's exp in epoch seconds, or null when absent
     * @param now now in epoch seconds
     * @return why the token is refused, or null when it passes
     */
    static String timeFault(Long iat, Long exp, long now, long leewaySeconds, Duration maxLifetime) {
        if (iat == null || exp == null) {
            return "the bearer token lacks a required claim: " + REQUIRED_CLAIMS;
        }
        if (iat > now + leewaySeconds) {
            return "the bearer token was issued in the future (iat is more than " + leewaySeconds
                    + " s ahead of this server's clock, " + LEEWAY + ")";
        }
        if (exp - iat > maxLifetime.toSeconds()) {
            return "the bearer token lives longer than the maximum token lifetime (exp - iat over "
                    + maxLifetime.toSeconds() + " s, mq.auth.max-token-lifetime)";
        }
        return null;
    }

    /** A NumericDate claim as epoch seconds, or null. */
    private static Long seconds(Object claim) {
        if (claim instanceof Number n) {
            return n.longValue();
        }
        if (claim instanceof JsonNumber n) {
            return n.longValue();
        }
        return null;
    }

    /** The outcome of {@link #verify}: grants, or the reason the token was refused. */
    record Verified(Optional<Grants> grants, String failure) {}

    /** Why a token was refused, in words a client can act on; never the token or its claims. */
    private static String reason(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof InvalidJwtException j) {
                if (j.hasExpired()) {
                    return "the bearer token has expired";
                }
                if (j.hasErrorCode(ErrorCodes.ISSUER_INVALID) || j.hasErrorCode(ErrorCodes.ISSUER_MISSING)) {
                    return "the bearer token has the wrong issuer (iss)";
                }
                if (j.hasErrorCode(ErrorCodes.AUDIENCE_INVALID) || j.hasErrorCode(ErrorCodes.AUDIENCE_MISSING)) {
                    return "the bearer token has the wrong audience (aud)";
                }
                if (j.hasErrorCode(ErrorCodes.SIGNATURE_INVALID)) {
                    return "the bearer token's signature does not verify";
                }
                if (j.hasErrorCode(ErrorCodes.SUBJECT_MISSING) || j.hasErrorCode(ErrorCodes.ISSUED_AT_MISSING)
                        || j.hasErrorCode(ErrorCodes.EXPIRATION_MISSING)) {
                    return "the bearer token lacks a required claim: " + REQUIRED_CLAIMS;
                }
            }
        }
        // smallrye-jwt reports some missing claims (a token without sub) without an error code.
        return "the bearer token is not a valid JWT of this service (malformed, unsigned, not yet valid, signed"
                + " with another key, or without a required claim: " + REQUIRED_CLAIMS + ")";
    }

    /** The claim as plain Java for {@link Grants#parse}: objects to maps, arrays to lists, strings to strings. */
    private static Object plain(Object value) {
        if (value instanceof JsonObject o) {
            Map<String, Object> out = new LinkedHashMap<>();
            o.forEach((k, v) -> out.put(k, plain(v)));
            return out;
        }
        if (value instanceof JsonArray a) {
            List<Object> out = new ArrayList<>();
            a.forEach(v -> out.add(plain(v)));
            return out;
        }
        if (value instanceof JsonString s) {
            return s.getString();
        }
        if (value instanceof JsonValue v) {
            return v.toString();
        }
        return value;
    }

    /**
     * 401 problem+json with {@code WWW-Authenticate: Bearer} (RFC 6750 section 3): without
     * {@code error} when no token was sent, with {@code error="invalid_token"} when one was refused.
     */
    static Response unauthorized(String realm, String detail, boolean tokenSent) {
        Response r = ProblemMapper.problem(401, "unauthorized", "Unauthorized", detail, null);
        String challenge = "Bearer realm=\"" + realm + "\"" + (tokenSent
                ? ", error=\"invalid_token\", error_description=\"" + detail.replace('"', '\'') + "\"" : "");
        return Response.fromResponse(r).header(HttpHeaders.WWW_AUTHENTICATE, challenge).build();
    }

    /** 403 problem+json naming what is missing. */
    static Response forbidden(String detail) {
        return ProblemMapper.problem(403, "forbidden", "Forbidden", detail, null);
    }
}
