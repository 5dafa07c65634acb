package dev.tenantmq.config;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import java.time.Clock;

/** Supplies the {@link Clock} that Java code uses for in-process timing (never for lease expiry). */
@ApplicationScoped
public class ClockProducer {

    /** The system UTC clock. */
    @Produces
    @ApplicationScoped
    Clock clock() {
        return Clock.systemUTC();
    }
}
