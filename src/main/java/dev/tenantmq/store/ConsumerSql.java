package dev.tenantmq.store;

import dev.tenantmq.model.AckTarget;
import dev.tenantmq.model.DeliveryState;
import dev.tenantmq.model.BatchState;
import dev.tenantmq.model.GroupScope;
import dev.tenantmq.model.PartitionWalk;
import dev.tenantmq.model.TraceContext;
import dev.tenantmq.model.Utf8Json;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The SQL of consumption: each statement, the record of its named binds in placeholder order
 * ({@link Statement}), and the mapper of its rows by column label. {@link ConsumerStatements}
 * runs each statement through one typed method that checks its update count; the transactions
 * that use them, and the locking rule they rely on, are described on {@link ConsumerStore}.
 * Delivery states are rendered from {@link DeliveryState} by {@link StateSql}.
 */
final class ConsumerSql {
    private ConsumerSql() {}

    /**
     * A branch of a UNION ALL statement: {@link #sql()} is the branch, run once per partition in
     * one statement by {@link #union}. The branches of one statement may differ in form, not in
     * their columns.
     */
    interface Branch extends Statement {}

    /** The UNION ALL of {@code branches} (each with its own SQL), binding them one after the other. */
    static Statement union(List<? extends Branch> branches) {
        String sql = Db.unionAll(branches.stream().map(Branch::sql).toList());
        List<Bind> binds = new ArrayList<>();
        branches.forEach(b -> binds.addAll(b.binds()));
        return Statement.of(sql, binds);
    }

    /**
     * Whether the open delivery batch of the {@code queue_offsets} row {@code o} still holds a
     * message: one is stored in {@code (committed_offset, delivered_offset]}. By the definition
     * of a batch (migration V3) its messages are the stored ones in that range, so a batch whose
     * messages were all deleted while in flight (admin delete, retention's maximum age) holds
     * nothing back, whatever its visibility deadline; every check of "the batch is still out"
     * ends with this. False at once for a closed batch; for an open one a primary-key look-up of
     * its last message ({@code delivered_offset} is the offset of a message the batch handed out),
     * and only when that one was deleted a probe of the partition's rows in key order, stopped at
     * the first row in the range.
     */
    static String batchHoldsAMessage() {
        // A method, not a constant: a predicate is no statement for StoreSqlRulesTest to parse;
        // it checks it inside each statement that embeds it.
        // The open-batch test comes first and is not redundant: the range probe's offset bounds
        // are outer columns, which MariaDB and MySQL cannot use for a range, so it probes by
        // (tenant, topic, partition_key) and filters the offsets, from the partition's oldest
        // stored row (the consumed rows retention has not deleted yet). An empty range would
        // read every row of the partition, its whole backlog; the look-up of the last message
        // (the whole primary key, one row) answers first in all but the rare deleted case, and
        // OR evaluates the probe only when it is false (docs/architecture.md, "Reads that do
        // not grow with the backlog").
        return """
                (o.delivered_offset > o.committed_offset
                 AND (EXISTS (SELECT 1 FROM queue_messages bl
                              WHERE bl.tenant = o.tenant AND bl.topic = o.topic AND bl.partition_key = o.partition_key
                                AND bl.`offset` = o.delivered_offset)
                      OR EXISTS (SELECT 1 FROM queue_messages bm
                                 WHERE bm.tenant = o.tenant AND bm.topic = o.topic AND bm.partition_key = o.partition_key
                                   AND bm.`offset` > o.committed_offset AND bm.`offset` <= o.delivered_offset)))""";
    }

    /**
     * Whether the group of the {@code queue_offsets} row {@code o} has something to deliver in its
     * partition: a message above the committed offset, or a requeued (unfinished) delivery at or
     * below it whose message is still stored. The one home of "has work", for the ready-partitions
     * query of a fetch ({@link #SELECT_READY_PARTITIONS}) and the idle release's second look
     * ({@link LeaseStore#SELECT_HAS_WORK}).
     *
     * <p>"A message above the committed offset" reads the partition's head (migration V5): no
     * head above the committed offset, nothing to deliver, and no message row is read. A head
     * above it is confirmed by the partition's newest stored message, one backward step of the
     * primary key, because the message at the head may have been deleted (admin delete, retention's
     * maximum age) while the head stays: a partition never looks ready forever with nothing to
     * deliver. A forward {@code EXISTS (... offset > committed_offset)} would read every
     * acknowledged row retention has not deleted yet: the correlated bound does not narrow the
     * primary-key scan, which uses the first three key columns only.
     *
     * <p>A topic being deleted has no work ({@link DeletionSql#topicNotBeingDeleted}): its
     * partitions are not fetched from, and their leases go idle.
     *
     * <p>This form counts a message that is not due yet (docs/api.md, "Delayed delivery") as
     * work: a partition that waits for one keeps its lease. The ready-partitions query asks
     * {@link #partitionHasWork(boolean)} for work that is due now.
     */
    static String partitionHasWork() {
        return partitionHasWork(false);
    }

    /**
     * Whether no stored message of the {@code queue_offsets} row {@code o}'s partition lies above
     * its committed offset: the negation of the first half of {@link #partitionHasWork(boolean)}
     * (without its due test), read the same way, for the tick's idle check
     * ({@link LeaseStore#SELECT_IDLE_PARTITIONS}). No head above the committed offset: nothing,
     * and no message row is read. A head above it: the partition's newest stored message, one
     * backward step of the primary key, decides, since the message at the head may have been
     * deleted while the head stays. So a drained partition costs one head look-up, not a read of
     * the consumed messages retention has not deleted yet (docs/architecture.md, "Reads that do not
     * grow with the backlog"). The head is looked up as a scalar count on its whole key, not as a
     * NOT EXISTS, which MariaDB turns into a NOT IN over every head row (see
     * {@link #partitionHasWork(boolean)}); no message stored reads as offset 0, so the result is
     * never NULL.
     */
    static String nothingAboveCommitted() {
        // A method, not a constant: a predicate is no statement for StoreSqlRulesTest to parse.
        return """
                ((SELECT COUNT(*) FROM queue_partition_heads h
                  WHERE h.tenant = o.tenant AND h.topic = o.topic AND h.partition_key = o.partition_key
                    AND h.head_offset > o.committed_offset) = 0
                 OR IFNULL((SELECT m.`offset` FROM queue_messages m FORCE INDEX (PRIMARY)
                            WHERE m.tenant = o.tenant AND m.topic = o.topic AND m.partition_key = o.partition_key
                            ORDER BY m.tenant DESC, m.topic DESC, m.partition_key DESC, m.`offset` DESC
                            LIMIT 1), 0) <= o.committed_offset)""";
    }

    /**
     * {@link #partitionHasWork()}, and with {@code dueNow} the messages above the committed offset
     * count only when the first of them is due: a message not yet due (its {@code deliver_at} in
     * the future, database clock) holds back the later messages of its partition (docs/api.md,
     * "Delayed delivery"). That first message is the next to deliver for the first time: a message
     * that was delivered was due, and messages are first delivered in offset order, so one not yet
     * due above the committed offset has nothing delivered above it. A requeued delivery at or
     * below the committed offset comes before it, and is work still.
     *
     * <p>The look at the first message runs only while the partition head's
     * {@code delayed_until} (migration V6) is in the future: a partition without a delay pending
     * pays one primary-key look-up of its head row. That look steps the primary key from the
     * partition's oldest stored message to the first row above the committed offset (no database
     * takes a range from the outer column); it is paid only by partitions that wait for a delay.
     * The probe of the partition's newest message is one backward step of the primary key. Both
     * name the index and order by the whole key prefix, which MySQL 9.7 otherwise plans as a read
     * and sort of the whole partition (docs/architecture.md, "Reads that do not grow with the
     * backlog"). MySQL 9.7.4 EXPLAIN ANALYZE of the first form (200 leased
     * partitions of 500 messages, 399 committed each, 10 with a delay pending at the next
     * message): the look ran for those 10 only (loops=10, about 0.25 ms each), and they were left
     * out; with no delay pending it was never executed.
     */
    static String partitionHasWork(boolean dueNow) {
        // A method, not a constant: a predicate is no statement for StoreSqlRulesTest to parse;
        // it checks it inside each statement that embeds it. Requires StateSql.render.
        // The gate is a conjunct of its own beside the heads EXISTS, not inside it: vtgate
        // (v0.24.4) cannot plan a subquery nested in a subquery's expression (VT12001). It looks
        // the head up as a scalar subquery on its whole key, not as a NOT EXISTS: MariaDB turned
        // that into a NOT IN and materialized it from every head row of every tenant, once per
        // look (34,751 rows per look in the benchmark's wake row; docs/architecture.md, "Reads
        // that do not grow with the backlog").
        String due = !dueNow ? "" : ("\n" + """
                AND ((SELECT COUNT(*) FROM queue_partition_heads dh
                      WHERE dh.tenant = o.tenant AND dh.topic = o.topic
                        AND dh.partition_key = o.partition_key
                        AND dh.delayed_until > UTC_TIMESTAMP(6)) = 0
                     OR (SELECT IFNULL(nm.deliver_at, UTC_TIMESTAMP(6)) FROM queue_messages nm FORCE INDEX (PRIMARY)
                         WHERE nm.tenant = o.tenant AND nm.topic = o.topic
                           AND nm.partition_key = o.partition_key
                           AND nm.`offset` > o.committed_offset
                         ORDER BY nm.tenant, nm.topic, nm.partition_key, nm.`offset`
                         LIMIT 1) <= UTC_TIMESTAMP(6))""".indent(7)).stripTrailing();
        return DeletionSql.topicNotBeingDeleted("o") + "\nAND" + """
                ((EXISTS (SELECT 1 FROM queue_partition_heads h
                          WHERE h.tenant = o.tenant AND h.topic = o.topic AND h.partition_key = o.partition_key
                            AND h.head_offset > o.committed_offset)
                  AND (SELECT m.`offset` FROM queue_messages m FORCE INDEX (PRIMARY)
                       WHERE m.tenant = o.tenant AND m.topic = o.topic AND m.partition_key = o.partition_key
                       ORDER BY m.tenant DESC, m.topic DESC, m.partition_key DESC, m.`offset` DESC
                       LIMIT 1) > o.committed_offset%s)
                 OR EXISTS (
                      SELECT 1 FROM queue_delivery_state r
                      JOIN queue_messages rm
                        ON rm.tenant = r.tenant AND rm.topic = r.topic AND rm.partition_key = r.partition_key
                       AND rm.`offset` = r.message_offset
                      WHERE r.tenant = o.tenant AND r.consumer_group = o.consumer_group AND r.topic = o.topic
                        AND r.partition_key = o.partition_key AND r.message_offset <= o.committed_offset
                        AND r.state IN ({UNFINISHED})))""".formatted(due);
    }

    /**
     * Partitions this subscriber leases, in key order within {@code (after, upTo]} (each bound
     * only when the ? before it, "no such bound", is false), that have something to deliver
     * now ({@link #partitionHasWork(boolean)}: a message not yet due holds its partition back) and
     * nothing else that holds the partition back: an open batch of the current lease still within its visibility that still
     * holds a message ({@link #batchHoldsAMessage}), a
     * delivery row of the current lease still invisible, or a nacked or handed-back message whose
     * delay has not passed. In key order, the scan of the lease rows stops at the LIMIT, so a
     * fetch pays for the partitions it looks at, not for every partition it leases.
     */
    static final String SELECT_READY_PARTITIONS = StateSql.render(("""
            SELECT l.partition_key
            FROM queue_partition_leases l
            JOIN queue_offsets o
              ON o.tenant = l.tenant AND o.topic = l.topic
             AND o.partition_key = l.partition_key AND o.consumer_group = l.consumer_group
            WHERE l.tenant = ? AND l.consumer_group = ? AND l.topic = ?
              AND l.leased_by = ? AND l.expires_at > UTC_TIMESTAMP(6)
              AND (? OR l.partition_key > ?) AND (? OR l.partition_key <= ?)
              AND NOT (o.delivered_offset > o.committed_offset AND o.delivery_epoch = l.epoch
                       AND o.visible_at > UTC_TIMESTAMP(6) AND %s)
              AND %s
              AND NOT EXISTS (
                  SELECT 1 FROM queue_delivery_state d
                  WHERE d.tenant = l.tenant AND d.consumer_group = l.consumer_group AND d.topic = l.topic
                    AND d.partition_key = l.partition_key AND d.visible_at > UTC_TIMESTAMP(6)
                    AND (d.state IN ({RETRY}, {PENDING}) OR (d.state = {INFLIGHT} AND d.lease_epoch = l.epoch)))
            ORDER BY l.partition_key
            LIMIT ?""").formatted(batchHoldsAMessage(), partitionHasWork(true)));

    /**
     * Binds of {@link #SELECT_READY_PARTITIONS}; {@code after} null or empty is no lower bound,
     * {@code upTo} null no upper bound.
     */
    record SelectReadyPartitions(GroupScope scope, String subscriber, String after, String upTo, int limit)
            implements Statement {
        @Override
        public String sql() {
            return SELECT_READY_PARTITIONS;
        }

        @Override
        public List<Bind> binds() {
            // No lower bound is a flag, not the empty key: under the PAD SPACE collation a key
            // that starts with a character below U+0020 sorts before ''.
            boolean fromStart = after == null || after.isEmpty();
            return Bind.list(Bind.tenant(scope), Bind.group(scope), Bind.topic(scope), Bind.of("leased_by", subscriber),
                    Bind.of("no lower bound", fromStart), Bind.of("partition_key", fromStart ? "" : after),
                    Bind.of("no upper bound", upTo == null), Bind.of("partition_key", upTo == null ? "" : upTo),
                    Bind.of("limit", limit));
        }
    }

    /**
     * Partitions this subscriber still leases where an in-flight message's last allowed attempt
     * has failed: its visibility timeout passed, or it was delivered under another lease epoch
     * (the lease was lost and taken back). The first branch reads the group's delivery rows
     * (exceptions only, see V3); the second finds open delivery batches, whose messages are all
     * at attempt 1, so it matters only when {@code mq.max-deliveries} is 1. Plain reads; the sweep
     * transaction locks the lease rows and decides again.
     */
    static final String SELECT_EXPIRED_LAST_ATTEMPTS = StateSql.render("""
            SELECT d.partition_key
            FROM queue_delivery_state d
            JOIN queue_partition_leases l
              ON l.tenant = d.tenant AND l.consumer_group = d.consumer_group AND l.topic = d.topic
             AND l.partition_key = d.partition_key
            WHERE d.tenant = ? AND d.consumer_group = ? AND d.topic = ?
              AND d.state = {INFLIGHT} AND d.delivery_attempt >= ?
              AND (d.visible_at <= UTC_TIMESTAMP(6) OR d.lease_epoch <> l.epoch)
              AND l.leased_by = ? AND l.expires_at > UTC_TIMESTAMP(6)
            UNION
            SELECT o.partition_key
            FROM queue_offsets o
            JOIN queue_partition_leases l
              ON l.tenant = o.tenant AND l.consumer_group = o.consumer_group AND l.topic = o.topic
             AND l.partition_key = o.partition_key
            WHERE o.tenant = ? AND o.topic = ? AND o.consumer_group = ?
              AND ? <= 1 AND o.delivered_offset > o.committed_offset
              AND (o.visible_at <= UTC_TIMESTAMP(6) OR o.delivery_epoch <> l.epoch)
              AND l.leased_by = ? AND l.expires_at > UTC_TIMESTAMP(6)
            ORDER BY partition_key
            LIMIT ?""");

    /** Binds of {@link #SELECT_EXPIRED_LAST_ATTEMPTS}, in placeholder order. */
    record SelectExpiredLastAttempts(GroupScope scope, String subscriber, int maxDeliveries, int limit)
            implements Statement {
        @Override
        public String sql() {
            return SELECT_EXPIRED_LAST_ATTEMPTS;
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.tenant(scope), Bind.group(scope), Bind.topic(scope), // delivery rows
                    Bind.of("delivery_attempt", maxDeliveries), Bind.of("leased_by", subscriber),
                    Bind.tenant(scope), Bind.topic(scope), Bind.group(scope), // open batches
                    Bind.of("max deliveries", maxDeliveries), Bind.of("leased_by", subscriber),
                    Bind.of("limit", limit));
        }
    }

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
     * Locks the lease rows of the given partitions whoever holds them (%s is the IN list), and
     * says of each whether this subscriber still holds it: a fetch that carries acks settles
     * receipts of any lease and delivers only from its own, under one set of row locks.
     */
    static final String LOCK_LEASES_NOTING_HOLDER = """
            SELECT partition_key, epoch, leased_by = ? AND expires_at > UTC_TIMESTAMP(6) AS held
            FROM queue_partition_leases
            WHERE tenant = ? AND consumer_group = ? AND topic = ? AND partition_key IN (%s)
            ORDER BY partition_key
            FOR UPDATE""";

    /** Binds of {@link #LOCK_LEASES_NOTING_HOLDER}, in placeholder order; {@code partitions} fills the IN list. */
    record LockLeasesNotingHolder(GroupScope scope, List<String> partitions, String subscriber) implements Statement {
        @Override
        public String sql() {
            return LOCK_LEASES_NOTING_HOLDER.formatted(Db.placeholders(partitions.size()));
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.of("leased_by", subscriber), Bind.tenant(scope), Bind.group(scope), Bind.topic(scope),
                    Bind.each("partition_key", partitions));
        }
    }

    /** A locked lease row of {@link #LOCK_LEASES_NOTING_HOLDER}: its epoch, and whether the subscriber holds it. */
    record NotedLease(String partitionKey, long epoch, boolean held) {
        static final Db.RowMapper<NotedLease> ROW = rs -> new NotedLease(rs.getString("partition_key"),
                rs.getLong("epoch"), rs.getBoolean("held"));
    }

    /** Binds of {@link #LOCK_LEASES}, in placeholder order; {@code partitions} fills the IN list. */
    record LockLeases(GroupScope scope, List<String> partitions) implements Statement {
        @Override
        public String sql() {
            return LOCK_LEASES.formatted(Db.placeholders(partitions.size()));
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.tenant(scope), Bind.group(scope), Bind.topic(scope),
                    Bind.each("partition_key", partitions));
        }
    }

    /** Binds of {@link #LOCK_HELD_LEASES}, in placeholder order; {@code partitions} fills the IN list. */
    record LockHeldLeases(GroupScope scope, List<String> partitions, String subscriber) implements Statement {
        @Override
        public String sql() {
            return LOCK_HELD_LEASES.formatted(Db.placeholders(partitions.size()));
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.tenant(scope), Bind.group(scope), Bind.topic(scope),
                    Bind.each("partition_key", partitions), Bind.of("leased_by", subscriber));
        }
    }

    /** A locked lease row of {@link #LOCK_LEASES} or {@link #LOCK_HELD_LEASES}. */
    record LockedLease(String partitionKey, long epoch) {
        static final Db.RowMapper<LockedLease> ROW = rs -> new LockedLease(rs.getString("partition_key"),
                rs.getLong("epoch"));
    }

    /**
     * The rows of {@link #SELECT_CURSORS} and {@link #CURSORS_BRANCH}: %s is the IN list. A method,
     * not a constant: a fragment is no statement for {@code StoreSqlRulesTest} to parse.
     */
    private static String cursorsFrom() {
        return """
                FROM queue_offsets o
                WHERE o.tenant = ? AND o.topic = ? AND o.partition_key IN (%s) AND o.consumer_group = ?""";
    }

    /**
     * The group's position in the given partitions (%s is the IN list), one row each: committed
     * offset, the open batch, whether a requeued message waits at or below the committed offset,
     * the finished delivery rows above the committed offset, whether the open batch has delivery
     * rows, whether any delivery row lies above the committed offset, and the partition's head
     * (one primary-key look-up of {@code queue_partition_heads}). It reads no message row but the
     * probes of {@link #batchHoldsAMessage}: an ack
     * reads the messages it walks with bound offsets ({@link #SELECT_PREFIX_STATES}), because a
     * join here to the open batch's messages is bounded by outer columns, which give no range, and
     * read the partition's whole backlog (docs/architecture.md, "Reads that do not grow with the
     * backlog"). Read after the lease row locks, which every writer of these rows takes first.
     */
    static final String SELECT_CURSORS = "SELECT o.partition_key, " + cursorColumns() + cursorsFrom();

    /**
     * The columns of {@link #SELECT_CURSORS} after the partition key, over the row {@code o} of
     * {@code queue_offsets}: one text for the plain cursor read and the cursor branch of
     * {@link #CURSORS_BRANCH}.
     */
    private static String cursorColumns() {
        return StateSql.render("""
                   o.committed_offset, o.delivered_offset,
                   IF(o.batch_seq = o.delivery_seq, o.batch_messages, 0) AS batch_messages, o.delivery_epoch,
                   o.delivery_seq, CAST(o.visible_at AS CHAR) AS visible_at, o.visible_at > UTC_TIMESTAMP(6) AND %s AS batch_invisible,
                   EXISTS (SELECT 1 FROM queue_delivery_state r
                           WHERE r.tenant = o.tenant AND r.consumer_group = o.consumer_group AND r.topic = o.topic
                             AND r.partition_key = o.partition_key AND r.message_offset <= o.committed_offset
                             AND r.state IN ({UNFINISHED})) AS requeued,
                   (SELECT COUNT(*) FROM queue_delivery_state f
                    WHERE f.tenant = o.tenant AND f.consumer_group = o.consumer_group AND f.topic = o.topic
                      AND f.partition_key = o.partition_key AND f.message_offset > o.committed_offset
                      AND f.state IN ({FINISHED})) AS finished_rows,
                   EXISTS (SELECT 1 FROM queue_delivery_state b
                           WHERE b.tenant = o.tenant AND b.consumer_group = o.consumer_group AND b.topic = o.topic
                             AND b.partition_key = o.partition_key AND b.message_offset > o.committed_offset
                             AND b.message_offset <= o.delivered_offset) AS rows_in_batch,
                   EXISTS (SELECT 1 FROM queue_delivery_state a
                           WHERE a.tenant = o.tenant AND a.consumer_group = o.consumer_group AND a.topic = o.topic
                             AND a.partition_key = o.partition_key AND a.message_offset > o.committed_offset)
                     AS rows_above,
                   IFNULL((SELECT h.head_offset FROM queue_partition_heads h
                           WHERE h.tenant = o.tenant AND h.topic = o.topic AND h.partition_key = o.partition_key),
                          0) AS head_offset
                """.formatted(batchHoldsAMessage()));
    }

    /** Binds of {@link #SELECT_CURSORS}, in placeholder order; {@code keys} fills the IN list. */
    record SelectCursors(GroupScope scope, List<String> keys) implements Statement {
        @Override
        public String sql() {
            return SELECT_CURSORS.formatted(Db.placeholders(keys.size()));
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.tenant(scope), Bind.topic(scope), Bind.each("partition_key", keys), Bind.group(scope));
        }
    }

    /**
     * The group's position in one partition ({@code queue_offsets}): a row of
     * {@link #SELECT_CURSORS}, read under the lease row lock.
     *
     * @param committed every message at or below it is finished
     * @param delivered end of the open batch; the batch is open when above {@code committed}
     * @param batchMessages how many messages the open batch handed out for the first time, or 0
     *     when unknown (migration V9: counted for another batch, or a message of it deleted since):
     *     only then must an ack of the whole batch read its messages
     * @param batchEpoch lease epoch of the batch
     * @param seq delivery number of the partition's last hand-out
     * @param batchVisibleAt the batch's visibility deadline (database clock) as the database prints
     *     it, microseconds included: bound back as text, because a {@code LocalDateTime} bind loses
     *     the fraction on servers the driver takes for MySQL 5.5 (MariaDB), and a materialized
     *     delivery would then expire up to a second early
     * @param batchInvisible whether that deadline is still ahead and the batch still holds a message
     *     ({@link #batchHoldsAMessage}): a batch whose messages were all deleted holds nothing back
     * @param requeued whether a requeued message waits at or below {@code committed}
     * @param finishedRows delivery rows above {@code committed} that are finished (acked, dead)
     * @param rowsInBatch whether a message of the open batch has a delivery row (handed out again)
     * @param rowsAbove whether any message above {@code committed} has a delivery row (a
     *     materialized batch, a hand-back, an ack out of order): without one, the fetch's scan joins
     *     no delivery row ({@link #SCAN_UNDELIVERED})
     * @param head the newest offset given to a message of the partition
     *     ({@code queue_partition_heads.head_offset}; 0 without a head row): nothing is stored above it
     */
    record Cursor(String key, long committed, long delivered, int batchMessages, long batchEpoch, long seq,
                  String batchVisibleAt, boolean batchInvisible, boolean requeued, int finishedRows,
                  boolean rowsInBatch, boolean rowsAbove, long head) {
        /** Maps a row of {@link #SELECT_CURSORS}. */
        static final Db.RowMapper<Cursor> ROW = rs -> of(rs.getString("partition_key"), rs);

        /**
         * The cursor of partition {@code key} from the current row's {@link #SELECT_CURSORS}
         * columns after the key, read left to right ({@link Rows}).
         */
        static Cursor of(String key, ResultSet rs) throws SQLException {
            return new Cursor(key,
                    rs.getLong("committed_offset"), rs.getLong("delivered_offset"), rs.getInt("batch_messages"),
                    rs.getLong("delivery_epoch"),
                    rs.getLong("delivery_seq"), rs.getString("visible_at"), rs.getBoolean("batch_invisible"),
                    rs.getBoolean("requeued"), rs.getInt("finished_rows"), rs.getBoolean("rows_in_batch"),
                    rs.getBoolean("rows_above"), rs.getLong("head_offset"));
        }

        /** The batch's state: open while {@code delivered_offset} is above {@code committed_offset}. */
        BatchState batch() {
            return BatchState.of(committed, delivered);
        }

        boolean batchOpen() {
            return batch() == BatchState.OPEN;
        }

        /** After materializing: the batch is closed, and every message it held has a delivery row. */
        Cursor closed() {
            return new Cursor(key, committed, committed, 0, batchEpoch, seq, batchVisibleAt, batchInvisible, requeued,
                    finishedRows, false, true, head);
        }

        /**
         * Whether the group may have something more to deliver here: a requeued message, or a
         * message published above the committed offset (the head is a bound: such a message may
         * have been deleted since, or not be due yet). False means nothing waits.
         */
        boolean mayHaveMore() {
            return requeued || head > committed;
        }

        Cursor committedAt(long offset) {
            return new Cursor(key, offset, delivered, batchMessages, batchEpoch, seq, batchVisibleAt, batchInvisible, requeued,
                    finishedRows, rowsInBatch, rowsAbove, head); // a row above the old offset may be above the new
        }
    }

    /**
     * Columns of the two message scans of {@link FetchTransaction#lease}, mapped by
     * {@link Scanned#rows}. The payload comes only when it is at most the bound number of bytes
     * (the scan's payload cap, {@link FetchTransaction}): a scan of n rows then reads at most the
     * fetch's byte budget of payloads, however large the messages. Every row says its payload's
     * size in bytes ({@code LENGTH} of utf8mb4 text: its UTF-8 length), which the budget is
     * counted in; a larger payload is read afterwards only if the walk hands it out
     * ({@link #SELECT_PAYLOADS}).
     */
    private static final String SCAN_COLUMNS = """
            m.partition_key, m.`offset`, m.id, IF(LENGTH(m.payload) <= ?, m.payload, NULL) AS payload,
            LENGTH(m.payload) AS payload_bytes, m.metadata, m.traceparent, m.tracestate, m.created_at,
            m.deliver_at > UTC_TIMESTAMP(6) AS not_due,
            %s""";

    /** The columns of the group's delivery row of each message scanned, joined as {@code d}. */
    private static final String DELIVERY_COLUMNS =
            "d.state, d.delivery_attempt, d.delivery_count, d.lease_epoch, d.visible_at > UTC_TIMESTAMP(6) AS invisible";

    /** {@link #DELIVERY_COLUMNS} of a scan that joins no delivery row: every message read is undelivered. */
    private static final String NO_DELIVERY_COLUMNS =
            "NULL AS state, NULL AS delivery_attempt, NULL AS delivery_count, NULL AS lease_epoch, NULL AS invisible";

    /**
     * The next messages of one partition above its committed offset, in offset order, with this
     * group's delivery row of each. One branch of a UNION ALL over the partitions of a fetch,
     * which ends with {@link #SCAN_DELETION_MARKER}.
     */
    static final String SCAN_PARTITION = """
            SELECT %s
            FROM queue_messages m
            LEFT JOIN queue_delivery_state d
              ON d.tenant = m.tenant AND d.consumer_group = ? AND d.topic = m.topic
             AND d.partition_key = m.partition_key AND d.message_offset = m.`offset`
            WHERE m.tenant = ? AND m.topic = ? AND m.partition_key = ? AND m.`offset` > ?
            ORDER BY m.`offset`
            LIMIT ?""".formatted(SCAN_COLUMNS.formatted(DELIVERY_COLUMNS));

    /**
     * {@link #SCAN_PARTITION} of a partition with no delivery row above its committed offset
     * ({@link Cursor#rowsAbove}, read under the same lease lock that every writer of delivery rows
     * takes): every message above it is undelivered, so the join is left out. A branch without it
     * costs the database about half as much (docs/architecture.md, "The fetch's scan").
     */
    static final String SCAN_UNDELIVERED = """
            SELECT %s
            FROM queue_messages m
            WHERE m.tenant = ? AND m.topic = ? AND m.partition_key = ? AND m.`offset` > ?
            ORDER BY m.`offset`
            LIMIT ?""".formatted(SCAN_COLUMNS.formatted(NO_DELIVERY_COLUMNS));

    /**
     * The last branch of every fetch scan: the topic's deletion marker, a row only while the topic
     * is being deleted. A scan that returns it hands out nothing. Under READ COMMITTED one
     * statement reads one snapshot, so a scan that does not see the marker sees none of the
     * deletion's deletes either (they follow the marker's commit): a fetch hands out a topic whole,
     * or nothing of it. One primary-key look-up per statement, where each branch looked it up
     * ({@link DeletionSql#topicNotBeingDeleted}). The columns are the scan's, all but the key empty.
     */
    static final String SCAN_DELETION_MARKER = "SELECT " + markerColumns() + deletionMarkerFrom();

    /** The columns of {@link #SCAN_DELETION_MARKER}: the scan's, all but the key empty. */
    private static String markerColumns() {
        return "dm.partition_key, 0, '', NULL, 0, '', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL";
    }

    /** The row of {@link #SCAN_DELETION_MARKER}; a method, as {@link #cursorsFrom()}. */
    private static String deletionMarkerFrom() {
        return """

                FROM queue_partition_heads dm
                WHERE dm.tenant = ? AND dm.topic = ? AND dm.partition_key = ?""";
    }

    /** Binds of {@link #SCAN_DELETION_MARKER}, in placeholder order. */
    record ScanDeletionMarker(GroupScope scope) implements Branch {
        @Override
        public String sql() {
            return SCAN_DELETION_MARKER;
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.tenant(scope), Bind.topic(scope), Bind.of("partition_key", DeletionSql.MARKER_KEY));
        }
    }

    /**
     * The scan branch of one partition above {@code from}: {@link ScanPartition}, or
     * {@link ScanUndelivered} where {@code cur} shows no delivery row above its committed offset.
     */
    static Branch scanAbove(long payloadCap, GroupScope scope, Cursor cur, long from, int limit) {
        return cur.rowsAbove() ? new ScanPartition(payloadCap, scope, cur.key(), from, limit)
                : new ScanUndelivered(payloadCap, scope, cur.key(), from, limit);
    }

    /**
     * Binds of one {@link #SCAN_UNDELIVERED} branch, in placeholder order; the cap as in
     * {@link ScanPartition}.
     */
    record ScanUndelivered(long payloadCap, GroupScope scope, String partitionKey, long committed, int limit)
            implements Branch {
        @Override
        public String sql() {
            return SCAN_UNDELIVERED;
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.of("payload cap bytes", payloadCap),
                    Bind.tenant(scope), Bind.topic(scope), Bind.of("partition_key", partitionKey),
                    Bind.of("offset", committed), Bind.of("limit", limit));
        }
    }

    /**
     * Binds of one {@link #SCAN_PARTITION} branch, in placeholder order; {@code payloadCap} is the
     * largest payload, in bytes, the scan reads ({@link #SCAN_COLUMNS}).
     */
    record ScanPartition(long payloadCap, GroupScope scope, String partitionKey, long committed, int limit)
            implements Branch {
        @Override
        public String sql() {
            return SCAN_PARTITION;
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.of("payload cap bytes", payloadCap),
                    Bind.group(scope), // join d
                    Bind.tenant(scope), Bind.topic(scope), Bind.of("partition_key", partitionKey),
                    Bind.of("offset", committed), Bind.of("limit", limit));
        }
    }

    /**
     * Requeued messages of one partition at or below its committed offset (admin requeue hands a
     * dead letter back there), in offset order; they go out before anything above it. One branch
     * of a UNION ALL, which ends with {@link #SCAN_DELETION_MARKER}.
     */
    static final String SCAN_REQUEUED = StateSql.render("""
            SELECT %s
            FROM queue_delivery_state d
            JOIN queue_messages m
              ON m.tenant = d.tenant AND m.topic = d.topic AND m.partition_key = d.partition_key
             AND m.`offset` = d.message_offset
            WHERE d.tenant = ? AND d.consumer_group = ? AND d.topic = ? AND d.partition_key = ?
              AND d.message_offset <= ? AND d.state IN ({UNFINISHED})
            ORDER BY d.message_offset
            LIMIT ?""".formatted(SCAN_COLUMNS.formatted(DELIVERY_COLUMNS)));

    /** Binds of one {@link #SCAN_REQUEUED} branch, in placeholder order; {@code payloadCap} as in {@link ScanPartition}. */
    record ScanRequeued(long payloadCap, GroupScope scope, String partitionKey, long committed, int limit)
            implements Branch {
        @Override
        public String sql() {
            return SCAN_REQUEUED;
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.of("payload cap bytes", payloadCap), Bind.tenant(scope), Bind.group(scope), Bind.topic(scope),
                    Bind.of("partition_key", partitionKey), Bind.of("message_offset", committed), Bind.of("limit", limit));
        }
    }

    /**
     * {@link #SELECT_CURSORS}'s columns in a row of {@link SelectCursorsAndFirstScan}'s scan
     * branches, where they are empty.
     */
    private static final String NO_CURSOR_COLUMNS =
            "NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL";

    /**
     * {@link #SCAN_COLUMNS} after the partition key, named, in the cursor branch of
     * {@link SelectCursorsAndFirstScan}, where they are empty: the first branch names the columns of
     * a UNION.
     */
    private static final String NO_SCAN_COLUMNS = """
            NULL AS `offset`, NULL AS id, NULL AS payload, NULL AS payload_bytes, NULL AS metadata, NULL AS traceparent,
            NULL AS tracestate, NULL AS created_at, NULL AS not_due, NULL AS state, NULL AS delivery_attempt,
            NULL AS delivery_count, NULL AS lease_epoch, NULL AS invisible""";

    /** The first branch of {@link SelectCursorsAndFirstScan}: {@link #SELECT_CURSORS} with the scan's columns empty. */
    static final String CURSORS_BRANCH = "SELECT 'cursor' AS row_kind, o.partition_key, " + NO_SCAN_COLUMNS + ",\n"
            + cursorColumns() + cursorsFrom();

    /**
     * A branch of {@link SelectCursorsAndFirstScan}: {@link #SCAN_UNDELIVERED} of one partition from
     * the end of its batch, the larger of its committed and delivered offsets, which the
     * subquery reads from the cursor row (one primary-key look-up, which MariaDB 10.11 and
     * MySQL 9.7 evaluate before they plan the range, so the scan starts there: a bound that is a
     * column of a joined row would give no range and read the partition's consumed rows). The rows
     * serve the walk only where the cursor the ack leaves shows that this is where the walk would
     * scan, with no delivery row above it ({@code FetchTransaction.FirstScan}); elsewhere they are
     * not used, and the walk scans as it did.
     */
    static final String FIRST_SCAN_PARTITION = """
            SELECT 'scan' AS row_kind, %s, %s
            FROM queue_messages m
            WHERE m.tenant = ? AND m.topic = ? AND m.partition_key = ?
              AND m.`offset` > (SELECT GREATEST(o.committed_offset, o.delivered_offset) FROM queue_offsets o
                                WHERE o.tenant = ? AND o.topic = ? AND o.partition_key = ? AND o.consumer_group = ?)
            ORDER BY m.`offset`
            LIMIT ?""".formatted(SCAN_COLUMNS.formatted(NO_DELIVERY_COLUMNS), NO_CURSOR_COLUMNS);

    /** The last branch of {@link SelectCursorsAndFirstScan}: {@link #SCAN_DELETION_MARKER}, in the same snapshot. */
    static final String FIRST_SCAN_DELETION_MARKER = "SELECT 'scan' AS row_kind, " + markerColumns() + ", "
            + NO_CURSOR_COLUMNS + deletionMarkerFrom();

    /**
     * The cursor read and the fetch's first scan as one statement (docs/architecture.md, "The
     * cursors and the first scan in one read"): the UNION ALL of {@link #CURSORS_BRANCH} over
     * {@code keys}, one {@link #FIRST_SCAN_PARTITION} per partition of {@code limits} (in its
     * iteration order) with that LIMIT, and {@link #FIRST_SCAN_DELETION_MARKER}; {@code payloadCap}
     * as in {@link ScanPartition}. Each row says in {@code row_kind} whether it is a cursor
     * ({@link Cursor#of}) or a scanned message ({@link Rows}); the other kind's columns are
     * NULL. It runs where {@link #SELECT_CURSORS} would, after the lease row locks, so its reads are
     * the cursor read's.
     */
    record SelectCursorsAndFirstScan(GroupScope scope, List<String> keys, long payloadCap, Map<String, Integer> limits)
            implements Statement {
        @Override
        public String sql() {
            return union().sql();
        }

        @Override
        public List<Bind> binds() {
            return union().binds();
        }

        /**
         * This statement's text and binds together, for a caller that runs it to build once:
         * {@link #sql()} and {@link #binds()} each build it again, and the text of a fetch over
         * 25 partitions is about 25,000 characters.
         */
        Statement union() {
            List<Branch> branches = new ArrayList<>();
            branches.add(new CursorsBranch(scope, keys));
            limits.forEach((key, limit) -> branches.add(new FirstScanPartition(payloadCap, scope, key, limit)));
            branches.add(new FirstScanDeletionMarker(scope));
            return ConsumerSql.union(branches);
        }
    }

    /** Binds of {@link #CURSORS_BRANCH}, in placeholder order; {@code keys} fills the IN list. */
    record CursorsBranch(GroupScope scope, List<String> keys) implements Branch {
        @Override
        public String sql() {
            return CURSORS_BRANCH.formatted(Db.placeholders(keys.size()));
        }

        @Override
        public List<Bind> binds() {
            return new SelectCursors(scope, keys).binds();
        }
    }

    /** Binds of one {@link #FIRST_SCAN_PARTITION} branch, in placeholder order. */
    record FirstScanPartition(long payloadCap, GroupScope scope, String partitionKey, int limit) implements Branch {
        @Override
        public String sql() {
            return FIRST_SCAN_PARTITION;
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.of("payload cap bytes", payloadCap),
                    Bind.tenant(scope), Bind.topic(scope), Bind.of("partition_key", partitionKey),
                    Bind.tenant(scope), Bind.topic(scope), Bind.of("partition_key", partitionKey), Bind.group(scope), // o
                    Bind.of("limit", limit));
        }
    }

    /** Binds of {@link #FIRST_SCAN_DELETION_MARKER}, in placeholder order. */
    record FirstScanDeletionMarker(GroupScope scope) implements Branch {
        @Override
        public String sql() {
            return FIRST_SCAN_DELETION_MARKER;
        }

        @Override
        public List<Bind> binds() {
            return new ScanDeletionMarker(scope).binds();
        }
    }

    /**
     * {@link SelectCursorsAndFirstScan} of a fetch over one partition, without a {@code UNION ALL}
     * (docs/architecture.md, "The cursors and the first scan in one read"): each row is a message
     * above the larger of the committed and delivered offsets, in offset order, up to the LIMIT,
     * carrying the partition's cursor ({@link #SELECT_CURSORS}'s columns) and whether the topic is
     * being deleted (its marker, {@link #SCAN_DELETION_MARKER}, as a scalar look-up on its whole
     * key). The cursor is a derived table of one row read by the offsets row's whole primary key;
     * its {@code LIMIT 1} keeps MariaDB 10.11 and MySQL 9.7 from merging it into the join, so they
     * read it once, before they plan the rest, where a merged cursor's subqueries ran once per
     * message row on MySQL 9.7. The messages' range starts at the subquery's value, as in
     * {@link #FIRST_SCAN_PARTITION}. No row when the partition has no offsets row or no message
     * above that offset: the caller then reads the union. A union that carries the payloads cost
     * MariaDB 10.11 about 1.5 times these rows read this way.
     */
    static final String SELECT_CURSOR_AND_SCAN_ONE = ("""
            SELECT %s,
                   c.committed_offset, c.delivered_offset, c.batch_messages, c.delivery_epoch, c.delivery_seq,
                   c.visible_at, c.batch_invisible, c.requeued, c.finished_rows, c.rows_in_batch, c.rows_above,
                   c.head_offset, c.topic_deleting
            FROM queue_messages m
            CROSS JOIN (SELECT %s,
                         (SELECT COUNT(*) FROM queue_partition_heads dm
                          WHERE dm.tenant = o.tenant AND dm.topic = o.topic AND dm.partition_key = ?) AS topic_deleting
                  FROM queue_offsets o
                  WHERE o.tenant = ? AND o.topic = ? AND o.partition_key = ? AND o.consumer_group = ?
                  LIMIT 1) c
            WHERE m.tenant = ? AND m.topic = ? AND m.partition_key = ?
              AND m.`offset` > (SELECT GREATEST(b.committed_offset, b.delivered_offset) FROM queue_offsets b
                                WHERE b.tenant = ? AND b.topic = ? AND b.partition_key = ? AND b.consumer_group = ?)
            ORDER BY m.`offset`
            LIMIT ?""").formatted(SCAN_COLUMNS.formatted(NO_DELIVERY_COLUMNS), cursorColumns().strip());

    /**
     * Binds of {@link #SELECT_CURSOR_AND_SCAN_ONE}, in placeholder order; {@code payloadCap} as in
     * {@link ScanPartition}, {@code limit} the rows to read.
     */
    record SelectCursorAndScanOne(GroupScope scope, String partitionKey, long payloadCap, int limit)
            implements Statement {
        @Override
        public String sql() {
            return SELECT_CURSOR_AND_SCAN_ONE;
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.of("payload cap bytes", payloadCap),
                    Bind.of("partition_key", DeletionSql.MARKER_KEY), // dm
                    Bind.tenant(scope), Bind.topic(scope), Bind.of("partition_key", partitionKey), Bind.group(scope), // o
                    Bind.tenant(scope), Bind.topic(scope), Bind.of("partition_key", partitionKey), // m
                    Bind.tenant(scope), Bind.topic(scope), Bind.of("partition_key", partitionKey), Bind.group(scope), // b
                    Bind.of("limit", limit));
        }
    }

    /**
     * One message read by a fetch scan ({@link #SCAN_COLUMNS}): its content and the walk's view of
     * it. {@code payload} is null when the payload was above the scan's cap (not read yet);
     * {@code payloadBytes} is its size either way. The payload stays the bytes the driver read,
     * for the response to copy (docs/architecture.md, "Rows into responses").
     */
    record Scanned(String key, long offset, String id, Utf8Json payload, long payloadBytes, String metadataJson,
                   Instant createdAt, PartitionWalk.Row row, TraceContext trace) {
        /** This message with its payload, read afterwards. */
        Scanned withPayload(Utf8Json payload) {
            return new Scanned(key, offset, id, payload, payloadBytes, metadataJson, createdAt, row, trace);
        }

        /** A mapper of the rows of one execution of a scan ({@link Rows}). */
        static Rows rows() {
            return new Rows();
        }
    }

    /**
     * Maps the rows of one execution of a scan to {@link Scanned}: one per statement, which looks
     * each column's index up once ({@link ColumnIndexes}). It reads the columns in their order in
     * {@link #SCAN_COLUMNS}, left to right, each once, as JDBC advises for portability: the
     * driver finds a column by walking the row from the last one read, and a column to the left
     * of it from the row's start (Connector/J's binary rows, which its server-side prepared
     * statements return, and its text rows alike), which had it walk each scanned row about twice
     * (docs/architecture.md, "Rows into responses"). Not thread-safe; a result set is read by one
     * thread.
     */
    static final class Rows implements Db.RowMapper<Scanned> {
        private final ColumnIndexes column = new ColumnIndexes();

        /**
         * The current row's partition key, the first of the scan's columns (the second of the
         * union's, after {@code row_kind}): read it here first, then {@link #message}.
         */
        String key(ResultSet rs) throws SQLException {
            return rs.getString(column.of(rs, "partition_key"));
        }

        @Override
        public Scanned map(ResultSet rs) throws SQLException {
            return message(key(rs), rs);
        }

        /** The message of the current row, whose partition key {@link #key} read: its other columns. */
        Scanned message(String key, ResultSet rs) throws SQLException {
            long offset = rs.getLong(column.of(rs, "offset"));
            String id = rs.getString(column.of(rs, "id"));
            Utf8Json payload = Utf8Json.ofUtf8(rs.getBytes(column.of(rs, "payload")));
            long payloadBytes = rs.getLong(column.of(rs, "payload_bytes"));
            String metadata = rs.getString(column.of(rs, "metadata"));
            TraceContext trace = TraceContext.stored(rs.getString(column.of(rs, "traceparent")),
                    rs.getString(column.of(rs, "tracestate")));
            Instant createdAt = rs.getObject(column.of(rs, "created_at"), LocalDateTime.class).toInstant(ZoneOffset.UTC);
            boolean notDue = rs.getBoolean(column.of(rs, "not_due"));
            DeliveryState state = DeliveryState.of(rs.getString(column.of(rs, "state")));
            PartitionWalk.Row row = state == null
                    ? PartitionWalk.Row.undelivered(offset, notDue)
                    : new PartitionWalk.Row(offset, state, rs.getInt(column.of(rs, "delivery_attempt")),
                            rs.getLong(column.of(rs, "delivery_count")), rs.getLong(column.of(rs, "lease_epoch")),
                            rs.getBoolean(column.of(rs, "invisible")));
            return new Scanned(key, offset, id, payload, payloadBytes, metadata, createdAt, row, trace);
        }
    }

    /**
     * The payloads of messages a fetch scan read without them (above its payload cap,
     * {@link #SCAN_COLUMNS}) and the walk hands out or dead-letters: by primary key, the
     * {@code %s} the list of {@code (partition_key, offset)} pairs. The index is named, as for
     * publish's id look-up ({@link PublishSql#SELECT_EXISTING_IDS}): a list of pairs may otherwise
     * be read as every stored message of the topic.
     */
    static final String SELECT_PAYLOADS = """
            SELECT partition_key, `offset`, payload FROM queue_messages FORCE INDEX (PRIMARY)
            WHERE tenant = ? AND topic = ? AND (partition_key, `offset`) IN (%s)""";

    /** A message by its partition and offset, for {@link SelectPayloads}. */
    record MessageAt(String partitionKey, long offset) {}

    /** Binds of {@link #SELECT_PAYLOADS}, in placeholder order: at least one message. */
    record SelectPayloads(GroupScope scope, List<MessageAt> messages) implements Statement {
        @Override
        public String sql() {
            return SELECT_PAYLOADS.formatted(String.join(", ", java.util.Collections.nCopies(messages.size(), "(?, ?)")));
        }

        @Override
        public List<Bind> binds() {
            List<Bind> binds = new ArrayList<>(Bind.list(Bind.tenant(scope), Bind.topic(scope)));
            for (MessageAt m : messages) {
                binds.add(Bind.of("partition_key", m.partitionKey()));
                binds.add(Bind.of("offset", m.offset()));
            }
            return binds;
        }
    }

    /**
     * {@code ELT(FIELD(partition_key, k1, k2 ...), v1, v2 ...)} as a signed integer: in a statement
     * over several partitions, the value given for the row's own partition. The two {@code %s}
     * are the keys and the values, in the same order. One multi-row statement instead of one per
     * partition; FIELD compares under the column's collation, as {@code partition_key = ?} does.
     */
    private static final String PER_PARTITION = "CAST(ELT(FIELD(partition_key, %s), %s) AS SIGNED)";

    /**
     * Records a fetch's hand-outs, one row per partition it handed messages out of, in one
     * statement: each partition's new batch (the messages up to {@code delivered_offset} handed
     * out for the first time, {@code batch_messages} of them), its lease epoch, its delivery number, and the fetch's visibility
     * deadline. Compare-and-set on each partition's delivery number read under the lease row lock,
     * so fewer rows than partitions is a bug. The {@code %s} are filled by {@link OpenBatches}.
     */
    static final String OPEN_BATCHES = ("""
            UPDATE queue_offsets
            SET delivered_offset = %1$s, batch_messages = %1$s, batch_seq = %1$s, delivery_epoch = %1$s,
                delivery_seq = %1$s, visible_at = UTC_TIMESTAMP(6) + INTERVAL ? MICROSECOND
            WHERE tenant = ? AND topic = ? AND consumer_group = ? AND partition_key IN (%%s)
              AND delivery_seq = %1$s""").formatted(PER_PARTITION);

    /**
     * One partition's new batch, for {@link OpenBatches}: {@code messages} handed out for the first
     * time, up to {@code deliveredOffset}.
     */
    record OpenBatch(String partitionKey, long deliveredOffset, int messages, long epoch, long seq, long seqAsRead) {}

    /** Binds of {@link #OPEN_BATCHES}, in placeholder order: the batches of one fetch, at least one. */
    record OpenBatches(GroupScope scope, long visibilityMicros, List<OpenBatch> batches) implements Statement {
        @Override
        public String sql() {
            String p = Db.placeholders(batches.size());
            return OPEN_BATCHES.formatted(p, p, p, p, p, p, p, p, p, p, p, p, p);
        }

        @Override
        public List<Bind> binds() {
            List<String> keys = batches.stream().map(OpenBatch::partitionKey).toList();
            return Bind.list(Bind.each("partition_key", keys),
                    Bind.each("delivered_offset", batches.stream().map(OpenBatch::deliveredOffset).toList()),
                    Bind.each("partition_key", keys), Bind.each("batch_messages", batches.stream().map(OpenBatch::messages).toList()),
                    Bind.each("partition_key", keys), Bind.each("batch_seq", batches.stream().map(OpenBatch::seq).toList()),
                    Bind.each("partition_key", keys), Bind.each("delivery_epoch", batches.stream().map(OpenBatch::epoch).toList()),
                    Bind.each("partition_key", keys), Bind.each("delivery_seq", batches.stream().map(OpenBatch::seq).toList()),
                    Bind.of("micros", visibilityMicros), // SET
                    Bind.tenant(scope), Bind.topic(scope), Bind.group(scope), Bind.each("partition_key", keys), // rows
                    Bind.each("partition_key", keys),
                    Bind.each("delivery_seq", batches.stream().map(OpenBatch::seqAsRead).toList())); // compare-and-set
        }
    }

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

    /** Binds of {@link #SELECT_BATCH_MESSAGES}, in placeholder order: the batch {@code (committed, delivered]}. */
    record SelectBatchMessages(GroupScope scope, String partitionKey, long committed, long delivered)
            implements Statement {
        @Override
        public String sql() {
            return SELECT_BATCH_MESSAGES;
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.group(scope), // join d
                    Bind.tenant(scope), Bind.topic(scope), Bind.of("partition_key", partitionKey),
                    Bind.of("offset", committed), Bind.of("offset", delivered));
        }
    }

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

    /** Binds of {@link #SELECT_BATCH_ROWS}, in placeholder order; {@code keys} fills the IN list. */
    record SelectBatchRows(GroupScope scope, List<String> keys) implements Statement {
        @Override
        public String sql() {
            return SELECT_BATCH_ROWS.formatted(Db.placeholders(keys.size()));
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.tenant(scope), Bind.topic(scope), Bind.group(scope), Bind.each("partition_key", keys));
        }
    }

    /** The explicit row of one batch delivery (materialization): in flight as the batch was. */
    static final String INSERT_BATCH_DELIVERY = StateSql.render("""
            INSERT INTO queue_delivery_state
              (tenant, consumer_group, topic, partition_key, message_offset,
               state, delivery_attempt, delivery_count, lease_epoch, visible_at, updated_at)
            VALUES (?, ?, ?, ?, ?, {INFLIGHT}, 1, ?, ?, ?, UTC_TIMESTAMP(6))""");

    /** Binds of {@link #INSERT_BATCH_DELIVERY}: the message, and the batch's delivery number, epoch and deadline. */
    record InsertBatchDelivery(GroupScope scope, String partitionKey, long offset, long seq, long epoch,
                               String visibleAt) implements Statement {
        @Override
        public String sql() {
            return INSERT_BATCH_DELIVERY;
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.tenant(scope), Bind.group(scope), Bind.topic(scope),
                    Bind.of("partition_key", partitionKey), Bind.of("message_offset", offset), // row
                    Bind.of("delivery_count", seq), Bind.of("lease_epoch", epoch), // as the batch handed it out
                    Bind.of("visible_at", visibleAt));
        }
    }

    /**
     * Forgets the size of the delivery batches of the given groups in the given partitions (the
     * {@code %s} are the partition and the group IN lists): a message above a committed offset
     * was deleted there, perhaps one of an open batch, so an ack of that batch must read which of
     * its messages remain ({@code CommitWalk#wholeBatch}; the receipt of a deleted one is
     * INVALID). At most one row per (partition, group).
     */
    static final String FORGET_BATCH_SIZES = """
            UPDATE queue_offsets SET batch_messages = 0
            WHERE tenant = ? AND topic = ? AND partition_key IN (%s) AND consumer_group IN (%s)
              AND batch_messages <> 0""";

    /** Binds of {@link #FORGET_BATCH_SIZES}, in placeholder order; {@code keys} and {@code groups} fill the IN lists. */
    record ForgetBatchSizes(String tenant, String topic, List<String> keys, List<String> groups) implements Statement {
        @Override
        public String sql() {
            return FORGET_BATCH_SIZES.formatted(Db.placeholders(keys.size()), Db.placeholders(groups.size()));
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.of("tenant", tenant), Bind.of("topic", topic), Bind.each("partition_key", keys),
                    Bind.each("consumer_group", groups));
        }
    }

    /** Closes a materialized batch: its messages have rows now. Compare-and-set like {@link #OPEN_BATCH}. */
    static final String CLOSE_BATCH = """
            UPDATE queue_offsets SET delivered_offset = committed_offset, batch_messages = 0
            WHERE tenant = ? AND topic = ? AND partition_key = ? AND consumer_group = ? AND delivery_seq = ?""";

    /** Binds of {@link #CLOSE_BATCH}, in placeholder order. */
    record CloseBatch(GroupScope scope, String partitionKey, long seqAsRead) implements Statement {
        @Override
        public String sql() {
            return CLOSE_BATCH;
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.tenant(scope), Bind.topic(scope), Bind.of("partition_key", partitionKey),
                    Bind.group(scope), Bind.of("delivery_seq", seqAsRead));
        }
    }

    /**
     * Hands a message with a row out again (after an expiry, a lost lease, a nack or a
     * hand-back), fenced by the state and delivery number it was read with.
     */
    static final String UPDATE_REDELIVERY = StateSql.render("""
            UPDATE queue_delivery_state
            SET state = {INFLIGHT}, delivery_attempt = ?, delivery_count = ?, lease_epoch = ?,
                visible_at = UTC_TIMESTAMP(6) + INTERVAL ? MICROSECOND, updated_at = UTC_TIMESTAMP(6)
            WHERE tenant = ? AND consumer_group = ? AND topic = ? AND partition_key = ? AND message_offset = ?
              AND state = ? AND delivery_count = ?""");

    /** Binds of {@link #UPDATE_REDELIVERY}, in placeholder order. */
    record UpdateRedelivery(int attempt, long seq, long epoch, long visibilityMicros, GroupScope scope,
                            String partitionKey, long offset, DeliveryState fromState, long fromDelivery)
            implements Statement {
        @Override
        public String sql() {
            return UPDATE_REDELIVERY;
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.of("delivery_attempt", attempt), Bind.of("delivery_count", seq),
                    Bind.of("lease_epoch", epoch), Bind.of("micros", visibilityMicros), // SET
                    Bind.tenant(scope), Bind.group(scope), Bind.topic(scope), Bind.of("partition_key", partitionKey),
                    Bind.of("message_offset", offset), // row
                    Bind.of("state", fromState.name()), Bind.of("delivery_count", fromDelivery)); // fencing: as read
        }
    }

    /** Marks a message dead-lettered for the group, fenced like {@link #UPDATE_REDELIVERY}. */
    static final String MARK_DEAD = StateSql.render("""
            UPDATE queue_delivery_state
            SET state = {DEAD}, delivery_attempt = ?, updated_at = UTC_TIMESTAMP(6)
            WHERE tenant = ? AND consumer_group = ? AND topic = ? AND partition_key = ? AND message_offset = ?
              AND state = ? AND delivery_count = ?""");

    /** Binds of {@link #MARK_DEAD}, in placeholder order. */
    record MarkDead(int attempts, GroupScope scope, String partitionKey, long offset, DeliveryState fromState,
                    long fromDelivery) implements Statement {
        @Override
        public String sql() {
            return MARK_DEAD;
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.of("delivery_attempt", attempts), // SET
                    Bind.tenant(scope), Bind.group(scope), Bind.topic(scope), Bind.of("partition_key", partitionKey),
                    Bind.of("message_offset", offset), // row
                    Bind.of("state", fromState.name()), Bind.of("delivery_count", fromDelivery)); // fencing: as read
        }
    }

    /** Ack of a delivery row, fenced by the lease epoch and delivery number the receipt names. */
    static final String ACK_DELIVERY = StateSql.render("""
            UPDATE queue_delivery_state
            SET state = {ACKED}, updated_at = UTC_TIMESTAMP(6)
            WHERE tenant = ? AND consumer_group = ? AND topic = ? AND partition_key = ? AND message_offset = ?
              AND state = {INFLIGHT} AND lease_epoch = ? AND delivery_count = ?""");

    /**
     * Extend (change visibility), fenced like ack: pushes the redelivery time back, only while
     * the delivery is still within its visibility timeout (database clock). An expired delivery
     * has failed its attempt (SPEC "Ack, nack, extend"); extending it would revive it and hide
     * the failure from the attempt count, so a late extend changes nothing and answers STALE.
     */
    static final String EXTEND_DELIVERY = StateSql.render("""
            UPDATE queue_delivery_state
            SET visible_at = UTC_TIMESTAMP(6) + INTERVAL ? MICROSECOND, updated_at = UTC_TIMESTAMP(6)
            WHERE tenant = ? AND consumer_group = ? AND topic = ? AND partition_key = ? AND message_offset = ?
              AND state = {INFLIGHT} AND lease_epoch = ? AND delivery_count = ?
              AND visible_at > UTC_TIMESTAMP(6)""");

    /** Nack below {@code mq.max-deliveries}: a failed attempt, delivered again after the delay. */
    static final String NACK_DELIVERY = StateSql.render("""
            UPDATE queue_delivery_state
            SET state = {RETRY}, visible_at = UTC_TIMESTAMP(6) + INTERVAL ? MICROSECOND, updated_at = UTC_TIMESTAMP(6)
            WHERE tenant = ? AND consumer_group = ? AND topic = ? AND partition_key = ? AND message_offset = ?
              AND state = {INFLIGHT} AND lease_epoch = ? AND delivery_count = ?""");

    /** Binds of {@link #ACK_DELIVERY}, in placeholder order: the row the receipt names, fenced by its delivery. */
    record AckDelivery(GroupScope scope, AckTarget target) implements Statement {
        @Override
        public String sql() {
            return ACK_DELIVERY;
        }

        @Override
        public List<Bind> binds() {
            return fenced(scope, target);
        }
    }

    /** Binds of {@link #EXTEND_DELIVERY}: the new visibility, in microseconds from now, then as {@link AckDelivery}. */
    record ExtendDelivery(long micros, GroupScope scope, AckTarget target) implements Statement {
        @Override
        public String sql() {
            return EXTEND_DELIVERY;
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.of("micros", micros), fenced(scope, target));
        }
    }

    /** Binds of {@link #NACK_DELIVERY}: the redelivery delay, in microseconds from now, then as {@link AckDelivery}. */
    record NackDelivery(long micros, GroupScope scope, AckTarget target) implements Statement {
        @Override
        public String sql() {
            return NACK_DELIVERY;
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.of("micros", micros), fenced(scope, target));
        }
    }

    /** The row a receipt names, fenced by its delivery: the WHERE binds of the fenced updates. */
    private static List<Bind> fenced(GroupScope scope, AckTarget target) {
        return Bind.list(Bind.tenant(scope), Bind.group(scope), Bind.topic(scope),
                Bind.of("partition_key", target.partitionKey()), Bind.of("message_offset", target.offset()), // row
                Bind.of("lease_epoch", target.leaseEpoch()), Bind.of("delivery_count", target.delivery())); // fencing
    }

    /**
     * Hands in-flight messages of a lease after an offset back without failing (SPEC: they keep
     * their {@code deliveryAttempt}): after a nack the later ones, which follow the nacked one
     * again; on a graceful lease release all of them (offset 0, see LeaseStore.release). Those
     * whose visibility timeout already expired stay: the expiry is a failed attempt. The caller
     * materializes the partition's open batch first.
     */
    static final String HAND_BACK_LATER = StateSql.render("""
            UPDATE queue_delivery_state
            SET state = {PENDING}, visible_at = UTC_TIMESTAMP(6), updated_at = UTC_TIMESTAMP(6)
            WHERE tenant = ? AND consumer_group = ? AND topic = ? AND partition_key = ? AND message_offset > ?
              AND state = {INFLIGHT} AND lease_epoch = ? AND visible_at > UTC_TIMESTAMP(6)""");

    /** Binds of {@link #HAND_BACK_LATER}: the messages after {@code afterOffset} in flight under {@code epoch}. */
    record HandBackLater(GroupScope scope, String partitionKey, long afterOffset, long epoch) implements Statement {
        @Override
        public String sql() {
            return HAND_BACK_LATER;
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.tenant(scope), Bind.group(scope), Bind.topic(scope),
                    Bind.of("partition_key", partitionKey), Bind.of("message_offset", afterOffset),
                    Bind.of("lease_epoch", epoch));
        }
    }

    /**
     * {@link #HAND_BACK_LATER} for every in-flight message of several leases at once (a graceful
     * release of many leases): the %s of the IN list are their partition keys, which bound the
     * rows read to those partitions, and each row must also carry its partition's lease epoch
     * (the pairs of the second %s). Binds: {@link HandBackLeases}.
     */
    static final String HAND_BACK_LEASES = StateSql.render("""
            UPDATE queue_delivery_state
            SET state = {PENDING}, visible_at = UTC_TIMESTAMP(6), updated_at = UTC_TIMESTAMP(6)
            WHERE tenant = ? AND consumer_group = ? AND topic = ? AND partition_key IN (%s)
              AND (partition_key, lease_epoch) IN (%s)
              AND state = {INFLIGHT} AND visible_at > UTC_TIMESTAMP(6)""");

    /** Binds of {@link #HAND_BACK_LEASES}: each lease's partition key, then each (key, epoch) pair. */
    record HandBackLeases(GroupScope scope, Map<String, Long> epochs) implements Statement {
        @Override
        public String sql() {
            return HAND_BACK_LEASES.formatted(Db.placeholders(epochs.size()),
                    String.join(", ", java.util.Collections.nCopies(epochs.size(), "(?, ?)")));
        }

        @Override
        public List<Bind> binds() {
            List<Bind> pairs = new ArrayList<>(2 * epochs.size());
            epochs.forEach((key, epoch) -> {
                pairs.add(Bind.of("partition_key", key));
                pairs.add(Bind.of("lease_epoch", epoch));
            });
            return Bind.list(Bind.tenant(scope), Bind.group(scope), Bind.topic(scope),
                    Bind.each("partition_key", List.copyOf(epochs.keySet())), pairs); // the rows, then their fencing
        }
    }

    /** The group's delivery row of one message. Binds: {@link MessageKey}. */
    static final String SELECT_DELIVERY_STATE = """
            SELECT state, lease_epoch, delivery_count, delivery_attempt FROM queue_delivery_state
            WHERE tenant = ? AND consumer_group = ? AND topic = ? AND partition_key = ? AND message_offset = ?""";

    /** Binds of {@link #SELECT_DELIVERY_STATE}: the group's row of one message. */
    record MessageKey(GroupScope scope, String partitionKey, long offset) implements Statement {
        @Override
        public String sql() {
            return SELECT_DELIVERY_STATE;
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.tenant(scope), Bind.group(scope), Bind.topic(scope),
                    Bind.of("partition_key", partitionKey), Bind.of("message_offset", offset));
        }
    }

    /** A row of {@link #SELECT_DELIVERY_STATE}. */
    record DeliveryRow(DeliveryState state, long leaseEpoch, long delivery, int attempt) {
        static final Db.RowMapper<DeliveryRow> ROW = rs -> new DeliveryRow(DeliveryState.of(rs.getString("state")),
                rs.getLong("lease_epoch"), rs.getLong("delivery_count"), rs.getInt("delivery_attempt"));

        /** Whether this row is the delivery {@code t} names: same lease epoch and delivery number. */
        boolean isDelivery(AckTarget t) {
            return leaseEpoch == t.leaseEpoch() && delivery == t.delivery();
        }
    }

    /** The message a dead letter copies. Binds: tenant, topic, partition_key, offset. */
    static final String SELECT_MESSAGE = """
            SELECT id, payload, metadata, traceparent, tracestate FROM queue_messages
            WHERE tenant = ? AND topic = ? AND partition_key = ? AND `offset` = ?""";

    /** Binds of {@link #SELECT_MESSAGE}: one message. */
    record SelectMessage(GroupScope scope, String partitionKey, long offset) implements Statement {
        @Override
        public String sql() {
            return SELECT_MESSAGE;
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.tenant(scope), Bind.topic(scope), Bind.of("partition_key", partitionKey),
                    Bind.of("offset", offset));
        }
    }

    /** A row of {@link #SELECT_MESSAGE}. */
    record MessageRow(String id, String payloadJson, String metadataJson, TraceContext trace) {
        static final Db.RowMapper<MessageRow> ROW = rs -> new MessageRow(rs.getString("id"), rs.getString("payload"),
                rs.getString("metadata"), TraceContext.stored(rs.getString("traceparent"), rs.getString("tracestate")));
    }

    /**
     * Message offsets of one partition above the committed offset with their delivery state;
     * walked to find the contiguous prefix of finished messages. One branch of a UNION ALL.
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

    /** Binds of one {@link #SELECT_PREFIX_STATES} branch, in placeholder order. */
    record SelectPrefixStates(GroupScope scope, String partitionKey, long committed, int limit) implements Branch {
        @Override
        public String sql() {
            return SELECT_PREFIX_STATES;
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.group(scope), // join d
                    Bind.tenant(scope), Bind.topic(scope), Bind.of("partition_key", partitionKey),
                    Bind.of("offset", committed), Bind.of("limit", limit));
        }
    }

    /** Finished delivery rows above the committed offset, per partition (%s is the IN list). */
    static final String COUNT_FINISHED = StateSql.render("""
            SELECT d.partition_key, COUNT(*) AS finished_rows FROM queue_delivery_state d
            JOIN queue_offsets o
              ON o.tenant = d.tenant AND o.topic = d.topic AND o.partition_key = d.partition_key
             AND o.consumer_group = d.consumer_group
            WHERE d.tenant = ? AND d.consumer_group = ? AND d.topic = ? AND d.partition_key IN (%s)
              AND d.state IN ({FINISHED}) AND d.message_offset > o.committed_offset
            GROUP BY d.partition_key""");

    /** Binds of {@link #COUNT_FINISHED}, in placeholder order; {@code keys} fills the IN list. */
    record CountFinished(GroupScope scope, List<String> keys) implements Statement {
        @Override
        public String sql() {
            return COUNT_FINISHED.formatted(Db.placeholders(keys.size()));
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.tenant(scope), Bind.group(scope), Bind.topic(scope), Bind.each("partition_key", keys));
        }
    }

    /**
     * Compare-and-set of the committed offsets of several partitions in one statement (the
     * {@code %s} as in {@link #OPEN_BATCHES}); the lease row locks make a mismatch a bug.
     */
    static final String ADVANCE_COMMITTED = ("""
            UPDATE queue_offsets SET committed_offset = %1$s, updated_at = UTC_TIMESTAMP(6)
            WHERE tenant = ? AND topic = ? AND consumer_group = ? AND partition_key IN (%%s)
              AND committed_offset = %1$s""").formatted(PER_PARTITION);

    /** One partition's move of its committed offset, for {@link AdvanceCommitted}. */
    record Advance(String partitionKey, long committed, long committedAsRead) {}

    /** Binds of {@link #ADVANCE_COMMITTED}, in placeholder order: the moves of one transaction, at least one. */
    record AdvanceCommitted(GroupScope scope, List<Advance> moves) implements Statement {
        @Override
        public String sql() {
            String p = Db.placeholders(moves.size());
            return ADVANCE_COMMITTED.formatted(p, p, p, p, p);
        }

        @Override
        public List<Bind> binds() {
            List<String> keys = moves.stream().map(Advance::partitionKey).toList();
            return Bind.list(Bind.each("partition_key", keys),
                    Bind.each("committed_offset", moves.stream().map(Advance::committed).toList()), // SET
                    Bind.tenant(scope), Bind.topic(scope), Bind.group(scope), Bind.each("partition_key", keys), // rows
                    Bind.each("partition_key", keys),
                    Bind.each("committed_offset", moves.stream().map(Advance::committedAsRead).toList())); // compare-and-set
        }
    }

    /**
     * {@link #ADVANCE_COMMITTED} and {@link #OPEN_BATCHES} in one statement, for a fetch that
     * carries acks (docs/api.md, "Fetch and ack in one call"): the committed offsets its ack
     * moves and the batches its walk opens, in whichever partitions, written by its last
     * statement. Each column takes the value given for the row's own partition, or keeps its own
     * where none is given ({@code FIELD} is 0, {@code ELT} NULL); so a partition only acked keeps
     * its batch columns, one only delivered from keeps its committed offset and
     * {@code updated_at} (the last commit, which the idle release reads), and one both acked and
     * delivered from gets both. Compare-and-set on the committed offset of each move and the
     * delivery number of each batch, as read under the lease row locks: fewer rows than
     * partitions is a bug. The assignments read no column that an earlier one writes (MySQL and
     * MariaDB assign left to right). The {@code %s} are filled by {@link AdvanceAndOpen}.
     */
    static final String ADVANCE_AND_OPEN = ("""
            UPDATE queue_offsets
            SET committed_offset = IFNULL(%1$s, committed_offset),
                updated_at = IF(FIELD(partition_key, %%s) > 0, UTC_TIMESTAMP(6), updated_at),
                delivered_offset = IFNULL(%1$s, delivered_offset),
                batch_messages = IFNULL(%1$s, batch_messages),
                batch_seq = IFNULL(%1$s, batch_seq),
                delivery_epoch = IFNULL(%1$s, delivery_epoch),
                delivery_seq = IFNULL(%1$s, delivery_seq),
                visible_at = IF(FIELD(partition_key, %%s) > 0, UTC_TIMESTAMP(6) + INTERVAL ? MICROSECOND, visible_at)
            WHERE tenant = ? AND topic = ? AND consumer_group = ? AND partition_key IN (%%s, %%s)
              AND committed_offset = IFNULL(%1$s, committed_offset)
              AND delivery_seq = IFNULL(%1$s, delivery_seq)""").formatted(PER_PARTITION);

    /**
     * Binds of {@link #ADVANCE_AND_OPEN}, in placeholder order: the committed offsets to move and
     * the batches to open, at least one of each, each list at most one entry per partition.
     */
    record AdvanceAndOpen(GroupScope scope, List<Advance> moves, long visibilityMicros, List<OpenBatch> batches)
            implements Statement {
        @Override
        public String sql() {
            String m = Db.placeholders(moves.size());
            String b = Db.placeholders(batches.size());
            return ADVANCE_AND_OPEN.formatted(m, m, m, b, b, b, b, b, b, b, b, b, b, b, m, b, m, m, b, b);
        }

        @Override
        public List<Bind> binds() {
            List<String> moved = moves.stream().map(Advance::partitionKey).toList();
            List<String> opened = batches.stream().map(OpenBatch::partitionKey).toList();
            return Bind.list(Bind.each("partition_key", moved),
                    Bind.each("committed_offset", moves.stream().map(Advance::committed).toList()),
                    Bind.each("partition_key", moved), // updated_at
                    Bind.each("partition_key", opened),
                    Bind.each("delivered_offset", batches.stream().map(OpenBatch::deliveredOffset).toList()),
                    Bind.each("partition_key", opened),
                    Bind.each("batch_messages", batches.stream().map(OpenBatch::messages).toList()),
                    Bind.each("partition_key", opened), Bind.each("batch_seq", batches.stream().map(OpenBatch::seq).toList()),
                    Bind.each("partition_key", opened), Bind.each("delivery_epoch", batches.stream().map(OpenBatch::epoch).toList()),
                    Bind.each("partition_key", opened), Bind.each("delivery_seq", batches.stream().map(OpenBatch::seq).toList()),
                    Bind.each("partition_key", opened), Bind.of("micros", visibilityMicros), // SET
                    Bind.tenant(scope), Bind.topic(scope), Bind.group(scope),
                    Bind.each("partition_key", moved), Bind.each("partition_key", opened), // rows
                    Bind.each("partition_key", moved),
                    Bind.each("committed_offset", moves.stream().map(Advance::committedAsRead).toList()),
                    Bind.each("partition_key", opened),
                    Bind.each("delivery_seq", batches.stream().map(OpenBatch::seqAsRead).toList())); // compare-and-set
        }

        /** The rows the statement writes: every partition named, once. */
        int partitions() {
            Set<String> keys = new HashSet<>();
            moves.forEach(a -> keys.add(a.partitionKey()));
            batches.forEach(b -> keys.add(b.partitionKey()));
            return keys.size();
        }
    }

    /**
     * Acknowledged delivery state at or below the committed offset is no longer needed. DEAD
     * rows stay (requeue needs them); in-flight, retry and pending rows there are requeued
     * messages still to deliver.
     */
    static final String PRUNE_DELIVERIES = StateSql.render("""
            DELETE FROM queue_delivery_state
            WHERE tenant = ? AND consumer_group = ? AND topic = ? AND partition_key = ? AND message_offset <= ?
              AND state = {ACKED}""");

    /** Binds of {@link #PRUNE_DELIVERIES}: the acknowledged rows at or below {@code committed}. */
    record PruneDeliveries(GroupScope scope, String partitionKey, long committed) implements Statement {
        @Override
        public String sql() {
            return PRUNE_DELIVERIES;
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.tenant(scope), Bind.group(scope), Bind.topic(scope),
                    Bind.of("partition_key", partitionKey), Bind.of("message_offset", committed));
        }
    }
}
