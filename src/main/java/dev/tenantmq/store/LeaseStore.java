package dev.tenantmq.store;

import dev.tenantmq.model.GroupScope;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * SQL of the scheduler: {@code queue_subscriber_heartbeats} and {@code queue_partition_leases}
 * (SPEC section 5). Every statement is scoped to one (tenant, consumer_group, topic); expiry is
 * always compared with {@code UTC_TIMESTAMP(6)}, the database clock, never a JVM clock.
 */
@ApplicationScoped
public class LeaseStore {

    /** A subscriber's heartbeat: inserted, or its last_seen_at moved. Binds: {@link UpsertHeartbeat}. */
    static final String UPSERT_HEARTBEAT = """
            INSERT INTO queue_subscriber_heartbeats
              (tenant, consumer_group, topic, subscriber_name, started_at, last_seen_at)
            VALUES (?, ?, ?, ?, UTC_TIMESTAMP(6), UTC_TIMESTAMP(6))
            ON DUPLICATE KEY UPDATE last_seen_at = UTC_TIMESTAMP(6)""";

    /** Binds of {@link #UPSERT_HEARTBEAT}, in placeholder order. */
    record UpsertHeartbeat(GroupScope scope, String subscriber) implements Statement {
        @Override
        public String sql() {
            return UPSERT_HEARTBEAT;
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.tenant(scope), Bind.group(scope), Bind.topic(scope), Bind.of("subscriber_name", subscriber));
        }
    }

    /** Subscribers whose heartbeat is younger than ? microseconds. Binds: {@link SelectLiveSubscribers}. */
    static final String SELECT_LIVE_SUBSCRIBERS = """
            SELECT subscriber_name FROM queue_subscriber_heartbeats
            WHERE tenant = ? AND consumer_group = ? AND topic = ?
              AND last_seen_at > UTC_TIMESTAMP(6) - INTERVAL ? MICROSECOND
            ORDER BY subscriber_name""";

    /** Binds of {@link #SELECT_LIVE_SUBSCRIBERS}, in placeholder order. */
    record SelectLiveSubscribers(GroupScope scope, long heartbeatTimeoutMicros) implements Statement {
        @Override
        public String sql() {
            return SELECT_LIVE_SUBSCRIBERS;
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.tenant(scope), Bind.group(scope), Bind.topic(scope), Bind.of("micros", heartbeatTimeoutMicros));
        }
    }

    /** The triple's lease rows. Binds: {@link SelectLeases}; mapped by {@link #LEASE_ROW}. */
    static final String SELECT_LEASES = """
            SELECT partition_key, leased_by, epoch, expires_at <= UTC_TIMESTAMP(6) AS expired
            FROM queue_partition_leases
            WHERE tenant = ? AND consumer_group = ? AND topic = ?""";

    /** Binds of {@link #SELECT_LEASES}, in placeholder order. */
    record SelectLeases(GroupScope scope) implements Statement {
        @Override
        public String sql() {
            return SELECT_LEASES;
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.tenant(scope), Bind.group(scope), Bind.topic(scope));
        }
    }

    /**
     * The lease rows of the given partitions of the triple (%s: their keys), read back by
     * {@link #acquire} to tell which it won: the rows of one statement's worth of partitions, not
     * every lease row of a large topic. Mapped by {@link #LEASE_ROW}.
     */
    static final String SELECT_LEASES_OF = SELECT_LEASES + " AND partition_key IN (%s)";

    /** Binds of {@link #SELECT_LEASES_OF}, in placeholder order ({@code keys} fill the IN list). */
    record SelectLeasesOf(GroupScope scope, List<String> keys) implements Statement {
        /** The statement with its IN list for {@code keys}. */
        @Override
        public String sql() {
            return SELECT_LEASES_OF.formatted(Db.placeholders(keys.size()));
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.tenant(scope), Bind.group(scope), Bind.topic(scope), Bind.each("partition_key", keys));
        }
    }

    /**
     * Most rows one statement of {@link #acquire} writes or compares (lease inserts, takeovers,
     * offsets rows, read-backs): a tick acquiring 5,000 leases runs about 30 statements, not
     * thousands, and no statement grows with the topic (docs/architecture.md,
     * "The scheduler's tick").
     */
    static final int ACQUIRE_ROWS_PER_STATEMENT = 500;

    /** One VALUES row of {@link #INSERT_LEASE}; binds: {@link InsertLease}. */
    private static final String LEASE_VALUES =
            "(?, ?, ?, ?, ?, 1, UTC_TIMESTAMP(6) + INTERVAL ? MICROSECOND, UTC_TIMESTAMP(6), UTC_TIMESTAMP(6))";

    /**
     * Creates the lease of a partition nobody has leased yet, with epoch 1. When another
     * subscriber inserted it first the no-op update leaves its row alone; the caller re-reads.
     * {@link #insertLeases} repeats the VALUES row, one per partition.
     */
    static final String INSERT_LEASE = """
            INSERT INTO queue_partition_leases
              (tenant, consumer_group, topic, partition_key, leased_by, epoch, expires_at, acquired_at, renewed_at)
            VALUES """ + LEASE_VALUES + """

            ON DUPLICATE KEY UPDATE epoch = epoch""";

    /** {@link #INSERT_LEASE} with one VALUES row per record: one statement for them all. */
    static Statement insertLeases(List<InsertLease> rows) {
        return multiRow(INSERT_LEASE, LEASE_VALUES, rows);
    }

    /** {@code sql} with its one VALUES row {@code row} repeated for each of {@code rows}, and their binds in order. */
    private static Statement multiRow(String sql, String row, List<? extends Statement> rows) {
        List<Bind> binds = new ArrayList<>();
        rows.forEach(r -> binds.addAll(r.binds()));
        return Statement.of(sql.replace(row, String.join(",\n  ", java.util.Collections.nCopies(rows.size(), row))), binds);
    }

    /** Binds of one row of {@link #INSERT_LEASE}, in placeholder order. */
    record InsertLease(GroupScope scope, String partitionKey, String subscriber, long leaseMicros) implements Statement {
        @Override
        public String sql() {
            return INSERT_LEASE;
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.tenant(scope), Bind.group(scope), Bind.topic(scope), Bind.of("partition_key", partitionKey), Bind.of("leased_by", subscriber), // row
                    Bind.of("micros", leaseMicros)); // expires_at
        }
    }

    /**
     * Takes over expired (or released) leases: compare-and-set on each one's epoch read a
     * moment ago (the (partition_key, epoch) pairs of %s), so of two subscribers racing for a
     * lease exactly one changes its row. Bumps the epoch, which fences every receipt of the
     * previous holder. The rows are locked in index order, as fetch and ack lock them.
     */
    static final String TAKE_OVER_LEASES = """
            UPDATE queue_partition_leases
            SET leased_by = ?, epoch = epoch + 1, expires_at = UTC_TIMESTAMP(6) + INTERVAL ? MICROSECOND,
                acquired_at = UTC_TIMESTAMP(6), renewed_at = UTC_TIMESTAMP(6)
            WHERE tenant = ? AND consumer_group = ? AND topic = ? AND (partition_key, epoch) IN (%s)
              AND expires_at <= UTC_TIMESTAMP(6)""";

    /** Binds of {@link #TAKE_OVER_LEASES}, in placeholder order ({@code leases} fill the pairs). */
    record TakeOverLeases(String subscriber, long leaseMicros, GroupScope scope, List<Lease> leases)
            implements Statement {
        @Override
        public String sql() {
            return TAKE_OVER_LEASES.formatted(String.join(", ", java.util.Collections.nCopies(leases.size(), "(?, ?)")));
        }

        @Override
        public List<Bind> binds() {
            List<Bind> pairs = new ArrayList<>(2 * leases.size());
            for (Lease l : leases) { // compare-and-set: each lease's epoch as read
                pairs.add(Bind.of("partition_key", l.partitionKey()));
                pairs.add(Bind.of("epoch", l.epoch()));
            }
            return Bind.list(Bind.of("leased_by", subscriber), Bind.of("micros", leaseMicros), // SET
                    Bind.tenant(scope), Bind.group(scope), Bind.topic(scope), pairs); // rows
        }
    }

    /**
     * Renews the unexpired leases this subscriber holds in the triple that were last renewed at
     * least ? microseconds ago ({@code LeaseShare.renewAfter}): the younger ones are left for a
     * later tick, so a tick does not rewrite every lease row of a large topic. Fenced by holder (a
     * takeover by another subscriber changes leased_by) and by expiry: a lease that expired or was
     * released is anyone's to take over with a new epoch, this subscriber's included, and is never
     * revived here with its old epoch.
     */
    static final String RENEW_LEASES = """
            UPDATE queue_partition_leases
            SET expires_at = UTC_TIMESTAMP(6) + INTERVAL ? MICROSECOND, renewed_at = UTC_TIMESTAMP(6)
            WHERE tenant = ? AND consumer_group = ? AND topic = ? AND leased_by = ? AND expires_at > UTC_TIMESTAMP(6)
              AND renewed_at <= UTC_TIMESTAMP(6) - INTERVAL ? MICROSECOND""";

    /** Binds of {@link #RENEW_LEASES}, in placeholder order. */
    record RenewLeases(long leaseMicros, GroupScope scope, String subscriber, long renewAfterMicros) implements Statement {
        @Override
        public String sql() {
            return RENEW_LEASES;
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.of("micros", leaseMicros), // SET expires_at
                    Bind.tenant(scope), Bind.group(scope), Bind.topic(scope), Bind.of("leased_by", subscriber), // the holder's rows
                    Bind.of("micros", renewAfterMicros)); // last renewed at least this long ago
        }
    }

    /**
     * Those of the given partitions (%s: their keys) where the group still has something to
     * deliver, which is also where anything in flight lies ({@link ConsumerSql#partitionHasWork}:
     * a message above the committed offset, where every batch and in-flight row is, or an
     * unfinished (requeued) delivery at or below it). A partition not returned has nothing to
     * deliver and nothing in flight (one without an offsets row was never delivered). Read after
     * {@link ConsumerSql#LOCK_HELD_LEASES}, in the same transaction. Binds: {@link SelectHasWork}
     * (queue_offsets key order).
     */
    static final String SELECT_HAS_WORK = StateSql.render("""
            SELECT o.partition_key FROM queue_offsets o
            WHERE o.tenant = ? AND o.topic = ? AND o.partition_key IN (%%s) AND o.consumer_group = ?
              AND %s""".formatted(ConsumerSql.partitionHasWork()));

    /**
     * Gives up the given leases (%s: their keys) of this subscriber: they expire now, so any
     * subscriber may take them over at once, with a new epoch. Run on rows that
     * {@link ConsumerSql#LOCK_HELD_LEASES} locked in the same transaction and found under the
     * expected epoch, so it changes exactly one row per key: no expiry test here, since a lease
     * that reaches its expiry after the lock is still this subscriber's to give up.
     * Binds: {@link ReleaseLeases}.
     */
    static final String RELEASE_LEASES = """
            UPDATE queue_partition_leases
            SET expires_at = UTC_TIMESTAMP(6)
            WHERE tenant = ? AND consumer_group = ? AND topic = ? AND partition_key IN (%s)
              AND leased_by = ?""";

    /** Binds of {@link #SELECT_HAS_WORK}, in placeholder order (queue_offsets key order). */
    record SelectHasWork(GroupScope scope, List<String> keys) implements Statement {
        @Override
        public String sql() {
            return SELECT_HAS_WORK.formatted(Db.placeholders(keys.size()));
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.tenant(scope), Bind.topic(scope), Bind.each("partition_key", keys), Bind.group(scope));
        }
    }

    /** Binds of {@link #RELEASE_LEASES}, in placeholder order ({@code keys} fill the IN list). */
    record ReleaseLeases(GroupScope scope, List<String> keys, String subscriber) implements Statement {
        @Override
        public String sql() {
            return RELEASE_LEASES.formatted(Db.placeholders(keys.size()));
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.tenant(scope), Bind.group(scope), Bind.topic(scope), Bind.each("partition_key", keys), // rows
                    Bind.of("leased_by", subscriber)); // ours, locked above
        }
    }

    /**
     * Releases all leases of one subscriber in the triple (shutdown, interest dropped).
     * Binds: {@link ReleaseAllLeases}.
     */
    static final String RELEASE_ALL_LEASES = """
            UPDATE queue_partition_leases
            SET expires_at = UTC_TIMESTAMP(6)
            WHERE tenant = ? AND consumer_group = ? AND topic = ? AND leased_by = ? AND expires_at > UTC_TIMESTAMP(6)""";

    /** Binds of {@link #RELEASE_ALL_LEASES}, in placeholder order. */
    record ReleaseAllLeases(GroupScope scope, String subscriber) implements Statement {
        @Override
        public String sql() {
            return RELEASE_ALL_LEASES;
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.tenant(scope), Bind.group(scope), Bind.topic(scope), Bind.of("leased_by", subscriber));
        }
    }

    /**
     * Orphan sweep: ends the leases of holders without a live heartbeat (%s lists the live
     * subscribers), so the partitions can be taken over without waiting for lease expiry. The
     * list was read earlier in the tick, and the process may have paused since (GC, SIGSTOP): a
     * holder that joined meanwhile is missing from it. So a lease is swept only when, judged now
     * by the database clock, it was also not renewed for ? microseconds (the heartbeat timeout;
     * a live holder renews well within it) and its holder has no heartbeat younger than ?
     * microseconds (the heartbeat timeout) either: a live holder whose ticks run late keeps its
     * leases too. Under READ COMMITTED the heartbeat rows are a consistent read, not locked.
     */
    static final String SWEEP_ORPHAN_LEASES = """
            UPDATE queue_partition_leases
            SET expires_at = UTC_TIMESTAMP(6)
            WHERE tenant = ? AND consumer_group = ? AND topic = ?
              AND expires_at > UTC_TIMESTAMP(6) AND leased_by NOT IN (%s)
              AND renewed_at < UTC_TIMESTAMP(6) - INTERVAL ? MICROSECOND
              AND NOT EXISTS (
                SELECT 1 FROM queue_subscriber_heartbeats h
                WHERE h.tenant = ? AND h.consumer_group = ? AND h.topic = ?
                  AND h.subscriber_name = queue_partition_leases.leased_by
                  AND h.last_seen_at > UTC_TIMESTAMP(6) - INTERVAL ? MICROSECOND)""";

    /** Binds of {@link #SWEEP_ORPHAN_LEASES}, in placeholder order ({@code live} fills the IN list). */
    record SweepOrphanLeases(GroupScope scope, List<String> live, long heartbeatTimeoutMicros) implements Statement {
        /** The statement with its IN list for {@code live}. */
        @Override
        public String sql() {
            return SWEEP_ORPHAN_LEASES.formatted(Db.placeholders(live.size()));
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.tenant(scope), Bind.group(scope), Bind.topic(scope), Bind.each("leased_by", live), // NOT IN: the live subscribers
                    Bind.of("micros", heartbeatTimeoutMicros), // not renewed for this long
                    Bind.tenant(scope), Bind.group(scope), Bind.topic(scope), // the holder's heartbeat row
                    Bind.of("micros", heartbeatTimeoutMicros)); // no heartbeat this recent
        }
    }

    /**
     * Partitions idle for the group: everything committed (nothing above the committed offset),
     * no commit for ? microseconds, and no unfinished delivery at or below the committed offset
     * either: an admin requeue puts a dead letter back there (PENDING), and its partition must
     * be leased to deliver it. Only rows at or below the committed offset are probed (DEAD and
     * requeued ones, since acknowledged rows there are pruned): above it the first test decides,
     * and probing the whole in-flight window made each scheduler tick about 50% slower. "Nothing
     * above the committed offset" reads the partition's head and, only when the head is above the
     * committed offset, its newest stored message ({@link ConsumerSql#nothingAboveCommitted}): an
     * idle partition costs a head look-up, not a read of every message it still stores
     * (docs/operations.md, "Counting messages").
     */
    static final String SELECT_IDLE_PARTITIONS = StateSql.render("""
            SELECT o.partition_key FROM queue_offsets o
            WHERE o.tenant = ? AND o.topic = ? AND o.consumer_group = ?
              AND o.updated_at < UTC_TIMESTAMP(6) - INTERVAL ? MICROSECOND
              AND %s
              AND NOT EXISTS (
                  SELECT 1 FROM queue_delivery_state d
                  WHERE d.tenant = o.tenant AND d.consumer_group = o.consumer_group AND d.topic = o.topic
                    AND d.partition_key = o.partition_key AND d.message_offset <= o.committed_offset
                    AND d.state IN ({UNFINISHED}))""".formatted(ConsumerSql.nothingAboveCommitted().indent(14).strip()));

    /** Binds of {@link #SELECT_IDLE_PARTITIONS}, in placeholder order (queue_offsets key order). */
    record SelectIdlePartitions(GroupScope scope, long idleMicros) implements Statement {
        @Override
        public String sql() {
            return SELECT_IDLE_PARTITIONS;
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.tenant(scope), Bind.topic(scope), Bind.group(scope), Bind.of("micros", idleMicros));
        }
    }

    /**
     * Partitions of the triple with a delivery in flight within its visibility timeout (an
     * expired one is a failed attempt already, whatever happens to the lease).
     * Binds: {@link SelectBusyPartitions}.
     */
    static final String SELECT_BUSY_PARTITIONS = StateSql.render("""
            SELECT DISTINCT partition_key FROM queue_delivery_state
            WHERE tenant = ? AND consumer_group = ? AND topic = ? AND state = {INFLIGHT}
              AND visible_at > UTC_TIMESTAMP(6)""");

    /** Binds of {@link #SELECT_BUSY_PARTITIONS}, in placeholder order. */
    record SelectBusyPartitions(GroupScope scope) implements Statement {
        @Override
        public String sql() {
            return SELECT_BUSY_PARTITIONS;
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.tenant(scope), Bind.group(scope), Bind.topic(scope));
        }
    }

    /**
     * Partitions of the triple whose open delivery batch (migration V3) is within its visibility
     * timeout and still holds a message (not all deleted, see
     * {@link ConsumerSql#batchHoldsAMessage}). Binds (queue_offsets key order): tenant, topic,
     * consumer_group.
     */
    static final String SELECT_BUSY_BATCHES = """
            SELECT o.partition_key FROM queue_offsets o
            WHERE o.tenant = ? AND o.topic = ? AND o.consumer_group = ?
              AND o.delivered_offset > o.committed_offset AND o.visible_at > UTC_TIMESTAMP(6)
              AND %s""".formatted(ConsumerSql.batchHoldsAMessage());

    /** Binds of {@link #SELECT_BUSY_BATCHES}, in placeholder order (queue_offsets key order). */
    record SelectBusyBatches(GroupScope scope) implements Statement {
        @Override
        public String sql() {
            return SELECT_BUSY_BATCHES;
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.tenant(scope), Bind.topic(scope), Bind.group(scope));
        }
    }

    /** One VALUES row of {@link #ENSURE_OFFSET_ROW}; binds: {@link EnsureOffsetRow}. */
    private static final String OFFSET_VALUES =
            "(?, ?, ?, ?, 0, TIMESTAMPDIFF(MICROSECOND, '1970-01-01', UTC_TIMESTAMP(6)), UTC_TIMESTAMP(6))";

    /**
     * Starting point of a new partition for the group: nothing committed, and hand-outs numbered
     * from the database clock in microseconds ({@code delivery_seq}, which receipts carry), not
     * from 0: a group or topic deleted and created again must not hand out the delivery numbers
     * of its earlier self, whose receipts would otherwise settle the new deliveries (an earlier
     * self made fewer hand-outs than microseconds passed before this row was created). The
     * {@link #ensureOffsetRows} repeats the VALUES row, one per partition.
     */
    static final String ENSURE_OFFSET_ROW = """
            INSERT INTO queue_offsets
              (tenant, topic, partition_key, consumer_group, committed_offset, delivery_seq, updated_at)
            VALUES """ + OFFSET_VALUES + """

            ON DUPLICATE KEY UPDATE committed_offset = committed_offset""";

    /** {@link #ENSURE_OFFSET_ROW} with one VALUES row per record: one statement for them all. */
    static Statement ensureOffsetRows(List<EnsureOffsetRow> rows) {
        return multiRow(ENSURE_OFFSET_ROW, OFFSET_VALUES, rows);
    }

    /** Binds of one row of {@link #ENSURE_OFFSET_ROW}, in placeholder order (queue_offsets key order). */
    record EnsureOffsetRow(GroupScope scope, String partitionKey) implements Statement {
        @Override
        public String sql() {
            return ENSURE_OFFSET_ROW;
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.tenant(scope), Bind.topic(scope), Bind.of("partition_key", partitionKey),
                    Bind.group(scope));
        }
    }

    /** Heartbeats older than ? microseconds belong to dead subscribers. Binds: {@link PurgeStaleHeartbeats}. */
    static final String PURGE_STALE_HEARTBEATS = """
            DELETE FROM queue_subscriber_heartbeats
            WHERE tenant = ? AND consumer_group = ? AND topic = ?
              AND last_seen_at < UTC_TIMESTAMP(6) - INTERVAL ? MICROSECOND""";

    /** Binds of {@link #PURGE_STALE_HEARTBEATS}, in placeholder order. */
    record PurgeStaleHeartbeats(GroupScope scope, long heartbeatTimeoutMicros) implements Statement {
        @Override
        public String sql() {
            return PURGE_STALE_HEARTBEATS;
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.tenant(scope), Bind.group(scope), Bind.topic(scope), Bind.of("micros", heartbeatTimeoutMicros));
        }
    }

    /** A subscriber's heartbeat. Binds: {@link DeleteHeartbeat}. */
    static final String DELETE_HEARTBEAT = """
            DELETE FROM queue_subscriber_heartbeats
            WHERE tenant = ? AND consumer_group = ? AND topic = ? AND subscriber_name = ?""";

    /** Binds of {@link #DELETE_HEARTBEAT}, in placeholder order. */
    record DeleteHeartbeat(GroupScope scope, String subscriber) implements Statement {
        @Override
        public String sql() {
            return DELETE_HEARTBEAT;
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.tenant(scope), Bind.group(scope), Bind.topic(scope), Bind.of("subscriber_name", subscriber));
        }
    }

    private final Db db;

    LeaseStore(Db db) {
        this.db = db;
    }


    /** A lease row as read. {@code expired} is judged by the database clock. */
    public record Lease(String partitionKey, String leasedBy, long epoch, boolean expired) {}

    /** Maps a row of {@link #SELECT_LEASES}. */
    private static final Db.RowMapper<Lease> LEASE_ROW = rs -> new Lease(rs.getString("partition_key"),
            rs.getString("leased_by"), rs.getLong("epoch"), rs.getBoolean("expired"));

    /**
     * Upserts this subscriber's heartbeat and returns the live subscribers of the triple
     * (heartbeat younger than {@code heartbeatTimeoutMicros}), this one included, sorted.
     */
    public List<String> heartbeat(GroupScope t, String subscriber, long heartbeatTimeoutMicros) {
        return db.inTransaction(Db.Isolation.READ_COMMITTED, c -> {
            Db.update(c, UPSERT_HEARTBEAT, new UpsertHeartbeat(t, subscriber)); // inserts or updates one row
            return Db.list(c, SELECT_LIVE_SUBSCRIBERS, new SelectLiveSubscribers(t, heartbeatTimeoutMicros),
                    rs -> rs.getString("subscriber_name"));
        });
    }

    /** All lease rows of the triple. */
    public List<Lease> leases(GroupScope t) {
        return db.read(c -> readLeases(c, t));
    }

    private static List<Lease> readLeases(Connection c, GroupScope t) throws SQLException {
        return Db.list(c, SELECT_LEASES, new SelectLeases(t), LEASE_ROW);
    }

    /**
     * Renews this subscriber's unexpired leases in the triple that were last renewed at least
     * {@code renewAfterMicros} ago (0: all of them), to expire {@code leaseMicros} from now by the
     * database clock.
     *
     * @return how many lease rows were renewed
     */
    public int renew(GroupScope t, String subscriber, long leaseMicros, long renewAfterMicros) {
        return db.inTransaction(Db.Isolation.READ_COMMITTED, c -> {
            return Db.update(c, RENEW_LEASES, new RenewLeases(leaseMicros, t, subscriber, renewAfterMicros));
        });
    }

    /**
     * Acquires leases: inserts the never-leased partitions in {@code fresh}, takes over the
     * expired leases in {@code expired} (by compare-and-set on their epoch), and makes sure
     * every partition acquired has a committed-offset row. Each kind is written with multi-row
     * statements of at most {@link #ACQUIRE_ROWS_PER_STATEMENT} rows, in lock order
     * ({@link #inLockOrder}), so the statements grow with neither the topic nor the share;
     * reading those rows back, as many at a time, then tells which leases this subscriber won.
     *
     * @return how many leases this subscriber won
     */
    public int acquire(GroupScope t, String subscriber, Collection<String> fresh, Collection<Lease> expired, long leaseMicros) {
        return acquired(t, subscriber, fresh, expired, leaseMicros).size();
    }

    /**
     * {@link #acquire}, returning the partitions whose leases this subscriber won (the scheduler
     * signals them by name: docs/architecture.md, "News between looks").
     */
    public List<String> acquired(GroupScope t, String subscriber, Collection<String> fresh, Collection<Lease> expired,
                                 long leaseMicros) {
        if (fresh.isEmpty() && expired.isEmpty()) {
            return List.of();
        }
        List<String> freshKeys = fresh.stream().distinct().sorted(LeaseStore::byBytes).toList();
        List<Lease> takeOver = inLockOrder(expired);
        return db.inTransaction(Db.Isolation.READ_COMMITTED, c -> {
            for (List<String> chunk : chunks(freshKeys)) {
                Statement insert = insertLeases(chunk.stream()
                        .map(key -> new InsertLease(t, key, subscriber, leaseMicros)).toList());
                // 1 per row inserted, 0 for a row another subscriber inserted first (the no-op update)
                atMostOnePerRow(Db.update(c, insert.sql(), insert), chunk.size(), "lease insert");
            }
            for (List<Lease> chunk : chunks(takeOver)) {
                TakeOverLeases update = new TakeOverLeases(subscriber, leaseMicros, t, chunk);
                atMostOnePerRow(Db.update(c, update.sql(), update), chunk.size(), "lease takeover");
            }
            // Ours now: a fresh lease at epoch 1, a taken-over one at the epoch read plus one (the
            // rows this transaction changed are locked until it commits, so they read as written).
            java.util.Set<String> freshSet = new java.util.HashSet<>(freshKeys);
            java.util.Map<String, Long> takeOverEpochs = new java.util.HashMap<>();
            takeOver.forEach(l -> takeOverEpochs.put(l.partitionKey(), l.epoch() + 1));
            List<String> tried = new ArrayList<>(freshKeys);
            takeOver.forEach(l -> tried.add(l.partitionKey()));
            List<Lease> read = new ArrayList<>();
            for (List<String> chunk : chunks(tried)) {
                SelectLeasesOf select = new SelectLeasesOf(t, chunk);
                read.addAll(Db.list(c, select.sql(), select, LEASE_ROW));
            }
            List<String> won = new ArrayList<>();
            for (Lease l : read) {
                if (l.leasedBy().equals(subscriber) && !l.expired()
                        && (freshSet.contains(l.partitionKey()) ? l.epoch() == 1
                                : Long.valueOf(l.epoch()).equals(takeOverEpochs.get(l.partitionKey())))) {
                    won.add(l.partitionKey());
                }
            }
            for (List<String> chunk : chunks(won.stream().sorted(LeaseStore::byBytes).toList())) {
                Statement ensure = ensureOffsetRows(chunk.stream().map(key -> new EnsureOffsetRow(t, key)).toList());
                Db.update(c, ensure.sql(), ensure); // 1 per row created, 0 per row that was there
            }
            return won;
        });
    }

    /** A multi-row write changes at most one row per row it names; more is a bug. */
    private static void atMostOnePerRow(int n, int rows, String what) throws SQLException {
        if (n > rows) {
            throw new SQLException(what + " of " + rows + " rows changed " + n);
        }
    }

    /** {@code all} in consecutive pieces of at most {@link #ACQUIRE_ROWS_PER_STATEMENT}. */
    private static <T> List<List<T>> chunks(List<T> all) {
        List<List<T>> out = new ArrayList<>();
        for (int from = 0; from < all.size(); from += ACQUIRE_ROWS_PER_STATEMENT) {
            out.add(all.subList(from, Math.min(all.size(), from + ACQUIRE_ROWS_PER_STATEMENT)));
        }
        return out;
    }

    /**
     * Releases the given leases of this subscriber (fenced by epoch), and hands the messages still
     * in flight under them back without a failed attempt: a graceful hand-over (rebalance, idle
     * release, leaving) is not the message's fault, unlike a lease lost to a crash or expiry. The
     * next holder delivers them again, in order, with the same {@code deliveryAttempt}; receipts
     * of the old lease answer STALE. A delivery whose visibility timeout has already expired is
     * left as it is: that expiry is a failed attempt, which the next holder counts.
     *
     * @return how many were released
     */
    public int release(GroupScope t, String subscriber, Collection<Lease> leases) {
        if (leases.isEmpty()) {
            return 0;
        }
        // The lease rows are locked before their delivery state, the order fetch and ack lock
        // them in, and in partition-key order, the index order in which fetch and ack lock several
        // at once, so that two such transactions cannot deadlock.
        Map<String, Long> expected = epochs(leases);
        return db.inTransaction(Db.Isolation.READ_COMMITTED, c -> {
            int released = 0;
            for (List<String> chunk : chunks(inLockOrder(expected.keySet()))) {
                Map<String, Long> ours = lockOwn(c, t, subscriber, chunk, expected);
                released += releaseLocked(c, t, subscriber, List.copyOf(ours.keySet()));
                DeliveryBatches.handBackLeases(c, t, ours);
            }
            return released;
        });
    }

    /**
     * Releases the given leases of this subscriber that the scheduler judged idle (or whose
     * partitions it no longer discovers), each only if, under its lease row lock, the partition
     * still has nothing to deliver. The judgement is read earlier in the tick without locks; a
     * message published and fetched meanwhile is in flight under the lease, and releasing it then
     * would hand the delivery back (its receipt STALE) and re-lease the partition under a new epoch.
     *
     * @return how many were released
     */
    public int releaseIdle(GroupScope t, String subscriber, Collection<Lease> leases) {
        if (leases.isEmpty()) {
            return 0;
        }
        // Three statements per chunk of rows, not three per lease, however many partitions a
        // drained topic leaves idle (docs/architecture.md, "The scheduler's tick").
        Map<String, Long> judged = epochs(leases);
        return db.inTransaction(Db.Isolation.READ_COMMITTED, c -> {
            int released = 0;
            for (List<String> chunk : chunks(inLockOrder(judged.keySet()))) {
                Map<String, Long> ours = lockOwn(c, t, subscriber, chunk, judged);
                if (ours.isEmpty()) {
                    continue;
                }
                // Something to deliver now, so possibly in flight: not idle any more.
                SelectHasWork work = new SelectHasWork(t, List.copyOf(ours.keySet()));
                Db.list(c, work.sql(), work, rs -> rs.getString("partition_key")).forEach(ours::remove);
                released += releaseLocked(c, t, subscriber, List.copyOf(ours.keySet()));
            }
            return released;
        });
    }

    /** Each lease's epoch by partition key. */
    private static Map<String, Long> epochs(Collection<Lease> leases) {
        Map<String, Long> out = new java.util.HashMap<>();
        leases.forEach(l -> out.put(l.partitionKey(), l.epoch()));
        return out;
    }

    /**
     * Locks the lease rows of {@code keys} that this subscriber holds
     * ({@link ConsumerSql#LOCK_HELD_LEASES}, as fetch locks them: point look-ups of the primary
     * key in key order, so that neither can deadlock with the other) and returns those held under
     * the {@code expected} epoch, in lock order. A row under another epoch is a lease taken again
     * since it was read: not returned, and left as it is.
     */
    private static Map<String, Long> lockOwn(Connection c, GroupScope t, String subscriber, List<String> keys,
                                             Map<String, Long> expected) throws SQLException {
        Map<String, Long> locked = ConsumerStatements.lockHeldLeases(c, new ConsumerSql.LockHeldLeases(t, keys, subscriber));
        Map<String, Long> ours = new java.util.LinkedHashMap<>();
        for (String key : keys) {
            if (locked.containsKey(key) && locked.get(key).equals(expected.get(key))) {
                ours.put(key, locked.get(key));
            }
        }
        return ours;
    }

    /** Releases the leases of {@code keys}, locked by {@link #lockOwn}: exactly one row each. */
    private static int releaseLocked(Connection c, GroupScope t, String subscriber, List<String> keys) throws SQLException {
        if (keys.isEmpty()) {
            return 0;
        }
        ReleaseLeases release = new ReleaseLeases(t, keys, subscriber);
        int n = Db.update(c, release.sql(), release);
        if (n != keys.size()) { // each row is locked and was read as ours
            throw new SQLException("release of " + keys.size() + " locked leases changed " + n + " rows");
        }
        return n;
    }

    /**
     * {@code leases} in the order their rows are locked by statements that lock several at once
     * (fetch, ack: the primary key's, which within one triple is the partition key's, compared
     * as the column's binary collation compares it). A transaction that locks lease rows one by
     * one must take them in this order too, or it can deadlock with those.
     */
    static List<Lease> inLockOrder(Collection<Lease> leases) {
        return leases.stream().sorted(java.util.Comparator.comparing(Lease::partitionKey, LeaseStore::byBytes)).toList();
    }

    /** Partition keys in the order of {@link #inLockOrder(Collection)}. */
    private static List<String> inLockOrder(java.util.Set<String> keys) {
        return keys.stream().sorted(LeaseStore::byBytes).toList();
    }

    private static int byBytes(String a, String b) {
        return java.util.Arrays.compareUnsigned(a.getBytes(java.nio.charset.StandardCharsets.UTF_8),
                b.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    /**
     * Ends the leases of holders not in {@code live} (their heartbeat is stale) that were not
     * renewed for {@code heartbeatTimeoutMicros} either.
     *
     * @return how many leases were swept
     */
    public int sweepOrphans(GroupScope t, List<String> live, long heartbeatTimeoutMicros) {
        return db.inTransaction(Db.Isolation.READ_COMMITTED, c -> {
            SweepOrphanLeases sweep = new SweepOrphanLeases(t, live, heartbeatTimeoutMicros);
            return Db.update(c, sweep.sql(), sweep);
        });
    }

    /** Partitions with nothing pending for the group and no commit for {@code idleMicros}. */
    public java.util.Set<String> idlePartitions(GroupScope t, long idleMicros) {
        return new java.util.HashSet<>(db.read(c -> Db.list(c, SELECT_IDLE_PARTITIONS,
                new SelectIdlePartitions(t, idleMicros), rs -> rs.getString("partition_key"))));
    }

    /** Partitions of the triple with a delivery in flight (their leases are released last). */
    public java.util.Set<String> busyPartitions(GroupScope t) {
        return db.read(c -> {
            java.util.Set<String> busy = new java.util.HashSet<>(Db.list(c, SELECT_BUSY_PARTITIONS,
                    new SelectBusyPartitions(t), rs -> rs.getString("partition_key")));
            busy.addAll(Db.list(c, SELECT_BUSY_BATCHES, new SelectBusyBatches(t), rs -> rs.getString("partition_key")));
            return busy;
        });
    }

    /** Purges heartbeats older than {@code heartbeatTimeoutMicros}. */
    public int purgeStaleHeartbeats(GroupScope t, long heartbeatTimeoutMicros) {
        return db.inTransaction(Db.Isolation.READ_COMMITTED, c -> {
            return Db.update(c, PURGE_STALE_HEARTBEATS, new PurgeStaleHeartbeats(t, heartbeatTimeoutMicros));
        });
    }

    /**
     * Leaves the triple: releases every lease this subscriber holds (handing its in-flight
     * messages back, as {@link #release} does) and deletes its heartbeat.
     */
    public void leave(GroupScope t, String subscriber) {
        release(t, subscriber, leases(t).stream().filter(l -> subscriber.equals(l.leasedBy()) && !l.expired()).toList());
        // Catches a lease taken between the read and the release (this subscriber is leaving).
        db.inTransaction(Db.Isolation.READ_COMMITTED, c -> {
            Db.update(c, RELEASE_ALL_LEASES, new ReleaseAllLeases(t, subscriber)); // any number
            Db.update(c, DELETE_HEARTBEAT, new DeleteHeartbeat(t, subscriber)); // at most one
            return null;
        });
    }
}
