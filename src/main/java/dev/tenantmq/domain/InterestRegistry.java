package dev.tenantmq.domain;

import dev.tenantmq.config.MqConfig;
import dev.tenantmq.model.GroupScope;
import dev.tenantmq.model.TickKind;
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
    /**
     * Fired (asynchronously) when a triple needs a full scheduler tick at once: it is registered
     * for the first time ({@code first}), or fetched again after being dormant
     * (docs/architecture.md, "Dormant groups"), so its fetch need not wait a whole tick for its
     * partitions to be leased.
     */
    public record Registered(GroupScope scope, boolean first) {}

    private final Map<GroupScope, Instant> lastFetch = new ConcurrentHashMap<>();
    private final Clock clock;
    private final Event<Registered> registered;
    private final Duration quietAfter;

    InterestRegistry(Clock clock, Event<Registered> registered, MqConfig config) {
        this.clock = clock;
        this.registered = registered;
        this.quietAfter = TickKind.quietAfter(config.dormantAfter(), config.fetch().recheckInterval());
    }

    /**
     * Records a fetch for the triple; the first one, and the first after a dormancy
     * ({@link TickKind#quiet}), fire {@link Registered}.
     */
    public void touch(GroupScope scope) {
        Instant now = clock.instant();
        Instant before = lastFetch.put(scope, now);
        if (before == null || TickKind.quiet(nonNegative(Duration.between(before, now)), quietAfter)) {
            registered.fireAsync(new Registered(scope, before == null));
        }
    }

    /**
     * Time since the triple's last fetch here: zero for one not registered (the scheduler ticks
     * only registered triples).
     */
    public Duration sinceLastFetch(GroupScope scope) {
        Instant at = lastFetch.get(scope);
        return at == null ? Duration.ZERO : nonNegative(Duration.between(at, clock.instant()));
    }

    /** A clock that stepped back does not make a duration negative. */
    private static Duration nonNegative(Duration d) {
        return d.isNegative() ? Duration.ZERO : d;
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
