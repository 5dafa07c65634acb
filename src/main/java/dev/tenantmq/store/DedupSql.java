package dev.tenantmq.store;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * SQL of {@code queue_dedup_ids} (migration V4): the identities of deleted messages, kept for
 * {@code mq.publish.dedup-window} after their publish, so that a producer's retry hours later is
 * still a duplicate. Retention ({@link #rememberRanges}) and the admin delete ({@link #remember})
 * write them in the transaction that deletes the messages; publish reads both tables in one statement
 * ({@link PublishSql#SELECT_EXISTING_IDS}); retention drops expired rows with
 * {@link #DELETE_EXPIRED}.
 */
final class DedupSql {
    private DedupSql() {}

    /**
     * The identities, offsets and publish times of messages of one partition (%s is the offset
     * IN list) that are younger than the window: the ones whose identity must outlive them.
     * A plain consistent read; the caller deletes the rows next, in the same transaction.
     */
    static final String SELECT_RECENT_IDENTITIES = """
            SELECT partition_key, id, `offset`, CAST(created_at AS CHAR) AS created_at FROM queue_messages
            WHERE tenant = ? AND topic = ? AND partition_key = ? AND `offset` IN (%s)
              AND created_at > UTC_TIMESTAMP(6) - INTERVAL ? MICROSECOND""";

    /** Binds of {@link #SELECT_RECENT_IDENTITIES}, in placeholder order ({@code offsets} fills the IN list). */
    record SelectRecentIdentities(String tenant, String topic, String partitionKey, List<Long> offsets,
                                  long windowMicros) implements Statement {
        @Override
        public String sql() {
            return SELECT_RECENT_IDENTITIES.formatted(Db.placeholders(offsets.size()));
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.of("tenant", tenant), Bind.of("topic", topic), Bind.of("partition_key", partitionKey),
                    Bind.each("offset", offsets),
                    Bind.of("micros", windowMicros)); // the window
        }
    }

    /**
     * One identity about to be remembered.
     *
     * @param createdAt the message's {@code created_at} as the database prints it, microseconds
     *     included: bound back as text, because a {@code LocalDateTime} bind loses the fraction on
     *     servers the driver takes for MySQL 5.5 (MariaDB), and the window would then end up to a
     *     second early (the same reason as {@code ConsumerSql.Cursor#batchVisibleAt}). The
     *     statements select it as {@code CAST(created_at AS CHAR)}: Connector/J turns a DATETIME
     *     column into text through {@code String.format}, which was a tenth of the service's CPU
     *     in the benchmark's consume run (docs/architecture.md, "Rows into responses")
     */
    record Identity(String partitionKey, String id, long offset, String createdAt) {}

    private static final Db.RowMapper<Identity> IDENTITY_ROW = rs -> new Identity(rs.getString("partition_key"),
            rs.getString("id"), rs.getLong("offset"), rs.getString("created_at"));

    /**
     * Drops older rows of the same identities (%s is the id IN list): an identity published again
     * after its window, and deleted again before retention dropped its old row, starts a new
     * window. Normally it deletes nothing.
     */
    static final String DELETE_IDENTITIES = """
            DELETE FROM queue_dedup_ids
            WHERE tenant = ? AND topic = ? AND partition_key = ? AND id IN (%s)""";

    /** Binds of {@link #DELETE_IDENTITIES}, in placeholder order ({@code ids} fills the IN list). */
    record DeleteIdentities(String tenant, String topic, String partitionKey, List<String> ids) implements Statement {
        @Override
        public String sql() {
            return DELETE_IDENTITIES.formatted(Db.placeholders(ids.size()));
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.of("tenant", tenant), Bind.of("topic", topic), Bind.of("partition_key", partitionKey),
                    Bind.each("id", ids));
        }
    }

    /** One row of {@link #INSERT_IDENTITIES}. Binds: tenant, topic, partition_key, id, offset, created_at. */
    private static final String IDENTITY_ROW_SQL = "(?, ?, ?, ?, ?, ?)";

    /** Remembers one identity; {@link #remember} appends an {@link #IDENTITY_ROW_SQL} per further one. */
    static final String INSERT_IDENTITIES = """
            INSERT INTO queue_dedup_ids (tenant, topic, partition_key, id, `offset`, created_at)
            VALUES """ + IDENTITY_ROW_SQL;

    /**
     * Binds of one {@link #IDENTITY_ROW_SQL} row; alone, the binds of {@link #INSERT_IDENTITIES}.
     * {@link #insertIdentities} joins several rows into one statement.
     */
    record InsertIdentity(String tenant, String topic, String partitionKey, String id, long offset, String createdAt)
            implements Statement {
        @Override
        public String sql() {
            return INSERT_IDENTITIES;
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.of("tenant", tenant), Bind.of("topic", topic), Bind.of("partition_key", partitionKey),
                    Bind.of("id", id), Bind.of("offset", offset), Bind.of("created_at", createdAt));
        }
    }

    /** {@link #INSERT_IDENTITIES} with one VALUES row per element of {@code rows}, binding them in order. */
    static Statement insertIdentities(List<InsertIdentity> rows) {
        String sql = INSERT_IDENTITIES + (",\n" + IDENTITY_ROW_SQL).repeat(rows.size() - 1);
        List<Bind> binds = new ArrayList<>();
        rows.forEach(r -> binds.addAll(r.binds()));
        return Statement.of(sql, binds);
    }

    /**
     * Drops up to {@code ?} identities of a tenant whose window has passed. Uses
     * {@code idx_dedup_created}; record locks on those rows only.
     */
    static final String DELETE_EXPIRED = """
            DELETE FROM queue_dedup_ids
            WHERE tenant = ? AND created_at <= UTC_TIMESTAMP(6) - INTERVAL ? MICROSECOND
            LIMIT ?""";

    /** Binds of {@link #DELETE_EXPIRED}. */
    record DeleteExpired(String tenant, long windowMicros, int limit) implements Statement {
        @Override
        public String sql() {
            return DELETE_EXPIRED;
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.of("tenant", tenant), Bind.of("micros", windowMicros), Bind.of("limit", limit));
        }
    }

    /**
     * The identities, offsets and publish times of the messages of one partition's offset range
     * {@code [?, ?]} that are younger than the window: the ones whose identity must outlive them.
     * One branch of a UNION ALL over the ranges one retention transaction deletes; a plain
     * consistent read of a primary-key range, and the caller deletes the range next in the same
     * transaction.
     */
    static final String SELECT_RANGE_IDENTITIES = """
            SELECT partition_key, id, `offset`, CAST(created_at AS CHAR) AS created_at FROM queue_messages
            WHERE tenant = ? AND topic = ? AND partition_key = ? AND `offset` >= ? AND `offset` <= ?
              AND created_at > UTC_TIMESTAMP(6) - INTERVAL ? MICROSECOND""";

    /** Binds of one {@link #SELECT_RANGE_IDENTITIES} branch, in placeholder order: the range {@code [from, to]} and the window. */
    record SelectRangeIdentities(String tenant, String topic, String partitionKey, long from, long to, long windowMicros)
            implements ConsumerSql.Branch {
        @Override
        public String sql() {
            return SELECT_RANGE_IDENTITIES;
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.of("tenant", tenant), Bind.of("topic", topic), Bind.of("partition_key", partitionKey),
                    Bind.of("offset", from), Bind.of("offset", to), // the range
                    Bind.of("micros", windowMicros)); // the window
        }
    }

    /**
     * {@link #INSERT_IDENTITIES} that renews an identity remembered before (published again after
     * its window, and deleted again before retention dropped its old row): it starts a new window,
     * with no separate delete of the old row. {@link #renewIdentities} adds a row per identity.
     */
    static final String RENEW_IDENTITIES = INSERT_IDENTITIES + """

            ON DUPLICATE KEY UPDATE `offset` = VALUES(`offset`), created_at = VALUES(created_at)""";

    /** Binds of {@link #RENEW_IDENTITIES} with one identity; {@link #renewIdentities} joins several. */
    record RenewIdentity(String tenant, String topic, String partitionKey, String id, long offset, String createdAt)
            implements Statement {
        @Override
        public String sql() {
            return RENEW_IDENTITIES;
        }

        @Override
        public List<Bind> binds() {
            return new InsertIdentity(tenant, topic, partitionKey, id, offset, createdAt).binds();
        }
    }

    /** {@link #RENEW_IDENTITIES} with one VALUES row per element of {@code rows}, binding them in order. */
    static Statement renewIdentities(List<InsertIdentity> rows) {
        Statement insert = insertIdentities(rows);
        return Statement.of(insert.sql() + RENEW_IDENTITIES.substring(INSERT_IDENTITIES.length()), insert.binds());
    }

    /**
     * Remembers the identities of the messages in the given offset ranges that are younger than
     * the window, in the caller's transaction, before the caller deletes the ranges: one read of
     * every range ({@link #SELECT_RANGE_IDENTITIES}, UNION ALL) and one multi-row insert, however
     * many ranges and partitions; nothing when every message is older. Nothing is copied ahead
     * of time per consumed message.
     *
     * <p>Not one {@code INSERT ... SELECT}: on one MySQL or MariaDB it would be one statement
     * instead of two, with no identities sent to the service and back, but vtgate (v0.24.4,
     * vtexplain) plans it as a {@code SELECT ... LOCK IN SHARE MODE} of at most 10,001 rows and a
     * separate insert: one statement that is two shard queries (RFC "Schema": one shard query
     * per statement), and shared locks on the messages read, where this read takes none.
     *
     * @return identities remembered
     */
    static int rememberRanges(Connection c, List<SelectRangeIdentities> ranges) throws SQLException {
        if (ranges.isEmpty() || ranges.get(0).windowMicros() <= 0) {
            return 0;
        }
        Statement select = ConsumerSql.union(ranges);
        List<Identity> recent = Db.list(c, select.sql(), select, IDENTITY_ROW);
        if (recent.isEmpty()) {
            return 0;
        }
        String tenant = ranges.get(0).tenant();
        String topic = ranges.get(0).topic();
        List<InsertIdentity> rows = new ArrayList<>(recent.size());
        for (Identity r : recent) {
            rows.add(new InsertIdentity(tenant, topic, r.partitionKey(), r.id(), r.offset(), r.createdAt()));
        }
        Statement insert = renewIdentities(rows);
        // One per new identity, two per renewed one (ON DUPLICATE KEY UPDATE), 0 for one unchanged.
        Db.update(c, insert.sql(), insert);
        return recent.size();
    }

    /**
     * Copies the identities of the given messages of one partition that are younger than the
     * window into {@code queue_dedup_ids}, in the caller's transaction, before the caller deletes
     * the messages (the admin delete of one message). Nothing happens when {@code windowMicros}
     * is 0 or every message is older.
     *
     * @return identities remembered
     */
    static int remember(Connection c, String tenant, String topic, String partitionKey, List<Long> offsets,
                        long windowMicros) throws SQLException {
        if (windowMicros <= 0 || offsets.isEmpty()) {
            return 0;
        }
        SelectRecentIdentities select = new SelectRecentIdentities(tenant, topic, partitionKey, offsets, windowMicros);
        List<Identity> recent = Db.list(c, select.sql(), select, IDENTITY_ROW);
        if (recent.isEmpty()) {
            return 0;
        }
        List<String> ids = new ArrayList<>(recent.size());
        recent.forEach(r -> ids.add(r.id()));
        DeleteIdentities delete = new DeleteIdentities(tenant, topic, partitionKey, ids);
        Db.update(c, delete.sql(), delete); // usually 0 rows: see DELETE_IDENTITIES
        List<InsertIdentity> rows = new ArrayList<>(recent.size());
        for (Identity r : recent) {
            rows.add(new InsertIdentity(tenant, topic, r.partitionKey(), r.id(), r.offset(), r.createdAt()));
        }
        Statement insert = insertIdentities(rows);
        int n = Db.update(c, insert.sql(), insert);
        if (n != recent.size()) {
            throw new SQLException("remembered " + n + " identities of " + recent.size());
        }
        return n;
    }
}
