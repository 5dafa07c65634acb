package dev.tenantmq.store;

import dev.tenantmq.model.AckPlan;
import dev.tenantmq.model.AckTarget;
import dev.tenantmq.model.CommitWalk;
import dev.tenantmq.model.DeadLetterPolicy;
import dev.tenantmq.model.DeliveryState;
import dev.tenantmq.model.GroupScope;
import dev.tenantmq.model.SettleStatus;
import dev.tenantmq.model.Settlement;
import dev.tenantmq.store.ConsumerSql.AckDelivery;
import dev.tenantmq.store.ConsumerSql.Advance;
import dev.tenantmq.store.ConsumerSql.Cursor;
import dev.tenantmq.store.ConsumerSql.DeliveryRow;
import dev.tenantmq.store.ConsumerSql.ExtendDelivery;
import dev.tenantmq.store.ConsumerSql.HandBackLater;
import dev.tenantmq.store.ConsumerSql.LockLeases;
import dev.tenantmq.store.ConsumerSql.MessageKey;
import dev.tenantmq.store.ConsumerSql.MessageRow;
import dev.tenantmq.store.ConsumerSql.NackDelivery;
import dev.tenantmq.store.ConsumerSql.SelectMessage;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.IntToLongFunction;

/**
 * The settle transactions (SPEC section 4, "Ack, nack, extend"): ack, nack and extend of a list
 * of receipts, each in one transaction under the lease row locks of the partitions they name,
 * and the classification of the receipts that changed nothing. The ack is planned first
 * ({@link AckPlan}) and then written; nack and extend materialize the open batches they touch
 * ({@link DeliveryBatches}) and settle the rows.
 */
@ApplicationScoped
public class SettleTransaction {
    /**
     * Outcome of an ack: one status per target, in the given order, and the acked partitions where
     * the group may have more to deliver ({@code mayHaveMore}): a message published above the new
     * committed offset, a requeued one, or a position the ack cannot tell without reading again.
     * Only those are worth waking a long poll for.
     */
    public record AckResult(List<SettleStatus> statuses, Set<String> mayHaveMore) {}

    /** Outcome of a nack: one status per receipt, and how many messages went to the dead-letter topic. */
    public record NackResult(List<SettleStatus> statuses, int deadLettered) {}

    private final Db db;

    SettleTransaction(Db db) {
        this.db = db;
    }

    /**
     * Acknowledges deliveries and advances each partition's committed offset over its
     * contiguous finished prefix, in one transaction. An ack of messages of the partition's open
     * batch that the committed offset then covers writes only the {@code queue_offsets} row; an
     * ack out of order materializes the batch and marks the row ACKED.
     *
     * @return one status per target, in the given order, and the partitions that may have more
     */
    public AckResult ack(GroupScope s, List<AckTarget> targets) {
        if (targets.isEmpty()) {
            return new AckResult(List.of(), Set.of());
        }
        return db.inTransaction(Db.Isolation.READ_COMMITTED, c -> {
            Set<String> keys = keys(targets);
            Map<String, Long> epochs = ConsumerStatements.lockLeases(c, new LockLeases(s, new ArrayList<>(keys)));
            AckOutcome outcome = ack(c, s, targets, epochs, DeliveryBatches.cursors(c, s, keys), false);
            return new AckResult(outcome.statuses(), outcome.mayHaveMore());
        });
    }

    /**
     * What {@link #ack(Connection, GroupScope, List, Map, Map, boolean)} did: one status per
     * target, and the group's position afterwards in each partition it named, where the ack can
     * tell it without reading again ({@code cursors}); {@code reread} are the partitions whose open
     * batch the ack materialized or whose delivery rows it changed, whose cursor must be read
     * again; {@code unwrittenMoves} the moves of committed offsets the ack left for the caller to
     * write (empty unless it was asked to leave them).
     */
    record AckOutcome(List<SettleStatus> statuses, Map<String, Cursor> cursors, Set<String> reread,
                      List<Advance> unwrittenMoves) {
        /**
         * The named partitions where the group may have more to deliver after the ack: those whose
         * position it tells ({@link Cursor#mayHaveMore}) and every one it leaves to read again.
         */
        Set<String> mayHaveMore() {
            Set<String> out = new TreeSet<>(reread);
            cursors.forEach((key, cur) -> {
                if (cur.mayHaveMore()) {
                    out.add(key);
                }
            });
            return out;
        }
    }

    /**
     * The body of {@link #ack(GroupScope, List)} inside the caller's transaction, which holds the
     * lease row locks of every partition {@code targets} name ({@code epochs}: the current epoch
     * of each that has a lease row) and has read their {@code cursors} under them. A fetch that
     * carries acks runs it before its walk, in one transaction (docs/api.md, "Fetch and ack in
     * one call").
     *
     * @param leaveMoves whether the moves of the committed offsets may be left to the caller
     *     ({@link AckOutcome#unwrittenMoves}), who writes them with its own last statement. They
     *     are left only when nothing after them in this ack reads or writes the offsets rows
     *     (no delivery row acked, no batch materialized: those partitions are read again); the
     *     caller must write them before anything of its own reads or writes those rows.
     */
    AckOutcome ack(Connection c, GroupScope s, List<AckTarget> targets, Map<String, Long> epochs,
                   Map<String, Cursor> cursors, boolean leaveMoves) throws SQLException {
        Set<String> keys = keys(targets);
        Set<String> reread = new TreeSet<>();
        AckPlan plan = AckPlan.of(targets, epochs, DeliveryBatches.openBatches(cursors),
                DeliveryBatches.rowsInBatches(c, s, keys, cursors));
        Set<Integer> ackedByRow = new HashSet<>();
        Set<String> rowAcked = new TreeSet<>();
        for (int i : plan.byRow()) {
            if (ConsumerStatements.ackDelivery(c, new AckDelivery(s, targets.get(i)))) {
                ackedByRow.add(i);
                rowAcked.add(targets.get(i).partitionKey());
            }
        }
        Set<String> finished = new TreeSet<>(rowAcked);
        finished.addAll(plan.batchAcks().keySet());
        List<Advance> moves = new ArrayList<>();
        Map<String, CommitWalk.Advance> advanced = CommittedOffsets.advanceLeavingMoves(c, s, finished, cursors,
                plan.batchAcks(), rowAcked, moves);
        Map<String, Set<Long>> covered = new HashMap<>();
        advanced.forEach((k, a) -> covered.put(k, a.batchAcks()));
        Set<String> toMaterialize = plan.toMaterialize(covered);
        if (!leaveMoves || !rowAcked.isEmpty() || !toMaterialize.isEmpty()) {
            // Closing a batch sets it at the committed offset the row holds, and a partition read
            // again must show its new one: written now.
            CommittedOffsets.write(c, s, moves);
            moves = List.of();
        }
        // Batch acks the committed offset does not cover (an ack out of order) need rows.
        for (String key : toMaterialize) {
            CommitWalk.Advance a = advanced.get(key);
            Cursor cur = cursors.get(key);
            DeliveryBatches.materialize(c, s, a == null ? cur : cur.committedAt(a.committed()));
            reread.add(key);
        }
        for (int i : plan.uncoveredBatchAcks(covered)) {
            if (ConsumerStatements.ackDelivery(c, new AckDelivery(s, targets.get(i)))) {
                ackedByRow.add(i); // materialized just now: acked out of order
            }
        }
        reread.addAll(rowAcked);
        Map<String, Cursor> after = new HashMap<>();
        for (String key : keys) {
            Cursor cur = cursors.get(key);
            CommitWalk.Advance a = advanced.get(key);
            if (cur != null && !reread.contains(key)) {
                after.put(key, a == null ? cur : cur.committedAt(a.committed()));
            }
        }
        return new AckOutcome(classifyUnsettled(c, s, targets, epochs, CommittedOffsets.after(cursors, advanced),
                plan.statuses(ackedByRow, covered)), after, reread, moves);
    }

    /**
     * Makes in-flight deliveries invisible for {@code visibilityMicros} more microseconds from
     * now (the database clock), so they are not redelivered meanwhile.
     *
     * @return one status per target, in the given order
     */
    public List<SettleStatus> extend(GroupScope s, List<AckTarget> targets, long visibilityMicros) {
        return settle(s, targets, (c, t, ctx) -> ConsumerStatements.extendDelivery(c,
                new ExtendDelivery(visibilityMicros, s, t))).statuses();
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
                           IntToLongFunction delayMicros, String reason) {
        return settle(s, targets, (c, t, ctx) -> {
            Integer attempt = currentAttempt(c, s, t);
            if (attempt == null) {
                return false;
            }
            if (Settlement.lastAttempt(attempt, policy.maxDeliveries())) {
                MessageRow message = ConsumerStatements.message(c, new SelectMessage(s, t.partitionKey(), t.offset()))
                        .orElseThrow(() -> new SQLException("in-flight message " + t.offset() + " has no message row"));
                DeadLetters.write(c, s, policy, new DeadLetters.Dead(t.partitionKey(), t.offset(), message.id(),
                        message.payloadJson(), message.metadataJson(), DeliveryState.INFLIGHT, t.delivery(), attempt,
                        reason, message.trace()));
                ctx.finished.add(t.partitionKey());
                ctx.deadLettered++;
            } else if (!ConsumerStatements.nackDelivery(c, new NackDelivery(delayMicros.applyAsLong(attempt), s, t))) {
                throw new SQLException("nack of a current delivery changed no row"); // lease row lock held: a bug
            }
            // Whether it is retried or dead-lettered, the messages delivered after it go back: the
            // client cannot tell which nack was the last, so both behave alike for them.
            ctx.handBack.merge(t.partitionKey(), new HandBackLater(s, t.partitionKey(), t.offset(), t.leaseEpoch()),
                    (a, b) -> a.afterOffset() <= b.afterOffset() ? a : b);
            return true;
        });
    }

    /** What the per-receipt actions of one settle transaction leave for its end. */
    private static final class SettleContext {
        /** Partitions where a message finished (dead-lettered): the committed offset may move. */
        final Set<String> finished = new TreeSet<>();
        /** Per partition, the lowest nacked offset and its lease epoch: later in-flight messages go back. */
        final Map<String, HandBackLater> handBack = new TreeMap<>();
        int deadLettered;
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
        return db.inTransaction(Db.Isolation.READ_COMMITTED, c -> {
            Set<String> keys = keys(targets);
            Map<String, Long> epochs = ConsumerStatements.lockLeases(c, new LockLeases(s, new ArrayList<>(keys)));
            Map<String, Cursor> cursors = DeliveryBatches.cursors(c, s, keys);
            Set<String> touched = new TreeSet<>();
            for (AckTarget t : targets) {
                if (currentLease(epochs, t)) {
                    touched.add(t.partitionKey());
                }
            }
            for (String key : touched) {
                Cursor cur = cursors.get(key);
                if (cur != null && cur.batchOpen()) {
                    cursors.put(key, DeliveryBatches.materialize(c, s, cur));
                }
            }
            List<Optional<SettleStatus>> decided = new ArrayList<>(targets.size());
            SettleContext ctx = new SettleContext();
            for (AckTarget t : targets) {
                boolean done = currentLease(epochs, t) && action.apply(c, t, ctx);
                decided.add(done ? Optional.of(SettleStatus.DONE) : Optional.empty());
            }
            for (HandBackLater handBack : ctx.handBack.values()) {
                DeliveryBatches.handBackAfter(c, handBack);
            }
            Map<String, CommitWalk.Advance> advanced = CommittedOffsets.advance(c, s, ctx.finished, cursors, Map.of(),
                    Set.of());
            return new NackResult(classifyUnsettled(c, s, targets, epochs, CommittedOffsets.after(cursors, advanced),
                    decided), ctx.deadLettered);
        });
    }

    /**
     * Classifies each receipt that changed nothing (an empty {@code decided}):
     * {@link SettleStatus#ALREADY_ACKED} when this very delivery was acknowledged, or the message
     * lies at or below the committed offset (its state pruned: acknowledged);
     * {@link SettleStatus#NO_MESSAGE} when above it no message has the offset; else
     * {@link SettleStatus#STALE} (SPEC: another delivery or lease owns the message now). The
     * message look-up runs only for receipts that changed nothing.
     *
     * @return one status per target, in the given order
     */
    private static List<SettleStatus> classifyUnsettled(Connection c, GroupScope s, List<AckTarget> targets,
                                                        Map<String, Long> epochs, Map<String, Long> committed,
                                                        List<Optional<SettleStatus>> decided) throws SQLException {
        List<SettleStatus> out = new ArrayList<>(targets.size());
        for (int i = 0; i < targets.size(); i++) {
            if (decided.get(i).isPresent()) {
                out.add(decided.get(i).get());
                continue;
            }
            AckTarget t = targets.get(i);
            Long partitionCommitted = committed.get(t.partitionKey());
            boolean committedPast = partitionCommitted != null && t.offset() <= partitionCommitted;
            if (!committedPast && ConsumerStatements.message(c, new SelectMessage(s, t.partitionKey(), t.offset()))
                    .isEmpty()) {
                out.add(SettleStatus.NO_MESSAGE); // nothing to settle, now or later
                continue;
            }
            if (!currentLease(epochs, t)) {
                // Another lease owns the partition now: whatever happened since, this
                // receipt's delivery is not current (SPEC: STALE, nothing changed).
                out.add(SettleStatus.STALE);
                continue;
            }
            Optional<DeliveryRow> row = deliveryRow(c, s, t);
            boolean acked = Settlement.alreadyAcked(row.map(DeliveryRow::state).orElse(null),
                    row.isPresent() && row.get().isDelivery(t), t.offset(), partitionCommitted);
            out.add(acked ? SettleStatus.ALREADY_ACKED : SettleStatus.STALE);
        }
        return out;
    }

    /** The attempt of the delivery {@code t} names, when it is the current in-flight one; else null. */
    private static Integer currentAttempt(Connection c, GroupScope s, AckTarget t) throws SQLException {
        Optional<DeliveryRow> row = deliveryRow(c, s, t);
        return row.isPresent() && row.get().state() == DeliveryState.INFLIGHT && row.get().isDelivery(t)
                ? row.get().attempt() : null;
    }

    private static Optional<DeliveryRow> deliveryRow(Connection c, GroupScope s, AckTarget t) throws SQLException {
        return ConsumerStatements.deliveryRow(c, new MessageKey(s, t.partitionKey(), t.offset()));
    }

    private static boolean currentLease(Map<String, Long> epochs, AckTarget t) {
        Long current = epochs.get(t.partitionKey());
        return current != null && current == t.leaseEpoch();
    }

    private static Set<String> keys(List<AckTarget> targets) {
        Set<String> keys = new TreeSet<>();
        targets.forEach(t -> keys.add(t.partitionKey()));
        return keys;
    }
}
