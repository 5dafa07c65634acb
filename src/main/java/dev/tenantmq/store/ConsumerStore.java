package dev.tenantmq.store;

import static dev.tenantmq.store.ConsumerSql.ACK_DELIVERY;
import static dev.tenantmq.store.ConsumerSql.ADVANCE_COMMITTED;
import static dev.tenantmq.store.ConsumerSql.CLOSE_BATCH;
import static dev.tenantmq.store.ConsumerSql.EXTEND_DELIVERY;
import static dev.tenantmq.store.ConsumerSql.HAND_BACK_LATER;
import static dev.tenantmq.store.ConsumerSql.INSERT_BATCH_DELIVERY;
import static dev.tenantmq.store.ConsumerSql.MARK_DEAD;
import static dev.tenantmq.store.ConsumerSql.NACK_DELIVERY;
import static dev.tenantmq.store.ConsumerSql.OPEN_BATCH;
import static dev.tenantmq.store.ConsumerSql.PRUNE_DELIVERIES;
import static dev.tenantmq.store.ConsumerSql.SCAN_PARTITION;
import static dev.tenantmq.store.ConsumerSql.SCAN_REQUEUED;
import static dev.tenantmq.store.ConsumerSql.SELECT_BATCH_MESSAGES;
import static dev.tenantmq.store.ConsumerSql.SELECT_DELIVERY_STATE;
import static dev.tenantmq.store.ConsumerSql.SELECT_EXPIRED_LAST_ATTEMPTS;
import static dev.tenantmq.store.ConsumerSql.SELECT_MESSAGE;
import static dev.tenantmq.store.ConsumerSql.SELECT_PREFIX_STATES;
import static dev.tenantmq.store.ConsumerSql.SELECT_READY_PARTITIONS;
import static dev.tenantmq.store.ConsumerSql.UPDATE_REDELIVERY;
import static dev.tenantmq.store.ConsumerSql.union;

import dev.tenantmq.model.CommitWalk;
import dev.tenantmq.model.DeadLetterPolicy;
import dev.tenantmq.model.GroupScope;
import dev.tenantmq.model.PartitionWalk;
import dev.tenantmq.model.Settlement;
import dev.tenantmq.model.DeliveryState;
import dev.tenantmq.store.ConsumerSql.AdvanceCommitted;
import dev.tenantmq.store.ConsumerSql.CloseBatch;
import dev.tenantmq.store.ConsumerSql.CountFinished;
import dev.tenantmq.store.ConsumerSql.Cursor;
import dev.tenantmq.store.ConsumerSql.DeliveryRow;
import dev.tenantmq.store.ConsumerSql.SelectExpiredLastAttempts;
import dev.tenantmq.store.ConsumerSql.FencedUpdate;
import dev.tenantmq.store.ConsumerSql.HandBackLater;
import dev.tenantmq.store.ConsumerSql.InsertBatchDelivery;
import dev.tenantmq.store.ConsumerSql.LockLeases;
import dev.tenantmq.store.ConsumerSql.LockedLease;
import dev.tenantmq.store.ConsumerSql.MarkDead;
import dev.tenantmq.store.ConsumerSql.MessageKey;
import dev.tenantmq.store.ConsumerSql.MessageRow;
import dev.tenantmq.store.ConsumerSql.OpenBatch;
import dev.tenantmq.store.ConsumerSql.PruneDeliveries;
import dev.tenantmq.store.ConsumerSql.ScanPartition;
import dev.tenantmq.store.ConsumerSql.ScanRequeued;
import dev.tenantmq.store.ConsumerSql.Scanned;
import dev.tenantmq.store.ConsumerSql.SelectBatchMessages;
import dev.tenantmq.store.ConsumerSql.SelectBatchRows;
import dev.tenantmq.store.ConsumerSql.SelectCursors;
import dev.tenantmq.store.ConsumerSql.SelectPrefixStates;
import dev.tenantmq.store.ConsumerSql.SelectReadyPartitions;
import dev.tenantmq.store.ConsumerSql.UpdateRedelivery;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The transactions of consumption: lease-fetch, ack, nack, extend and dead-lettering over
 * {@code queue_partition_leases}, {@code queue_offsets}, {@code queue_delivery_state} and
 * {@code queue_messages}. The statements, their binds and row mappers are in {@link ConsumerSql};
 * the rules of what to deliver and where the committed offset moves are pure code on the ground
 * floor ({@link PartitionWalk}, {@link CommitWalk}); this class reads their input and writes
 * their outcome.
 *
 * <p>Delivery batches (migration V3): a fetch records the messages it hands out for the first
 * time on the partition's {@code queue_offsets} row, as the batch {@code (committed_offset,
 * delivered_offset]}, and writes no row per message. An ack of a prefix of the batch moves
 * {@code committed_offset} only. Anything else that touches a message of an open batch (a nack,
 * an extend, an ack out of order, a lease hand-over, a fetch after the batch expired or its lease
 * was lost) first materializes the batch: one INFLIGHT row per message still in it, then the
 * batch is closed, and the per-message rules apply to the rows.
 *
 * <p>Locking rule: every transaction that writes a partition's delivery state or its
 * {@code queue_offsets} row first locks that partition's lease row ({@code FOR UPDATE}). Fetch
 * and ack of one partition therefore run one at a time, and the rows they read after the lock
 * (READ COMMITTED: each statement sees the latest commits) cannot change under them. Lease rows
 * are locked in primary-key order, so two such transactions cannot deadlock on them.
 */
@ApplicationScoped
public class ConsumerStore {
    /** Extra rows a scan reads beyond its budget: acknowledged-but-uncommitted rows are skipped. */
    private static final int SCAN_SLACK = 16;

    private final Db db;

    ConsumerStore(Db db) {
        this.db = db;
    }

    /**
     * One message handed out by {@link #lease}.
     *
     * @param delivery the fencing delivery number of this hand-out (the partition's delivery_seq)
     */
    public record Delivery(String partitionKey, long offset, String id, String payloadJson, String metadataJson,
                           Instant createdAt, int deliveryAttempt, long delivery, long leaseEpoch) {}

    /** What {@link #lease} did: the deliveries, and how many messages it dead-lettered instead. */
    public record LeaseResult(List<Delivery> deliveries, int deadLettered) {}

    /**
     * Finds up to {@code maxPartitions} leased partitions with deliverable messages, in key order,
     * with keys after {@code after} and, when {@code upTo} is not null, at most {@code upTo}.
     * Read-only, no locks.
     */
    public List<String> readyPartitions(GroupScope s, String subscriber, String after, String upTo, int maxPartitions) {
        return db.read(c -> Db.list(c, SELECT_READY_PARTITIONS,
                new SelectReadyPartitions(s, subscriber, after, upTo, maxPartitions), rs -> rs.getString("partition_key")));
    }

    /**
     * Leases messages for delivery: in one transaction, locks the lease rows this subscriber
     * still holds among {@code partitions}, and from each partition with nothing holding it back
     * takes, in offset order, first its requeued messages and then the messages above the
     * committed offset, as {@link PartitionWalk} decides. Partitions are scanned in rounds of
     * 1, 2, 4 ... partitions (one statement each), so a fetch that one deep partition fills reads
     * one partition, and one spread over many shallow partitions still takes few statements.
     *
     * @param visibilityMicros visibility timeout in microseconds
     * @param maxMessages most messages to return in total
     * @return deliveries grouped by partition, each partition in offset order
     */
    public LeaseResult lease(GroupScope s, String subscriber, List<String> partitions, int maxMessages,
                             long visibilityMicros, DeadLetterPolicy policy) {
        if (partitions.isEmpty()) {
            return new LeaseResult(List.of(), 0);
        }
        return writeTx((c, gapLocks) -> leaseLocked(c, gapLocks, s, subscriber, partitions, maxMessages,
                visibilityMicros, policy));
    }

    /**
     * The scheduler's dead-letter sweep (SPEC "Dead letters"): in the partitions this subscriber
     * leases, dead-letters the in-flight messages whose last allowed attempt failed (its
     * visibility timeout expired, or the lease it was delivered under was lost) without waiting
     * for the group's next fetch, so a group whose consumers all stopped still gets its dead
     * letters. One look-up finds such partitions; only then a transaction runs the fetch's walk
     * over them with no budget (it delivers nothing, see {@link PartitionWalk}).
     *
     * @return messages dead-lettered
     */
    public int deadLetterExpired(GroupScope s, String subscriber, DeadLetterPolicy policy) {
        List<String> partitions = db.read(c -> Db.list(c, SELECT_EXPIRED_LAST_ATTEMPTS,
                new SelectExpiredLastAttempts(s, subscriber, policy.maxDeliveries(), SWEEP_PARTITIONS),
                rs -> rs.getString("partition_key")));
        if (partitions.isEmpty()) {
            return 0;
        }
        return writeTx((c, gapLocks) -> leaseLocked(c, gapLocks, s, subscriber, partitions, 0, 0, policy)).deadLettered();
    }

    /** Most partitions one sweep takes; the next tick takes the rest. */
    private static final int SWEEP_PARTITIONS = 100;

    /**
     * The lease transaction's body; with {@code maxMessages} 0 it is the dead-letter sweep, which
     * walks every given partition and delivers nothing.
     */
    private LeaseResult leaseLocked(Connection c, boolean gapLocks, GroupScope s, String subscriber,
                                    List<String> partitions, int maxMessages, long visibilityMicros,
                                    DeadLetterPolicy policy) throws SQLException {
        boolean sweep = maxMessages == 0;
        Map<String, Long> epochs = lockedEpochs(c, new LockLeases(s, partitions, subscriber));
        if (epochs.isEmpty()) {
            return new LeaseResult(List.of(), 0);
        }
        Map<String, Cursor> cursors = cursors(c, s, epochs.keySet());
        List<String> keys = new ArrayList<>(epochs.keySet());
        List<Delivery> out = new ArrayList<>();
        List<UpdateRedelivery> redeliveries = new ArrayList<>();
        List<OpenBatch> batches = new ArrayList<>();
        List<DeadStep> deads = new ArrayList<>();
        int next = 0;
        for (int width = 1; (sweep || out.size() < maxMessages) && next < keys.size(); width *= 2) {
            List<Cursor> round = new ArrayList<>();
            for (; next < keys.size() && round.size() < width; next++) {
                Cursor cur = cursors.get(keys.get(next));
                if (cur == null) {
                    continue; // offsets row is created with the lease; absent means not ready yet
                }
                if (cur.batchOpen()) {
                    if (cur.batchEpoch() == epochs.get(cur.key()) && cur.batchInvisible()) {
                        continue; // the current lease's batch is still out: nothing may go now
                    }
                    // Expired, or handed out under a lost lease: each message failed an attempt,
                    // which the walk counts on the rows.
                    cur = materialize(c, s, cur);
                }
                round.add(cur);
            }
            int budget = maxMessages - out.size();
            int limit = budget + SCAN_SLACK;
            Map<String, List<Scanned>> requeued = scan(c, SCAN_REQUEUED, round.stream().filter(Cursor::requeued)
                    .map(cur -> new ScanRequeued(s, cur.key(), cur.committed(), limit)).toList());
            Map<String, List<Scanned>> above = scan(c, SCAN_PARTITION, round.stream()
                    .map(cur -> new ScanPartition(s, cur.key(), cur.committed(), limit)).toList());
            for (Cursor cur : round) {
                int left = maxMessages - out.size();
                if (left <= 0 && !sweep) {
                    break;
                }
                long epoch = epochs.get(cur.key());
                PartitionWalk walk = new PartitionWalk(epoch, left, policy.maxDeliveries());
                Map<Long, Scanned> seen = new HashMap<>();
                boolean more = walk(walk, requeued.getOrDefault(cur.key(), List.of()), seen);
                if (more) {
                    walk(walk, above.getOrDefault(cur.key(), List.of()), seen);
                }
                if (walk.busy()) {
                    continue; // an earlier delivery row of the current lease is still out
                }
                long seq = cur.seq() + 1;
                for (PartitionWalk.Step step : walk.steps()) {
                    Scanned m = seen.get(step.offset());
                    if (step instanceof PartitionWalk.Deliver d) {
                        if (!d.first()) {
                            redeliveries.add(new UpdateRedelivery(d.attempt(), seq, epoch, visibilityMicros, s,
                                    cur.key(), d.offset(), d.fromState(), d.fromDelivery()));
                        }
                        out.add(new Delivery(cur.key(), d.offset(), m.id(), m.payloadJson(), m.metadataJson(),
                                m.createdAt(), d.attempt(), seq, epoch));
                    } else if (step instanceof PartitionWalk.DeadLetter dl) {
                        deads.add(new DeadStep(cur.key(), m, dl));
                    }
                }
                if (walk.delivered() > 0) {
                    batches.add(new OpenBatch(walk.lastFirstDelivery(cur.committed()), epoch, seq, visibilityMicros,
                            s, cur.key(), cur.seq()));
                }
            }
        }
        executeBatch(c, UPDATE_REDELIVERY, redeliveries, "redeliver");
        executeBatch(c, OPEN_BATCH, batches, "open delivery batch");
        Set<String> deadKeys = new TreeSet<>();
        for (DeadStep d : deads) {
            deadLetter(c, s, policy, new Dead(d.key(), d.step().offset(), d.message().id(), d.message().payloadJson(),
                    d.message().metadataJson(), d.step().fromState(), d.step().fromDelivery(), d.step().attempts(),
                    d.step().reason()), gapLocks);
            deadKeys.add(d.key());
        }
        advanceCommitted(c, s, deadKeys, cursors, Map.of(), Set.of());
        return new LeaseResult(out, deads.size());
    }

    private record DeadStep(String key, Scanned message, PartitionWalk.DeadLetter step) {}

    /** Offers scanned rows to the walk in order; false when the partition gives nothing more. */
    private static boolean walk(PartitionWalk walk, List<Scanned> rows, Map<Long, Scanned> seen) {
        for (Scanned m : rows) {
            seen.put(m.offset(), m);
            if (!walk.accept(m.row())) {
                return false;
            }
        }
        return true;
    }

    /**
     * Runs {@code branch} once for each of {@code branches} as one UNION ALL statement, and
     * returns the rows by partition, each in offset order.
     */
    private static Map<String, List<Scanned>> scan(Connection c, String branch, List<? extends ConsumerSql.Branch> branches)
            throws SQLException {
        Map<String, List<Scanned>> rows = new HashMap<>();
        if (branches.isEmpty()) {
            return rows;
        }
        for (Scanned m : Db.list(c, Db.unionAll(branch, branches.size()), union(branches), Scanned.ROW)) {
            rows.computeIfAbsent(m.key(), k -> new ArrayList<>()).add(m);
        }
        rows.values().forEach(list -> list.sort(Comparator.comparingLong(Scanned::offset)));
        return rows;
    }

    /**
     * Materializes the open batch of one partition: every message of it without a row gets an
     * INFLIGHT row as the batch handed it out (attempt 1, the batch's delivery number, lease epoch
     * and visibility deadline), and the batch is closed. From then on the per-message rules apply.
     * Caller holds the partition's lease row lock.
     */
    private static Cursor materialize(Connection c, GroupScope s, Cursor cur) throws SQLException {
        if (!cur.batchOpen()) {
            return cur;
        }
        List<InsertBatchDelivery> rows = Db.list(c, SELECT_BATCH_MESSAGES,
                new SelectBatchMessages(s, cur.key(), cur.committed(), cur.delivered()),
                rs -> new InsertBatchDelivery(s, cur.key(), rs.getLong("offset"),
                        cur.seq(), cur.batchEpoch(), cur.batchVisibleAt())); // as the batch handed it out
        executeBatch(c, INSERT_BATCH_DELIVERY, rows, "materialize batch delivery");
        executeBatch(c, CLOSE_BATCH, List.of(new CloseBatch(s, cur.key(), cur.seq())), "close delivery batch");
        return cur.closed();
    }

    /**
     * Materializes the open batch of each given partition (see {@link #materialize}); for
     * callers outside this class that hand in-flight messages back. Caller holds the lease row locks.
     */
    static void materializeBatches(Connection c, GroupScope s, Set<String> keys) throws SQLException {
        if (keys.isEmpty()) {
            return;
        }
        for (Cursor cur : cursors(c, s, keys).values()) {
            materialize(c, s, cur);
        }
    }

    /** A message to dead-letter: the row as read, and why. */
    private record Dead(String partitionKey, long offset, String id, String payloadJson, String metadataJson,
                        DeliveryState fromState, long delivery, int attempts, String reason) {}

    /** Writes the dead letter of {@code d} and marks it DEAD for the group, in the caller's transaction. */
    private static void deadLetter(Connection c, GroupScope s, DeadLetterPolicy policy, Dead d, boolean gapLocks)
            throws SQLException {
        MessageStore.appendDeadLetter(c, new MessageStore.DeadLetter(s.tenant(), policy.dlqTopic(), d.partitionKey(),
                d.id(), d.payloadJson(), d.metadataJson(), s.topic(), d.offset(), s.consumerGroup(), d.reason(),
                d.attempts()), gapLocks);
        int n = Db.update(c, MARK_DEAD, new MarkDead(d.attempts(), s, d.partitionKey(), d.offset(), d.fromState(),
                d.delivery()));
        if (n == 0) {
            throw new ConflictRetry("mark dead changed no row"); // see executeBatch
        }
        if (n != 1) {
            throw new SQLException("mark dead changed " + n + " rows, expected 1");
        }
    }

    /**
     * Runs a transaction that may write a dead letter (see {@link Db#inTransactionWithGapLocksIfNeeded}).
     * Every read after the lease row locks sees the same rows under either isolation level,
     * because all writers of those rows take the same locks first.
     */
    private <T> T writeTx(Db.GapWork<T> work) {
        return db.inTransactionWithGapLocksIfNeeded(work);
    }

    /**
     * Outcome of one receipt: the action happened, the message was acked before, the receipt is
     * stale, or it names no message (above the group's committed offset and not stored: a forged
     * offset, or a message deleted by an operator or by retention's maximum age).
     */
    public enum SettleStatus { DONE, ALREADY_ACKED, STALE, NO_MESSAGE }

    /** What one receipt names: the message and the delivery (lease epoch, delivery number). */
    public record AckTarget(String partitionKey, long offset, long leaseEpoch, long delivery) {}

    /** Outcome of a nack: one status per receipt, and how many messages went to the dead-letter topic. */
    public record NackResult(List<SettleStatus> statuses, int deadLettered) {}

    /**
     * Acknowledges deliveries and advances each partition's committed offset over its
     * contiguous finished prefix, in one transaction. An ack of messages of the partition's open
     * batch that the committed offset then covers writes only the {@code queue_offsets} row; an
     * ack out of order materializes the batch and marks the row ACKED.
     *
     * @return one status per target, in the given order
     */
    public List<SettleStatus> ack(GroupScope s, List<AckTarget> targets) {
        if (targets.isEmpty()) {
            return List.of();
        }
        return writeTx((c, gapLocks) -> {
            Set<String> keys = keys(targets);
            Map<String, Long> epochs = lockedEpochs(c, new LockLeases(s, new ArrayList<>(keys), null));
            Map<String, Cursor> cursors = cursors(c, s, keys);
            Map<String, Set<Long>> batchRows = batchRows(c, s, keys, cursors);
            SettleStatus[] result = new SettleStatus[targets.size()];
            Map<String, Set<Long>> batchAcks = new TreeMap<>();
            Map<Integer, String> batchAckOf = new HashMap<>(); // target index -> partition
            Set<String> rowAcked = new TreeSet<>();
            for (int i = 0; i < targets.size(); i++) {
                AckTarget t = targets.get(i);
                if (!currentLease(epochs, t)) {
                    continue;
                }
                Cursor cur = cursors.get(t.partitionKey());
                if (cur != null && inBatch(cur, t)
                        && !batchRows.getOrDefault(t.partitionKey(), Set.of()).contains(t.offset())) {
                    if (batchAcks.computeIfAbsent(t.partitionKey(), k -> new HashSet<>()).add(t.offset())) {
                        batchAckOf.put(i, t.partitionKey());
                    } else {
                        result[i] = SettleStatus.ALREADY_ACKED; // the same receipt twice in one request
                    }
                } else if (fencedUpdate(c, new FencedUpdate(ACK_DELIVERY, null, s, t))) {
                    rowAcked.add(t.partitionKey());
                    result[i] = SettleStatus.DONE;
                }
            }
            Set<String> finished = new TreeSet<>(rowAcked);
            finished.addAll(batchAcks.keySet());
            Map<String, CommitWalk.Advance> advanced = advanceCommitted(c, s, finished, cursors, batchAcks, rowAcked);
            // Batch acks the committed offset does not cover (an ack out of order) need rows.
            for (Map.Entry<String, Set<Long>> e : batchAcks.entrySet()) {
                CommitWalk.Advance a = advanced.get(e.getKey());
                Set<Long> uncovered = new TreeSet<>(e.getValue());
                if (a != null) {
                    uncovered.removeAll(a.batchAcks());
                }
                if (!uncovered.isEmpty()) {
                    Cursor cur = cursors.get(e.getKey());
                    materialize(c, s, a == null ? cur : cur.committedAt(a.committed()));
                }
            }
            for (Map.Entry<Integer, String> e : batchAckOf.entrySet()) {
                AckTarget t = targets.get(e.getKey());
                CommitWalk.Advance a = advanced.get(e.getValue());
                if (a != null && a.batchAcks().contains(t.offset())) {
                    result[e.getKey()] = SettleStatus.DONE;
                } else if (fencedUpdate(c, new FencedUpdate(ACK_DELIVERY, null, s, t))) {
                    result[e.getKey()] = SettleStatus.DONE; // materialized just now: acked out of order
                }
            }
            Map<String, Long> committed = new HashMap<>();
            cursors.forEach((k, cur) -> committed.put(k, advanced.containsKey(k) ? advanced.get(k).committed()
                    : cur.committed()));
            classifyUnsettled(c, s, targets, epochs, committed, result);
            return List.of(result);
        });
    }

    /**
     * Makes in-flight deliveries invisible for {@code visibilityMicros} more microseconds from
     * now (the database clock), so they are not redelivered meanwhile.
     *
     * @return one status per target, in the given order
     */
    public List<SettleStatus> extend(GroupScope s, List<AckTarget> targets, long visibilityMicros) {
        return settle(s, targets, (c, t, ctx) -> fencedUpdate(c, new FencedUpdate(EXTEND_DELIVERY, visibilityMicros, s, t)))
                .statuses();
    }

    /**
     * Negative acknowledgement: each named delivery failed. Below {@code maxDeliveries} attempts
     * the message becomes visible again after {@code delayMicros.applyAsLong(attempt)}
     * microseconds, and the later in-flight messages of its partition are handed back to follow
     * it, keeping their attempts. At {@code maxDeliveries} it is dead-lettered with
     * {@code reason}, and the partition moves on (the later in-flight messages are handed back
     * then too, and are delivered again at once).
     *
     * @param delayMicros redelivery delay in microseconds for a message whose failed attempt was the given one
     */
    public NackResult nack(GroupScope s, List<AckTarget> targets, DeadLetterPolicy policy,
                           java.util.function.IntToLongFunction delayMicros, String reason) {
        return settle(s, targets, (c, t, ctx) -> {
            Integer attempt = currentAttempt(c, s, t);
            if (attempt == null) {
                return false;
            }
            if (Settlement.lastAttempt(attempt, policy.maxDeliveries())) {
                MessageRow message = message(c, s, t.partitionKey(), t.offset());
                deadLetter(c, s, policy, new Dead(t.partitionKey(), t.offset(), message.id(), message.payloadJson(),
                        message.metadataJson(), DeliveryState.INFLIGHT, t.delivery(), attempt, reason), ctx.gapLocks);
                ctx.finished.add(t.partitionKey());
                ctx.deadLettered++;
            } else if (!fencedUpdate(c, new FencedUpdate(NACK_DELIVERY, delayMicros.applyAsLong(attempt), s, t))) {
                throw new SQLException("nack of a current delivery changed no row"); // lease row lock held: a bug
            }
            // Whether it is retried or dead-lettered, the messages delivered after it go back: the
            // client cannot tell which nack was the last, so both behave alike for them.
            ctx.handBack.merge(t.partitionKey(), new HandBackLater(s, t.partitionKey(), t.offset(), t.leaseEpoch()),
                    (a, b) -> a.afterOffset() <= b.afterOffset() ? a : b);
            return true;
        });
    }

    /** The attempt of the delivery {@code t} names, when it is the current in-flight one; else null. */
    private static Integer currentAttempt(Connection c, GroupScope s, AckTarget t) throws SQLException {
        Optional<DeliveryRow> row = deliveryRow(c, s, t);
        return row.isPresent() && row.get().state() == DeliveryState.INFLIGHT && row.get().isDelivery(t)
                ? row.get().attempt() : null;
    }

    /** The group's delivery row of the message {@code t} names, if it has one. */
    private static Optional<DeliveryRow> deliveryRow(Connection c, GroupScope s, AckTarget t) throws SQLException {
        return Db.list(c, SELECT_DELIVERY_STATE, new MessageKey(s, t.partitionKey(), t.offset()), DeliveryRow.ROW)
                .stream().findFirst();
    }

    /** id, payload and metadata of one message. */
    private static MessageRow message(Connection c, GroupScope s, String key, long offset) throws SQLException {
        List<MessageRow> rows = Db.list(c, SELECT_MESSAGE, ps -> Db.bind(ps, s.tenant(), s.topic(), key, offset),
                MessageRow.ROW);
        if (rows.isEmpty()) {
            throw new SQLException("in-flight message " + offset + " has no message row");
        }
        return rows.get(0);
    }

    /** Whether the partition holds a message at {@code offset}. */
    private static boolean messageExists(Connection c, GroupScope s, String key, long offset) throws SQLException {
        return !Db.list(c, SELECT_MESSAGE, ps -> Db.bind(ps, s.tenant(), s.topic(), key, offset), MessageRow.ROW).isEmpty();
    }

    /** Runs one fenced single-row update (ack, extend or nack); false when the receipt's delivery is not current. */
    private static boolean fencedUpdate(Connection c, FencedUpdate update) throws SQLException {
        int n = Db.update(c, update.sql(), update);
        if (n > 1) {
            throw new SQLException("fenced update matched " + n + " delivery rows");
        }
        return n == 1;
    }

    /** What the per-receipt actions of one settle transaction leave for its end. */
    private static final class SettleContext {
        final boolean gapLocks;
        /** Partitions where a message finished (dead-lettered): the committed offset may move. */
        final Set<String> finished = new TreeSet<>();
        /** Per partition, the lowest nacked offset and its lease epoch: later in-flight messages go back. */
        final Map<String, HandBackLater> handBack = new TreeMap<>();
        int deadLettered;

        SettleContext(boolean gapLocks) {
            this.gapLocks = gapLocks;
        }
    }

    @FunctionalInterface
    private interface TargetAction {
        /** Applies the action to one current-lease target; false when its delivery is not current. */
        boolean apply(Connection c, AckTarget t, SettleContext ctx) throws SQLException;
    }

    /**
     * Nack and extend: materializes the open batch of each partition a current-lease receipt
     * names (these are the exceptions the batch does not cover), then applies {@code action} to
     * each such receipt's row under the partitions' lease row locks.
     */
    private NackResult settle(GroupScope s, List<AckTarget> targets, TargetAction action) {
        if (targets.isEmpty()) {
            return new NackResult(List.of(), 0);
        }
        return writeTx((c, gapLocks) -> {
            Set<String> keys = keys(targets);
            Map<String, Long> epochs = lockedEpochs(c, new LockLeases(s, new ArrayList<>(keys), null));
            Map<String, Cursor> cursors = cursors(c, s, keys);
            Set<String> touched = new TreeSet<>();
            for (AckTarget t : targets) {
                if (currentLease(epochs, t)) {
                    touched.add(t.partitionKey());
                }
            }
            for (String key : touched) {
                Cursor cur = cursors.get(key);
                if (cur != null && cur.batchOpen()) {
                    cursors.put(key, materialize(c, s, cur));
                }
            }
            SettleStatus[] result = new SettleStatus[targets.size()];
            SettleContext ctx = new SettleContext(gapLocks);
            for (int i = 0; i < targets.size(); i++) {
                AckTarget t = targets.get(i);
                if (currentLease(epochs, t) && action.apply(c, t, ctx)) {
                    result[i] = SettleStatus.DONE;
                }
            }
            for (HandBackLater handBack : ctx.handBack.values()) {
                Db.update(c, HAND_BACK_LATER, handBack); // any number of later messages may be in flight
            }
            Map<String, CommitWalk.Advance> advanced = advanceCommitted(c, s, ctx.finished, cursors, Map.of(), Set.of());
            Map<String, Long> committed = new HashMap<>();
            cursors.forEach((k, cur) -> committed.put(k, advanced.containsKey(k) ? advanced.get(k).committed()
                    : cur.committed()));
            classifyUnsettled(c, s, targets, epochs, committed, result);
            return new NackResult(List.of(result), ctx.deadLettered);
        });
    }

    /**
     * Classifies each receipt that changed nothing: {@link SettleStatus#ALREADY_ACKED} when this
     * very delivery was acknowledged, or the message lies at or below the committed offset
     * (its state pruned: acknowledged); {@link SettleStatus#NO_MESSAGE} when above it no message
     * has the offset; else {@link SettleStatus#STALE} (SPEC: another delivery or lease owns the
     * message now). The message look-up runs only for receipts that changed nothing.
     */
    private static void classifyUnsettled(Connection c, GroupScope s, List<AckTarget> targets, Map<String, Long> epochs,
                                          Map<String, Long> committed, SettleStatus[] result) throws SQLException {
        for (int i = 0; i < targets.size(); i++) {
            if (result[i] != null) {
                continue;
            }
            AckTarget t = targets.get(i);
            Long partitionCommitted = committed.get(t.partitionKey());
            boolean committedPast = partitionCommitted != null && t.offset() <= partitionCommitted;
            if (!committedPast && !messageExists(c, s, t.partitionKey(), t.offset())) {
                result[i] = SettleStatus.NO_MESSAGE; // nothing to settle, now or later
                continue;
            }
            if (!currentLease(epochs, t)) {
                // Another lease owns the partition now: whatever happened since, this
                // receipt's delivery is not current (SPEC: STALE, nothing changed).
                result[i] = SettleStatus.STALE;
                continue;
            }
            Optional<DeliveryRow> row = deliveryRow(c, s, t);
            boolean acked = Settlement.alreadyAcked(row.map(DeliveryRow::state).orElse(null),
                    row.isPresent() && row.get().isDelivery(t), t.offset(), committed.get(t.partitionKey()));
            result[i] = acked ? SettleStatus.ALREADY_ACKED : SettleStatus.STALE;
        }
    }

    private static boolean currentLease(Map<String, Long> epochs, AckTarget t) {
        Long current = epochs.get(t.partitionKey());
        return current != null && current == t.leaseEpoch();
    }

    /** Whether {@code t} names a delivery of the partition's open batch. */
    private static boolean inBatch(Cursor cur, AckTarget t) {
        return cur.batchOpen() && t.offset() > cur.committed() && t.offset() <= cur.delivered()
                && t.leaseEpoch() == cur.batchEpoch() && t.delivery() == cur.seq();
    }

    private static Set<String> keys(List<AckTarget> targets) {
        Set<String> keys = new TreeSet<>();
        targets.forEach(t -> keys.add(t.partitionKey()));
        return keys;
    }

    /** Offsets of the delivery rows inside each partition's open batch. */
    private static Map<String, Set<Long>> batchRows(Connection c, GroupScope s, Set<String> keys,
                                                   Map<String, Cursor> cursors) throws SQLException {
        Map<String, Set<Long>> rows = new HashMap<>();
        List<String> open = keys.stream().filter(k -> cursors.containsKey(k) && cursors.get(k).batchOpen()).toList();
        if (open.isEmpty()) {
            return rows;
        }
        SelectBatchRows select = new SelectBatchRows(s, open);
        Db.forEach(c, select.sql(), select, rs -> rows.computeIfAbsent(rs.getString("partition_key"),
                k -> new HashSet<>()).add(rs.getLong("message_offset")));
        return rows;
    }

    /**
     * Moves each partition's committed offset to the end of its contiguous run of finished
     * messages ({@link CommitWalk}), counting the given batch acks as finished, and prunes the
     * acknowledged delivery rows at or below it (including those of requeued messages
     * acknowledged below it, in partitions where a row was acked). Caller holds the lease row
     * locks.
     *
     * @return the outcome per partition walked
     */
    private static Map<String, CommitWalk.Advance> advanceCommitted(Connection c, GroupScope s, Set<String> keys,
                                                                    Map<String, Cursor> cursors,
                                                                    Map<String, Set<Long>> batchAcks,
                                                                    Set<String> rowAcked) throws SQLException {
        Map<String, CommitWalk.Advance> out = new HashMap<>();
        List<Cursor> walked = keys.stream().map(cursors::get).filter(java.util.Objects::nonNull).toList();
        if (walked.isEmpty()) {
            return out;
        }
        Map<String, Integer> finishedRows = countFinished(c, s, walked);
        // The finished run has at most (finished rows + batch acks) messages, so one more row
        // always reaches its end.
        Map<String, List<CommitWalk.Row>> rows = new HashMap<>();
        List<SelectPrefixStates> branches = walked.stream().map(cur -> new SelectPrefixStates(s, cur.key(),
                cur.committed(), finishedRows.getOrDefault(cur.key(), 0)
                        + batchAcks.getOrDefault(cur.key(), Set.of()).size() + 1)).toList();
        Db.forEach(c, Db.unionAll(SELECT_PREFIX_STATES, branches.size()), union(branches),
                rs -> rows.computeIfAbsent(rs.getString("partition_key"), k -> new ArrayList<>())
                        .add(new CommitWalk.Row(rs.getLong("offset"), DeliveryState.of(rs.getString("state")))));
        List<AdvanceCommitted> advances = new ArrayList<>();
        List<PruneDeliveries> prunes = new ArrayList<>();
        for (Cursor cur : walked) {
            List<CommitWalk.Row> partition = rows.getOrDefault(cur.key(), new ArrayList<>());
            partition.sort(Comparator.comparingLong(CommitWalk.Row::offset));
            CommitWalk.Advance a = CommitWalk.advance(cur.committed(), partition,
                    batchAcks.getOrDefault(cur.key(), Set.of()));
            out.put(cur.key(), a);
            if (a.committed() > cur.committed()) {
                advances.add(new AdvanceCommitted(a.committed(), s, cur.key(), cur.committed()));
            }
            if (a.prunable() || rowAcked.contains(cur.key()) || finishedRows.containsKey(cur.key())) {
                prunes.add(new PruneDeliveries(s, cur.key(), a.committed()));
            }
        }
        executeBatch(c, ADVANCE_COMMITTED, advances, "advance committed offset");
        if (!prunes.isEmpty()) {
            try (PreparedStatement ps = c.prepareStatement(PRUNE_DELIVERIES)) {
                for (PruneDeliveries prune : prunes) {
                    prune.bindTo(ps);
                    ps.addBatch();
                }
                ps.executeBatch(); // deletes any number of rows: no count to check
            }
        }
        return out;
    }

    /** Finished (ACKED or DEAD) delivery rows above the committed offset, per partition. */
    private static Map<String, Integer> countFinished(Connection c, GroupScope s, List<Cursor> walked)
            throws SQLException {
        Map<String, Integer> finished = new HashMap<>();
        CountFinished count = new CountFinished(s, walked.stream().map(Cursor::key).toList());
        Db.forEach(c, count.sql(), count, rs -> finished.put(rs.getString("partition_key"), rs.getInt("finished_rows")));
        return finished;
    }

    /** Locks the lease rows {@code lock} names, in key order; returns the epoch of each locked one. */
    private static Map<String, Long> lockedEpochs(Connection c, LockLeases lock) throws SQLException {
        Map<String, Long> epochs = new LinkedHashMap<>();
        for (LockedLease l : Db.list(c, lock.sql(), lock, LockedLease.ROW)) {
            epochs.put(l.partitionKey(), l.epoch());
        }
        return epochs;
    }

    private static Map<String, Cursor> cursors(Connection c, GroupScope s, Set<String> keys) throws SQLException {
        Map<String, Cursor> cursors = new HashMap<>();
        SelectCursors select = new SelectCursors(s, new ArrayList<>(keys));
        for (Cursor cur : Db.list(c, select.sql(), select, Cursor.ROW)) {
            cursors.put(cur.key(), cur);
        }
        return cursors;
    }

    /** Runs a batch of single-row writes and checks that each changed exactly one row. */
    static void executeBatch(Connection c, String sql, List<? extends Db.Binds> rows, String what) throws SQLException {
        if (rows.isEmpty()) {
            return;
        }
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            for (Db.Binds row : rows) {
                row.bindTo(ps);
                ps.addBatch();
            }
            int[] counts = ps.executeBatch();
            for (int n : counts) {
                if (n == 0) {
                    // A row read in this transaction changed or went away: not through the lease row
                    // lock, which every consumer write takes, but by retention or an admin delete of
                    // the message. A conflict: Db retries the transaction with fresh reads.
                    throw new ConflictRetry(what + " changed no row");
                }
                if (n != 1 && n != java.sql.Statement.SUCCESS_NO_INFO) {
                    throw new SQLException(what + " changed " + n + " rows, expected 1");
                }
            }
        }
    }
}
