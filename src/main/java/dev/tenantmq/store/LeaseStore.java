package dev.tenantmq.store;

import dev.tenantmq.model.GroupScope;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * SQL of the scheduler: {@code queue_subscriber_heartbeats} and {@code queue_partition_leases}
 * (SPEC section 5). Every statement is scoped to one (tenant, consumer_group, topic); expiry is
 * always compared with {@code UTC_TIMESTAMP(6)}, the database clock, never a JVM clock.
 */
@ApplicationScoped
public class LeaseStore {

    /** Binds: tenant, consumer_group, topic, subscriber_name. */
    static final String UPSERT_HEARTBEAT = """
            INSERT INTO queue_subscriber_heartbeats
              (tenant, consumer_group, topic, subscriber_name, started_at, last_seen_at)
            VALUES (?, ?, ?, ?, UTC_TIMESTAMP(6), UTC_TIMESTAMP(6))
            ON DUPLICATE KEY UPDATE last_seen_at = UTC_TIMESTAMP(6)""";

    /** Subscribers whose heartbeat is younger than ? microseconds. Binds: tenant, consumer_group, topic, micros. */
    static final String SELECT_LIVE_SUBSCRIBERS = """
            SELECT subscriber_name FROM queue_subscriber_heartbeats
            WHERE tenant = ? AND consumer_group = ? AND topic = ?
              AND last_seen_at > UTC_TIMESTAMP(6) - INTERVAL ? MICROSECOND
            ORDER BY subscriber_name""";

    /** Binds: tenant, consumer_group, topic. Mapped by {@link #LEASE_ROW}. */
    static final String SELECT_LEASES = """
            SELECT partition_key, leased_by, epoch, expires_at <= UTC_TIMESTAMP(6) AS expired
            FROM queue_partition_leases
            WHERE tenant = ? AND consumer_group = ? AND topic = ?""";

    /**
     * Creates the lease of a partition nobody has leased yet, with epoch 1. When another
     * subscriber inserted it first the no-op update leaves its row alone; the caller re-reads.
     */
    static final String INSERT_LEASE = """
            INSERT INTO queue_partition_leases
              (tenant, consumer_group, topic, partition_key, leased_by, epoch, expires_at, acquired_at, renewed_at)
            VALUES (?, ?, ?, ?, ?, 1, UTC_TIMESTAMP(6) + INTERVAL ? MICROSECOND, UTC_TIMESTAMP(6), UTC_TIMESTAMP(6))
            ON DUPLICATE KEY UPDATE epoch = epoch""";

    /** Binds of {@link #INSERT_LEASE}, in placeholder order. */
    record InsertLease(GroupScope scope, String partitionKey, String subscriber, long leaseMicros) implements Db.Binds {
        @Override
        public void bindTo(PreparedStatement ps) throws SQLException {
            Db.bind(ps, scope.tenant(), scope.consumerGroup(), scope.topic(), partitionKey, subscriber, // row
                    leaseMicros); // expires_at
        }
    }

    /**
     * Takes over an expired (or released) lease: compare-and-set on the epoch read a moment
     * ago, so of two subscribers racing for it exactly one changes the row. Bumps the epoch,
     * which fences every receipt of the previous holder.
     */
    static final String TAKE_OVER_LEASE = """
            UPDATE queue_partition_leases
            SET leased_by = ?, epoch = epoch + 1, expires_at = UTC_TIMESTAMP(6) + INTERVAL ? MICROSECOND,
                acquired_at = UTC_TIMESTAMP(6), renewed_at = UTC_TIMESTAMP(6)
            WHERE tenant = ? AND consumer_group = ? AND topic = ? AND partition_key = ?
              AND epoch = ? AND expires_at <= UTC_TIMESTAMP(6)""";

    /** Binds of {@link #TAKE_OVER_LEASE}, in placeholder order. */
    record TakeOverLease(String subscriber, long leaseMicros, GroupScope scope, String partitionKey, long epoch)
            implements Db.Binds {
        @Override
        public void bindTo(PreparedStatement ps) throws SQLException {
            Db.bind(ps, subscriber, leaseMicros, // SET leased_by, expires_at
                    scope.tenant(), scope.consumerGroup(), scope.topic(), partitionKey, // row
                    epoch); // compare-and-set: the epoch as read
        }
    }

    /**
     * Renews every unexpired lease this subscriber holds in the triple. Fenced by holder (a
     * takeover by another subscriber changes leased_by) and by expiry: a lease that expired or was
     * released is anyone's to take over with a new epoch, this subscriber's included, and is never
     * revived here with its old epoch.
     */
    static final String RENEW_LEASES = """
            UPDATE queue_partition_leases
            SET expires_at = UTC_TIMESTAMP(6) + INTERVAL ? MICROSECOND, renewed_at = UTC_TIMESTAMP(6)
            WHERE tenant = ? AND consumer_group = ? AND topic = ? AND leased_by = ? AND expires_at > UTC_TIMESTAMP(6)""";

    /** Binds of {@link #RENEW_LEASES}, in placeholder order. */
    record RenewLeases(long leaseMicros, GroupScope scope, String subscriber) implements Db.Binds {
        @Override
        public void bindTo(PreparedStatement ps) throws SQLException {
            Db.bind(ps, leaseMicros, // SET expires_at
                    scope.tenant(), scope.consumerGroup(), scope.topic(), subscriber); // the holder's rows
        }
    }

    /** Gives a lease up: it expires now, so any subscriber may take it over at once. */
    static final String RELEASE_LEASE = """
            UPDATE queue_partition_leases
            SET expires_at = UTC_TIMESTAMP(6)
            WHERE tenant = ? AND consumer_group = ? AND topic = ? AND partition_key = ?
              AND leased_by = ? AND epoch = ? AND expires_at > UTC_TIMESTAMP(6)""";

    /** Binds of {@link #RELEASE_LEASE}, in placeholder order. */
    record ReleaseLease(GroupScope scope, String partitionKey, String subscriber, long epoch) implements Db.Binds {
        @Override
        public void bindTo(PreparedStatement ps) throws SQLException {
            Db.bind(ps, scope.tenant(), scope.consumerGroup(), scope.topic(), partitionKey, // row
                    subscriber, epoch); // fencing: still ours, same lease
        }
    }

    /**
     * Releases all leases of one subscriber in the triple (shutdown, interest dropped).
     * Binds: tenant, consumer_group, topic, leased_by.
     */
    static final String RELEASE_ALL_LEASES = """
            UPDATE queue_partition_leases
            SET expires_at = UTC_TIMESTAMP(6)
            WHERE tenant = ? AND consumer_group = ? AND topic = ? AND leased_by = ? AND expires_at > UTC_TIMESTAMP(6)""";

    /**
     * Orphan sweep: ends the leases of holders without a live heartbeat (%s lists the live
     * subscribers), so the partitions can be taken over without waiting for lease expiry. The
     * list was read earlier in the tick, and the process may have paused since (GC, SIGSTOP): a
     * holder that joined meanwhile is missing from it. So a lease is swept only when it was also
     * not renewed for ? microseconds (the heartbeat timeout), judged now by the database clock:
     * a live holder renews every tick, a dead one cannot.
     */
    static final String SWEEP_ORPHAN_LEASES = """
            UPDATE queue_partition_leases
            SET expires_at = UTC_TIMESTAMP(6)
            WHERE tenant = ? AND consumer_group = ? AND topic = ?
              AND expires_at > UTC_TIMESTAMP(6) AND leased_by NOT IN (%s)
              AND renewed_at < UTC_TIMESTAMP(6) - INTERVAL ? MICROSECOND""";

    /** Binds of {@link #SWEEP_ORPHAN_LEASES}, in placeholder order ({@code live} fills the IN list). */
    record SweepOrphanLeases(GroupScope scope, List<String> live, long heartbeatTimeoutMicros) implements Db.Binds {
        /** The statement with its IN list for {@code live}. */
        String sql() {
            return SWEEP_ORPHAN_LEASES.formatted(Db.placeholders(live.size()));
        }

        @Override
        public void bindTo(PreparedStatement ps) throws SQLException {
            int i = Db.bindAll(ps, 1, List.of(scope.tenant(), scope.consumerGroup(), scope.topic()));
            i = Db.bindAll(ps, i, live); // NOT IN: the live subscribers
            ps.setLong(i, heartbeatTimeoutMicros); // not renewed for this long
        }
    }

    /**
     * Partitions idle for the group: everything committed (nothing above the committed offset),
     * no commit for ? microseconds, and no unfinished delivery at or below the committed offset
     * either: an admin requeue puts a dead letter back there (PENDING), and its partition must
     * be leased to deliver it. Only rows at or below the committed offset are probed (DEAD and
     * requeued ones, since acknowledged rows there are pruned): above it the first test decides,
     * and probing the whole in-flight window made each scheduler tick about 50% slower.
     */
    static final String SELECT_IDLE_PARTITIONS = StateSql.render("""
            SELECT o.partition_key FROM queue_offsets o
            WHERE o.tenant = ? AND o.topic = ? AND o.consumer_group = ?
              AND o.updated_at < UTC_TIMESTAMP(6) - INTERVAL ? MICROSECOND
              AND NOT EXISTS (
                  SELECT 1 FROM queue_messages m
                  WHERE m.tenant = o.tenant AND m.topic = o.topic AND m.partition_key = o.partition_key
                    AND m.`offset` > o.committed_offset)
              AND NOT EXISTS (
                  SELECT 1 FROM queue_delivery_state d
                  WHERE d.tenant = o.tenant AND d.consumer_group = o.consumer_group AND d.topic = o.topic
                    AND d.partition_key = o.partition_key AND d.message_offset <= o.committed_offset
                    AND d.state IN ({UNFINISHED}))""");

    /** Binds of {@link #SELECT_IDLE_PARTITIONS}, in placeholder order (queue_offsets key order). */
    record SelectIdlePartitions(GroupScope scope, long idleMicros) implements Db.Binds {
        @Override
        public void bindTo(PreparedStatement ps) throws SQLException {
            Db.bind(ps, scope.tenant(), scope.topic(), scope.consumerGroup(), idleMicros);
        }
    }

    /**
     * Partitions of the triple with a delivery in flight within its visibility timeout (an
     * expired one is a failed attempt already, whatever happens to the lease).
     * Binds: tenant, consumer_group, topic.
     */
    static final String SELECT_BUSY_PARTITIONS = StateSql.render("""
            SELECT DISTINCT partition_key FROM queue_delivery_state
            WHERE tenant = ? AND consumer_group = ? AND topic = ? AND state = {INFLIGHT}
              AND visible_at > UTC_TIMESTAMP(6)""");

    /**
     * Partitions of the triple whose open delivery batch (migration V3) is within its visibility
     * timeout. Binds (queue_offsets key order): tenant, topic, consumer_group.
     */
    static final String SELECT_BUSY_BATCHES = """
            SELECT partition_key FROM queue_offsets
            WHERE tenant = ? AND topic = ? AND consumer_group = ?
              AND delivered_offset > committed_offset AND visible_at > UTC_TIMESTAMP(6)""";

    /** Starting point of a new partition for the group: nothing committed. */
    static final String ENSURE_OFFSET_ROW = """
            INSERT INTO queue_offsets (tenant, topic, partition_key, consumer_group, committed_offset, updated_at)
            VALUES (?, ?, ?, ?, 0, UTC_TIMESTAMP(6))
            ON DUPLICATE KEY UPDATE committed_offset = committed_offset""";

    /** Binds of {@link #ENSURE_OFFSET_ROW}, in placeholder order (queue_offsets key order). */
    record EnsureOffsetRow(GroupScope scope, String partitionKey) implements Db.Binds {
        @Override
        public void bindTo(PreparedStatement ps) throws SQLException {
            Db.bind(ps, scope.tenant(), scope.topic(), partitionKey, scope.consumerGroup());
        }
    }

    /** Heartbeats older than ? microseconds belong to dead subscribers. Binds: tenant, consumer_group, topic, micros. */
    static final String PURGE_STALE_HEARTBEATS = """
            DELETE FROM queue_subscriber_heartbeats
            WHERE tenant = ? AND consumer_group = ? AND topic = ?
              AND last_seen_at < UTC_TIMESTAMP(6) - INTERVAL ? MICROSECOND""";

    /** Binds: tenant, consumer_group, topic, subscriber_name. */
    static final String DELETE_HEARTBEAT = """
            DELETE FROM queue_subscriber_heartbeats
            WHERE tenant = ? AND consumer_group = ? AND topic = ? AND subscriber_name = ?""";

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
            try (PreparedStatement ps = c.prepareStatement(UPSERT_HEARTBEAT)) {
                Db.bind(ps, t.tenant(), t.consumerGroup(), t.topic(), subscriber);
                ps.executeUpdate();
            }
            return Db.column(c, SELECT_LIVE_SUBSCRIBERS, t.tenant(), t.consumerGroup(), t.topic(), heartbeatTimeoutMicros);
        });
    }

    /** All lease rows of the triple. */
    public List<Lease> leases(GroupScope t) {
        return db.read(c -> readLeases(c, t));
    }

    private static List<Lease> readLeases(Connection c, GroupScope t) throws SQLException {
        return Db.list(c, SELECT_LEASES, ps -> Db.bind(ps, t.tenant(), t.consumerGroup(), t.topic()), LEASE_ROW);
    }

    /**
     * Renews this subscriber's unexpired leases in the triple.
     *
     * @return how many lease rows were renewed
     */
    public int renew(GroupScope t, String subscriber, long leaseMicros) {
        return db.inTransaction(Db.Isolation.READ_COMMITTED, c -> {
            return Db.update(c, RENEW_LEASES, new RenewLeases(leaseMicros, t, subscriber));
        });
    }

    /**
     * Acquires leases: inserts the never-leased partitions in {@code fresh}, takes over the
     * expired leases in {@code expired} (by compare-and-set on their epoch), and makes sure
     * every partition acquired has a committed-offset row.
     *
     * @return how many leases this subscriber won
     */
    public int acquire(GroupScope t, String subscriber, Collection<String> fresh, Collection<Lease> expired, long leaseMicros) {
        if (fresh.isEmpty() && expired.isEmpty()) {
            return 0;
        }
        return db.inTransaction(Db.Isolation.READ_COMMITTED, c -> {
            List<String> candidates = new ArrayList<>(fresh);
            if (!fresh.isEmpty()) {
                try (PreparedStatement ps = c.prepareStatement(INSERT_LEASE)) {
                    for (String key : fresh) {
                        new InsertLease(t, key, subscriber, leaseMicros).bindTo(ps);
                        ps.addBatch();
                    }
                    ps.executeBatch();
                }
            }
            int won = 0;
            if (!expired.isEmpty()) {
                try (PreparedStatement ps = c.prepareStatement(TAKE_OVER_LEASE)) {
                    for (Lease l : expired) {
                        new TakeOverLease(subscriber, leaseMicros, t, l.partitionKey(), l.epoch()).bindTo(ps);
                        int n = ps.executeUpdate();
                        if (n > 1) {
                            throw new SQLException("lease takeover changed " + n + " rows");
                        }
                        if (n == 1) {
                            won++;
                            candidates.add(l.partitionKey());
                        }
                    }
                }
            }
            if (!fresh.isEmpty()) {
                // Inserts that lost a race left the other subscriber's row: count only ours.
                java.util.Set<String> freshSet = new java.util.HashSet<>(fresh);
                for (Lease l : readLeases(c, t)) {
                    if (freshSet.contains(l.partitionKey()) && l.leasedBy().equals(subscriber) && l.epoch() == 1) {
                        won++;
                    }
                }
            }
            try (PreparedStatement ps = c.prepareStatement(ENSURE_OFFSET_ROW)) {
                for (String key : candidates) {
                    new EnsureOffsetRow(t, key).bindTo(ps);
                    ps.addBatch();
                }
                ps.executeBatch();
            }
            return won;
        });
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
        // The lease row is updated (so locked) before its delivery state, the order fetch and
        // ack lock them in.
        return db.inTransaction(Db.Isolation.READ_COMMITTED, c -> {
            int released = 0;
            try (PreparedStatement ps = c.prepareStatement(RELEASE_LEASE)) {
                for (Lease l : leases) {
                    new ReleaseLease(t, l.partitionKey(), subscriber, l.epoch()).bindTo(ps);
                    int n = UpdateCount.AT_MOST_ONE.check(ps.executeUpdate(), "lease release");
                    if (n == 1) {
                        DeliveryBatches.handBackLease(c, t, l.partitionKey(), l.epoch());
                    }
                    released += n;
                }
            }
            return released;
        });
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
            java.util.Set<String> busy = new java.util.HashSet<>(Db.column(c, SELECT_BUSY_PARTITIONS, t.tenant(),
                    t.consumerGroup(), t.topic()));
            busy.addAll(Db.column(c, SELECT_BUSY_BATCHES, t.tenant(), t.topic(), t.consumerGroup()));
            return busy;
        });
    }

    /** Purges heartbeats older than {@code heartbeatTimeoutMicros}. */
    public int purgeStaleHeartbeats(GroupScope t, long heartbeatTimeoutMicros) {
        return db.inTransaction(Db.Isolation.READ_COMMITTED, c -> {
            try (PreparedStatement ps = c.prepareStatement(PURGE_STALE_HEARTBEATS)) {
                Db.bind(ps, t.tenant(), t.consumerGroup(), t.topic(), heartbeatTimeoutMicros);
                return ps.executeUpdate();
            }
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
            try (PreparedStatement ps = c.prepareStatement(RELEASE_ALL_LEASES)) {
                Db.bind(ps, t.tenant(), t.consumerGroup(), t.topic(), subscriber);
                ps.executeUpdate();
            }
            try (PreparedStatement ps = c.prepareStatement(DELETE_HEARTBEAT)) {
                Db.bind(ps, t.tenant(), t.consumerGroup(), t.topic(), subscriber);
                ps.executeUpdate();
            }
            return null;
        });
    }
}
