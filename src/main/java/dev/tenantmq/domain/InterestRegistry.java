package dev.tenantmq.domain;

import dev.tenantmq.model.GroupScope;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Event;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The (tenant, consumer group, topic) triples this process consumes: a fetch registers
 * interest, and the scheduler ticks for every registered triple (SPEC section 4, "Lease-fetch").
 * A triple with no fetch for {@code mq.interest-timeout} is dropped by the scheduler.
 */
@ApplicationScoped
public class InterestRegistry {
    /** Fired (asynchronously) when a triple is registered for the first time. */
    public record Registered(GroupScope scope) {}

    private final Map<GroupScope, Instant> lastFetch = new ConcurrentHashMap<>();
    private final Clock clock;
    private final Event<Registered> registered;

    InterestRegistry(Clock clock, Event<Registered> registered) {
        this.clock = clock;
        this.registered = registered;
    }

    /** Records a fetch for the triple; the first one fires {@link Registered}. */
    public void touch(GroupScope scope) {
        if (lastFetch.put(scope, clock.instant()) == null) {
            registered.fireAsync(new Registered(scope));
        }
    }

    /** Triples with a fetch in the last {@code timeout}. */
    public List<GroupScope> active(Duration timeout) {
        Instant cutoff = clock.instant().minus(timeout);
        return lastFetch.entrySet().stream().filter(e -> e.getValue().isAfter(cutoff)).map(Map.Entry::getKey).toList();
    }

    /** Triples whose last fetch is older than {@code timeout}. */
    public List<GroupScope> idle(Duration timeout) {
        Instant cutoff = clock.instant().minus(timeout);
        return lastFetch.entrySet().stream().filter(e -> !e.getValue().isAfter(cutoff)).map(Map.Entry::getKey).toList();
    }

    /** Forgets a triple unless a fetch touched it after {@code timeout} ran out. */
    public boolean drop(GroupScope scope, Duration timeout) {
        Instant cutoff = clock.instant().minus(timeout);
        return lastFetch.computeIfPresent(scope, (k, v) -> v.isAfter(cutoff) ? v : null) == null;
    }

    /**
     * Forgets a triple now, whatever its last fetch: the group was deleted (docs/operations.md,
     * "Deleting a topic or a consumer group"), so the scheduler stops leasing for it. A later fetch
     * registers it again.
     */
    public void forget(GroupScope scope) {
        lastFetch.remove(scope);
    }

    /** All registered triples. */
    public List<GroupScope> all() {
        return List.copyOf(lastFetch.keySet());
    }
}
