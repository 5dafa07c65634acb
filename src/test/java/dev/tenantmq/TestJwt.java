package dev.tenantmq;

import io.quarkus.test.junit.QuarkusTestProfile;
import io.smallrye.jwt.build.Jwt;
import io.smallrye.jwt.build.JwtClaimsBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.NoSuchAlgorithmException;
import java.security.PrivateKey;
import java.security.spec.InvalidKeySpecException;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.List;
import java.util.Map;

/**
 * Keys and tokens of the JWT tests (docs/security.md): an RSA key pair minted per JVM, its public key in a
 * PEM file that {@link Profile} hands to quarkus-smallrye-jwt, and tokens signed with
 * smallrye-jwt-build. The keys live in system properties because the profile and the tests run in
 * different class loaders of the same JVM.
 */
public final class TestJwt {
    /** The issuer the service expects (mp.jwt.verify.issuer). */
    public static final String ISSUER = "https://issuer.tenant-mq.test";
    /** The audience the service expects (mp.jwt.verify.audiences). */
    public static final String AUDIENCE = "tenant-mq";
    private static final String PRIVATE = "tenantmq.test.jwt.private";
    private static final String PUBLIC_FILE = "tenantmq.test.jwt.public-file";

    private TestJwt() {}

    /** The service in mq.auth.mode=jwt, verifying with the test key, issuer and audience. */
    public static class Profile implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("mq.auth.mode", "jwt",
                    "mp.jwt.verify.publickey.location", publicKeyFile().toString(),
                    "mp.jwt.verify.issuer", ISSUER,
                    "mp.jwt.verify.audiences", AUDIENCE);
        }
    }

    private static synchronized void ensureKeys() {
        if (System.getProperty(PRIVATE) != null) {
            return;
        }
        try {
            KeyPairGenerator gen = KeyPairGenerator.getInstance("RSA");
            gen.initialize(2048);
            KeyPair pair = gen.generateKeyPair();
            Path file = Files.createTempFile("tenant-mq-test-jwt-", ".pem");
            file.toFile().deleteOnExit();
            Files.writeString(file, "-----BEGIN PUBLIC KEY-----\n"
                    + Base64.getMimeEncoder(64, "\n".getBytes()).encodeToString(pair.getPublic().getEncoded())
                    + "\n-----END PUBLIC KEY-----\n");
            System.setProperty(PUBLIC_FILE, file.toString());
            System.setProperty(PRIVATE, Base64.getEncoder().encodeToString(pair.getPrivate().getEncoded()));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The PEM file of the public key the service verifies with. */
    public static Path publicKeyFile() {
        ensureKeys();
        return Path.of(System.getProperty(PUBLIC_FILE));
    }

    /** The private key that signs the tests' tokens. */
    public static PrivateKey privateKey() {
        ensureKeys();
        try {
            return KeyFactory.getInstance("RSA").generatePrivate(new PKCS8EncodedKeySpec(
                    Base64.getDecoder().decode(System.getProperty(PRIVATE))));
        } catch (NoSuchAlgorithmException | InvalidKeySpecException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Claims of a valid token (issuer, audience, 5 minutes of life) with these grants as its tmq claim. */
    public static JwtClaimsBuilder claims(Map<String, List<String>> grants) {
        return Jwt.issuer(ISSUER).audience(AUDIENCE).subject("test-client").claim("tmq", grants).expiresIn(300);
    }

    /** A valid signed token with these grants. */
    public static String token(Map<String, List<String>> grants) {
        return claims(grants).sign(privateKey());
    }

    /** {@code Authorization} header value of a valid token with these grants. */
    public static String bearer(Map<String, List<String>> grants) {
        return "Bearer " + token(grants);
    }
}
