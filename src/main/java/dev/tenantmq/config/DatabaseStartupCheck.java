package dev.tenantmq.config;

import io.quarkus.runtime.StartupEvent;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.interceptor.Interceptor;
import java.util.Optional;
import org.eclipse.microprofile.config.Config;

/**
 * Refuses to start without a database URL (docs/deployment.md): the packaged jar has no embedded
 * database, and without {@code quarkus.datasource.jdbc.url} Quarkus deactivates the datasource,
 * so the first bean that needs it fails with an {@code InactiveBeanException} naming Flyway. This
 * check runs first at start-up and says, in one line, what to set. The rule is {@link #problem},
 * a pure function.
 */
@ApplicationScoped
public class DatabaseStartupCheck {
    /** Why start-up stops when no database URL is set. */
    static final String NO_URL = "no database: set QUARKUS_DATASOURCE_JDBC_URL (or quarkus.datasource.jdbc.url) to the"
            + " MySQL database, e.g. jdbc:mysql://db:3306/tenant_mq; see docs/deployment.md";

    /** Before every other start-up observer (the schema check asks Flyway, which needs the datasource). */
    void check(@Observes @Priority(Interceptor.Priority.PLATFORM_BEFORE) StartupEvent started, Config config) {
        problem(config.getOptionalValue("quarkus.datasource.jdbc.url", String.class)).ifPresent(p -> {
            throw new IllegalStateException(p);
        });
    }

    /**
     * Why this configuration must not start, or empty when it may.
     *
     * @param url the value of {@code quarkus.datasource.jdbc.url}, empty when unset
     */
    public static Optional<String> problem(Optional<String> url) {
        return url.filter(u -> !u.isBlank()).isPresent() ? Optional.empty() : Optional.of(NO_URL);
    }
}
