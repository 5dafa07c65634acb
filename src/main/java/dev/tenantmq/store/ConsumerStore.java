package dev.tenantmq.store;

import jakarta.enterprise.context.ApplicationScoped;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * SQL of consumption: lease-fetch, ack, nack, extend and dead-lettering over
 * {@code queue_partition_leases}, {@code queue_offsets}, {@code queue_delivery_state} and
 * {@code queue_messages}.
 *
 * <p>Locking rule: every transaction that writes a partition's delivery state or committed
 * offset first locks that partition's lease row ({@code FOR UPDATE}). Fetch and ack of one
 * partition therefore run one at a time, and the rows they read after the lock (READ
 * COMMITTED: each statement sees the latest commits) cannot change under them. Lease rows are
 * locked in primary-key order, so two such transactions cannot deadlock on them.
 */
@ApplicationScoped
public class ConsumerStore {
    /** Delivery states of {@code queue_delivery_state.state} (see the V2 migration). */
    public static final String INFLIGHT = "INFLIGHT";
    public static final String RETRY = "RETRY";
    public static final String PENDING = "PENDING";
    public static final String ACKED = "ACKED";
    public static final String DEAD = "DEAD";

    /**
     * Partitions this subscriber leases that have something to deliver (a message above the
     * committed offset, or a requeued one at or below it) and nothing that holds the partition
     * back (a delivery of the current lease still invisible, or a nacked or handed-back message
     * whose delay has not passed). Keys after {@code ?} (the fairness cursor) come first, then
     * the rest from the start.
     */
    static final String SELECT_READY_PARTITIONS = """
            SELECT l.partition_key
            FROM queue_partition_leases l
            JOIN queue_offsets o
              ON o.tenant = l.tenant AND o.topic = l.topic
             AND o.partition_key = l.partition_key AND o.consumer_group = l.consumer_group
            WHERE l.tenant = ? AND l.consumer_group = ? AND l.topic = ?
              AND l.leased_by = ? AND l.expires_at > UTC_TIMESTAMP(6)
              AND (EXISTS (
                      SELECT 1 FROM queue_messages m
                      WHERE m.tenant = l.tenant AND m.topic = l.topic AND m.partition_key = l.partition_key
                        AND m.`offset` > o.committed_offset)
                   OR EXISTS (
                      SELECT 1 FROM queue_delivery_state r
                      JOIN queue_messages rm
                        ON rm.tenant = r.tenant AND rm.topic = r.topic AND rm.partition_key = r.partition_key
                       AND rm.`offset` = r.message_offset
                      WHERE r.tenant = l.tenant AND r.consumer_group = l.consumer_group AND r.topic = l.topic
                        AND r.partition_key = l.partition_key AND r.message_offset <= o.committed_offset
                        AND r.state IN ('INFLIGHT', 'RETRY', 'PENDING')))
              AND NOT EXISTS (
                  SELECT 1 FROM queue_delivery_state d
                  WHERE d.tenant = l.tenant AND d.consumer_group = l.consumer_group AND d.topic = l.topic
                    AND d.partition_key = l.partition_key AND d.visible_at > UTC_TIMESTAMP(6)
                    AND (d.state IN ('RETRY', 'PENDING') OR (d.state = 'INFLIGHT' AND d.lease_epoch = l.epoch)))
            ORDER BY l.partition_key <= ?, l.partition_key
            LIMIT ?""";

    /**
     * Locks the lease rows this subscriber still holds among the given partitions (%s is the
     * IN list). Rows not held or expired are not returned; under READ COMMITTED they are not
     * locked either.
     */
    static final String LOCK_HELD_LEASES = """
            SELECT partition_key, epoch FROM queue_partition_leases
            WHERE tenant = ? AND consumer_group = ? AND topic = ? AND partition_key IN (%s)
              AND leased_by = ? AND expires_at > UTC_TIMESTAMP(6)
            ORDER BY partition_key
            FOR UPDATE""";

    /** Locks the lease rows of the given partitions whoever holds them (%s is the IN list). */
    static final String LOCK_LEASES = """
            SELECT partition_key, epoch FROM queue_partition_leases
            WHERE tenant = ? AND consumer_group = ? AND topic = ? AND partition_key IN (%s)
            ORDER BY partition_key
            FOR UPDATE""";

    /**
     * Committed offsets of the given partitions (%s is the IN list), and whether each has a
     * requeued message at or below it still to deliver.
     */
    static final String SELECT_COMMITTED = """
            SELECT o.partition_key, o.committed_offset,
                   EXISTS (SELECT 1 FROM queue_delivery_state r
                           WHERE r.tenant = o.tenant AND r.consumer_group = o.consumer_group AND r.topic = o.topic
                             AND r.partition_key = o.partition_key AND r.message_offset <= o.committed_offset
                             AND r.state IN ('INFLIGHT', 'RETRY', 'PENDING'))
            FROM queue_offsets o
            WHERE o.tenant = ? AND o.topic = ? AND o.partition_key IN (%s) AND o.consumer_group = ?""";

    /** Columns shared by the two message scans of {@link #lease}. */
    private static final String DELIVERY_COLUMNS = """
            m.`offset`, m.id, m.payload, m.metadata, m.created_at,
            d.state, d.delivery_attempt, d.delivery_count, d.lease_epoch, d.visible_at > UTC_TIMESTAMP(6)""";

    /**
     * The next messages of one partition above its committed offset, in offset order, with
     * this group's delivery state of each.
     */
    static final String SELECT_PARTITION_MESSAGES = """
            SELECT %s
            FROM queue_messages m
            LEFT JOIN queue_delivery_state d
              ON d.tenant = m.tenant AND d.consumer_group = ? AND d.topic = m.topic
             AND d.partition_key = m.partition_key AND d.message_offset = m.`offset`
            WHERE m.tenant = ? AND m.topic = ? AND m.partition_key = ? AND m.`offset` > ?
            ORDER BY m.`offset`
            LIMIT ?""".formatted(DELIVERY_COLUMNS);

    /**
     * Requeued messages of one partition at or below its committed offset (admin requeue hands
     * a dead letter back there), in offset order. They go out before anything above the offset.
     */
    static final String SELECT_REQUEUED_MESSAGES = """
            SELECT %s
            FROM queue_delivery_state d
            JOIN queue_messages m
              ON m.tenant = d.tenant AND m.topic = d.topic AND m.partition_key = d.partition_key
             AND m.`offset` = d.message_offset
            WHERE d.tenant = ? AND d.consumer_group = ? AND d.topic = ? AND d.partition_key = ?
              AND d.message_offset <= ? AND d.state IN ('INFLIGHT', 'RETRY', 'PENDING')
            ORDER BY d.message_offset
            LIMIT ?""".formatted(DELIVERY_COLUMNS);

    static final String INSERT_DELIVERY = """
            INSERT INTO queue_delivery_state
              (tenant, consumer_group, topic, partition_key, message_offset,
               state, delivery_attempt, delivery_count, lease_epoch, visible_at, updated_at)
            VALUES (?, ?, ?, ?, ?, 'INFLIGHT', 1, 1, ?,
                    UTC_TIMESTAMP(6) + INTERVAL ? MICROSECOND, UTC_TIMESTAMP(6))""";

    /**
     * Hands a message out again (after an expiry, a lost lease, a nack or a hand-back), fenced
     * by the state and delivery number it was read with.
     */
    static final String UPDATE_REDELIVERY = """
            UPDATE queue_delivery_state
            SET state = 'INFLIGHT', delivery_attempt = ?, delivery_count = delivery_count + 1, lease_epoch = ?,
                visible_at = UTC_TIMESTAMP(6) + INTERVAL ? MICROSECOND, updated_at = UTC_TIMESTAMP(6)
            WHERE tenant = ? AND consumer_group = ? AND topic = ? AND partition_key = ? AND message_offset = ?
              AND state = ? AND delivery_count = ?""";

    /** Marks a message dead-lettered for the group, fenced like {@link #UPDATE_REDELIVERY}. */
    static final String MARK_DEAD = """
            UPDATE queue_delivery_state
            SET state = 'DEAD', delivery_attempt = ?, updated_at = UTC_TIMESTAMP(6)
            WHERE tenant = ? AND consumer_group = ? AND topic = ? AND partition_key = ? AND message_offset = ?
              AND state = ? AND delivery_count = ?""";

    /** Ack, fenced by the lease epoch and delivery number the receipt names. */
    static final String ACK_DELIVERY = """
            UPDATE queue_delivery_state
            SET state = 'ACKED', updated_at = UTC_TIMESTAMP(6)
            WHERE tenant = ? AND consumer_group = ? AND topic = ? AND partition_key = ? AND message_offset = ?
              AND state = 'INFLIGHT' AND lease_epoch = ? AND delivery_count = ?""";

    /** Extend (change visibility), fenced like ack: pushes the redelivery time back. */
    static final String EXTEND_DELIVERY = """
            UPDATE queue_delivery_state
            SET visible_at = UTC_TIMESTAMP(6) + INTERVAL ? MICROSECOND, updated_at = UTC_TIMESTAMP(6)
            WHERE tenant = ? AND consumer_group = ? AND topic = ? AND partition_key = ? AND message_offset = ?
              AND state = 'INFLIGHT' AND lease_epoch = ? AND delivery_count = ?""";

    /** Nack below {@code mq.max-deliveries}: a failed attempt, delivered again after the delay. */
    static final String NACK_DELIVERY = """
            UPDATE queue_delivery_state
            SET state = 'RETRY', visible_at = UTC_TIMESTAMP(6) + INTERVAL ? MICROSECOND, updated_at = UTC_TIMESTAMP(6)
            WHERE tenant = ? AND consumer_group = ? AND topic = ? AND partition_key = ? AND message_offset = ?
              AND state = 'INFLIGHT' AND lease_epoch = ? AND delivery_count = ?""";

    /**
     * Hands in-flight messages of a lease after an offset back without failing (SPEC: they keep
     * their {@code deliveryAttempt}): after a nack the later ones, which follow the nacked one
     * again; on a graceful lease release all of them (offset 0, see LeaseStore.release). Those
     * whose visibility timeout already expired stay: the expiry is a failed attempt.
     */
    static final String HAND_BACK_LATER = """
            UPDATE queue_delivery_state
            SET state = 'PENDING', visible_at = UTC_TIMESTAMP(6), updated_at = UTC_TIMESTAMP(6)
            WHERE tenant = ? AND consumer_group = ? AND topic = ? AND partition_key = ? AND message_offset > ?
              AND state = 'INFLIGHT' AND lease_epoch = ? AND visible_at > UTC_TIMESTAMP(6)""";

    static final String SELECT_DELIVERY_STATE = """
            SELECT state, lease_epoch, delivery_count, delivery_attempt FROM queue_delivery_state
            WHERE tenant = ? AND consumer_group = ? AND topic = ? AND partition_key = ? AND message_offset = ?""";

    /** The message a dead letter copies. */
    static final String SELECT_MESSAGE = """
            SELECT id, payload, metadata FROM queue_messages
            WHERE tenant = ? AND topic = ? AND partition_key = ? AND `offset` = ?""";

    /**
     * Message offsets of one partition above the committed offset with their state; walked to
     * find the contiguous prefix of finished (acked or dead-lettered) messages.
     */
    static final String SELECT_PREFIX_STATES = """
            SELECT m.`offset`, d.state
            FROM queue_messages m
            LEFT JOIN queue_delivery_state d
              ON d.tenant = m.tenant AND d.consumer_group = ? AND d.topic = m.topic
             AND d.partition_key = m.partition_key AND d.message_offset = m.`offset`
            WHERE m.tenant = ? AND m.topic = ? AND m.partition_key = ? AND m.`offset` > ?
            ORDER BY m.`offset`
            LIMIT ?""";

    /** Finished deliveries above the committed offset, per partition (%s is the IN list). */
    static final String COUNT_FINISHED = """
            SELECT d.partition_key, COUNT(*) FROM queue_delivery_state d
            JOIN queue_offsets o
              ON o.tenant = d.tenant AND o.topic = d.topic AND o.partition_key = d.partition_key
             AND o.consumer_group = d.consumer_group
            WHERE d.tenant = ? AND d.consumer_group = ? AND d.topic = ? AND d.partition_key IN (%s)
              AND d.state IN ('ACKED', 'DEAD') AND d.message_offset > o.committed_offset
            GROUP BY d.partition_key""";

    /** Compare-and-set of the committed offset; the lease row lock makes a mismatch a bug. */
    static final String ADVANCE_COMMITTED = """
            UPDATE queue_offsets SET committed_offset = ?, updated_at = UTC_TIMESTAMP(6)
            WHERE tenant = ? AND topic = ? AND partition_key = ? AND consumer_group = ? AND committed_offset = ?""";

    /**
     * Acknowledged delivery state at or below the committed offset is no longer needed. DEAD
     * rows stay (requeue needs them); in-flight, retry and pending rows there are requeued
     * messages still to deliver.
     */
    static final String PRUNE_DELIVERIES = """
            DELETE FROM queue_delivery_state
            WHERE tenant = ? AND consumer_group = ? AND topic = ? AND partition_key = ? AND message_offset <= ?
              AND state = 'ACKED'""";

    private final Db db;

    ConsumerStore(Db db) {
        this.db = db;
    }

    /** One message handed out by {@link #lease}; {@code delivery} is its fencing delivery number. */
    public record Delivery(String partitionKey, long offset, String id, String payloadJson, String metadataJson,
                           Instant createdAt, int deliveryAttempt, int delivery, long leaseEpoch) {}

    /**
     * When and where a group dead-letters (SPEC "Dead letters").
     *
     * @param maxDeliveries failed attempts after which a message is dead-lettered
     * @param dlqTopic {@code <topic><suffix>}
     */
    public record DeadLetterPolicy(int maxDeliveries, String dlqTopic) {
        /** No dead-letter topic: failed messages are retried without limit. */
        public static final DeadLetterPolicy NEVER = new DeadLetterPolicy(Integer.MAX_VALUE, null);
    }

    /** What {@link #lease} did: the deliveries, and how many messages it dead-lettered instead. */
    public record LeaseResult(List<Delivery> deliveries, int deadLettered) {}

    /**
     * Finds up to {@code maxPartitions} leased partitions with deliverable messages, starting
     * after {@code cursor} in key order and wrapping around. Read-only, no locks.
     */
    public List<String> readyPartitions(GroupScope s, String subscriber, String cursor, int maxPartitions) {
        return db.read(c -> Db.column(c, SELECT_READY_PARTITIONS, s.tenant(), s.consumerGroup(), s.topic(), subscriber,
                cursor, maxPartitions));
    }

    /**
     * Leases messages for delivery: in one transaction, locks the lease rows this subscriber
     * still holds among {@code partitions}, and from each partition with nothing holding it back
     * takes, in offset order, first its requeued messages and then the messages above the
     * committed offset (skipping acked and dead-lettered ones), marking each in flight until
     * now + visibility. A message whose earlier delivery expired or lost its lease has failed an
     * attempt; when that was its {@code maxDeliveries}-th, it is dead-lettered here instead of
     * delivered, and the partition moves on.
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
        return writeTx((c, gapLocks) -> {
            Map<String, Long> epochs = lockedEpochs(c, LOCK_HELD_LEASES, s, partitions, subscriber);
            if (epochs.isEmpty()) {
                return new LeaseResult(List.of(), 0);
            }
            Map<String, Committed> committed = committedOffsets(c, s, epochs.keySet());
            List<Delivery> out = new ArrayList<>();
            List<Object[]> inserts = new ArrayList<>();
            List<Object[]> updates = new ArrayList<>();
            List<Dead> deads = new ArrayList<>();
            for (Map.Entry<String, Long> lease : epochs.entrySet()) {
                int budget = maxMessages - out.size();
                if (budget <= 0) {
                    break;
                }
                Committed from = committed.get(lease.getKey());
                if (from == null) {
                    continue; // offsets row is created with the lease; absent means not ready yet
                }
                PartitionWalk walk = new PartitionWalk(s, lease.getKey(), lease.getValue(), budget, visibilityMicros,
                        policy.maxDeliveries());
                // Acked-but-uncommitted messages are skipped, so read a little more than the budget.
                boolean more = !from.requeued() || walk.scan(c, SELECT_REQUEUED_MESSAGES, s.tenant(), s.consumerGroup(),
                        s.topic(), lease.getKey(), from.offset(), budget + 64);
                if (more) {
                    walk.scan(c, SELECT_PARTITION_MESSAGES, s.consumerGroup(), s.tenant(), s.topic(), lease.getKey(),
                            from.offset(), budget + 64);
                }
                if (walk.busy) {
                    continue; // an earlier delivery of the current lease is still out: nothing may go now
                }
                inserts.addAll(walk.inserts);
                updates.addAll(walk.updates);
                deads.addAll(walk.deads);
                out.addAll(walk.batch);
            }
            executeBatch(c, INSERT_DELIVERY, inserts, "insert delivery");
            executeBatch(c, UPDATE_REDELIVERY, updates, "redeliver");
            Set<String> deadKeys = new TreeSet<>();
            for (Dead d : deads) {
                deadLetter(c, s, policy, d, gapLocks);
                deadKeys.add(d.partitionKey());
            }
            advanceCommitted(c, s, deadKeys, committed);
            return new LeaseResult(out, deads.size());
        });
    }

    /** A message to dead-letter: the row as read, and why. */
    private record Dead(String partitionKey, long offset, String id, String payloadJson, String metadataJson,
                        String fromState, int delivery, int attempts, String reason) {}

    /**
     * Decides, row by row in offset order, what {@link #lease} does with one partition's
     * messages (SPEC "Ack, nack, extend": attempts, hand-backs and dead letters).
     */
    private static final class PartitionWalk {
        private final GroupScope s;
        private final String key;
        private final long epoch;
        private final int budget;
        private final long visibilityMicros;
        private final int maxDeliveries;
        final List<Delivery> batch = new ArrayList<>();
        final List<Object[]> inserts = new ArrayList<>();
        final List<Object[]> updates = new ArrayList<>();
        final List<Dead> deads = new ArrayList<>();
        boolean busy;

        PartitionWalk(GroupScope s, String key, long epoch, int budget, long visibilityMicros, int maxDeliveries) {
            this.s = s;
            this.key = key;
            this.epoch = epoch;
            this.budget = budget;
            this.visibilityMicros = visibilityMicros;
            this.maxDeliveries = maxDeliveries;
        }

        /** Walks the rows of {@code sql}; returns false when the partition can give nothing more now. */
        boolean scan(Connection c, String sql, Object... params) throws SQLException {
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                Db.bind(ps, params);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        if (batch.size() >= budget || !accept(rs)) {
                            return false;
                        }
                    }
                }
            }
            return true;
        }

        private boolean accept(ResultSet rs) throws SQLException {
            long offset = rs.getLong(1);
            String state = rs.getString(6);
            if (state == null) {
                inserts.add(new Object[] {s.tenant(), s.consumerGroup(), s.topic(), key, offset, epoch, visibilityMicros});
                deliver(rs, offset, 1, 1);
                return true;
            }
            int attempt = rs.getInt(7);
            int delivery = rs.getInt(8);
            boolean sameLease = rs.getLong(9) == epoch;
            boolean invisible = rs.getBoolean(10);
            switch (state) {
                case ACKED, DEAD -> {
                    return true; // finished for this group: never delivered again
                }
                case INFLIGHT -> {
                    if (sameLease && invisible) {
                        busy = true;
                        return false;
                    }
                    // Its visibility expired, or its lease was lost: a failed attempt.
                    return failedAttempt(rs, offset, state, attempt, delivery,
                            sameLease ? "visibility timeout expired" : "lease lost before acknowledgement");
                }
                case RETRY -> {
                    if (invisible) {
                        return false; // nacked, delay not over: nothing after it may go either
                    }
                    return failedAttempt(rs, offset, state, attempt, delivery, "nacked");
                }
                case PENDING -> {
                    if (invisible) {
                        return false;
                    }
                    // Handed back without failing: same attempt.
                    updates.add(redelivery(offset, attempt, state, delivery));
                    deliver(rs, offset, attempt, delivery + 1);
                    return true;
                }
                default -> throw new SQLException("unknown delivery state " + state);
            }
        }

        private boolean failedAttempt(ResultSet rs, long offset, String state, int attempt, int delivery, String reason)
                throws SQLException {
            if (attempt >= maxDeliveries) {
                deads.add(new Dead(key, offset, rs.getString(2), rs.getString(3), rs.getString(4), state, delivery, attempt,
                        reason));
                return true; // dead-lettering releases the partition: later messages flow
            }
            updates.add(redelivery(offset, attempt + 1, state, delivery));
            deliver(rs, offset, attempt + 1, delivery + 1);
            return true;
        }

        private Object[] redelivery(long offset, int attempt, String fromState, int delivery) {
            return new Object[] {attempt, epoch, visibilityMicros, s.tenant(), s.consumerGroup(), s.topic(), key, offset,
                    fromState, delivery};
        }

        private void deliver(ResultSet rs, long offset, int attempt, int delivery) throws SQLException {
            batch.add(new Delivery(key, offset, rs.getString(2), rs.getString(3), rs.getString(4),
                    rs.getObject(5, LocalDateTime.class).toInstant(ZoneOffset.UTC), attempt, delivery, epoch));
        }
    }

    /** Writes the dead letter of {@code d} and marks it DEAD for the group, in the caller's transaction. */
    private static void deadLetter(Connection c, GroupScope s, DeadLetterPolicy policy, Dead d, boolean gapLocks)
            throws SQLException {
        MessageStore.appendDeadLetter(c, new MessageStore.DeadLetter(s.tenant(), policy.dlqTopic(), d.partitionKey(),
                d.id(), d.payloadJson(), d.metadataJson(), s.topic(), d.offset(), s.consumerGroup(), d.reason(),
                d.attempts()), gapLocks);
        try (PreparedStatement ps = c.prepareStatement(MARK_DEAD)) {
            Db.bind(ps, d.attempts(), s.tenant(), s.consumerGroup(), s.topic(), d.partitionKey(), d.offset(), d.fromState(),
                    d.delivery());
            int n = ps.executeUpdate();
            if (n == 0) {
                throw new SQLException("mark dead changed no row", "40001"); // see executeBatch
            }
            if (n != 1) {
                throw new SQLException("mark dead changed " + n + " rows, expected 1");
            }
        }
    }

    /**
     * Runs a transaction that may write a dead letter: under READ COMMITTED, and again under
     * REPEATABLE READ when a dead-letter partition turns out to be empty (see
     * {@link MessageStore.GapLockNeeded}). Every read after the lease row locks sees the same
     * rows under either level, because all writers of those rows take the same locks first.
     */
    private <T> T writeTx(GapWork<T> work) {
        try {
            return db.inTransaction(Db.Isolation.READ_COMMITTED, c -> work.run(c, false));
        } catch (MessageStore.GapLockNeeded e) {
            return db.inTransaction(Db.Isolation.REPEATABLE_READ, c -> work.run(c, true));
        }
    }

    @FunctionalInterface
    private interface GapWork<T> {
        T run(Connection c, boolean gapLocks) throws SQLException;
    }

    /** Outcome of one receipt: the action happened, the message was acked before, or the receipt is stale. */
    public enum SettleStatus { DONE, ALREADY_ACKED, STALE }

    /** What one receipt names: the message and the delivery (lease epoch, delivery number). */
    public record AckTarget(String partitionKey, long offset, long leaseEpoch, int delivery) {}

    /** Outcome of a nack: one status per receipt, and how many messages went to the dead-letter topic. */
    public record NackResult(List<SettleStatus> statuses, int deadLettered) {}

    /**
     * Acknowledges deliveries and advances each partition's committed offset over its
     * contiguous finished prefix, in one transaction.
     *
     * @return one status per target, in the given order
     */
    public List<SettleStatus> ack(GroupScope s, List<AckTarget> targets) {
        return settle(s, targets, (c, t, ctx) -> {
            if (fencedUpdate(c, ACK_DELIVERY, new Object[0], s, t)) {
                ctx.finished.add(t.partitionKey());
                return true;
            }
            return false;
        }).statuses();
    }

    /**
     * Makes in-flight deliveries invisible for {@code visibilityMicros} more microseconds from
     * now (the database clock), so they are not redelivered meanwhile.
     *
     * @return one status per target, in the given order
     */
    public List<SettleStatus> extend(GroupScope s, List<AckTarget> targets, long visibilityMicros) {
        return settle(s, targets, (c, t, ctx) -> fencedUpdate(c, EXTEND_DELIVERY, new Object[] {visibilityMicros}, s, t))
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
            int[] row = currentDelivery(c, s, t);
            if (row == null) {
                return false;
            }
            int attempt = row[0];
            if (attempt >= policy.maxDeliveries()) {
                String[] message = message(c, s, t.partitionKey(), t.offset());
                deadLetter(c, s, policy, new Dead(t.partitionKey(), t.offset(), message[0], message[1], message[2],
                        INFLIGHT, t.delivery(), attempt, reason), ctx.gapLocks);
                ctx.finished.add(t.partitionKey());
                ctx.deadLettered++;
            } else if (!fencedUpdate(c, NACK_DELIVERY, new Object[] {delayMicros.applyAsLong(attempt)}, s, t)) {
                throw new SQLException("nack of a current delivery changed no row"); // lease row lock held: a bug
            }
            // Whether it is retried or dead-lettered, the messages delivered after it go back: the
            // client cannot tell which nack was the last, so both behave alike for them.
            ctx.handBack.merge(t.partitionKey(), new long[] {t.offset(), t.leaseEpoch()},
                    (a, b) -> a[0] <= b[0] ? a : b);
            return true;
        });
    }

    /** The attempt of the delivery {@code t} names, when it is the current in-flight one; else null. */
    private static int[] currentDelivery(Connection c, GroupScope s, AckTarget t) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(SELECT_DELIVERY_STATE)) {
            Db.bind(ps, s.tenant(), s.consumerGroup(), s.topic(), t.partitionKey(), t.offset());
            try (ResultSet rs = ps.executeQuery()) {
                if (rs.next() && INFLIGHT.equals(rs.getString(1)) && rs.getLong(2) == t.leaseEpoch()
                        && rs.getInt(3) == t.delivery()) {
                    return new int[] {rs.getInt(4)};
                }
                return null;
            }
        }
    }

    /** id, payload and metadata of one message. */
    private static String[] message(Connection c, GroupScope s, String key, long offset) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(SELECT_MESSAGE)) {
            Db.bind(ps, s.tenant(), s.topic(), key, offset);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    throw new SQLException("in-flight message " + offset + " has no message row");
                }
                return new String[] {rs.getString(1), rs.getString(2), rs.getString(3)};
            }
        }
    }

    /** Runs one fenced single-row update: {@code leading} are its SET parameters. */
    private static boolean fencedUpdate(Connection c, String sql, Object[] leading, GroupScope s, AckTarget t)
            throws SQLException {
        Object[] where = {s.tenant(), s.consumerGroup(), s.topic(), t.partitionKey(), t.offset(), t.leaseEpoch(),
                t.delivery()};
        Object[] params = Arrays.copyOf(leading, leading.length + where.length);
        System.arraycopy(where, 0, params, leading.length, where.length);
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            Db.bind(ps, params);
            int n = ps.executeUpdate();
            if (n > 1) {
                throw new SQLException("fenced update matched " + n + " delivery rows");
            }
            return n == 1;
        }
    }

    /** What the per-receipt actions of one settle transaction leave for its end. */
    private static final class SettleContext {
        final boolean gapLocks;
        /** Partitions where a message finished (acked or dead-lettered): the committed offset may move. */
        final Set<String> finished = new TreeSet<>();
        /** Per partition, the lowest nacked offset and its lease epoch: later in-flight messages go back. */
        final Map<String, long[]> handBack = new TreeMap<>();
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
     * Applies {@code action} to each receipt whose lease epoch is the partition's current one,
     * under the partitions' lease row locks. A receipt that changed nothing is classified
     * {@link SettleStatus#ALREADY_ACKED} when this very delivery was acknowledged, else
     * {@link SettleStatus#STALE} (SPEC: another delivery or lease owns the message now).
     */
    private NackResult settle(GroupScope s, List<AckTarget> targets, TargetAction action) {
        if (targets.isEmpty()) {
            return new NackResult(List.of(), 0);
        }
        return writeTx((c, gapLocks) -> {
            Set<String> keys = new TreeSet<>();
            targets.forEach(t -> keys.add(t.partitionKey()));
            Map<String, Long> epochs = lockedEpochs(c, LOCK_LEASES, s, new ArrayList<>(keys), null);
            SettleStatus[] result = new SettleStatus[targets.size()];
            SettleContext ctx = new SettleContext(gapLocks);
            for (int i = 0; i < targets.size(); i++) {
                AckTarget t = targets.get(i);
                Long current = epochs.get(t.partitionKey());
                if (current != null && current == t.leaseEpoch() && action.apply(c, t, ctx)) {
                    result[i] = SettleStatus.DONE;
                }
            }
            for (Map.Entry<String, long[]> e : ctx.handBack.entrySet()) {
                try (PreparedStatement ps = c.prepareStatement(HAND_BACK_LATER)) {
                    Db.bind(ps, s.tenant(), s.consumerGroup(), s.topic(), e.getKey(), e.getValue()[0], e.getValue()[1]);
                    ps.executeUpdate(); // any number of later messages may be in flight
                }
            }
            Map<String, Committed> committed = committedOffsets(c, s, keys);
            try (PreparedStatement ps = c.prepareStatement(SELECT_DELIVERY_STATE)) {
                for (int i = 0; i < targets.size(); i++) {
                    if (result[i] != null) {
                        continue;
                    }
                    AckTarget t = targets.get(i);
                    Long current = epochs.get(t.partitionKey());
                    if (current == null || current != t.leaseEpoch()) {
                        // Another lease owns the partition now: whatever happened since, this
                        // receipt's delivery is not current (SPEC: STALE, nothing changed).
                        result[i] = SettleStatus.STALE;
                        continue;
                    }
                    Db.bind(ps, s.tenant(), s.consumerGroup(), s.topic(), t.partitionKey(), t.offset());
                    try (ResultSet rs = ps.executeQuery()) {
                        boolean acked;
                        if (rs.next()) {
                            // Acked by this very delivery, not by a later redelivery of it.
                            acked = ACKED.equals(rs.getString(1)) && rs.getLong(2) == t.leaseEpoch()
                                    && rs.getInt(3) == t.delivery();
                        } else {
                            // Pruned: at or below the committed offset means acknowledged.
                            Committed c0 = committed.get(t.partitionKey());
                            acked = c0 != null && t.offset() <= c0.offset();
                        }
                        result[i] = acked ? SettleStatus.ALREADY_ACKED : SettleStatus.STALE;
                    }
                }
            }
            advanceCommitted(c, s, ctx.finished, committed);
            return new NackResult(List.of(result), ctx.deadLettered);
        });
    }

    /**
     * Moves each partition's committed offset to the end of its contiguous run of finished
     * messages and prunes the acknowledged delivery state at or below it (including that of
     * requeued messages acknowledged below it). Caller holds the lease row locks.
     */
    private static void advanceCommitted(Connection c, GroupScope s, Set<String> keys, Map<String, Committed> committed)
            throws SQLException {
        if (keys.isEmpty()) {
            return;
        }
        Map<String, Integer> finished = new HashMap<>();
        List<String> keyList = new ArrayList<>(keys);
        try (PreparedStatement ps = c.prepareStatement(COUNT_FINISHED.formatted(Db.placeholders(keyList.size())))) {
            int i = 1;
            ps.setString(i++, s.tenant());
            ps.setString(i++, s.consumerGroup());
            ps.setString(i++, s.topic());
            for (String k : keyList) {
                ps.setString(i++, k);
            }
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    finished.put(rs.getString(1), rs.getInt(2));
                }
            }
        }
        List<Object[]> advances = new ArrayList<>();
        List<Object[]> prunes = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(SELECT_PREFIX_STATES)) {
            for (String key : keyList) {
                Committed from = committed.get(key);
                if (from == null) {
                    continue;
                }
                long to = from.offset();
                Integer count = finished.get(key);
                if (count != null) {
                    // The finished prefix has at most `count` rows, so count + 1 rows always reach its end.
                    Db.bind(ps, s.consumerGroup(), s.tenant(), s.topic(), key, from.offset(), count + 1);
                    try (ResultSet rs = ps.executeQuery()) {
                        while (rs.next()) {
                            String state = rs.getString(2);
                            if (!ACKED.equals(state) && !DEAD.equals(state)) {
                                break;
                            }
                            to = rs.getLong(1);
                        }
                    }
                }
                if (to > from.offset()) {
                    advances.add(new Object[] {to, s.tenant(), s.topic(), key, s.consumerGroup(), from.offset()});
                }
                prunes.add(new Object[] {s.tenant(), s.consumerGroup(), s.topic(), key, to});
            }
        }
        executeBatch(c, ADVANCE_COMMITTED, advances, "advance committed offset");
        try (PreparedStatement ps = c.prepareStatement(PRUNE_DELIVERIES)) {
            for (Object[] row : prunes) {
                Db.bind(ps, row);
                ps.addBatch();
            }
            if (!prunes.isEmpty()) {
                ps.executeBatch(); // deletes any number of rows: no count to check
            }
        }
    }

    private static Map<String, Long> lockedEpochs(Connection c, String sql, GroupScope s, List<String> partitions,
                                                  String subscriber) throws SQLException {
        Map<String, Long> epochs = new LinkedHashMap<>();
        try (PreparedStatement ps = c.prepareStatement(sql.formatted(Db.placeholders(partitions.size())))) {
            int i = 1;
            ps.setString(i++, s.tenant());
            ps.setString(i++, s.consumerGroup());
            ps.setString(i++, s.topic());
            for (String k : partitions) {
                ps.setString(i++, k);
            }
            if (subscriber != null) {
                ps.setString(i, subscriber);
            }
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    epochs.put(rs.getString(1), rs.getLong(2));
                }
            }
        }
        return epochs;
    }

    /** A partition's committed offset, and whether requeued messages wait at or below it. */
    private record Committed(long offset, boolean requeued) {}

    private static Map<String, Committed> committedOffsets(Connection c, GroupScope s, Set<String> keys)
            throws SQLException {
        Map<String, Committed> committed = new HashMap<>();
        List<String> keyList = new ArrayList<>(keys);
        try (PreparedStatement ps = c.prepareStatement(SELECT_COMMITTED.formatted(Db.placeholders(keyList.size())))) {
            int i = 1;
            ps.setString(i++, s.tenant());
            ps.setString(i++, s.topic());
            for (String k : keyList) {
                ps.setString(i++, k);
            }
            ps.setString(i, s.consumerGroup());
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    committed.put(rs.getString(1), new Committed(rs.getLong(2), rs.getBoolean(3)));
                }
            }
        }
        return committed;
    }

    /** Runs a batch of single-row writes and checks that each changed exactly one row. */
    static void executeBatch(Connection c, String sql, List<Object[]> rows, String what) throws SQLException {
        if (rows.isEmpty()) {
            return;
        }
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            for (Object[] row : rows) {
                Db.bind(ps, row);
                ps.addBatch();
            }
            int[] counts = ps.executeBatch();
            for (int n : counts) {
                if (n == 0) {
                    // A row read in this transaction changed or went away: not through the lease row
                    // lock, which every consumer write takes, but by retention or an admin delete of
                    // the message. A conflict: SQLState 40001 makes Db retry with fresh reads.
                    throw new SQLException(what + " changed no row", "40001");
                }
                if (n != 1 && n != java.sql.Statement.SUCCESS_NO_INFO) {
                    throw new SQLException(what + " changed " + n + " rows, expected 1");
                }
            }
        }
    }
}
