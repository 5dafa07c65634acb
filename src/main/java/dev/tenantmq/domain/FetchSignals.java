package dev.tenantmq.domain;

import dev.tenantmq.model.ReadyNews;
import dev.tenantmq.ops.QueueMetrics;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.infrastructure.Infrastructure;
import io.smallrye.mutiny.subscription.UniEmitter;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.Collections;
import java.util.Queue;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Wakes long polls without holding a thread or a database connection while they wait. A
 * waiter reads the generation of its (tenant, topic, consumer group) before it looks for
 * messages, then waits for a signal; a publish or ack through this process, or new leases,
 * signal. Work from other processes is found by the long poll's periodic re-check instead.
 *
 * <p>A signal says how many messages it may have made deliverable, and wakes at most that many
 * waiters of each consumer group, the longest-waiting first: one published message costs each
 * group one look, not one per waiting poll (the thundering herd). A waiter that the signal did
 * not pick stays registered; its later timer re-check is rate-limited per group by
 * {@link ConsumeService}. A group's generation moves only when a signal found fewer waiters of
 * the group than it had messages for: a signal that a waiting poll took is that poll's to look
 * after. A waiter whose generation moved between its read and its registration (it was looking
 * while such a signal came) counts as woken, so no signal is lost; one that only saw signals
 * other waiters took waits on (docs/architecture.md, "Long polls"). Moving it on every signal
 * sent each poll that was looking back to look again, at every partition: at about 50 messages
 * a second with four long polls, 3.5 ready-partition looks per message.
 *
 * <p>A wait ends exactly once, by a signal or by its time-out, whichever first moves the waiter
 * out of waiting: a signal never counts a poll as woken that its time-out then ends.
 *
 * <p>A signal may name the partitions the change touched (a publish, an ack). The waiter it wakes
 * gets them ({@link Wake#partitions}), so its look can go straight to those partitions instead
 * of asking the database which leased partitions are ready (docs/architecture.md, "Long polls").
 * Every signal is also recorded in each group's {@link ReadyNews}, whether a poll took it or not:
 * a busy consumer's fetch may lease from the partitions signalled since its group's last complete
 * look instead of looking again (docs/architecture.md, "News between looks").
 */
@ApplicationScoped
public class FetchSignals {
    /** Wakes every waiter of each group: for changes whose number of deliverable messages is unknown. */
    public static final int ALL = Integer.MAX_VALUE;

    private record Key(String tenant, String topic) {}

    /**
     * How a wait ended.
     *
     * @param signalled whether a signal ended it (or the generation had moved); false after the time-out
     * @param partitions the partitions the waking signal touched, in key order, or an empty set when they are
     *     unknown (a signal that names none, a generation that moved while the caller looked, a
     *     time-out): then the caller looks at every partition it leases
     */
    public record Wake(boolean signalled, Set<String> partitions) {
        static final Wake TIMED_OUT = new Wake(false, Set.of());
        static final Wake UNKNOWN = new Wake(true, Set.of());

        /** Whether the waking signal named the partitions it touched. */
        public boolean targeted() {
            return signalled && !partitions.isEmpty();
        }
    }

    /**
     * One waiting poll. Its state moves once, from waiting to woken (by a signal) or to gone (its
     * wait ended by time-out or cancellation), so a signal never spends a wake on a gone waiter.
     */
    private static final class Waiter {
        private static final int WAITING = 0, WOKEN = 1, GONE = 2;
        final UniEmitter<? super Wake> emitter;
        final AtomicInteger state = new AtomicInteger(WAITING);

        Waiter(UniEmitter<? super Wake> emitter) {
            this.emitter = emitter;
        }
    }

    /** The waiting polls of one consumer group, in registration order, and the group's generation. */
    private static final class Group {
        final Queue<Waiter> waiters = new ConcurrentLinkedQueue<>();
        /** Signals that found fewer waiting polls of this group than messages they may have made deliverable. */
        final AtomicLong missed = new AtomicLong();
        /** The partitions signalled since the group's last complete look. */
        final ReadyNews news = new ReadyNews();
    }

    private static final class Slot {
        /** Per consumer group. */
        final ConcurrentMap<String, Group> groups = new ConcurrentHashMap<>();
        /** Every signal of the (tenant, topic), taken or not. */
        final AtomicLong signals = new AtomicLong();
    }

    private final ConcurrentMap<Key, Slot> slots = new ConcurrentHashMap<>();
    /** Registrations currently waiting, over all slots (the {@code mq.fetch.waiting} gauge). */
    private final AtomicInteger waiting = new AtomicInteger();

    private final Clock clock;

    @jakarta.inject.Inject
    FetchSignals(QueueMetrics metrics, Clock clock) {
        this.clock = clock;
        metrics.fetchWaitingGauge(waiting::get);
    }

    /** Without the gauge, on the system clock: for unit tests of the wake rules. */
    FetchSignals() {
        this.clock = Clock.systemUTC();
    }

    /**
     * The partitions signalled for the consumer group since its last complete look in this
     * process, and whether they may stand in for a look ({@link ReadyNews}).
     */
    public ReadyNews news(String tenant, String topic, String consumerGroup) {
        return group(tenant, topic, consumerGroup).news;
    }

    /** Drops the news of a consumer group this process no longer serves, if it has any. */
    public void forgetNews(String tenant, String topic, String consumerGroup) {
        Slot slot = slots.get(new Key(tenant, topic));
        Group group = slot == null ? null : slot.groups.get(consumerGroup);
        if (group != null) {
            group.news.unknown();
        }
    }

    /**
     * Long polls of this process that are waiting right now (registered for a signal, not
     * looking for messages). A poll that is looking (its first look, a signalled look, or a
     * timer re-check) is not counted until it waits again.
     */
    public int waiting() {
        return waiting.get();
    }

    /** Long polls of this process waiting right now on this (tenant, topic), over all its consumer groups. */
    public int waiting(String tenant, String topic) {
        Slot slot = slots.get(new Key(tenant, topic));
        return slot == null ? 0 : slot.groups.values().stream().mapToInt(g -> g.waiters.size()).sum();
    }

    /**
     * The current generation of this (tenant, topic) for {@code consumerGroup}: it moves when a
     * signal finds fewer of the group's polls waiting than messages it may have made deliverable.
     * Read it before checking for messages.
     */
    public long generation(String tenant, String topic, String consumerGroup) {
        return group(tenant, topic, consumerGroup).missed.get();
    }

    /**
     * How many signals this (tenant, topic) has had, over all groups, whether a poll took them or
     * not: a caller that reads it before a transaction and again after it knows whether a publish,
     * an ack or anything else signalled meanwhile.
     */
    public long signalsSent(String tenant, String topic) {
        return slot(tenant, topic).signals.get();
    }

    /**
     * Waits for a signal that picks this waiter, or for {@code max} at the latest. Completes with
     * a signalled {@link Wake} (carrying the signal's partitions, if it named them) when woken by a
     * signal, or at once, with unknown partitions, when the group's generation is no longer
     * {@code seen} (a signal came while the caller looked and no waiting poll took it); with a wake that is not
     * signalled after {@code max}. Waiting holds only a registration, removed on completion or
     * cancellation.
     *
     * @param consumerGroup the group the waiter fetches for; signals wake a bounded number per group
     * @param seen the group's generation read before the caller's last look
     */
    public Uni<Wake> await(String tenant, String topic, String consumerGroup, long seen, Duration max) {
        Group group = group(tenant, topic, consumerGroup);
        // At least 1 ms, as the waits callers ask for (ConsumeService never waits less).
        Duration wait = max.compareTo(Duration.ofMillis(1)) < 0 ? Duration.ofMillis(1) : max;
        return Uni.createFrom().emitter(emitter -> {
            Waiter w = new Waiter(emitter);
            Queue<Waiter> queue = group.waiters;
            queue.add(w);
            waiting.incrementAndGet();
            // The time-out moves the waiter out of waiting like a signal does, so exactly one of
            // them ends the wait: a signal that counted this poll as woken is never dropped by a
            // time-out that fires at the same moment.
            ScheduledFuture<?> timeOut = Infrastructure.getDefaultWorkerPool().schedule(() -> {
                if (w.state.compareAndSet(Waiter.WAITING, Waiter.GONE)) {
                    emitter.complete(Wake.TIMED_OUT);
                }
            }, wait.toNanos(), TimeUnit.NANOSECONDS);
            emitter.onTermination(() -> {
                timeOut.cancel(false);
                w.state.compareAndSet(Waiter.WAITING, Waiter.GONE);
                queue.remove(w);
                waiting.decrementAndGet();
            });
            if (group.missed.get() != seen && w.state.compareAndSet(Waiter.WAITING, Waiter.WOKEN)) {
                emitter.complete(Wake.UNKNOWN); // a signal no waiter took came between the read and the registration
            }
        });
    }

    /**
     * Records a change that may have made up to {@code deliverable} messages of this (tenant,
     * topic) deliverable, and wakes up to that many waiters of each consumer group.
     *
     * @param deliverable an upper bound of the messages that became deliverable, or {@link #ALL}
     */
    public void signal(String tenant, String topic, int deliverable) {
        wake(tenant, topic, deliverable, Wake.UNKNOWN, Set.of());
    }

    /**
     * Records that this process newly leased {@code partitions} of this (tenant, topic), whose
     * backlogs are unknown here: wakes every waiting poll of each group to ask which partitions
     * are ready, as {@link #signal(String, String, int)} with {@link #ALL} does, and records the
     * partitions by name in each group's news ({@link #news}).
     */
    public void signalNewLeases(String tenant, String topic, Collection<String> partitions) {
        if (!partitions.isEmpty()) {
            wake(tenant, topic, ALL, Wake.UNKNOWN, partitions);
        }
    }

    /**
     * Records a change to {@code partitions} of this (tenant, topic) that may have made up to
     * {@code deliverable} messages deliverable, and wakes up to that many waiters of each consumer
     * group, but at most one per partition, handing each the partitions: its look may go to them
     * alone. A partition gives one batch at a time (the first poll to lease from it holds it until
     * the ack), so a second poll woken for the same partition could only find it held: a publish
     * of 100 messages to one partition wakes one poll of each group, not 100.
     *
     * @param partitions the partitions the change touched; when empty, as {@link #signal(String, String, int)}
     * @param deliverable an upper bound of the messages that became deliverable
     */
    public void signal(String tenant, String topic, Collection<String> partitions, int deliverable) {
        if (partitions.isEmpty()) {
            wake(tenant, topic, deliverable, Wake.UNKNOWN, Set.of());
            return;
        }
        SortedSet<String> keys = Collections.unmodifiableSortedSet(new TreeSet<>(partitions));
        wake(tenant, topic, Math.min(deliverable, keys.size()), new Wake(true, keys), keys);
    }

    /**
     * Wakes waiters with {@code wake}, and records {@code named} in each group's news: the
     * partitions the change touched, or none when they are unknown.
     */
    private void wake(String tenant, String topic, int deliverable, Wake wake, Collection<String> named) {
        if (deliverable <= 0) {
            return;
        }
        Slot slot = slot(tenant, topic);
        slot.signals.incrementAndGet();
        Instant now = clock.instant();
        for (Group group : slot.groups.values()) {
            if (named.isEmpty()) {
                group.news.unknown();
            } else {
                group.news.touched(named, now);
            }
            int woken = wakeUpTo(group.waiters, deliverable, wake);
            if (woken < deliverable) {
                // Too few waiting: the group's polls that are looking right now must look again.
                // Moved before the second pass, so a poll that registered after the first one
                // either is woken by the second or sees the move when it registers.
                group.missed.incrementAndGet();
                wakeUpTo(group.waiters, deliverable - woken, wake);
            }
        }
    }

    /** Wakes up to {@code n} waiting polls of the queue, longest-waiting first; returns how many it woke. */
    private static int wakeUpTo(Queue<Waiter> queue, int n, Wake wake) {
        int woken = 0;
        for (Waiter w; woken < n && (w = queue.poll()) != null; ) {
            if (w.state.compareAndSet(Waiter.WAITING, Waiter.WOKEN)) {
                w.emitter.complete(wake);
                woken++;
            }
        }
        return woken;
    }

    private Slot slot(String tenant, String topic) {
        return slots.computeIfAbsent(new Key(tenant, topic), k -> new Slot());
    }

    private Group group(String tenant, String topic, String consumerGroup) {
        return slot(tenant, topic).groups.computeIfAbsent(consumerGroup, g -> new Group());
    }
}
