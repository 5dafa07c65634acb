package dev.tenantmq.store;

import dev.tenantmq.model.CommitWalk;
import dev.tenantmq.model.DeadLetterPolicy;
import dev.tenantmq.model.GroupScope;
import dev.tenantmq.model.PartitionWalk;
import dev.tenantmq.model.DeliveryState;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * SQL of consumption: lease-fetch, ack, nack, extend and dead-lettering over
 * {@code queue_partition_leases}, {@code queue_offsets}, {@code queue_delivery_state} and
 * {@code queue_messages}. The rules of what to deliver and where the committed offset moves are
 * pure code on the ground floor ({@link PartitionWalk}, {@link CommitWalk}); this class reads
 * their input and writes their outcome.
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

    /**
     * Partitions this subscriber leases, in key order within {@code (after, upTo]} (the second
     * bound only when the first ? of the OR is false), that have something to deliver (a message
     * above the committed offset, or a requeued one at or below it) and nothing that holds the
     * partition back: an open batch of the current lease still within its visibility, a
     * delivery row of the current lease still invisible, or a nacked or handed-back message whose
     * delay has not passed. In key order, the scan of the lease rows stops at the LIMIT, so a
     * fetch pays for the partitions it looks at, not for every partition it leases.
     * Binds: tenant, consumer_group, topic, subscriber, after, unbounded (boolean), upTo, limit.
     */
    static final String SELECT_READY_PARTITIONS = """
            SELECT l.partition_key
            FROM queue_partition_leases l
            JOIN queue_offsets o
              ON o.tenant = l.tenant AND o.topic = l.topic
             AND o.partition_key = l.partition_key AND o.consumer_group = l.consumer_group
            WHERE l.tenant = ? AND l.consumer_group = ? AND l.topic = ?
              AND l.leased_by = ? AND l.expires_at > UTC_TIMESTAMP(6)
              AND l.partition_key > ? AND (? OR l.partition_key <= ?)
              AND NOT (o.delivered_offset > o.committed_offset AND o.delivery_epoch = l.epoch
                       AND o.visible_at > UTC_TIMESTAMP(6))
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
            ORDER BY l.partition_key
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
     * The group's position in the given partitions (%s is the IN list): committed offset, the
     * open batch, and whether a requeued message waits at or below the committed offset. Read
     * after the lease row locks, which every writer of these rows takes first.
     */
    static final String SELECT_CURSORS = """
            SELECT o.partition_key, o.committed_offset, o.delivered_offset, o.delivery_epoch, o.delivery_seq,
                   o.visible_at, o.visible_at > UTC_TIMESTAMP(6),
                   EXISTS (SELECT 1 FROM queue_delivery_state r
                           WHERE r.tenant = o.tenant AND r.consumer_group = o.consumer_group AND r.topic = o.topic
                             AND r.partition_key = o.partition_key AND r.message_offset <= o.committed_offset
                             AND r.state IN ('INFLIGHT', 'RETRY', 'PENDING'))
            FROM queue_offsets o
            WHERE o.tenant = ? AND o.topic = ? AND o.partition_key IN (%s) AND o.consumer_group = ?""";

    /** Columns of the two message scans of {@link #lease}. */
    private static final String SCAN_COLUMNS = """
            m.partition_key, m.`offset`, m.id, m.payload, m.metadata, m.created_at,
            d.state, d.delivery_attempt, d.delivery_count, d.lease_epoch, d.visible_at > UTC_TIMESTAMP(6)""";

    /**
     * The next messages of one partition above its committed offset, in offset order, with this
     * group's delivery row of each. One branch of a UNION ALL over the partitions of a fetch.
     * Binds: consumer_group, tenant, topic, partition_key, committed offset, row limit.
     */
    static final String SCAN_PARTITION = """
            SELECT %s
            FROM queue_messages m
            LEFT JOIN queue_delivery_state d
              ON d.tenant = m.tenant AND d.consumer_group = ? AND d.topic = m.topic
             AND d.partition_key = m.partition_key AND d.message_offset = m.`offset`
            WHERE m.tenant = ? AND m.topic = ? AND m.partition_key = ? AND m.`offset` > ?
            ORDER BY m.`offset`
            LIMIT ?""".formatted(SCAN_COLUMNS);

    /**
     * Requeued messages of one partition at or below its committed offset (admin requeue hands a
     * dead letter back there), in offset order; they go out before anything above it. One branch
     * of a UNION ALL. Binds: tenant, consumer_group, topic, partition_key, committed offset, limit.
     */
    static final String SCAN_REQUEUED = """
            SELECT %s
            FROM queue_delivery_state d
            JOIN queue_messages m
              ON m.tenant = d.tenant AND m.topic = d.topic AND m.partition_key = d.partition_key
             AND m.`offset` = d.message_offset
            WHERE d.tenant = ? AND d.consumer_group = ? AND d.topic = ? AND d.partition_key = ?
              AND d.message_offset <= ? AND d.state IN ('INFLIGHT', 'RETRY', 'PENDING')
            ORDER BY d.message_offset
            LIMIT ?""".formatted(SCAN_COLUMNS);

    /**
     * Records a fetch's hand-out of a partition: the new batch (the messages up to
     * {@code delivered_offset} handed out for the first time), its lease epoch, its delivery
     * number and its visibility deadline. Compare-and-set on the delivery number read under the
     * lease row lock, so a mismatch is a bug.
     */
    static final String OPEN_BATCH = """
            UPDATE queue_offsets
            SET delivered_offset = ?, delivery_epoch = ?, delivery_seq = ?,
                visible_at = UTC_TIMESTAMP(6) + INTERVAL ? MICROSECOND
            WHERE tenant = ? AND topic = ? AND partition_key = ? AND consumer_group = ? AND delivery_seq = ?""";

    /** Messages of an open batch that have no delivery row yet: the ones to materialize. */
    static final String SELECT_BATCH_MESSAGES = """
            SELECT m.`offset`
            FROM queue_messages m
            LEFT JOIN queue_delivery_state d
              ON d.tenant = m.tenant AND d.consumer_group = ? AND d.topic = m.topic
             AND d.partition_key = m.partition_key AND d.message_offset = m.`offset`
            WHERE m.tenant = ? AND m.topic = ? AND m.partition_key = ? AND m.`offset` > ? AND m.`offset` <= ?
              AND d.message_offset IS NULL
            ORDER BY m.`offset`""";

    /**
     * Delivery rows inside the open batches of the given partitions (%s is the IN list): a
     * message handed out again in a batch (after a hand-back) has a row there, and an ack of it
     * goes through the row.
     */
    static final String SELECT_BATCH_ROWS = """
            SELECT d.partition_key, d.message_offset
            FROM queue_offsets o
            JOIN queue_delivery_state d
              ON d.tenant = o.tenant AND d.consumer_group = o.consumer_group AND d.topic = o.topic
             AND d.partition_key = o.partition_key
             AND d.message_offset > o.committed_offset AND d.message_offset <= o.delivered_offset
            WHERE o.tenant = ? AND o.topic = ? AND o.consumer_group = ? AND o.partition_key IN (%s)""";

    /** The explicit row of one batch delivery (materialization): in flight as the batch was. */
    static final String INSERT_BATCH_DELIVERY = """
            INSERT INTO queue_delivery_state
              (tenant, consumer_group, topic, partition_key, message_offset,
               state, delivery_attempt, delivery_count, lease_epoch, visible_at, updated_at)
            VALUES (?, ?, ?, ?, ?, 'INFLIGHT', 1, ?, ?, ?, UTC_TIMESTAMP(6))""";

    /** Closes a materialized batch: its messages have rows now. Compare-and-set like {@link #OPEN_BATCH}. */
    static final String CLOSE_BATCH = """
            UPDATE queue_offsets SET delivered_offset = committed_offset
            WHERE tenant = ? AND topic = ? AND partition_key = ? AND consumer_group = ? AND delivery_seq = ?""";

    /**
     * Hands a message with a row out again (after an expiry, a lost lease, a nack or a
     * hand-back), fenced by the state and delivery number it was read with.
     */
    static final String UPDATE_REDELIVERY = """
            UPDATE queue_delivery_state
            SET state = 'INFLIGHT', delivery_attempt = ?, delivery_count = ?, lease_epoch = ?,
                visible_at = UTC_TIMESTAMP(6) + INTERVAL ? MICROSECOND, updated_at = UTC_TIMESTAMP(6)
            WHERE tenant = ? AND consumer_group = ? AND topic = ? AND partition_key = ? AND message_offset = ?
              AND state = ? AND delivery_count = ?""";

    /** Marks a message dead-lettered for the group, fenced like {@link #UPDATE_REDELIVERY}. */
    static final String MARK_DEAD = """
            UPDATE queue_delivery_state
            SET state = 'DEAD', delivery_attempt = ?, updated_at = UTC_TIMESTAMP(6)
            WHERE tenant = ? AND consumer_group = ? AND topic = ? AND partition_key = ? AND message_offset = ?
              AND state = ? AND delivery_count = ?""";

    /** Ack of a delivery row, fenced by the lease epoch and delivery number the receipt names. */
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
     * whose visibility timeout already expired stay: the expiry is a failed attempt. The caller
     * materializes the partition's open batch first.
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
     * Message offsets of one partition above the committed offset with their delivery state;
     * walked to find the contiguous prefix of finished messages. One branch of a UNION ALL.
     * Binds: consumer_group, tenant, topic, partition_key, committed offset, row limit.
     */
    static final String SELECT_PREFIX_STATES = """
            SELECT m.partition_key, m.`offset`, d.state
            FROM queue_messages m
            LEFT JOIN queue_delivery_state d
              ON d.tenant = m.tenant AND d.consumer_group = ? AND d.topic = m.topic
             AND d.partition_key = m.partition_key AND d.message_offset = m.`offset`
            WHERE m.tenant = ? AND m.topic = ? AND m.partition_key = ? AND m.`offset` > ?
            ORDER BY m.`offset`
            LIMIT ?""";

    /** Finished delivery rows above the committed offset, per partition (%s is the IN list). */
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
     * The group's position in one partition ({@code queue_offsets}), read under the lease row lock.
     *
     * @param committed every message at or below it is finished
     * @param delivered end of the open batch; the batch is open when above {@code committed}
     * @param batchEpoch lease epoch of the batch
     * @param seq delivery number of the partition's last hand-out
     * @param batchVisibleAt the batch's visibility deadline (database clock) as the database prints
     *     it, microseconds included: bound back as text, because a {@code LocalDateTime} bind loses
     *     the fraction on servers the driver takes for MySQL 5.5 (MariaDB), and a materialized
     *     delivery would then expire up to a second early
     * @param batchInvisible whether that deadline is still ahead
     * @param requeued whether a requeued message waits at or below {@code committed}
     */
    private record Cursor(String key, long committed, long delivered, long batchEpoch, long seq,
                          String batchVisibleAt, boolean batchInvisible, boolean requeued) {
        boolean batchOpen() {
            return delivered > committed;
        }

        Cursor closed() {
            return new Cursor(key, committed, committed, batchEpoch, seq, batchVisibleAt, batchInvisible, requeued);
        }

        Cursor committedAt(long offset) {
            return new Cursor(key, offset, delivered, batchEpoch, seq, batchVisibleAt, batchInvisible, requeued);
        }
    }

    /** One message read by a fetch scan: its content and the walk's view of it. */
    private record Scanned(String key, long offset, String id, String payloadJson, String metadataJson,
                           Instant createdAt, PartitionWalk.Row row) {}

    /**
     * Finds up to {@code maxPartitions} leased partitions with deliverable messages, in key order,
     * with keys after {@code after} and, when {@code upTo} is not null, at most {@code upTo}.
     * Read-only, no locks.
     */
    public List<String> readyPartitions(GroupScope s, String subscriber, String after, String upTo, int maxPartitions) {
        return db.read(c -> Db.column(c, SELECT_READY_PARTITIONS, s.tenant(), s.consumerGroup(), s.topic(), subscriber,
                after, upTo == null, upTo == null ? "" : upTo, maxPartitions));
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
        return writeTx((c, gapLocks) -> {
            Map<String, Long> epochs = lockedEpochs(c, LOCK_HELD_LEASES, s, partitions, subscriber);
            if (epochs.isEmpty()) {
                return new LeaseResult(List.of(), 0);
            }
            Map<String, Cursor> cursors = cursors(c, s, epochs.keySet());
            List<String> keys = new ArrayList<>(epochs.keySet());
            List<Delivery> out = new ArrayList<>();
            List<Object[]> redeliveries = new ArrayList<>();
            List<Object[]> batches = new ArrayList<>();
            List<DeadStep> deads = new ArrayList<>();
            int next = 0;
            for (int width = 1; out.size() < maxMessages && next < keys.size(); width *= 2) {
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
                Map<String, List<Scanned>> requeued = scan(c, s, SCAN_REQUEUED,
                        round.stream().filter(Cursor::requeued).toList(), budget + SCAN_SLACK, true);
                Map<String, List<Scanned>> above = scan(c, s, SCAN_PARTITION, round, budget + SCAN_SLACK, false);
                for (Cursor cur : round) {
                    int left = maxMessages - out.size();
                    if (left <= 0) {
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
                                redeliveries.add(new Object[] {d.attempt(), seq, epoch, visibilityMicros, // SET
                                        s.tenant(), s.consumerGroup(), s.topic(), cur.key(), d.offset(), // row
                                        d.fromState().name(), d.fromDelivery()}); // fencing: as read
                            }
                            out.add(new Delivery(cur.key(), d.offset(), m.id(), m.payloadJson(), m.metadataJson(),
                                    m.createdAt(), d.attempt(), seq, epoch));
                        } else if (step instanceof PartitionWalk.DeadLetter dl) {
                            deads.add(new DeadStep(cur.key(), m, dl));
                        }
                    }
                    if (walk.delivered() > 0) {
                        batches.add(new Object[] {walk.lastFirstDelivery(cur.committed()), epoch, seq, visibilityMicros,
                                s.tenant(), s.topic(), cur.key(), s.consumerGroup(), cur.seq()});
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
        });
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
     * Runs one scan branch for each of {@code round} as one UNION ALL statement, and returns the
     * rows by partition, each in offset order.
     */
    private static Map<String, List<Scanned>> scan(Connection c, GroupScope s, String branch, List<Cursor> round,
                                                   int limit, boolean requeued) throws SQLException {
        Map<String, List<Scanned>> rows = new HashMap<>();
        if (round.isEmpty()) {
            return rows;
        }
        try (PreparedStatement ps = c.prepareStatement(Db.unionAll(branch, round.size()))) {
            int i = 1;
            for (Cursor cur : round) {
                Object[] binds = requeued
                        ? new Object[] {s.tenant(), s.consumerGroup(), s.topic(), cur.key(), cur.committed(), limit}
                        : new Object[] {s.consumerGroup(), s.tenant(), s.topic(), cur.key(), cur.committed(), limit};
                for (Object b : binds) {
                    ps.setObject(i++, b);
                }
            }
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    // Columns as listed in SCAN_COLUMNS.
                    String key = rs.getString(1);
                    long offset = rs.getLong(2);
                    DeliveryState state = DeliveryState.of(rs.getString(7));
                    PartitionWalk.Row row = state == null ? PartitionWalk.Row.undelivered(offset)
                            : new PartitionWalk.Row(offset, state, rs.getInt(8), rs.getLong(9), rs.getLong(10),
                                    rs.getBoolean(11));
                    rows.computeIfAbsent(key, k -> new ArrayList<>()).add(new Scanned(key, offset, rs.getString(3),
                            rs.getString(4), rs.getString(5),
                            rs.getObject(6, LocalDateTime.class).toInstant(ZoneOffset.UTC), row));
                }
            }
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
        List<Object[]> rows = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(SELECT_BATCH_MESSAGES)) {
            Db.bind(ps, s.consumerGroup(), s.tenant(), s.topic(), cur.key(), cur.committed(), cur.delivered());
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    rows.add(new Object[] {s.tenant(), s.consumerGroup(), s.topic(), cur.key(), rs.getLong(1),
                            cur.seq(), cur.batchEpoch(), cur.batchVisibleAt()}); // as the batch handed it out
                }
            }
        }
        executeBatch(c, INSERT_BATCH_DELIVERY, rows, "materialize batch delivery");
        executeBatch(c, CLOSE_BATCH, List.<Object[]>of(new Object[] {s.tenant(), s.topic(), cur.key(), s.consumerGroup(),
                cur.seq()}), "close delivery batch");
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
        try (PreparedStatement ps = c.prepareStatement(MARK_DEAD)) {
            Db.bind(ps, d.attempts(), s.tenant(), s.consumerGroup(), s.topic(), d.partitionKey(), d.offset(),
                    d.fromState().name(), d.delivery());
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
            Map<String, Long> epochs = lockedEpochs(c, LOCK_LEASES, s, new ArrayList<>(keys), null);
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
                } else if (fencedUpdate(c, ACK_DELIVERY, new Object[0], s, t)) {
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
                } else if (fencedUpdate(c, ACK_DELIVERY, new Object[0], s, t)) {
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
            Integer attempt = currentAttempt(c, s, t);
            if (attempt == null) {
                return false;
            }
            if (attempt >= policy.maxDeliveries()) {
                String[] message = message(c, s, t.partitionKey(), t.offset());
                deadLetter(c, s, policy, new Dead(t.partitionKey(), t.offset(), message[0], message[1], message[2],
                        DeliveryState.INFLIGHT, t.delivery(), attempt, reason), ctx.gapLocks);
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
    private static Integer currentAttempt(Connection c, GroupScope s, AckTarget t) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(SELECT_DELIVERY_STATE)) {
            Db.bind(ps, s.tenant(), s.consumerGroup(), s.topic(), t.partitionKey(), t.offset());
            try (ResultSet rs = ps.executeQuery()) {
                // Columns: state, lease_epoch, delivery_count, delivery_attempt.
                if (rs.next() && DeliveryState.INFLIGHT.name().equals(rs.getString(1))
                        && rs.getLong(2) == t.leaseEpoch() && rs.getLong(3) == t.delivery()) {
                    return rs.getInt(4);
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
        Object[] params = java.util.Arrays.copyOf(leading, leading.length + where.length);
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
        /** Partitions where a message finished (dead-lettered): the committed offset may move. */
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
            Map<String, Long> epochs = lockedEpochs(c, LOCK_LEASES, s, new ArrayList<>(keys), null);
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
            for (Map.Entry<String, long[]> e : ctx.handBack.entrySet()) {
                try (PreparedStatement ps = c.prepareStatement(HAND_BACK_LATER)) {
                    Db.bind(ps, s.tenant(), s.consumerGroup(), s.topic(), e.getKey(), e.getValue()[0], e.getValue()[1]);
                    ps.executeUpdate(); // any number of later messages may be in flight
                }
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
     * (its state pruned: acknowledged), else {@link SettleStatus#STALE} (SPEC: another delivery
     * or lease owns the message now).
     */
    private static void classifyUnsettled(Connection c, GroupScope s, List<AckTarget> targets, Map<String, Long> epochs,
                                          Map<String, Long> committed, SettleStatus[] result) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(SELECT_DELIVERY_STATE)) {
            for (int i = 0; i < targets.size(); i++) {
                if (result[i] != null) {
                    continue;
                }
                AckTarget t = targets.get(i);
                if (!currentLease(epochs, t)) {
                    // Another lease owns the partition now: whatever happened since, this
                    // receipt's delivery is not current (SPEC: STALE, nothing changed).
                    result[i] = SettleStatus.STALE;
                    continue;
                }
                Db.bind(ps, s.tenant(), s.consumerGroup(), s.topic(), t.partitionKey(), t.offset());
                try (ResultSet rs = ps.executeQuery()) {
                    boolean acked;
                    if (rs.next()) {
                        // Columns: state, lease_epoch, delivery_count. Acked by this very delivery,
                        // not by a later redelivery of it.
                        acked = DeliveryState.ACKED.name().equals(rs.getString(1)) && rs.getLong(2) == t.leaseEpoch()
                                && rs.getLong(3) == t.delivery();
                    } else {
                        Long c0 = committed.get(t.partitionKey());
                        acked = c0 != null && t.offset() <= c0;
                    }
                    result[i] = acked ? SettleStatus.ALREADY_ACKED : SettleStatus.STALE;
                }
            }
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
        try (PreparedStatement ps = c.prepareStatement(SELECT_BATCH_ROWS.formatted(Db.placeholders(open.size())))) {
            int i = 1;
            ps.setString(i++, s.tenant());
            ps.setString(i++, s.topic());
            ps.setString(i++, s.consumerGroup());
            for (String k : open) {
                ps.setString(i++, k);
            }
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    rows.computeIfAbsent(rs.getString(1), k -> new HashSet<>()).add(rs.getLong(2));
                }
            }
        }
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
        try (PreparedStatement ps = c.prepareStatement(Db.unionAll(SELECT_PREFIX_STATES, walked.size()))) {
            int i = 1;
            for (Cursor cur : walked) {
                int limit = finishedRows.getOrDefault(cur.key(), 0) + batchAcks.getOrDefault(cur.key(), Set.of()).size()
                        + 1;
                for (Object b : new Object[] {s.consumerGroup(), s.tenant(), s.topic(), cur.key(), cur.committed(),
                        limit}) {
                    ps.setObject(i++, b);
                }
            }
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    // Columns: partition_key, offset, state.
                    rows.computeIfAbsent(rs.getString(1), k -> new ArrayList<>())
                            .add(new CommitWalk.Row(rs.getLong(2), DeliveryState.of(rs.getString(3))));
                }
            }
        }
        List<Object[]> advances = new ArrayList<>();
        List<Object[]> prunes = new ArrayList<>();
        for (Cursor cur : walked) {
            List<CommitWalk.Row> partition = rows.getOrDefault(cur.key(), new ArrayList<>());
            partition.sort(Comparator.comparingLong(CommitWalk.Row::offset));
            CommitWalk.Advance a = CommitWalk.advance(cur.committed(), partition,
                    batchAcks.getOrDefault(cur.key(), Set.of()));
            out.put(cur.key(), a);
            if (a.committed() > cur.committed()) {
                advances.add(new Object[] {a.committed(), // SET committed_offset
                        s.tenant(), s.topic(), cur.key(), s.consumerGroup(), cur.committed()}); // row, as read
            }
            if (a.prunable() || rowAcked.contains(cur.key()) || finishedRows.containsKey(cur.key())) {
                prunes.add(new Object[] {s.tenant(), s.consumerGroup(), s.topic(), cur.key(), a.committed()});
            }
        }
        executeBatch(c, ADVANCE_COMMITTED, advances, "advance committed offset");
        if (!prunes.isEmpty()) {
            try (PreparedStatement ps = c.prepareStatement(PRUNE_DELIVERIES)) {
                for (Object[] row : prunes) {
                    Db.bind(ps, row);
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
        try (PreparedStatement ps = c.prepareStatement(COUNT_FINISHED.formatted(Db.placeholders(walked.size())))) {
            int i = 1;
            ps.setString(i++, s.tenant());
            ps.setString(i++, s.consumerGroup());
            ps.setString(i++, s.topic());
            for (Cursor cur : walked) {
                ps.setString(i++, cur.key());
            }
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    finished.put(rs.getString(1), rs.getInt(2));
                }
            }
        }
        return finished;
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

    private static Map<String, Cursor> cursors(Connection c, GroupScope s, Set<String> keys) throws SQLException {
        Map<String, Cursor> cursors = new HashMap<>();
        List<String> keyList = new ArrayList<>(keys);
        try (PreparedStatement ps = c.prepareStatement(SELECT_CURSORS.formatted(Db.placeholders(keyList.size())))) {
            int i = 1;
            ps.setString(i++, s.tenant());
            ps.setString(i++, s.topic());
            for (String k : keyList) {
                ps.setString(i++, k);
            }
            ps.setString(i, s.consumerGroup());
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    // Columns as listed in SELECT_CURSORS.
                    cursors.put(rs.getString(1), new Cursor(rs.getString(1), rs.getLong(2), rs.getLong(3),
                            rs.getLong(4), rs.getLong(5), rs.getString(6), rs.getBoolean(7),
                            rs.getBoolean(8)));
                }
            }
        }
        return cursors;
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
