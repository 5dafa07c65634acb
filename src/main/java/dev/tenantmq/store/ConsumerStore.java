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
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * SQL of consumption: lease-fetch and ack over {@code queue_partition_leases},
 * {@code queue_offsets}, {@code queue_delivery_state} and {@code queue_messages}.
 *
 * <p>Locking rule: every transaction that writes a partition's delivery state or committed
 * offset first locks that partition's lease row ({@code FOR UPDATE}). Fetch and ack of one
 * partition therefore run one at a time, and the rows they read after the lock (READ
 * COMMITTED: each statement sees the latest commits) cannot change under them. Lease rows are
 * locked in primary-key order, so two such transactions cannot deadlock on them.
 */
@ApplicationScoped
public class ConsumerStore {
    /** Delivery states of {@code queue_delivery_state.state}. */
    public static final String INFLIGHT = "INFLIGHT";
    public static final String ACKED = "ACKED";
    public static final String DEAD = "DEAD";

    /**
     * Partitions this subscriber leases that have a message above the committed offset and no
     * in-flight delivery that is still invisible. Keys after {@code ?} (the fairness cursor)
     * come first, then the rest from the start.
     */
    static final String SELECT_READY_PARTITIONS = """
            SELECT l.partition_key
            FROM queue_partition_leases l
            JOIN queue_offsets o
              ON o.tenant = l.tenant AND o.topic = l.topic
             AND o.partition_key = l.partition_key AND o.consumer_group = l.consumer_group
            WHERE l.tenant = ? AND l.consumer_group = ? AND l.topic = ?
              AND l.leased_by = ? AND l.expires_at > UTC_TIMESTAMP(6)
              AND EXISTS (
                  SELECT 1 FROM queue_messages m
                  WHERE m.tenant = l.tenant AND m.topic = l.topic AND m.partition_key = l.partition_key
                    AND m.`offset` > o.committed_offset)
              AND NOT EXISTS (
                  SELECT 1 FROM queue_delivery_state d
                  WHERE d.tenant = l.tenant AND d.consumer_group = l.consumer_group AND d.topic = l.topic
                    AND d.partition_key = l.partition_key AND d.state = 'INFLIGHT'
                    AND d.lease_epoch = l.epoch AND d.visible_at > UTC_TIMESTAMP(6))
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

    /** Committed offsets of the given partitions (%s is the IN list). */
    static final String SELECT_COMMITTED = """
            SELECT partition_key, committed_offset FROM queue_offsets
            WHERE tenant = ? AND topic = ? AND partition_key IN (%s) AND consumer_group = ?""";

    /**
     * The next messages of one partition above its committed offset, in offset order, with
     * this group's delivery state of each.
     */
    static final String SELECT_PARTITION_MESSAGES = """
            SELECT m.`offset`, m.id, m.payload, m.metadata, m.created_at,
                   d.state, d.delivery_attempt, d.lease_epoch, d.visible_at > UTC_TIMESTAMP(6)
            FROM queue_messages m
            LEFT JOIN queue_delivery_state d
              ON d.tenant = m.tenant AND d.consumer_group = ? AND d.topic = m.topic
             AND d.partition_key = m.partition_key AND d.message_offset = m.`offset`
            WHERE m.tenant = ? AND m.topic = ? AND m.partition_key = ? AND m.`offset` > ?
            ORDER BY m.`offset`
            LIMIT ?""";

    static final String INSERT_DELIVERY = """
            INSERT INTO queue_delivery_state
              (tenant, consumer_group, topic, partition_key, message_offset,
               state, delivery_attempt, lease_epoch, visible_at, updated_at)
            VALUES (?, ?, ?, ?, ?, 'INFLIGHT', 1, ?,
                    UTC_TIMESTAMP(6) + INTERVAL ? MICROSECOND, UTC_TIMESTAMP(6))""";

    /** Redelivery of a message whose earlier delivery expired or lost its lease. */
    static final String UPDATE_REDELIVERY = """
            UPDATE queue_delivery_state
            SET state = 'INFLIGHT', delivery_attempt = ?, lease_epoch = ?,
                visible_at = UTC_TIMESTAMP(6) + INTERVAL ? MICROSECOND, updated_at = UTC_TIMESTAMP(6)
            WHERE tenant = ? AND consumer_group = ? AND topic = ? AND partition_key = ? AND message_offset = ?
              AND state = 'INFLIGHT' AND delivery_attempt = ?""";

    /** Ack, fenced by the lease epoch and delivery attempt the receipt names. */
    static final String ACK_DELIVERY = """
            UPDATE queue_delivery_state
            SET state = 'ACKED', updated_at = UTC_TIMESTAMP(6)
            WHERE tenant = ? AND consumer_group = ? AND topic = ? AND partition_key = ? AND message_offset = ?
              AND state = 'INFLIGHT' AND lease_epoch = ? AND delivery_attempt = ?""";

    /** Extend (change visibility), fenced like ack: pushes the redelivery time back. */
    static final String EXTEND_DELIVERY = """
            UPDATE queue_delivery_state
            SET visible_at = UTC_TIMESTAMP(6) + INTERVAL ? MICROSECOND, updated_at = UTC_TIMESTAMP(6)
            WHERE tenant = ? AND consumer_group = ? AND topic = ? AND partition_key = ? AND message_offset = ?
              AND state = 'INFLIGHT' AND lease_epoch = ? AND delivery_attempt = ?""";

    static final String SELECT_DELIVERY_STATE = """
            SELECT state, lease_epoch, delivery_attempt FROM queue_delivery_state
            WHERE tenant = ? AND consumer_group = ? AND topic = ? AND partition_key = ? AND message_offset = ?""";

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
            SELECT partition_key, COUNT(*) FROM queue_delivery_state
            WHERE tenant = ? AND consumer_group = ? AND topic = ? AND partition_key IN (%s)
              AND state IN ('ACKED', 'DEAD')
            GROUP BY partition_key""";

    /** Compare-and-set of the committed offset; the lease row lock makes a mismatch a bug. */
    static final String ADVANCE_COMMITTED = """
            UPDATE queue_offsets SET committed_offset = ?, updated_at = UTC_TIMESTAMP(6)
            WHERE tenant = ? AND topic = ? AND partition_key = ? AND consumer_group = ? AND committed_offset = ?""";

    /** Delivery state at or below the committed offset is no longer needed. */
    static final String PRUNE_DELIVERIES = """
            DELETE FROM queue_delivery_state
            WHERE tenant = ? AND consumer_group = ? AND topic = ? AND partition_key = ? AND message_offset <= ?""";

    private final Db db;

    ConsumerStore(Db db) {
        this.db = db;
    }


    /** One message handed out by {@link #lease}. */
    public record Delivery(String partitionKey, long offset, String id, String payloadJson, String metadataJson,
                           Instant createdAt, int deliveryAttempt, long leaseEpoch) {}

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
     * still holds among {@code partitions}, and from each partition with no invisible
     * in-flight delivery takes the messages above the committed offset in offset order
     * (skipping ones already acked), marking each in flight until now + visibility.
     *
     * @param visibilityMicros visibility timeout in microseconds
     * @param maxMessages most messages to return in total
     * @return deliveries grouped by partition, each partition in offset order
     */
    public List<Delivery> lease(GroupScope s, String subscriber, List<String> partitions, int maxMessages,
                                long visibilityMicros) {
        if (partitions.isEmpty()) {
            return List.of();
        }
        return db.inTransaction(Db.Isolation.READ_COMMITTED, c -> {
            Map<String, Long> epochs = lockedEpochs(c, LOCK_HELD_LEASES, s, partitions, subscriber);
            if (epochs.isEmpty()) {
                return List.of();
            }
            Map<String, Long> committed = committedOffsets(c, s, epochs.keySet());
            List<Delivery> out = new ArrayList<>();
            List<Object[]> inserts = new ArrayList<>();
            List<Object[]> updates = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement(SELECT_PARTITION_MESSAGES)) {
                for (Map.Entry<String, Long> lease : epochs.entrySet()) {
                    int budget = maxMessages - out.size();
                    if (budget <= 0) {
                        break;
                    }
                    String key = lease.getKey();
                    long epoch = lease.getValue();
                    Long from = committed.get(key);
                    if (from == null) {
                        continue; // offsets row is created with the lease; absent means not ready yet
                    }
                    List<Delivery> batch = new ArrayList<>();
                    List<Object[]> partitionInserts = new ArrayList<>();
                    List<Object[]> partitionUpdates = new ArrayList<>();
                    boolean busy = false;
                    // Acked-but-uncommitted messages are skipped, so read a little more than the budget.
                    Db.bind(ps, s.consumerGroup(), s.tenant(), s.topic(), key, from, budget + 64);
                    try (ResultSet rs = ps.executeQuery()) {
                        while (rs.next() && batch.size() < budget) {
                            long offset = rs.getLong(1);
                            String state = rs.getString(6);
                            if (state != null && !INFLIGHT.equals(state)) {
                                continue; // ACKED or DEAD for this group: never redelivered
                            }
                            int attempt = 1;
                            if (state == null) {
                                partitionInserts.add(new Object[] {s.tenant(), s.consumerGroup(), s.topic(), key, offset,
                                        epoch, visibilityMicros});
                            } else {
                                if (rs.getLong(8) == epoch && rs.getBoolean(9)) {
                                    busy = true; // an earlier delivery of this partition is still out
                                    break;
                                }
                                // Its visibility expired, or it was delivered under an older lease.
                                int previous = rs.getInt(7);
                                attempt = previous + 1;
                                partitionUpdates.add(new Object[] {attempt, epoch, visibilityMicros, s.tenant(),
                                        s.consumerGroup(), s.topic(), key, offset, previous});
                            }
                            batch.add(new Delivery(key, offset, rs.getString(2), rs.getString(3), rs.getString(4),
                                    rs.getObject(5, LocalDateTime.class).toInstant(ZoneOffset.UTC), attempt, epoch));
                        }
                    }
                    if (busy) {
                        continue; // nothing of this partition may be delivered now
                    }
                    inserts.addAll(partitionInserts);
                    updates.addAll(partitionUpdates);
                    out.addAll(batch);
                }
            }
            executeBatch(c, INSERT_DELIVERY, inserts, "insert delivery");
            executeBatch(c, UPDATE_REDELIVERY, updates, "redeliver");
            return out;
        });
    }

    /** Outcome of one receipt: the action happened, the message was acked before, or the receipt is stale. */
    public enum SettleStatus { DONE, ALREADY_ACKED, STALE }

    /** What one receipt names. */
    public record AckTarget(String partitionKey, long offset, long leaseEpoch, int deliveryAttempt) {}

    /**
     * Acknowledges deliveries and advances each partition's committed offset over its
     * contiguous acked prefix, in one transaction.
     *
     * @return one status per target, in the given order
     */
    public List<SettleStatus> ack(GroupScope s, List<AckTarget> targets) {
        return settle(s, targets, ACK_DELIVERY, new Object[0], true);
    }

    /**
     * Makes in-flight deliveries invisible for {@code visibilityMicros} more microseconds from
     * now (the database clock), so they are not redelivered meanwhile.
     *
     * @return one status per target, in the given order
     */
    public List<SettleStatus> extend(GroupScope s, List<AckTarget> targets, long visibilityMicros) {
        return settle(s, targets, EXTEND_DELIVERY, new Object[] {visibilityMicros}, false);
    }

    /**
     * Applies one fenced update per receipt. A receipt whose lease epoch is not the partition's
     * current one, or whose delivery attempt is not the current delivery, changes nothing and
     * reports {@link SettleStatus#STALE} (or {@link SettleStatus#ALREADY_ACKED} when the message
     * is acknowledged).
     *
     * @param leading parameters of {@code updateSql} before its WHERE clause (its SET values)
     */
    private List<SettleStatus> settle(GroupScope s, List<AckTarget> targets, String updateSql, Object[] leading,
                                      boolean advance) {
        if (targets.isEmpty()) {
            return List.of();
        }
        return db.inTransaction(Db.Isolation.READ_COMMITTED, c -> {
            Set<String> keys = new TreeSet<>();
            targets.forEach(t -> keys.add(t.partitionKey()));
            Map<String, Long> epochs = lockedEpochs(c, LOCK_LEASES, s, new ArrayList<>(keys), null);
            SettleStatus[] result = new SettleStatus[targets.size()];
            Set<String> changed = new TreeSet<>();
            try (PreparedStatement ps = c.prepareStatement(updateSql)) {
                for (int i = 0; i < targets.size(); i++) {
                    AckTarget t = targets.get(i);
                    Long current = epochs.get(t.partitionKey());
                    if (current == null || current != t.leaseEpoch()) {
                        continue; // the lease moved on: classified below
                    }
                    Object[] where = {s.tenant(), s.consumerGroup(), s.topic(), t.partitionKey(), t.offset(), t.leaseEpoch(),
                            t.deliveryAttempt()};
                    Object[] params = java.util.Arrays.copyOf(leading, leading.length + where.length);
                    System.arraycopy(where, 0, params, leading.length, where.length);
                    Db.bind(ps, params);
                    int n = ps.executeUpdate();
                    if (n > 1) {
                        throw new SQLException("fenced update matched " + n + " delivery rows");
                    }
                    if (n == 1) {
                        result[i] = SettleStatus.DONE;
                        changed.add(t.partitionKey());
                    }
                }
            }
            Map<String, Long> committed = committedOffsets(c, s, keys);
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
                                    && rs.getInt(3) == t.deliveryAttempt();
                        } else {
                            // Pruned: at or below the committed offset means acknowledged.
                            Long c0 = committed.get(t.partitionKey());
                            acked = c0 != null && t.offset() <= c0;
                        }
                        result[i] = acked ? SettleStatus.ALREADY_ACKED : SettleStatus.STALE;
                    }
                }
            }
            if (advance) {
                advanceCommitted(c, s, changed, committed);
            }
            return List.of(result);
        });
    }

    /**
     * Moves each partition's committed offset to the end of its contiguous run of finished
     * messages and prunes the delivery state below it. Caller holds the lease row locks.
     */
    private static void advanceCommitted(Connection c, GroupScope s, Set<String> keys, Map<String, Long> committed)
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
                Long from = committed.get(key);
                Integer count = finished.get(key);
                if (from == null || count == null) {
                    continue;
                }
                long to = from;
                // The finished prefix has at most `count` rows, so count + 1 rows always reach its end.
                Db.bind(ps, s.consumerGroup(), s.tenant(), s.topic(), key, from, count + 1);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        String state = rs.getString(2);
                        if (!ACKED.equals(state) && !DEAD.equals(state)) {
                            break;
                        }
                        to = rs.getLong(1);
                    }
                }
                if (to > from) {
                    advances.add(new Object[] {to, s.tenant(), s.topic(), key, s.consumerGroup(), from});
                    prunes.add(new Object[] {s.tenant(), s.consumerGroup(), s.topic(), key, to});
                }
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

    private static Map<String, Long> committedOffsets(Connection c, GroupScope s, Set<String> keys) throws SQLException {
        Map<String, Long> committed = new HashMap<>();
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
                    committed.put(rs.getString(1), rs.getLong(2));
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
                if (n != 1 && n != java.sql.Statement.SUCCESS_NO_INFO) {
                    // 0 would mean another writer got in despite the lease row lock: a bug, roll back.
                    throw new SQLException(what + " changed " + n + " rows, expected 1");
                }
            }
        }
    }
}
