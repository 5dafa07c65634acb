package dev.tenantmq.scheduler;

import static dev.tenantmq.model.Durations.micros;

import dev.tenantmq.config.EmbeddedDatabaseExit;
import dev.tenantmq.config.MqConfig;
import dev.tenantmq.config.ProcessIdentity;
import dev.tenantmq.domain.ConsumeService;
import dev.tenantmq.domain.SettingsCache;
import dev.tenantmq.domain.FetchSignals;
import dev.tenantmq.domain.InterestRegistry;
import dev.tenantmq.ops.QueueMetrics;
import dev.tenantmq.ops.SchedulerStatus;
import dev.tenantmq.model.GroupScope;
import dev.tenantmq.model.LeaseShare;
import dev.tenantmq.model.TickKind;
import dev.tenantmq.store.LeaseStore;
import dev.tenantmq.store.MessageStore;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.scheduler.Scheduled;
import io.smallrye.mutiny.infrastructure.Infrastructure;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.event.ObservesAsync;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.jboss.logging.Logger;

/**
 * The scheduler of SPEC section 5. Once per {@code mq.tick-interval}, for every (tenant,
 * consumer group, topic) this process consumes: heartbeat upsert, tenant-scoped discovery,
 * fair share ({@link LeaseShare}: floor or ceil of P/S of the P partitions with work, for S live
 * subscribers), acquire free or expired leases, renew its own (those past their renewal age,
 * {@link LeaseShare#renewAfter}), release its surplus (partitions with
 * nothing in flight first), orphan sweep, dead letters of in-flight messages whose last attempt expired,
 * idle-lease release, and purge of stale heartbeats. A triple not fetched here for
 * {@code mq.dormant-after} is dormant ({@link TickKind}): after one full tick that hands back
 * its drained partitions' leases, its ticks only heartbeat, renew and dead-letter until its next
 * fetch or a change of its live subscribers. Expiry is judged by
 * the database clock. A failing tick is logged once per failure streak, counted, and retried
 * on the next tick; it never stops the scheduler, and each tenant's lease work runs apart so a
 * slow or failing tenant does not hold up the others.
 */
@ApplicationScoped
public class LeaseScheduler {
    private static final Logger LOG = Logger.getLogger(LeaseScheduler.class);

    private final InterestRegistry interest;
    private final LeaseStore leases;
    private final MessageStore messages;
    private final ConsumeService consume;
    private final ProcessIdentity identity;
    private final FetchSignals signals;
    private final QueueMetrics metrics;
    private final MqConfig config;
    private final Clock clock;
    /** Queue gauges (docs/operations.md, "Metrics"): refreshed on this tick, at most once per mq.metrics.refresh-interval. */
    private final QueueStatsRefresher stats;
    private final Map<GroupScope, AtomicInteger> held = new ConcurrentHashMap<>();
    private final Map<GroupScope, AtomicInteger> discovered = new ConcurrentHashMap<>();
    private final Set<GroupScope> failing = ConcurrentHashMap.newKeySet();
    /** Each triple's last full tick here that finished: its live subscribers, in name order, and when ({@link TickKind}). */
    private final Map<GroupScope, FullTick> fullTicks = new ConcurrentHashMap<>();
    /** Triples whose full tick was asked while a tick of theirs ran: it runs when that one ends. */
    private final Set<GroupScope> fullTickWanted = ConcurrentHashMap.newKeySet();

    /**
     * What {@link TickKind} compares a dormant triple's tick with; {@code quiet}:
     * {@link TickKind.LastFullTick#quiet}; {@code holdsLeases}: whether it left this subscriber
     * any lease, so the dormant ticks after it have something to renew (only a full tick acquires).
     */
    private record FullTick(List<String> live, java.time.Instant finishedAt, boolean quiet, boolean holdsLeases) {}
    /** Tenants whose lease work of an earlier periodic tick is still running. */
    private final Set<String> tenantsInTick = ConcurrentHashMap.newKeySet();
    /** Triples whose lease work is running (periodic or registration): one at a time each. */
    private final Set<GroupScope> scopesInTick = ConcurrentHashMap.newKeySet();
    /** (tenant, topic) pairs whose gauges are registered. gauge() and forget() synchronize on it. */
    private final Set<String> gauged = ConcurrentHashMap.newKeySet();
    /** Where the finished ticks are published for readiness. */
    private final SchedulerStatus status;
    /** Per-topic and per-group settings: refreshed on every tick, so a change applies within one tick. */
    private final SettingsCache settings;
    /** {@link TickKind#quietAfter}: how long a triple goes without a fetch before it may be dormant. */
    private final Duration quietAfter;
    /** A tick cut short by the shutdown is not a failure to warn about. */
    private final dev.tenantmq.config.Stopping stopping;

    LeaseScheduler(InterestRegistry interest, LeaseStore leases, MessageStore messages, ConsumeService consume,
                   ProcessIdentity identity, FetchSignals signals, QueueMetrics metrics, MqConfig config, Clock clock,
                   QueueStatsRefresher stats, SchedulerStatus status, SettingsCache settings,
                   dev.tenantmq.config.Stopping stopping) {
        this.stopping = stopping;
        this.settings = settings;
        this.stats = stats;
        this.status = status;
        this.interest = interest;
        this.consume = consume;
        this.leases = leases;
        this.messages = messages;
        this.identity = identity;
        this.signals = signals;
        this.metrics = metrics;
        this.config = config;
        this.clock = clock;
        this.quietAfter = TickKind.quietAfter(config.dormantAfter(), config.fetch().recheckInterval());
    }

    /** The periodic tick for every active triple. */
    @Scheduled(every = "${mq.tick-interval}", concurrentExecution = Scheduled.ConcurrentExecution.SKIP,
            skipExecutionIf = Scheduled.ApplicationNotRunning.class, // none once the shutdown began (docs/deployment.md, "Stopping")
            identity = "mq-lease-tick")
    void tick() {
        for (GroupScope idle : interest.idle(config.interestTimeout())) {
            leave(idle);
        }
        tickAll(interest.active(config.interestTimeout()), false);
        stats.refreshIfDue();
        settings.refreshInBackground();
        status.ticked(clock.instant());
    }

    /**
     * A new triple gets its first tick at once, so its first long poll need not wait a whole
     * interval, and it runs even while its tenant is busy with a periodic tick: skipped, the first
     * long poll of a new consumer group would come back empty with messages waiting (docs/deployment.md, "Running several instances": interest).
     * A triple woken from dormancy gets a full tick at once too, unless its tenant's periodic tick
     * is running: then that tick or the next one ticks it in full, as it is no longer quiet. Every
     * fetch after a quiet asks for one, so a slow tenant with many such groups would otherwise take
     * a worker thread per group.
     */
    void onRegistered(@ObservesAsync InterestRegistry.Registered event) {
        tickAll(List.of(event.scope()), event.first());
    }

    /**
     * Discovery runs here, one tenant-scoped query per topic (RFC "Subscriber discovery"); a
     * failing shard fails it for the tenants listed, and its statement time-out keeps a hung
     * shard from stalling the scheduler. The lease work then runs as one task per tenant, so a
     * slow tenant never delays another: while a tenant's previous task is still running, its
     * work for this tick is skipped (the next tick retries), not queued. A registration tick
     * ({@code registration}: a new triple's first, once) runs regardless; a triple whose tick is
     * already running is skipped, as that tick does its work (and, when the skipped one was a full
     * tick, a full one follows it: the running one may be dormant).
     */
    private void tickAll(List<GroupScope> scopes, boolean registration) {
        Map<String, List<GroupScope>> byTopic = new LinkedHashMap<>();
        Map<String, Map<GroupScope, List<String>>> workByTenant = new LinkedHashMap<>();
        for (GroupScope s : scopes) {
            if (!registration && TickKind.quiet(interest.sinceLastFetch(s), quietAfter)) {
                // Likely dormant: no discovery for it here. Its heartbeat decides (tickOne), and
                // it discovers on its own if its live subscribers changed.
                workByTenant.computeIfAbsent(s.tenant(), k -> new LinkedHashMap<>()).put(s, null);
            } else {
                byTopic.computeIfAbsent(s.topic(), k -> new ArrayList<>()).add(s);
            }
        }
        for (Map.Entry<String, List<GroupScope>> e : byTopic.entrySet()) {
            String topic = e.getKey();
            List<GroupScope> group = e.getValue();
            Map<String, List<String>> partitionsByTenant = new HashMap<>();
            try {
                List<String> tenants = group.stream().map(GroupScope::tenant).distinct().sorted().toList();
                for (MessageStore.DiscoveredPartition p : messages.discover(tenants, topic)) {
                    partitionsByTenant.computeIfAbsent(p.tenant(), k -> new ArrayList<>()).add(p.partitionKey());
                }
            } catch (RuntimeException ex) {
                group.forEach(s -> failed(s, ex));
                continue;
            }
            for (GroupScope s : group) {
                workByTenant.computeIfAbsent(s.tenant(), k -> new LinkedHashMap<>())
                        .put(s, partitionsByTenant.getOrDefault(s.tenant(), List.of()));
            }
        }
        for (Map.Entry<String, Map<GroupScope, List<String>>> e : workByTenant.entrySet()) {
            String tenant = e.getKey();
            if (!registration && !tenantsInTick.add(tenant)) {
                LOG.debugf("tenant %s is still busy with an earlier tick; skipping it this time", tenant);
                continue;
            }
            try {
                Infrastructure.getDefaultWorkerPool().execute(() -> {
                    try {
                        e.getValue().forEach(this::tickOneAlone);
                    } finally {
                        if (!registration) {
                            tenantsInTick.remove(tenant);
                        }
                    }
                });
            } catch (RuntimeException rejected) {
                if (!registration) {
                    tenantsInTick.remove(tenant); // pool shutting down
                }
            }
        }
    }

    /**
     * {@link #tickOne}, unless a tick of the triple is running already (it does the work).
     *
     * @param discoveredKeys the triple's partitions from this tick's discovery, or {@code null}
     *     for a triple that was not fetched for {@code mq.dormant-after} and was not discovered
     */
    private void tickOneAlone(GroupScope s, List<String> discoveredKeys) {
        if (!scopesInTick.add(s)) {
            if (discoveredKeys != null) {
                fullTickWanted.add(s); // the running tick may be a dormant one
            }
            return;
        }
        try {
            tickOne(s, discoveredKeys);
        } finally {
            scopesInTick.remove(s);
        }
        if (fullTickWanted.remove(s)) {
            tickOneAlone(s, null); // full unless it went quiet again meanwhile
        }
    }

    private void tickOne(GroupScope s, List<String> discoveredKeys) {
        long started = System.nanoTime();
        String me = identity.subscriberName().value();
        try {
            // 1. Heartbeat; the live subscribers of the triple include this one.
            List<String> live = new ArrayList<>(leases.heartbeat(s, me, micros(config.heartbeatTimeout())));
            if (!live.contains(me)) {
                live.add(me);
            }
            live.sort(null); // compared with the last full tick's (TickKind)
            long leaseMicros = micros(config.leaseDuration());
            long renewAfterMicros = micros(LeaseShare.renewAfter(config.tickInterval(), config.heartbeatTimeout(),
                    config.leaseDuration()));
            if (discoveredKeys == null) {
                FullTick last = fullTicks.get(s);
                TickKind.LastFullTick lastFull = last == null ? null : new TickKind.LastFullTick(last.live(),
                        Duration.between(last.finishedAt(), clock.instant()), last.quiet());
                if (TickKind.of(interest.sinceLastFetch(s), quietAfter, live, lastFull,
                        TickKind.fullTickEvery(config.idleLeaseTimeout())) == TickKind.DORMANT) {
                    // Dormant (docs/architecture.md, "Dormant groups"): keep what is held, and
                    // no read of every partition or lease row of the triple. A triple whose quiet
                    // tick handed every lease back has nothing to renew: its statement would read
                    // every lease row of the triple to find none.
                    if (last.holdsLeases()) {
                        leases.renew(s, me, leaseMicros, renewAfterMicros);
                    }
                    consume.deadLetterExpired(s);
                    if (TickKind.quiet(interest.sinceLastFetch(s), quietAfter)) {
                        recovered(s);
                        return;
                    }
                    // A fetch woke the triple meanwhile, and its tick at once was skipped for this
                    // one (tickOneAlone): the full tick is this one's to do.
                }
                discoveredKeys = messages.discover(List.of(s.tenant()), s.topic()).stream()
                        .map(MessageStore.DiscoveredPartition::partitionKey).toList();
            }
            // 2-3. Fair share over the partitions with work: idle ones are left unleased. Every
            // instance counts them alike, after mq.idle-lease-timeout, so the shares agree.
            Set<String> idle = leases.idlePartitions(s, micros(config.idleLeaseTimeout()));
            Set<String> active = new java.util.LinkedHashSet<>(discoveredKeys);
            active.removeAll(idle);
            int share = LeaseShare.fairShare(active.size(), live, me);
            // A quiet triple holds and takes only the partitions with work (TickKind.idleAfter):
            // its drained ones go back as idle, not as surplus, so its share does not shrink.
            boolean quiet = TickKind.quiet(interest.sinceLastFetch(s), quietAfter);
            Set<String> kept = active;
            if (quiet) {
                kept = new java.util.LinkedHashSet<>(active);
                kept.removeAll(leases.idlePartitions(s, micros(TickKind.idleAfter(true, config.idleLeaseTimeout()))));
            }

            List<LeaseStore.Lease> all = leases.leases(s);
            List<LeaseStore.Lease> mineActive = new ArrayList<>();
            List<LeaseStore.Lease> mineIdle = new ArrayList<>();
            List<LeaseStore.Lease> takeable = new ArrayList<>();
            Set<String> leased = new HashSet<>();
            for (LeaseStore.Lease l : all) {
                leased.add(l.partitionKey());
                if (l.leasedBy().equals(me) && !l.expired()) {
                    (kept.contains(l.partitionKey()) ? mineActive : mineIdle).add(l);
                } else if (l.expired() && kept.contains(l.partitionKey())) {
                    takeable.add(l); // this subscriber's own expired or released leases too: a new epoch
                }
            }
            // 4. Renew own leases, then acquire up to the share or release the surplus.
            leases.renew(s, me, leaseMicros, renewAfterMicros);
            int count = mineActive.size();
            Set<String> busy = null;
            if (count < share) {
                int want = LeaseShare.acquisitionsThisTick(share, count, config.maxLeaseAcquisitionsPerTick());
                List<String> fresh = LeaseShare.freshToAcquire(kept, leased, want);
                List<LeaseStore.Lease> takeOver = takeable.subList(0, Math.min(takeable.size(), want - fresh.size()));
                List<String> won = leases.acquired(s, me, fresh, takeOver, leaseMicros);
                count += won.size();
                // Their backlogs are unknown here: every waiting poll looks; a busy fetch's news
                // keeps them by name (docs/architecture.md, "News between looks").
                signals.signalNewLeases(s.tenant(), s.topic(), won);
            } else if (count > share) {
                busy = leases.busyPartitions(s);
                count -= leases.release(s, me, LeaseShare.surplus(mineActive, LeaseStore.Lease::partitionKey, count - share, busy));
            }
            // 5. Orphan sweep: leases of holders with no live heartbeat (and no recent renewal) end now.
            // Its statement reads every lease row of the triple, so it runs only when one read above
            // is an orphan's.
            if (LeaseShare.anyOrphan(all.stream().filter(l -> !l.expired()).map(LeaseStore.Lease::leasedBy).toList(), live)) {
                leases.sweepOrphans(s, live, micros(config.heartbeatTimeout()));
            }
            // 5b. Dead letters of in-flight messages whose last attempt expired, without waiting for a fetch.
            consume.deadLetterExpired(s);
            // 6. Idle-lease release (and leases of partitions that no longer exist).
            int idleKept = mineIdle.size();
            if (!mineIdle.isEmpty()) {
                Set<String> inFlight = busy != null ? busy : leases.busyPartitions(s);
                idleKept -= leases.releaseIdle(s, me, mineIdle.stream().filter(l -> !inFlight.contains(l.partitionKey())).toList());
            }
            // 7. Purge stale heartbeats.
            leases.purgeStaleHeartbeats(s, micros(config.heartbeatTimeout()));

            gauge(held, s).set(count);
            gauge(discovered, s).set(discoveredKeys.size());
            // Only a full tick that finished: after a failing one the next tick is full again.
            fullTicks.put(s, new FullTick(List.copyOf(live), clock.instant(), quiet, count + idleKept > 0));
            recovered(s);
        } catch (RuntimeException ex) {
            failed(s, ex);
        } finally {
            metrics.tick(s.tenant(), s.topic(), Duration.ofNanos(System.nanoTime() - started));
        }
    }

    private void recovered(GroupScope s) {
        if (failing.remove(s)) {
            LOG.infof("scheduler tick for tenant=%s group=%s topic=%s recovered", s.tenant(), s.consumerGroup(), s.topic());
        }
    }

    private void failed(GroupScope s, RuntimeException ex) {
        fullTicks.remove(s); // its next tick is full, whatever failed in this one
        metrics.tickFailed(s.tenant(), s.topic());
        if (stopping.now()) {
            LOG.debugf("scheduler tick for %s cut short by the shutdown: %s", s, ex.getMessage());
        } else if (failing.add(s)) {
            // Logged once per failure streak; the next tick retries.
            LOG.warnf("scheduler tick failed for tenant=%s group=%s topic=%s: %s", s.tenant(), s.consumerGroup(), s.topic(),
                    ex.getMessage());
        }
    }

    private AtomicInteger gauge(Map<GroupScope, AtomicInteger> map, GroupScope s) {
        // Locked with forget(), so a topic's gauges are never removed while a group of it is counted.
        synchronized (gauged) {
            if (gauged.add(topicKey(s))) {
                metrics.leaseGauges(s.tenant(), s.topic(), () -> sum(held, s), () -> sum(discovered, s));
            }
            return map.computeIfAbsent(s, k -> new AtomicInteger());
        }
    }

    /**
     * Stops counting a triple this process no longer serves (its gauge values and failure
     * streak), and removes its topic's gauges when no other group of the topic is served here, so
     * a long-running process does not keep a series for every topic it ever served.
     */
    private void forget(GroupScope s) {
        failing.remove(s);
        fullTicks.remove(s);
        fullTickWanted.remove(s);
        consume.forget(s);
        synchronized (gauged) {
            held.remove(s);
            discovered.remove(s);
            boolean topicStillServed = Stream.concat(held.keySet().stream(), discovered.keySet().stream())
                    .anyMatch(k -> topicKey(k).equals(topicKey(s)));
            if (!topicStillServed && gauged.remove(topicKey(s))) {
                metrics.removeLeaseGauges(s.tenant(), s.topic());
            }
        }
    }

    private static String topicKey(GroupScope s) {
        return s.tenant() + '\u0000' + s.topic();
    }

    /** Gauges are tagged by tenant and topic only, so they sum over this process's consumer groups. */
    private static int sum(Map<GroupScope, AtomicInteger> map, GroupScope like) {
        int total = 0;
        for (Map.Entry<GroupScope, AtomicInteger> e : map.entrySet()) {
            if (e.getKey().tenant().equals(like.tenant()) && e.getKey().topic().equals(like.topic())) {
                total += e.getValue().get();
            }
        }
        return total;
    }

    /**
     * Drops a triple nobody here fetched for {@code mq.interest-timeout}, unless messages are in
     * flight (within their visibility timeout) under its leases here: a consumer still working on
     * them, or extending them, keeps the triple served until it acks or they expire.
     */
    private void leave(GroupScope s) {
        try {
            if (holdsDeliveriesInFlight(s)) {
                interest.touch(s);
                return;
            }
            if (!interest.drop(s, config.interestTimeout())) {
                return;
            }
            leases.leave(s, identity.subscriberName().value());
            forget(s);
        } catch (RuntimeException ex) {
            failed(s, ex);
        }
    }

    private boolean holdsDeliveriesInFlight(GroupScope s) {
        Set<String> busy = leases.busyPartitions(s);
        String me = identity.subscriberName().value();
        return !busy.isEmpty() && leases.leases(s).stream()
                .anyMatch(l -> me.equals(l.leasedBy()) && !l.expired() && busy.contains(l.partitionKey()));
    }

    /** Longest time shutdown spends handing leases back; the rest simply expire. */
    private static final Duration SHUTDOWN_BUDGET = Duration.ofSeconds(5);

    /**
     * On shutdown, hand leases back at once instead of making others wait for expiry, within
     * {@link #SHUTDOWN_BUDGET} so an unreachable database cannot hold the process up (the
     * leases left then expire after {@code mq.lease-duration}).
     */
    void onStop(@Observes ShutdownEvent event) {
        if (EmbeddedDatabaseExit.dyingWithTheJvm()) {
            // Dev mode or tests exiting: the embedded database is stopped and deleted with the JVM,
            // leases and all, and trying would only log a connection failure.
            LOG.debug("the embedded database stops with the JVM: leases are not released");
            return;
        }
        long deadline = System.nanoTime() + SHUTDOWN_BUDGET.toNanos();
        int released = 0;
        List<GroupScope> scopes = interest.all();
        for (GroupScope s : scopes) {
            if (System.nanoTime() > deadline) {
                break;
            }
            try {
                leases.leave(s, identity.subscriberName().value());
                released++;
            } catch (RuntimeException ex) {
                LOG.warnf("could not release leases of %s on shutdown (they expire instead): %s", s, ex.getMessage());
                break; // the database is likely gone: do not wait once per triple
            }
        }
        LOG.infof("released the leases of %d of %d consumer groups on shutdown", released, scopes.size());
    }
}
