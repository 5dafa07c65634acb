package dev.tenantmq.config;

import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.interceptor.Interceptor;

/**
 * Whether this application is stopping (docs/deployment.md, "Stopping"). The background jobs (the
 * scheduler tick with its settings and metrics refreshes, retention) run on worker threads, and a
 * run in flight when the process is told to stop (a Ctrl-C in its first second, when the first
 * runs start) meets the connection pool closing under it. Such a failure is expected and loses
 * nothing (the next run after a restart does the work again): the jobs log it at DEBUG while this
 * says so, rather than a WARN per tenant with a stack trace.
 */
@ApplicationScoped
public class Stopping {
    private volatile boolean stopping;

    /** First of the shutdown observers, before any bean (the connection pool among them) is destroyed. */
    void onStop(@Observes @Priority(Interceptor.Priority.PLATFORM_BEFORE) ShutdownEvent event) {
        stopping = true;
    }

    /** A started application is not stopping (one JVM may start the application again: tests, dev mode). */
    void onStart(@Observes StartupEvent event) {
        stopping = false;
    }

    /** True from the start of the shutdown on. */
    public boolean now() {
        return stopping;
    }
}
