package dev.tenantmq.api;

import dev.tenantmq.model.Grants;
import io.smallrye.jwt.auth.principal.JWTParser;
import io.smallrye.jwt.auth.principal.ParseException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.eclipse.microprofile.jwt.JsonWebToken;
import org.jose4j.jwt.consumer.ErrorCodes;
import org.jose4j.jwt.consumer.InvalidJwtException;

/**
 * Bearer credentials (docs/security.md, "Modes"; RFC 6750): reads the {@code Authorization} header, verifies a JWT
 * with quarkus-smallrye-jwt's {@link JWTParser} (signature against {@code mp.jwt.verify.publickey.location},
 * expiry, {@code mp.jwt.verify.issuer}, {@code mp.jwt.verify.audiences}) and turns its {@code tmq}
 * claim into {@link Grants}. Nothing here logs: a token or secret never reaches a log line, and
 * neither does the library's own reason (it quotes the token's claims).
 */
@ApplicationScoped
public class BearerAuth {
    private static final String BEARER = "Bearer ";
    /** The registered claims every token needs besides iss and aud (docs/security.md, "Modes"). */
    private static final String REQUIRED_CLAIMS = "sub (or upn), iat and exp";
    private final JWTParser parser;

    BearerAuth(JWTParser parser) {
        this.parser = parser;
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
        return new Verified(Optional.of(Grants.parse(plain(jwt.getClaim(Grants.CLAIM)))), null);
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
