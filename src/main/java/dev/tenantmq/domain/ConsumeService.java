package dev.tenantmq.domain;

import static dev.tenantmq.model.Durations.micros;

import dev.tenantmq.config.MqConfig;
import dev.tenantmq.config.ProcessIdentity;
import dev.tenantmq.model.AckTarget;
import dev.tenantmq.model.ConsumeLimits;
import dev.tenantmq.model.ConsumerGroup;
import dev.tenantmq.model.DeadLetterPolicy;
import dev.tenantmq.model.Delivery;
import dev.tenantmq.model.EffectiveSettings;
import dev.tenantmq.model.NackBackoff;
import dev.tenantmq.model.FetchBudget;
import dev.tenantmq.model.Identifiers;
import dev.tenantmq.model.InvalidRequestException;
import dev.tenantmq.model.PartitionDepth;
import dev.tenantmq.model.ReadyLooks;
import dev.tenantmq.model.ReadyNews;
import dev.tenantmq.model.ReadyTail;
import dev.tenantmq.model.SettleStatus;
import dev.tenantmq.model.Tenant;
import dev.tenantmq.model.Topic;
import dev.tenantmq.model.TraceContext;
import dev.tenantmq.model.Utf8Json;
import dev.tenantmq.ops.QueueMetrics;
import dev.tenantmq.store.ConsumerStore;
import dev.tenantmq.store.FetchTransaction;
import dev.tenantmq.store.SettleTransaction;
import dev.tenantmq.model.GroupScope;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.infrastructure.Infrastructure;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Lease-fetch, ack, nack and extend, with retries and dead letters (SPEC section 4). Fetch serves only partitions this process leases for
 * the (tenant, consumer group, topic); the scheduler acquires those leases after the first
 * fetch registers interest. Ack works on any process: the receipt and the database carry all
 * the state it needs.
 */
@ApplicationScoped
public class ConsumeService {
    private final ConsumerStore store;
    private final ProcessIdentity identity;
    private final InterestRegistry interest;
    private final FetchSignals signals;
    private final QueueMetrics metrics;
    private final MqConfig config;
    private final Clock clock;
    private final ReceiptSigning receipts;
    /** The per-topic and per-group settings, from memory (refreshed by the scheduler tick). */
    private final SettingsCache settings;
    /** Where the last fetch of each triple stopped, so the next one starts after it (fairness). */
    private final Map<GroupScope, String> cursors = new ConcurrentHashMap<>();
    /** The ready-partition queries of each triple's fetches here: when a fetch carrying acks may skip one. */
    private final Map<GroupScope, ReadyLooks.Looks> looks = new ConcurrentHashMap<>();
    /** Messages per partition of each triple's last lease transaction here: how many partitions a fetch claims. */
    private final Map<GroupScope, PartitionDepth> depths = new ConcurrentHashMap<>();
    /** The ready partitions each triple's last look here named and no fetch has reached yet ({@link ReadyTail}). */
    private final Map<GroupScope, ReadyTail> tails = new ConcurrentHashMap<>();

    ConsumeService(ConsumerStore store, ProcessIdentity identity, InterestRegistry interest, FetchSignals signals,
                   QueueMetrics metrics, MqConfig config, Clock clock, ReceiptSigning receipts, SettingsCache settings) {
        this.settings = settings;
        this.store = store;
        this.identity = identity;
        this.interest = interest;
        this.signals = signals;
        this.metrics = metrics;
        this.config = config;
        this.clock = clock;
        this.receipts = receipts;
    }

    /**
     * A validated fetch request: it checks its own limits ({@link ConsumeLimits}) when made, all
     * but the configured upper bounds of {@code maxMessages} and {@code maxBytes}, which {@link #fetch} checks.
     *
     * @param maxMessages 1..{@code mq.fetch.max-messages}
     * @param maxBytes the byte budget: 1..{@code mq.fetch.max-bytes} bytes of payload, as
     *     {@link FetchBudget} counts them (the first message goes even when it is larger)
     * @param waitTime how long to wait for a message when there is none (0..30 s)
     * @param visibility how long delivered messages stay invisible before redelivery (1 s..12 h)
     * @throws InvalidRequestException naming each field out of its range (400)
     */
    public record Fetch(Tenant tenant, Topic topic, ConsumerGroup consumerGroup, int maxMessages, int maxBytes,
                        Duration waitTime, Duration visibility) {
        public Fetch {
            ConsumeLimits.require(ConsumeLimits.fetchProblems(maxMessages, Integer.MAX_VALUE, maxBytes, Integer.MAX_VALUE,
                    waitTime, visibility));
        }
    }

    /**
     * One delivered message. {@code payload} is its JSON text in the bytes the database sent,
     * {@code metadataJson} JSON text; {@code trace} is the W3C trace context it was published
     * with, or null (docs/api.md, "Trace context").
     */
    public record Delivered(String partitionKey, String id, long offset, Utf8Json payload, String metadataJson,
                            Instant createdAt, int deliveryAttempt, String receipt, TraceContext trace) {}

    /**
     * Long-poll lease-fetch: returns as soon as any message is deliverable, else after
     * {@code waitTime} with an empty list. While it waits it holds no database connection and no
     * thread: database work runs on worker threads in short transactions, and the wait is a
     * timer plus a {@link FetchSignals} signal.
     *
     * @throws TenantNotServedException when the tenant is not in MQ_TENANTS (403)
     * @throws InvalidRequestException when {@code maxMessages} is above {@code mq.fetch.max-messages}, or
     *     {@code maxBytes} above {@code mq.fetch.max-bytes} (400)
     */
    public Uni<List<Delivered>> fetch(Fetch f) {
        TenantNotServedException.requireServed(identity, f.tenant());
        ConsumeLimits.require(ConsumeLimits.fetchProblems(f.maxMessages(), config.fetch().maxMessages(), f.maxBytes(),
                config.fetch().maxBytes(), f.waitTime(), f.visibility()));
        GroupScope scope = new GroupScope(f.tenant().value(), f.consumerGroup().value(), f.topic().value());
        ConsumeLimits.require(settings(scope).visibilityAboveMaximum(f.visibility()).stream().toList());
        Instant deadline = clock.instant().plus(f.waitTime());
        return attempt(scope, f, deadline, true, Set.of());
    }

    /**
     * What a fetch that carries acks answers: one result per receipt of its {@code ack}, in
     * request order (as {@link #ack} answers them), and the messages delivered.
     */
    public record FetchOutcome(List<ReceiptResult> acks, List<Delivered> messages) {}

    /**
     * Lease-fetch that first acknowledges {@code ack} (docs/api.md, "Fetch and ack in one call"):
     * the receipts settle exactly as {@link #ack} settles them, before the fetch looks, and in the
     * same transaction as its first lease, so a partition whose batch the ack finishes can deliver
     * its next messages in this very fetch. A receipt that is STALE or INVALID is a status in the
     * answer, never a failed fetch. With no receipts it is {@link #fetch(Fetch)}.
     *
     * @param ack receipts to acknowledge, 0..{@code mq.fetch.max-messages} ({@link #requireReceiptCount})
     * @throws TenantNotServedException when the tenant is not in MQ_TENANTS (403)
     * @throws InvalidRequestException when a limit of the fetch or of {@code ack} is broken (400)
     */
    public Uni<FetchOutcome> fetch(Fetch f, List<String> ack) {
        return fetch(f, receipts.tokens(ack));
    }

    /**
     * {@link #fetch(Fetch, List)} with receipts the caller decoded already (the API, for its
     * permission check): none is decoded again.
     */
    public Uni<FetchOutcome> fetch(Fetch f, ReceiptTokens ack) {
        if (ack.size() == 0) {
            return fetch(f).map(messages -> new FetchOutcome(List.of(), messages));
        }
        TenantNotServedException.requireServed(identity, f.tenant());
        ConsumeLimits.require(ConsumeLimits.fetchProblems(f.maxMessages(), config.fetch().maxMessages(), f.maxBytes(),
                config.fetch().maxBytes(), f.waitTime(), f.visibility()));
        requireReceiptCount(FETCH_ACK_FIELD, 0, ack.size());
        GroupScope scope = new GroupScope(f.tenant().value(), f.consumerGroup().value(), f.topic().value());
        Decoded decoded = decode(scope, ack);
        Instant deadline = clock.instant().plus(f.waitTime());
        interest.touch(scope);
        long seen = signals.generation(scope.tenant(), scope.topic(), scope.consumerGroup());
        return Uni.createFrom().item(() -> {
                    PendingAck pending = new PendingAck(decoded.targets());
                    long signalsBefore = signals.signalsSent(scope.tenant(), scope.topic());
                    List<Delivered> found = fetchOnce(scope, f, pending);
                    List<ReceiptResult> results = decoded.results(pending.statuses == null ? List.of() : pending.statuses,
                            ReceiptStatus.ACKED);
                    acked(f.tenant(), f.topic(), ack, results, found, pending.mayHaveMore, signalsBefore);
                    return new FetchOutcome(results, found);
                })
                .runSubscriptionOn(Infrastructure.getDefaultWorkerPool())
                .flatMap(outcome -> {
                    if (!outcome.messages().isEmpty() || f.waitTime().isZero()) {
                        return Uni.createFrom().item(outcome);
                    }
                    return waitThenRetry(scope, f, deadline, seen)
                            .map(messages -> new FetchOutcome(outcome.acks(), messages));
                });
    }

    /** The field of a fetch body that carries receipts to acknowledge (openapi.yaml, FetchRequest). */
    public static final String FETCH_ACK_FIELD = "ack";

    /**
     * The acks a fetch carries, settled by the first lease transaction of its first look
     * ({@link #leaseUnclaimed}); {@code statuses} are the store's, one per target, once settled.
     */
    private static final class PendingAck {
        final List<AckTarget> targets;
        List<SettleStatus> statuses;
        /** The acked partitions that may have more to deliver, once settled. */
        Set<String> mayHaveMore = Set.of();

        PendingAck(List<AckTarget> targets) {
            this.targets = targets;
        }

        boolean due() {
            return statuses == null && !targets.isEmpty();
        }
    }

    /**
     * One look, and a wait after an empty one.
     *
     * @param touched the partitions the signal that woke this poll named, or empty: then the look
     *     asks the database which leased partitions are ready
     */
    private Uni<List<Delivered>> attempt(GroupScope scope, Fetch f, Instant deadline, boolean first, Set<String> touched) {
        // A waiting long poll is a fetch in progress: it keeps the triple's interest alive even
        // when mq.interest-timeout is shorter than its wait.
        interest.touch(scope);
        long seen = signals.generation(scope.tenant(), scope.topic(), scope.consumerGroup());
        if (first && !f.waitTime().isZero() && recentlyEmpty(scope, seen)) {
            // Another poll of this group looked a moment ago, found nothing, and no signal since
            // went untaken by a waiting poll (FetchSignals: a taken one is the taker's to look
            // after): wait like it does instead of asking the database again. Without
            // this, long polls that time out together all look at once when they come back.
            return waitThenRetry(scope, f, deadline, seen);
        }
        Instant lookedAt = clock.instant();
        return Uni.createFrom().item(() -> touched.isEmpty() ? fetchOnce(scope, f, null) : fetchTouched(scope, f, touched))
                .runSubscriptionOn(Infrastructure.getDefaultWorkerPool())
                .flatMap(found -> {
                    if (!found.isEmpty()) {
                        return Uni.createFrom().item(found);
                    }
                    if (touched.isEmpty()) {
                        // (a look at the touched partitions alone says nothing about the others)
                        emptyLooks.put(scope, new EmptyLook(seen, lookedAt));
                    }
                    return waitThenRetry(scope, f, deadline, seen);
                });
    }

    /** Shortest timer wait: Vert.x refuses timers under 1 ms. */
    private static final Duration MIN_PAUSE = Duration.ofMillis(1);

    /**
     * Waits for a signal or the re-check interval, then looks again. A signal that picks this
     * waiter (publish, ack, new leases in this process; see {@link FetchSignals}) always looks
     * again: at the partitions it names, when it names them (a publish, an ack), else at every
     * partition this process leases for the group. A timer re-check is rate-limited per (tenant,
     * group, topic): a waiter looks only when no other waiter of the triple claimed a look in the
     * last half interval, so many idle long polls cost about one query per interval, not one each.
     */
    private Uni<List<Delivered>> waitThenRetry(GroupScope scope, Fetch f, Instant deadline, long seen) {
        Duration remaining = Duration.between(clock.instant(), deadline);
        if (remaining.compareTo(MIN_PAUSE) < 0) {
            return Uni.createFrom().item(List.of()); // a timer cannot wait less than 1 ms (Vert.x refuses it)
        }
        Duration recheck = config.fetch().recheckInterval();
        Duration pause = remaining.compareTo(recheck) < 0 ? remaining : recheck;
        return signals.await(scope.tenant(), scope.topic(), scope.consumerGroup(), seen, pause).flatMap(wake -> {
            boolean woken = wake.signalled();
            if (!woken && !claimRecheck(scope, recheck)) {
                // Another waiter looked, or is looking; a signal meanwhile that picked other waiters
                // is theirs. The same generation as before: one that moved since (a signal no
                // waiter took, after this wait timed out) sends this poll to look at once.
                return waitThenRetry(scope, f, deadline, seen);
            }
            return attempt(scope, f, deadline, false, wake.partitions());
        });
    }

    /**
     * The last look of a triple that found nothing: the signal generation read before it, and
     * when it started. A new long poll skips its first look while this is younger than half the
     * re-check interval and the generation has not moved, the same bound a timer re-check has.
     */
    private record EmptyLook(long generation, Instant at) {}

    private final Map<GroupScope, EmptyLook> emptyLooks = new ConcurrentHashMap<>();

    private boolean recentlyEmpty(GroupScope scope, long generation) {
        EmptyLook last = emptyLooks.get(scope);
        Duration window = config.fetch().recheckInterval().dividedBy(2);
        return last != null && last.generation() == generation && last.at().isAfter(clock.instant().minus(window));
    }

    /** When the last timer re-check of each triple was claimed. */
    private final Map<GroupScope, Instant> lastRecheck = new ConcurrentHashMap<>();

    private boolean claimRecheck(GroupScope scope, Duration interval) {
        Instant now = clock.instant();
        Instant cutoff = now.minus(interval.dividedBy(2));
        boolean[] claimed = {false};
        lastRecheck.compute(scope, (k, last) -> {
            if (last == null || last.isBefore(cutoff)) {
                claimed[0] = true;
                return now;
            }
            return last;
        });
        return claimed[0];
    }

    /**
     * Partitions a fetch of this process is leasing right now, per (tenant, group, topic). Only
     * this process holds its leases, so concurrent fetches of one group here would otherwise read
     * the same ready partitions and queue on the same lease row locks, the second one finding
     * nothing left. Each fetch skips the partitions another one has claimed, and marks them
     * skipped (the value): the claimant may have read them before a message that the skipping
     * fetch was woken for committed, so when it finishes it signals the topic, once for each
     * skipped partition it took nothing from, and waiting polls look again. Without that, the
     * wake-up would be lost until the next re-check. (A partition it handed messages out of is
     * held until their ack, and the ack signals.)
     */
    private final Map<GroupScope, Map<String, Boolean>> claimed = new ConcurrentHashMap<>();

    /**
     * One look for messages: ready partitions (no locks), then lease transactions for them, one
     * unless the first partitions claimed run dry, repeated only while the fetch has room in its
     * budget of messages and payload bytes ({@link FetchBudget}, shared by every lease of the
     * fetch) and more partitions may be ready. Keys after the group's fairness cursor come first,
     * then the rest from the start; the cursor is kept only when a look (or the news, below) left
     * ready partitions out, so a group whose ready partitions all fit in a fetch looks once. A look
     * asks for as many partitions as the fetch has room for messages (each ready partition has at
     * least one); each lease transaction claims as many of them as the room needs at the depth the
     * group's partitions last showed ({@link PartitionDepth}: all of them while it is unknown or
     * one message) and shares the room among those ({@code FetchTransaction#lease}), so a fetch
     * over many shallow partitions takes one look and one transaction, not one per few partitions,
     * and one over deep partitions scans few. A look that stopped at its limit names more
     * partitions than the fetch reaches; the rest serves the group's next fetches here before they
     * look again ({@link ReadyTail}), after it the next look starts. A fetch that carries the acks
     * of a full batch may first lease from the acked partitions alone, without a look ({@link
     * ReadyLooks}); when they fill it, that is all it does. After a look that saw every ready
     * partition, the partitions signalled in this process since serve the group's next fetches
     * instead of a look, for a while ({@link ReadyNews}); a fetch they give nothing looks.
     */
    private List<Delivered> fetchOnce(GroupScope scope, Fetch f, PendingAck ack) {
        String subscriber = identity.subscriberName().value();
        String cursor = cursors.getOrDefault(scope, "");
        Map<String, Boolean> busy = claimed.computeIfAbsent(scope, k -> new ConcurrentHashMap<>());
        List<Delivery> leased = new ArrayList<>();
        FetchBudget budget = FetchBudget.of(f.maxMessages(), f.maxBytes());
        Duration lookInterval = config.fetch().readyLookInterval();
        // Only while the group's ready partitions fit in a fetch (no fairness cursor kept): when a
        // look leaves some out, each fetch moves the cursor on to them (by a look, or by the rest
        // of the last one), and a skip would not.
        if (ack != null && ack.due() && cursor.isEmpty() && ReadyLooks.maySkip(looks.get(scope), clock.instant(),
                lookInterval, ack.targets.size(), f.maxMessages())) {
            // The acked partitions first, without asking which are ready; the fairness cursor stays.
            budget = leaseUnclaimed(scope, f, subscriber, busy, List.of(), budget, leased, ack).budget();
            boolean filled = budget.spent();
            Instant now = clock.instant();
            looks.computeIfPresent(scope, (k, l) -> ReadyLooks.skipped(l, now, lookInterval, filled));
            if (filled) {
                return handOut(scope, leased);
            }
        }
        boolean leftOut = false; // whether a look stopped at its LIMIT: ready partitions may be unseen
        // Read, not taken: the group's other fetches here lease from the same rest meanwhile,
        // each claiming partitions the others have not (see `claimed`), where a taken rest made
        // each of them look (docs/architecture.md, "The rest of a look").
        ReadyTail tail = tails.get(scope);
        if (tail != null && !tail.trusted(clock.instant(), lookInterval)) {
            tails.remove(scope, tail); // the looks below name its partitions again
            tail = null;
        }
        if (tail != null) {
            // The rest of the last look, which left ready partitions out: lease from it instead
            // of naming the same partitions again, and look on after it only when it runs out.
            int before = leased.size();
            Round round = leaseUnclaimed(scope, f, subscriber, busy, tail.keys(), budget, leased, ack);
            budget = round.budget();
            ReadyTail left = tail.rest(ReadyTail.firstUnreached(tail.keys(), gave(leased, before), budget.spent(),
                    round.next()));
            Instant restLookedAt = tail.lookedAt();
            tails.compute(scope, (k, kept) -> ReadyTail.afterRest(kept, left, restLookedAt));
            // Its look stopped at its limit: with the budget spent, partitions after the rest may
            // be ready unseen; with room left, the looks below decide.
            leftOut = budget.spent();
            cursor = tail.last();
        }
        ReadyNews news = signals.news(scope.tenant(), scope.topic(), scope.consumerGroup());
        if (!budget.spent()) {
            // The group's last look saw every ready partition, a moment ago: lease from the
            // partitions signalled since instead of looking again (docs/architecture.md, "News
            // between looks"). When they give nothing, the look below runs. (A look that stopped
            // at its limit since, and left the fairness cursor, ended the trust.)
            List<String> touched = news.take(clock.instant());
            if (touched != null && !touched.isEmpty()) {
                int before = leased.size();
                Round round;
                try {
                    round = leaseUnclaimed(scope, f, subscriber, busy, touched, budget, leased, ack);
                } catch (RuntimeException e) {
                    news.unknown(); // the keys taken are lost: the next fetch looks
                    throw e;
                }
                budget = round.budget();
                int next = ReadyTail.firstUnreached(touched, gave(leased, before), budget.spent(), round.next());
                news.putBack(touched.subList(next, touched.size()), next > 0 ? touched.get(next - 1) : null);
                if (leased.size() > before) {
                    // News left unreached is ready partitions left out: the cursor moves on, so the
                    // next fetch's acks do not keep it on the partitions it acked (ReadyLooks).
                    return delivered(scope, leased, next < touched.size());
                }
            }
        }
        String after = cursor;
        String upTo = null; // no upper bound until the look wraps around to the start
        // Signals from here on are news to these looks (none run when the budget is spent).
        Instant looksStarted = clock.instant();
        long newsTicket = budget.spent() ? 0 : news.lookStarted();
        boolean sawAll = false; // the looks below walked every leased partition, none stopped at its limit
        List<String> unreached = new ArrayList<>();
        try {
            while (!budget.spent()) {
                int ask = budget.messagesLeft();
                // Ask for as many more as other fetches have claimed, so that skipping theirs leaves enough.
                int asked = ask + busy.size();
                Instant lookedAt = clock.instant();
                looks.compute(scope, (k, l) -> ReadyLooks.looked(l, lookedAt));
                List<String> ready = store.readyPartitions(scope, subscriber, after, upTo, asked);
                int before = leased.size();
                Round round = leaseUnclaimed(scope, f, subscriber, busy, ready, budget, leased, ack);
                budget = round.budget();
                boolean stoppedAtLimit = ready.size() >= asked;
                leftOut |= stoppedAtLimit;
                int next = ReadyTail.firstUnreached(ready, gave(leased, before), budget.spent(), round.next());
                ReadyTail rest = ReadyTail.after(ready, next, stoppedAtLimit, lookedAt);
                tails.compute(scope, (k, kept) -> ReadyTail.afterLook(kept, rest, lookedAt));
                unreached.addAll(ready.subList(next, ready.size()));
                if (!stoppedAtLimit) {
                    if (upTo != null || cursor.isEmpty()) {
                        sawAll = !leftOut;
                        break; // looked at every leased partition once
                    }
                    after = "";
                    upTo = cursor;
                } else {
                    after = ready.get(ready.size() - 1);
                }
            }
        } finally {
            if (newsTicket != 0) { // a look that failed saw nothing: it ends the news with no trust
                news.lookEnded(newsTicket, sawAll && !lookInterval.isZero(), unreached,
                        looksStarted.plus(lookInterval.multipliedBy(ReadyTail.TRUST_LOOK_INTERVALS)));
            }
        }
        return delivered(scope, leased, leftOut);
    }

    /**
     * A look at the partitions a signal named ({@link FetchSignals.Wake#partitions}): a publish or
     * an ack touched them a moment ago, so the ready-partitions query is skipped and the lease
     * transaction goes to them at once; it delivers from those this process still leases and
     * that have nothing in flight. Partitions it does not lease here are for another process,
     * which finds them on its re-check. It claims as many partitions at a time as its room needs
     * at their last observed depth ({@link #leaseUnclaimed}), and goes on to the next when they
     * gave less (a poll woken by the same signal took theirs first); those other waiters claim
     * the rest.
     */
    private List<Delivered> fetchTouched(GroupScope scope, Fetch f, Set<String> touched) {
        String subscriber = identity.subscriberName().value();
        Map<String, Boolean> busy = claimed.computeIfAbsent(scope, k -> new ConcurrentHashMap<>());
        List<Delivery> leased = new ArrayList<>();
        leaseUnclaimed(scope, f, subscriber, busy, new ArrayList<>(touched), // in key order
                FetchBudget.of(f.maxMessages(), f.maxBytes()), leased, null);
        return delivered(scope, leased, true); // other partitions may be ready: the cursor moves on
    }

    /**
     * Leases from {@code candidates}, in their order, for as long as the fetch has room: claims as
     * many as the room needs at the group's last observed depth ({@link PartitionDepth}) among
     * those that no other fetch of this process has claimed (marking the others skipped, see
     * {@link #claimed}), leases from them in one transaction, releases the claims, and goes on
     * with the candidates after them while room is left. A claimed candidate may give nothing:
     * another fetch of this process took its messages between the look that named it and this
     * claim (they are in flight, held until their ack). Stopping there would leave a ready
     * candidate after it unlooked, with no signal coming for it: a wake-up lost until the next
     * re-check.
     *
     * <p>When {@code ack} is due, its receipts settle in the first lease transaction, first; the
     * partitions they name that no other fetch here has claimed are claimed too, and walked after
     * the candidates, so a batch acked now makes room for the next one of its partition.
     *
     * @param budget what the fetch may still hand out
     * @param ack acks to settle in the first lease transaction, or null
     * @return the fetch's budget after these leases, and the index of the first candidate not claimed
     */
    private Round leaseUnclaimed(GroupScope scope, Fetch f, String subscriber, Map<String, Boolean> busy,
                                 List<String> candidates, FetchBudget budget, List<Delivery> leased,
                                 PendingAck ack) {
        int next = 0;
        boolean gaveNothing = false;
        do {
            Round round = leaseRound(scope, f, subscriber, busy, candidates, next, budget, leased, ack, gaveNothing);
            gaveNothing = round.budget().equals(budget);
            budget = round.budget();
            next = round.next();
        } while (!budget.spent() && next < candidates.size());
        return new Round(budget, next);
    }

    /** Where a lease round left a fetch: its budget, and the index of the first candidate it did not reach. */
    private record Round(FetchBudget budget, int next) {}

    /**
     * One round of {@link #leaseUnclaimed}: claims as many of the candidates from index
     * {@code from} that no other fetch here has claimed as the budget's messages left need at the
     * group's last observed depth ({@link PartitionDepth}; one per message when
     * {@code afterNothing}, the fetch's previous round having handed out nothing), leases from them
     * in one transaction (settling {@code ack} first when it is due), and releases the claims;
     * then signals the topic once for each skipped partition it took nothing from. Candidates
     * after the claimed ones that another fetch holds are marked skipped too.
     */
    private Round leaseRound(GroupScope scope, Fetch f, String subscriber, Map<String, Boolean> busy,
                             List<String> candidates, int from, FetchBudget budget, List<Delivery> leased,
                             PendingAck ack, boolean afterNothing) {
        PartitionDepth depth = afterNothing ? PartitionDepth.UNKNOWN
                : depths.getOrDefault(scope, PartitionDepth.UNKNOWN);
        int ask = depth.claims(budget.messagesLeft());
        List<String> mine = new ArrayList<>();
        int next = from;
        for (int i = from; i < candidates.size(); i++) {
            String p = candidates.get(i);
            if (mine.size() < ask) {
                next = i + 1;
                // Claim it (absent: FALSE, ours) or mark it skipped (present: TRUE) in one atomic
                // step. As a claim attempt and a separate mark, the claimant could release it in
                // between, unmarked, and signal nothing while this fetch skipped it: a wake-up
                // lost until the next re-check.
                if (!busy.compute(p, (k, skipped) -> skipped != null)) {
                    mine.add(p);
                }
            } else {
                busy.computeIfPresent(p, (k, skipped) -> Boolean.TRUE);
            }
        }
        boolean acking = ack != null && ack.due();
        Set<String> ackClaimed = new TreeSet<>();
        if (acking) {
            for (AckTarget t : ack.targets) {
                String p = t.partitionKey();
                if (!mine.contains(p) && !ackClaimed.contains(p) && busy.putIfAbsent(p, Boolean.FALSE) == null) {
                    ackClaimed.add(p);
                }
            }
        }
        if (mine.isEmpty() && !acking) {
            return new Round(budget, next);
        }
        Set<String> handedOut = new HashSet<>();
        try {
            FetchTransaction.LeaseResult result;
            if (acking) {
                var both = store.ackAndLease(scope, subscriber, ack.targets, mine, ackClaimed, budget,
                        micros(f.visibility()), deadLetterPolicy(scope));
                ack.statuses = both.statuses();
                ack.mayHaveMore = both.mayHaveMore();
                result = both.lease();
            } else {
                result = store.lease(scope, subscriber, mine, budget, micros(f.visibility()), deadLetterPolicy(scope));
            }
            deadLettered(scope, result.deadLettered());
            depths.compute(scope, (k, d) -> (d == null ? PartitionDepth.UNKNOWN : d)
                    .after(result.deliveries().size(), result.partitionsWalked(), result.budget().spent()));
            leased.addAll(result.deliveries());
            result.deliveries().forEach(d -> handedOut.add(d.partitionKey()));
            return new Round(result.budget(), next);
        } finally {
            List<String> skipped = new ArrayList<>();
            for (String p : ackClaimed) {
                busy.remove(p); // an acked partition: the ack signals it when this fetch took nothing from it
            }
            for (String p : mine) {
                // A partition this fetch handed messages out of is held until their ack,
                // which signals; only one it took nothing from may still be ready.
                if (Boolean.TRUE.equals(busy.remove(p)) && !handedOut.contains(p)) {
                    skipped.add(p);
                }
            }
            // see `claimed`: one more look per skipped partition that may still be ready
            signals.signal(scope.tenant(), scope.topic(), skipped, skipped.size());
        }
    }

    /** The partitions of the deliveries in {@code leased} from index {@code from} on. */
    private static Set<String> gave(List<Delivery> leased, int from) {
        Set<String> partitions = new HashSet<>();
        for (Delivery d : leased.subList(from, leased.size())) {
            partitions.add(d.partitionKey());
        }
        return partitions;
    }

    /** The leased messages as delivered, with their receipts; moves the group's fairness cursor, or clears it when no ready partition was {@code leftOut}. */
    private List<Delivered> delivered(GroupScope scope, List<Delivery> leased, boolean leftOut) {
        if (leased.isEmpty()) {
            if (!leftOut) {
                // The looks saw every leased partition and none was ready: a cursor kept from
                // before would only split the next fetch's look in two, and keep it from the news.
                cursors.remove(scope);
            }
            return List.of();
        }
        if (leftOut) {
            cursors.put(scope, leased.get(leased.size() - 1).partitionKey());
        } else {
            // Every ready partition fit in this fetch: the next one starts from the first key, in
            // one look, instead of after a cursor and then wrapping around in a second.
            cursors.remove(scope);
        }
        return handOut(scope, leased);
    }

    /** The deliveries as the client gets them, with their receipts; counted in the metrics. */
    private List<Delivered> handOut(GroupScope scope, List<Delivery> leased) {
        List<Delivered> out = new ArrayList<>(leased.size());
        int redelivered = 0;
        for (Delivery d : leased) {
            redelivered += d.deliveryAttempt() > 1 ? 1 : 0;
            String receipt = receipts.encode(new Receipt(scope.tenant(), scope.consumerGroup(), scope.topic(),
                    d.partitionKey(), d.offset(), d.leaseEpoch(), d.delivery()));
            out.add(new Delivered(d.partitionKey(), d.id(), d.offset(), d.payload(), d.metadataJson(), d.createdAt(),
                    d.deliveryAttempt(), receipt, d.trace()));
        }
        metrics.delivered(scope.tenant(), scope.topic(), out.size(), redelivered);
        return out;
    }

    /**
     * Forgets what this process keeps in memory about a consumer group it no longer serves (the
     * scheduler dropped it after {@code mq.interest-timeout} without a fetch): its fairness cursor,
     * its ready-partition looks, the rest of the last one and the news since it, its partitions'
     * last observed depth, its last empty look and timer re-check, and its map of claimed
     * partitions when no fetch is using it. A fetch of the group later starts afresh, as a first
     * fetch does; without this, a long-running process would keep an entry for every group that
     * ever fetched here.
     */
    public void forget(GroupScope scope) {
        cursors.remove(scope);
        looks.remove(scope);
        depths.remove(scope);
        tails.remove(scope);
        signals.forgetNews(scope.tenant(), scope.topic(), scope.consumerGroup());
        emptyLooks.remove(scope);
        lastRecheck.remove(scope);
        // A fetch running now holds the map; it stays until that fetch's claims are gone.
        claimed.computeIfPresent(scope, (k, partitions) -> partitions.isEmpty() ? null : partitions);
    }

    /**
     * How many consumer groups this process keeps fetch state for (cursors, looks, rests of looks,
     * depths, empty looks, re-checks, claims; a group counted once). For tests and diagnostics.
     */
    public int groupsWithFetchState() {
        java.util.Set<GroupScope> groups = new java.util.HashSet<>(cursors.keySet());
        groups.addAll(looks.keySet());
        groups.addAll(depths.keySet());
        groups.addAll(tails.keySet());
        groups.addAll(emptyLooks.keySet());
        groups.addAll(lastRecheck.keySet());
        groups.addAll(claimed.keySet());
        return groups.size();
    }

    /** Whether this process keeps fetch state for the group (see {@link #groupsWithFetchState}). */
    public boolean hasFetchState(GroupScope scope) {
        return cursors.containsKey(scope) || looks.containsKey(scope) || depths.containsKey(scope)
                || tails.containsKey(scope) || emptyLooks.containsKey(scope)
                || lastRecheck.containsKey(scope)
                || claimed.containsKey(scope);
    }

    /**
     * The scheduler's dead-letter sweep for one (tenant, group, topic) this process consumes:
     * dead-letters, in the partitions it leases, the in-flight messages whose last allowed
     * attempt failed by visibility expiry or a lost lease, with reason
     * {@value dev.tenantmq.model.PartitionWalk#EXPIRED} or
     * {@value dev.tenantmq.model.PartitionWalk#LEASE_LOST}, without waiting for the group's next
     * fetch (SPEC "Dead letters").
     *
     * @return messages dead-lettered
     */
    public int deadLetterExpired(GroupScope scope) {
        int n = store.deadLetterExpired(scope, identity.subscriberName().value(), deadLetterPolicy(scope));
        deadLettered(scope, n);
        return n;
    }

    /**
     * Dead letters go to {@code <topic><suffix>}. Where that name would pass 255 characters (the
     * dead-letter topic of a 248..251-character topic), there is no dead-letter topic: its messages
     * are retried with backoff for as long as they fail, like an SQS queue without a redrive
     * policy.
     */
    private DeadLetterPolicy deadLetterPolicy(GroupScope scope) {
        String dlqTopic = scope.topic() + config.dlqSuffix();
        EffectiveSettings s = settings(scope);
        if (dlqTopic.length() > Identifiers.MAX_LENGTH || !s.deadLetterEnabled().value()) {
            return DeadLetterPolicy.NEVER; // a group or topic may turn dead-lettering off: retried without limit
        }
        return new DeadLetterPolicy(s.maxDeliveries().value(), dlqTopic);
    }

    /** The settings of the group on its topic (docs/settings.md, "Per-topic and per-group settings"), from memory. */
    private EffectiveSettings settings(GroupScope scope) {
        return settings.effective(scope.tenant(), scope.topic(), scope.consumerGroup());
    }

    /**
     * The visibility timeout of a fetch of this group that names none: the group's or topic's
     * {@code defaultVisibilitySeconds}, else 30 s ({@link ConsumeLimits#DEFAULT_VISIBILITY_SECONDS}).
     * From memory: no statement.
     */
    public Duration defaultVisibility(Tenant tenant, Topic topic, ConsumerGroup group) {
        return settings.effective(tenant.value(), topic.value(), group.value()).defaultVisibility();
    }

    /** Counts dead letters and wakes long polls of the dead-letter topic; the original partition moved on too. */
    private void deadLettered(GroupScope scope, int n) {
        if (n > 0) {
            metrics.deadLettered(scope.tenant(), scope.topic(), n);
            signals.signal(scope.tenant(), scope.topic() + config.dlqSuffix(), n);
            signals.signal(scope.tenant(), scope.topic(), n); // the partitions they held back may flow
        }
    }

    /**
     * Status of one receipt in an ack, nack or extend response (SPEC section 4). INVALID: the
     * receipt is not one this service signed (docs/security.md, "Receipt signing": forged or
     * altered, checked without a database look-up), not one of this tenant, topic and consumer
     * group, or names no stored message
     * above the group's committed offset (a forged offset, or a message an operator deleted or
     * retention expired); nothing changed, and retrying cannot help.
     */
    public enum ReceiptStatus { ACKED, NACKED, EXTENDED, ALREADY_ACKED, STALE, INVALID }

    /** Outcome of one receipt. */
    public record ReceiptResult(String receipt, ReceiptStatus status) {}

    /**
     * Acknowledges deliveries. Each receipt is ACKED, ALREADY_ACKED, STALE (its lease or
     * delivery is no longer current: nothing changed) or INVALID (not a receipt of this
     * tenant, topic and consumer group). Advances committed offsets over the contiguous acked
     * prefix of each partition.
     *
     * @return one result per receipt, in request order
     * @throws TenantNotServedException when the tenant is not in MQ_TENANTS (403)
     * @throws InvalidRequestException when the list is empty or longer than the batch limit (400)
     */
    public List<ReceiptResult> ack(Tenant tenant, Topic topic, ConsumerGroup group, List<String> receipts) {
        return ack(tenant, topic, group, this.receipts.tokens(receipts));
    }

    /** {@link #ack(Tenant, Topic, ConsumerGroup, List)} with receipts the caller decoded already. */
    public List<ReceiptResult> ack(Tenant tenant, Topic topic, ConsumerGroup group, ReceiptTokens receipts) {
        List<Set<String>> mayHaveMore = new ArrayList<>(1);
        long signalsBefore = signals.signalsSent(tenant.value(), topic.value());
        List<ReceiptResult> out = settle(tenant, topic, group, receipts, ReceiptStatus.ACKED, (scope, targets) -> {
            SettleTransaction.AckResult result = store.ack(scope, targets);
            mayHaveMore.add(result.mayHaveMore());
            return result.statuses();
        });
        acked(tenant, topic, receipts, out, List.of(), mayHaveMore.isEmpty() ? Set.of() : mayHaveMore.get(0), signalsBefore);
        return out;
    }

    /**
     * Counts the acked receipts and signals their partitions, which an ack can make deliverable
     * again (the messages after the acked batch): only those where the group may have more
     * ({@code mayHaveMore}, from the ack's own read), so a poll is not woken to look at a
     * partition with nothing after the batch; and not those a fetch that carried the acks has
     * just delivered from ({@code delivered}): they are held again.
     *
     * <p>The ack's read of a partition's head does not wait for a publish in flight, which takes
     * no lease row: a message committed after that read, whose publish signalled before the ack
     * committed, may have found no waiting poll and a look that still saw the batch open. So when
     * the topic had any signal since {@code signalsBefore} (read before the ack's transaction),
     * every acked partition is signalled, as if each may have more.
     */
    private void acked(Tenant tenant, Topic topic, ReceiptTokens receipts, List<ReceiptResult> results,
                       List<Delivered> delivered, Set<String> mayHaveMore, long signalsBefore) {
        boolean signalledMeanwhile = signals.signalsSent(tenant.value(), topic.value()) != signalsBefore;
        Set<String> servedNow = new HashSet<>();
        delivered.forEach(d -> servedNow.add(d.partitionKey()));
        List<String> ackedPartitions = new ArrayList<>();
        for (int i = 0; i < results.size(); i++) { // results are in request order, as the tokens
            if (results.get(i).status() == ReceiptStatus.ACKED) {
                // An acked receipt decoded before the ack: its partition is known; "" counts it only.
                ackedPartitions.add(receipts.receipt(i).map(Receipt::partitionKey).orElse(""));
            }
        }
        metrics.acked(tenant.value(), topic.value(), ackedPartitions.size());
        AckWake wake = AckWake.of(ackedPartitions, mayHaveMore, servedNow, signalledMeanwhile);
        signals.signal(tenant.value(), topic.value(), wake.partitions(), wake.deliverable());
    }

    /**
     * Extends the visibility timeout of in-flight deliveries to {@code visibility} from now, so
     * they are not redelivered meanwhile (SQS ChangeMessageVisibility). Each receipt is
     * EXTENDED, ALREADY_ACKED, STALE or INVALID, as for {@link #ack}. A delivery whose visibility
     * timeout already passed is STALE and stays expired (SPEC "Ack, nack, extend": the expiry is a
     * failed attempt, which a late extend must not hide; SQS refuses it too).
     *
     * @param visibility new visibility timeout, 1 s..12 h, counted from now by the database clock
     * @return one result per receipt, in request order
     * @throws TenantNotServedException when the tenant is not in MQ_TENANTS (403)
     * @throws InvalidRequestException when the list is empty or longer than the batch limit, or the
     *     visibility is out of range (400)
     */
    public List<ReceiptResult> extend(Tenant tenant, Topic topic, ConsumerGroup group, List<String> receipts,
                                      Duration visibility) {
        return extend(tenant, topic, group, this.receipts.tokens(receipts), visibility);
    }

    /** {@link #extend(Tenant, Topic, ConsumerGroup, List, Duration)} with receipts the caller decoded already. */
    public List<ReceiptResult> extend(Tenant tenant, Topic topic, ConsumerGroup group, ReceiptTokens receipts,
                                      Duration visibility) {
        ConsumeLimits.require(ConsumeLimits.visibilityProblem(visibility).stream().toList());
        ConsumeLimits.require(settings.effective(tenant.value(), topic.value(), group.value())
                .visibilityAboveMaximum(visibility).stream().toList());
        long visibilityMicros = micros(visibility);
        return settle(tenant, topic, group, receipts, ReceiptStatus.EXTENDED,
                (scope, targets) -> store.extend(scope, targets, visibilityMicros));
    }

    /**
     * Negative acknowledgement (SPEC "Ack, nack, extend"): each current delivery failed an
     * attempt. Below {@code mq.max-deliveries} attempts the message is delivered again after
     * {@code delay}, or after {@link #backoff} of its attempt when there is none; the later
     * in-flight messages of its partition follow it again with their attempts unchanged. At
     * {@code mq.max-deliveries} it is dead-lettered with {@code reason} to
     * {@code <topic><mq.dlq-suffix>}. Each receipt is NACKED, ALREADY_ACKED, STALE or INVALID.
     *
     * @param delay redelivery delay (0..12 h); empty for exponential backoff
     * @param reason why processing failed; recorded as {@code dead_letter_reason}
     * @return one result per receipt, in request order
     * @throws TenantNotServedException when the tenant is not in MQ_TENANTS (403)
     * @throws InvalidRequestException when the list is empty or longer than the batch limit, or the
     *     delay or reason is out of range (400)
     */
    public List<ReceiptResult> nack(Tenant tenant, Topic topic, ConsumerGroup group, List<String> receipts,
                                    Optional<Duration> delay, String reason) {
        return nack(tenant, topic, group, this.receipts.tokens(receipts), delay, reason);
    }

    /** {@link #nack(Tenant, Topic, ConsumerGroup, List, Optional, String)} with receipts the caller decoded already. */
    public List<ReceiptResult> nack(Tenant tenant, Topic topic, ConsumerGroup group, ReceiptTokens receipts,
                                    Optional<Duration> delay, String reason) {
        ConsumeLimits.require(ConsumeLimits.nackProblems(delay, reason));
        int[] dead = {0};
        List<ReceiptResult> out = settle(tenant, topic, group, receipts, ReceiptStatus.NACKED, (scope, targets) -> {
            NackBackoff backoff = settings(scope).backoff();
            SettleTransaction.NackResult r = store.nack(scope, targets, deadLetterPolicy(scope),
                    attempt -> micros(delay.orElseGet(() -> backoff.after(attempt))), reason);
            dead[0] = r.deadLettered();
            return r.statuses();
        });
        GroupScope scope = new GroupScope(tenant.value(), group.value(), topic.value());
        long nacked = out.stream().filter(r -> r.status() == ReceiptStatus.NACKED).count();
        metrics.nacked(tenant.value(), topic.value(), (int) nacked); // dead-lettering nacks too (docs/operations.md, "Metrics")
        deadLettered(scope, dead[0]);
        if (nacked > dead[0] && delay.map(Duration::isZero).orElse(false)) {
            signals.signal(tenant.value(), topic.value(), (int) nacked - dead[0]); // redeliverable at once
        }
        return out;
    }

    /**
     * Redelivery delay after failed attempt {@code attempt} when a nack names none, by the global
     * settings ({@code mq.nack.backoff-base}, {@code mq.nack.backoff-cap}; the rule is
     * {@link NackBackoff}). A topic or group may set its own (docs/settings.md).
     */
    public Duration backoff(int attempt) {
        return new NackBackoff(config.nack().backoffBase(), config.nack().backoffCap()).after(attempt);
    }

    /**
     * The size rule of an ack, nack or extend, and its one home: 1..{@code mq.fetch.max-messages}
     * receipts, as many as one fetch may deliver (SPEC section 4, "Ack, nack, extend"). The
     * service checks it for every caller; the HTTP validator asks it too
     * ({@link #requireReceipts}), before it looks at single receipts.
     *
     * @param size the number of receipts
     * @throws InvalidRequestException naming {@code receipts} when the size is out of range (400)
     */
    public void requireReceiptCount(int size) {
        requireReceiptCount("receipts", 1, size);
    }

    /**
     * {@link #requireReceiptCount(int)} for a request's list, which may be absent or null: then the
     * field is required, rather than a list of 0 that the client never sent (docs/api.md, "Ack,
     * nack and extend").
     *
     * @param receipts the request's {@code receipts}, or null when it has none
     * @throws InvalidRequestException naming {@code receipts} when it is null or its size is out of range (400)
     */
    public void requireReceipts(List<String> receipts) {
        if (receipts == null) {
            throw InvalidRequestException.of("receipts", "is required: " + receiptList(1));
        }
        requireReceiptCount(receipts.size());
    }

    /**
     * The size rule of a list of receipts named {@code field}: {@code min}..{@code mq.fetch.max-messages}
     * receipts. An ack, nack or extend needs at least one; a fetch's {@code ack} may be empty.
     *
     * @throws InvalidRequestException naming {@code field} when the size is out of range (400)
     */
    public void requireReceiptCount(String field, int min, int size) {
        if (size < min || size > config.fetch().maxMessages()) {
            throw InvalidRequestException.of(field, "must be " + receiptList(min) + " (got " + size + ")");
        }
    }

    /** A list of receipts of the allowed sizes, as an error names it: "an array of 1..1000 receipts". */
    private String receiptList(int min) {
        return "an array of " + min + ".." + config.fetch().maxMessages() + " receipts";
    }

    /**
     * Receipts decoded for one (tenant, group, topic): the targets of those that are this
     * queue's, with their index in the request, and INVALID for the others (a forged or altered
     * one is found without a database look-up).
     */
    private record Decoded(ReceiptTokens receipts, List<AckTarget> targets, List<Integer> targetIndex) {
        /** One result per receipt, in request order, from the store's statuses of the targets. */
        List<ReceiptResult> results(List<SettleStatus> stored, ReceiptStatus done) {
            ReceiptStatus[] statuses = new ReceiptStatus[receipts.size()];
            java.util.Arrays.fill(statuses, ReceiptStatus.INVALID);
            for (int j = 0; j < stored.size(); j++) {
                statuses[targetIndex.get(j)] = switch (stored.get(j)) {
                    case DONE -> done;
                    case ALREADY_ACKED -> ReceiptStatus.ALREADY_ACKED;
                    case STALE -> ReceiptStatus.STALE;
                    case NO_MESSAGE -> ReceiptStatus.INVALID;
                };
            }
            List<ReceiptResult> out = new ArrayList<>(receipts.size());
            for (int i = 0; i < receipts.size(); i++) {
                out.add(new ReceiptResult(receipts.tokens().get(i), statuses[i]));
            }
            return out;
        }
    }

    private static Decoded decode(GroupScope scope, ReceiptTokens receipts) {
        List<AckTarget> targets = new ArrayList<>();
        List<Integer> targetIndex = new ArrayList<>();
        for (int i = 0; i < receipts.size(); i++) {
            Optional<Receipt> r = receipts.receipt(i); // a forged or altered one: empty, no look-up
            if (r.isEmpty() || !r.get().tenant().equals(scope.tenant()) || !r.get().topic().equals(scope.topic())
                    || !r.get().consumerGroup().equals(scope.consumerGroup())) {
                continue;
            }
            Receipt receipt = r.get();
            targets.add(new AckTarget(receipt.partitionKey(), receipt.offset(), receipt.leaseEpoch(),
                    receipt.delivery()));
            targetIndex.add(i);
        }
        return new Decoded(receipts, targets, targetIndex);
    }

    private List<ReceiptResult> settle(Tenant tenant, Topic topic, ConsumerGroup group, ReceiptTokens receipts,
                                       ReceiptStatus done,
                                       java.util.function.BiFunction<GroupScope, List<AckTarget>,
                                               List<SettleStatus>> action) {
        TenantNotServedException.requireServed(identity, tenant);
        requireReceiptCount(receipts.size());
        GroupScope scope = new GroupScope(tenant.value(), group.value(), topic.value());
        Decoded decoded = decode(scope, receipts);
        return decoded.results(action.apply(scope, decoded.targets()), done);
    }
}
