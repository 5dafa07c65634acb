package dev.tenantmq.config;

import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

/**
 * Lets the embedded database outlive the application's shutdown work: it marks the application
 * running at start-up and stopped after every other shutdown observer (the lease release, which
 * needs the database), and {@link EmbeddedDatabase}'s JVM exit hook waits for that mark. Does
 * nothing where the embedded database is not used.
 */
@ApplicationScoped
class EmbeddedDatabaseLifecycle {
    void started(@Observes StartupEvent event) {
        if (System.getProperty(EmbeddedDatabase.URL_PROPERTY) != null) {
            System.setProperty(EmbeddedDatabase.APP_RUNNING_PROPERTY, "true");
        }
    }

    /** The last shutdown observer: the highest priority value runs last. */
    void stopped(@Observes @Priority(Integer.MAX_VALUE) ShutdownEvent event) {
        System.clearProperty(EmbeddedDatabase.APP_RUNNING_PROPERTY);
    }
}
