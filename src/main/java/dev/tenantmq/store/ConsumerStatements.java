package dev.tenantmq.store;

import dev.tenantmq.model.CommitWalk;
import dev.tenantmq.model.DeliveryState;
import dev.tenantmq.store.ConsumerSql.AckDelivery;
import dev.tenantmq.model.GroupScope;
import dev.tenantmq.model.Utf8Json;
import dev.tenantmq.store.ConsumerSql.Advance;
import dev.tenantmq.store.ConsumerSql.AdvanceAndOpen;
import dev.tenantmq.store.ConsumerSql.AdvanceCommitted;
import dev.tenantmq.store.ConsumerSql.CloseBatch;
import dev.tenantmq.store.ConsumerSql.CountFinished;
import dev.tenantmq.store.ConsumerSql.Cursor;
import dev.tenantmq.store.ConsumerSql.DeliveryRow;
import dev.tenantmq.store.ConsumerSql.ExtendDelivery;
import dev.tenantmq.store.ConsumerSql.HandBackLater;
import dev.tenantmq.store.ConsumerSql.InsertBatchDelivery;
import dev.tenantmq.store.ConsumerSql.LockHeldLeases;
import dev.tenantmq.store.ConsumerSql.LockLeases;
import dev.tenantmq.store.ConsumerSql.LockLeasesNotingHolder;
import dev.tenantmq.store.ConsumerSql.NotedLease;
import dev.tenantmq.store.ConsumerSql.LockedLease;
import dev.tenantmq.store.ConsumerSql.MarkDead;
import dev.tenantmq.store.ConsumerSql.MessageKey;
import dev.tenantmq.store.ConsumerSql.MessageRow;
import dev.tenantmq.store.ConsumerSql.NackDelivery;
import dev.tenantmq.store.ConsumerSql.OpenBatch;
import dev.tenantmq.store.ConsumerSql.OpenBatches;
import dev.tenantmq.store.ConsumerSql.PruneDeliveries;
import dev.tenantmq.store.ConsumerSql.ScanRequeued;
import dev.tenantmq.store.ConsumerSql.Scanned;
import dev.tenantmq.store.ConsumerSql.SelectBatchMessages;
import dev.tenantmq.store.ConsumerSql.SelectBatchRows;
import dev.tenantmq.store.ConsumerSql.SelectCursors;
import dev.tenantmq.store.ConsumerSql.SelectExpiredLastAttempts;
import dev.tenantmq.store.ConsumerSql.SelectMessage;
import dev.tenantmq.store.ConsumerSql.SelectPrefixStates;
import dev.tenantmq.store.ConsumerSql.SelectReadyPartitions;
import dev.tenantmq.store.ConsumerSql.UpdateRedelivery;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The statements of consumption ({@link ConsumerSql}) as typed methods: one per statement, taking
 * its binds record and returning its rows mapped, or, for a write, checking its update count
 * against the contract each method states ({@link UpdateCount}). The transactions
 * ({@link FetchTransaction}, {@link SettleTransaction}) and the two homes of state they write
 * ({@link DeliveryBatches}, {@link CommittedOffsets}) run SQL only through these.
 */
final class ConsumerStatements {
    private ConsumerStatements() {}

    // ---- reads without locks -------------------------------------------------------------

    /** {@link ConsumerSql#SELECT_READY_PARTITIONS}: partition keys, in key order. */
    static List<String> readyPartitions(Connection c, SelectReadyPartitions q) throws SQLException {
        return Db.list(c, q.sql(), q, rs -> rs.getString("partition_key"));
    }

    /** {@link ConsumerSql#SELECT_EXPIRED_LAST_ATTEMPTS}: partition keys, in key order. */
    static List<String> expiredLastAttempts(Connection c, SelectExpiredLastAttempts q) throws SQLException {
        return Db.list(c, q.sql(), q, rs -> rs.getString("partition_key"));
    }

    // ---- lease row locks -----------------------------------------------------------------

    /** {@link ConsumerSql#LOCK_LEASES}: locks the rows in key order; the epoch of each, in key order. */
    static Map<String, Long> lockLeases(Connection c, LockLeases q) throws SQLException {
        return epochs(Db.list(c, q.sql(), q, LockedLease.ROW));
    }

    /** {@link ConsumerSql#LOCK_HELD_LEASES}: locks the rows still held, in key order; their epochs, in key order. */
    static Map<String, Long> lockHeldLeases(Connection c, LockHeldLeases q) throws SQLException {
        return epochs(Db.list(c, q.sql(), q, LockedLease.ROW));
    }

    /**
     * {@link ConsumerSql#LOCK_LEASES_NOTING_HOLDER}: locks the rows in key order; each row, in key
     * order, with whether the subscriber holds it.
     */
    static List<NotedLease> lockLeasesNotingHolder(Connection c, LockLeasesNotingHolder q) throws SQLException {
        return Db.list(c, q.sql(), q, NotedLease.ROW);
    }

    private static Map<String, Long> epochs(List<LockedLease> locked) {
        Map<String, Long> epochs = new LinkedHashMap<>();
        locked.forEach(l -> epochs.put(l.partitionKey(), l.epoch()));
        return epochs;
    }

    // ---- reads under the lease row locks -------------------------------------------------

    /**
     * {@link ConsumerSql#SELECT_CURSORS}: the group's position per partition that has an offsets
     * row.
     */
    static Map<String, Cursor> cursors(Connection c, SelectCursors q) throws SQLException {
        Map<String, Cursor> cursors = new HashMap<>();
        for (Cursor cur : Db.list(c, q.sql(), q, Cursor.ROW)) {
            cursors.put(cur.key(), cur);
        }
        return cursors;
    }

    /**
     * What {@link ConsumerSql.SelectCursorsAndFirstScan} read: the cursor of each partition that
     * has an offsets row, and the rows the first scan read per partition, in offset order (none
     * while the topic is being deleted, as in {@link #scanPartitions}).
     */
    record CursorsAndFirstScan(Map<String, Cursor> cursors, Map<String, List<Scanned>> scanned) {}

    /** {@link ConsumerSql.SelectCursorsAndFirstScan}: its rows by {@code row_kind}. */
    static CursorsAndFirstScan cursorsAndFirstScan(Connection c, ConsumerSql.SelectCursorsAndFirstScan q)
            throws SQLException {
        Map<String, Cursor> cursors = new HashMap<>();
        Map<String, List<Scanned>> scanned = new HashMap<>();
        boolean[] deleting = {false};
        ColumnIndexes column = new ColumnIndexes();
        ConsumerSql.Rows scan = Scanned.rows();
        Statement union = q.union();
        Db.forEach(c, union.sql(), union, rs -> {
            boolean cursor = "cursor".equals(rs.getString(column.of(rs, "row_kind")));
            String key = scan.key(rs); // each column once, left to right (ConsumerSql.Rows)
            if (cursor) {
                cursors.put(key, Cursor.of(key, rs));
            } else if (DeletionSql.MARKER_KEY.equals(key)) {
                deleting[0] = true; // the marker's key, empty, is no partition's (docs/api.md, "Identifiers")
            } else {
                scanned.computeIfAbsent(key, k -> new ArrayList<>()).add(scan.message(key, rs));
            }
        });
        if (deleting[0]) {
            scanned.clear(); // the topic is being deleted: nothing of it goes out
        }
        scanned.values().forEach(list -> list.sort(Comparator.comparingLong(Scanned::offset)));
        return new CursorsAndFirstScan(cursors, scanned);
    }

    /**
     * {@link ConsumerSql.SelectCursorAndScanOne}: as {@link #cursorsAndFirstScan} for one
     * partition, or empty when it read no row (no offsets row, or no message above the offset),
     * where the union says which.
     */
    static Optional<CursorsAndFirstScan> cursorAndScanOne(Connection c, ConsumerSql.SelectCursorAndScanOne q)
            throws SQLException {
        Map<String, Cursor> cursors = new HashMap<>();
        List<Scanned> rows = new ArrayList<>();
        boolean[] deleting = {false};
        ColumnIndexes column = new ColumnIndexes();
        ConsumerSql.Rows scan = Scanned.rows();
        Db.forEach(c, q.sql(), q, rs -> {
            rows.add(scan.map(rs)); // the scan's columns come first: read left to right (ConsumerSql.Rows)
            if (cursors.isEmpty()) { // every row carries the same cursor
                // Its key is the one asked: the scan's WHERE names it, and no key ends in a space,
                // the one way two keys compare equal under the column's collation (docs/api.md,
                // "Identifiers").
                cursors.put(q.partitionKey(), Cursor.of(q.partitionKey(), rs));
                deleting[0] = rs.getLong(column.of(rs, "topic_deleting")) > 0;
            }
        });
        if (cursors.isEmpty()) {
            return Optional.empty();
        }
        Map<String, List<Scanned>> scanned = new HashMap<>();
        if (!deleting[0]) { // the topic is being deleted: nothing of it goes out
            scanned.put(q.partitionKey(), rows);
        }
        return Optional.of(new CursorsAndFirstScan(cursors, scanned));
    }

    /**
     * {@link ConsumerSql#SCAN_PARTITION} or {@link ConsumerSql#SCAN_UNDELIVERED}, one UNION ALL
     * branch per partition: rows by partition, in offset order; none while the topic is being
     * deleted.
     */
    static Map<String, List<Scanned>> scanPartitions(Connection c, GroupScope s, List<? extends ConsumerSql.Branch> branches)
            throws SQLException {
        return scan(c, s, branches);
    }

    /** {@link ConsumerSql#SCAN_REQUEUED}, one UNION ALL branch per partition: as {@link #scanPartitions}. */
    static Map<String, List<Scanned>> scanRequeued(Connection c, GroupScope s, List<ScanRequeued> branches) throws SQLException {
        return scan(c, s, branches);
    }

    private static Map<String, List<Scanned>> scan(Connection c, GroupScope s, List<? extends ConsumerSql.Branch> branches)
            throws SQLException {
        Map<String, List<Scanned>> rows = new HashMap<>();
        if (branches.isEmpty()) {
            return rows;
        }
        List<ConsumerSql.Branch> all = new ArrayList<>(branches);
        all.add(new ConsumerSql.ScanDeletionMarker(s)); // in the same statement, so the same snapshot
        Statement union = ConsumerSql.union(all);
        // The marker's row maps to null: its key, empty, is no partition's (docs/api.md, "Identifiers").
        ConsumerSql.Rows scan = Scanned.rows();
        List<Scanned> read = Db.list(c, union.sql(), union, rs -> {
            String key = scan.key(rs); // each column once, left to right (ConsumerSql.Rows)
            return DeletionSql.MARKER_KEY.equals(key) ? null : scan.message(key, rs);
        });
        if (read.contains(null)) {
            return rows; // the topic is being deleted: nothing of it goes out
        }
        for (Scanned m : read) {
            rows.computeIfAbsent(m.key(), k -> new ArrayList<>()).add(m);
        }
        rows.values().forEach(list -> list.sort(Comparator.comparingLong(Scanned::offset)));
        return rows;
    }

    /** {@link ConsumerSql#SELECT_PAYLOADS}: the payload of each message found, by partition and offset. */
    static Map<ConsumerSql.MessageAt, Utf8Json> payloads(Connection c, ConsumerSql.SelectPayloads q) throws SQLException {
        Map<ConsumerSql.MessageAt, Utf8Json> out = new HashMap<>();
        Db.forEach(c, q.sql(), q, rs -> out.put(new ConsumerSql.MessageAt(rs.getString("partition_key"),
                rs.getLong("offset")), Utf8Json.ofUtf8(rs.getBytes("payload"))));
        return out;
    }

    /** {@link ConsumerSql#SELECT_BATCH_MESSAGES}: offsets of the batch's messages without a row, in order. */
    static List<Long> batchMessages(Connection c, SelectBatchMessages q) throws SQLException {
        return Db.list(c, q.sql(), q, rs -> rs.getLong("offset"));
    }

    /** {@link ConsumerSql#SELECT_BATCH_ROWS}: per partition, the offsets inside its open batch that have a row. */
    static Map<String, Set<Long>> batchRows(Connection c, SelectBatchRows q) throws SQLException {
        Map<String, Set<Long>> rows = new HashMap<>();
        Db.forEach(c, q.sql(), q, rs -> rows.computeIfAbsent(rs.getString("partition_key"),
                k -> new HashSet<>()).add(rs.getLong("message_offset")));
        return rows;
    }

    /** {@link ConsumerSql#SELECT_DELIVERY_STATE}: the message's delivery row, if it has one. */
    static Optional<DeliveryRow> deliveryRow(Connection c, MessageKey q) throws SQLException {
        return Db.list(c, q.sql(), q, DeliveryRow.ROW).stream().findFirst();
    }

    /** {@link ConsumerSql#SELECT_MESSAGE}: the message, if it is stored. */
    static Optional<MessageRow> message(Connection c, SelectMessage q) throws SQLException {
        return Db.list(c, q.sql(), q, MessageRow.ROW).stream().findFirst();
    }

    /** {@link ConsumerSql#COUNT_FINISHED}: per partition with any, its finished rows above the committed offset. */
    static Map<String, Integer> countFinished(Connection c, CountFinished q) throws SQLException {
        Map<String, Integer> finished = new HashMap<>();
        Db.forEach(c, q.sql(), q, rs -> finished.put(rs.getString("partition_key"), rs.getInt("finished_rows")));
        return finished;
    }

    /**
     * {@link ConsumerSql#SELECT_PREFIX_STATES}, one UNION ALL branch per partition: the messages
     * above the committed offset with their state, by partition, each in offset order.
     */
    static Map<String, List<CommitWalk.Row>> prefixStates(Connection c, List<SelectPrefixStates> branches)
            throws SQLException {
        Map<String, List<CommitWalk.Row>> rows = new HashMap<>();
        if (branches.isEmpty()) {
            return rows;
        }
        Statement union = ConsumerSql.union(branches);
        Db.forEach(c, union.sql(), union, rs -> rows.computeIfAbsent(rs.getString("partition_key"),
                k -> new ArrayList<>()).add(new CommitWalk.Row(rs.getLong("offset"), DeliveryState.of(rs.getString("state")))));
        rows.values().forEach(list -> list.sort(Comparator.comparingLong(CommitWalk.Row::offset)));
        return rows;
    }

    // ---- writes --------------------------------------------------------------------------

    /**
     * {@link ConsumerSql#OPEN_BATCHES}, one statement for every partition a fetch handed messages
     * out of: exactly one offsets row each (compare-and-set on the seq read). None: no statement.
     */
    static void openBatches(Connection c, GroupScope s, long visibilityMicros, List<OpenBatch> batches)
            throws SQLException {
        if (batches.isEmpty()) {
            return;
        }
        OpenBatches q = new OpenBatches(s, visibilityMicros, batches);
        UpdateCount.EXACTLY_ONE.checkRows(Db.update(c, q.sql(), q), batches.size(), "open delivery batches");
    }

    /** {@link ConsumerSql#INSERT_BATCH_DELIVERY}, one JDBC batch: exactly one row each. */
    static void insertBatchDeliveries(Connection c, List<InsertBatchDelivery> rows) throws SQLException {
        UpdateCount.EXACTLY_ONE.checkEach(Db.updateEach(c, ConsumerSql.INSERT_BATCH_DELIVERY, rows),
                "materialize batch delivery");
    }

    /** {@link ConsumerSql#CLOSE_BATCH}: exactly one offsets row (compare-and-set on the seq read). */
    static void closeBatch(Connection c, CloseBatch q) throws SQLException {
        // One-element JDBC batch, as the batch writes around it.
        UpdateCount.EXACTLY_ONE.checkEach(Db.updateEach(c, q.sql(), List.of(q)), "close delivery batch");
    }

    /** {@link ConsumerSql#FORGET_BATCH_SIZES}: at most one row per (partition, group). */
    static void forgetBatchSizes(Connection c, ConsumerSql.ForgetBatchSizes q) throws SQLException {
        UpdateCount.AT_MOST_ONE.checkRows(Db.update(c, q.sql(), q), q.keys().size() * q.groups().size(),
                "forget batch sizes");
    }

    /** {@link ConsumerSql#UPDATE_REDELIVERY}, one JDBC batch: exactly one delivery row each (fenced as read). */
    static void redeliver(Connection c, List<UpdateRedelivery> rows) throws SQLException {
        UpdateCount.EXACTLY_ONE.checkEach(Db.updateEach(c, ConsumerSql.UPDATE_REDELIVERY, rows), "redeliver");
    }

    /** {@link ConsumerSql#MARK_DEAD}: exactly one delivery row (fenced as read). */
    static void markDead(Connection c, MarkDead q) throws SQLException {
        UpdateCount.EXACTLY_ONE.check(Db.update(c, q.sql(), q), "mark dead");
    }

    /** {@link ConsumerSql#ACK_DELIVERY}: at most one row; true when the receipt's delivery was current. */
    static boolean ackDelivery(Connection c, AckDelivery q) throws SQLException {
        return UpdateCount.AT_MOST_ONE.check(Db.update(c, q.sql(), q), "fenced ack") == 1;
    }

    /** {@link ConsumerSql#EXTEND_DELIVERY}: at most one row; true when the receipt's delivery was current. */
    static boolean extendDelivery(Connection c, ExtendDelivery q) throws SQLException {
        return UpdateCount.AT_MOST_ONE.check(Db.update(c, q.sql(), q), "fenced extend") == 1;
    }

    /** {@link ConsumerSql#NACK_DELIVERY}: at most one row; true when the receipt's delivery was current. */
    static boolean nackDelivery(Connection c, NackDelivery q) throws SQLException {
        return UpdateCount.AT_MOST_ONE.check(Db.update(c, q.sql(), q), "fenced nack") == 1;
    }

    /** {@link ConsumerSql#HAND_BACK_LATER}: any number of in-flight rows; how many went back. */
    static int handBackLater(Connection c, HandBackLater q) throws SQLException {
        return UpdateCount.ANY.check(Db.update(c, q.sql(), q), "hand back");
    }

    /** {@link ConsumerSql#HAND_BACK_LEASES}: any number of in-flight rows; how many went back. */
    static int handBackLeases(Connection c, ConsumerSql.HandBackLeases q) throws SQLException {
        return UpdateCount.ANY.check(Db.update(c, q.sql(), q), "hand back of leases");
    }

    /**
     * {@link ConsumerSql#ADVANCE_COMMITTED}, one statement for every partition whose committed
     * offset moves: exactly one offsets row each (compare-and-set). None: no statement.
     */
    static void advanceCommitted(Connection c, GroupScope s, List<Advance> moves) throws SQLException {
        if (moves.isEmpty()) {
            return;
        }
        AdvanceCommitted q = new AdvanceCommitted(s, moves);
        UpdateCount.EXACTLY_ONE.checkRows(Db.update(c, q.sql(), q), moves.size(), "advance committed offsets");
    }

    /**
     * {@link ConsumerSql#ADVANCE_AND_OPEN}: the moves of {@link #advanceCommitted} and the batches
     * of {@link #openBatches} in one statement, exactly one offsets row per partition named
     * (compare-and-set). Either list empty: the other's own statement; both: none.
     */
    static void advanceAndOpen(Connection c, GroupScope s, List<Advance> moves, long visibilityMicros,
                               List<OpenBatch> batches) throws SQLException {
        if (moves.isEmpty() || batches.isEmpty()) {
            advanceCommitted(c, s, moves);
            openBatches(c, s, visibilityMicros, batches);
            return;
        }
        AdvanceAndOpen q = new AdvanceAndOpen(s, moves, visibilityMicros, batches);
        UpdateCount.EXACTLY_ONE.checkRows(Db.update(c, q.sql(), q), q.partitions(),
                "advance committed offsets and open delivery batches");
    }

    /** {@link ConsumerSql#PRUNE_DELIVERIES}, one JDBC batch: any number of acknowledged rows each. */
    static void pruneDeliveries(Connection c, List<PruneDeliveries> rows) throws SQLException {
        UpdateCount.ANY.checkEach(Db.updateEach(c, ConsumerSql.PRUNE_DELIVERIES, rows), "prune deliveries");
    }
}
