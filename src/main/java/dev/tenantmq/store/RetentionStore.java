package dev.tenantmq.store;

import jakarta.enterprise.context.ApplicationScoped;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * SQL of retention: finding the messages of a (tenant, topic) that every consumer group has
 * committed, or that are older than the maximum age, and deleting them with their delivery
 * state. Every statement leads with {@code tenant}, so on Vitess it stays on one shard.
 *
 * <p>Locking: reads here are plain consistent reads (auto-commit, no {@code FOR UPDATE}), so
 * they never wait for or block publishers and consumers. The only locks are the row locks of
 * {@link #delete}, held for one short READ COMMITTED transaction of at most one batch, and,
 * only when it deletes messages some group has not committed (the maximum age), the lease rows
 * of those partitions first.
 */
@ApplicationScoped
public class RetentionStore {
    /**
     * Topics of a tenant with stored messages ({@link TopicListSql}), in name order, so an
     * original topic is handled before its dead-letter topic {@code <topic><suffix>} in the same
     * run. Binds: {@link SelectTopics}.
     */
    static final String SELECT_TOPICS = TopicListSql.topicsWithStoredMessages("h.topic") + "\nORDER BY h.topic";

    /**
     * Locks the lease rows of the given groups and partitions of a topic before retention deletes
     * messages some group has not committed: the walk of the committed offsets afterwards runs
     * under them, as every walk does. Rows are locked in index order (group, then partition
     * key), the order in which a fetch, an ack and an admin delete lock theirs, so none of them
     * can wait on retention in a cycle. Binds: {@link LockLeasesOfPartitions}.
     */
    static final String LOCK_LEASES_OF_PARTITIONS = """
            SELECT consumer_group, partition_key FROM queue_partition_leases
            WHERE tenant = ? AND consumer_group IN (%s) AND topic = ? AND partition_key IN (%s)
            ORDER BY consumer_group, partition_key
            FOR UPDATE""";

    /** Binds of {@link #LOCK_LEASES_OF_PARTITIONS}, in placeholder order (the lists fill the IN lists). */
    record LockLeasesOfPartitions(String tenant, List<String> groups, String topic, List<String> partitionKeys)
            implements Statement {
        @Override
        public String sql() {
            return LOCK_LEASES_OF_PARTITIONS.formatted(Db.placeholders(groups.size()),
                    Db.placeholders(partitionKeys.size()));
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.of("tenant", tenant), Bind.each("consumer_group", groups), Bind.of("topic", topic),
                    Bind.each("partition_key", partitionKeys));
        }
    }

    /** Binds of {@link #SELECT_TOPICS}. */
    record SelectTopics(String tenant) implements Statement {
        @Override
        public String sql() {
            return SELECT_TOPICS;
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.of("tenant", tenant));
        }
    }

    /** Consumer groups of a topic: every group that has a committed offset in any partition. Binds: {@link SelectGroups}. */
    static final String SELECT_GROUPS = """
            SELECT DISTINCT consumer_group FROM queue_offsets
            WHERE tenant = ? AND topic = ?
            ORDER BY consumer_group""";

    /** Binds of {@link #SELECT_GROUPS}, in placeholder order. */
    record SelectGroups(String tenant, String topic) implements Statement {
        @Override
        public String sql() {
            return SELECT_GROUPS;
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.of("tenant", tenant), Bind.of("topic", topic));
        }
    }

    /**
     * Lowest committed offset per partition, and how many groups have a row there. A partition
     * where fewer rows than groups exist has a group that committed nothing in it (floor 0).
     * Binds: {@link SelectFloors}.
     */
    static final String SELECT_FLOORS = """
            SELECT partition_key, MIN(committed_offset) AS min_committed, COUNT(*) AS group_rows FROM queue_offsets
            WHERE tenant = ? AND topic = ?
            GROUP BY partition_key""";

    /** Binds of {@link #SELECT_FLOORS}, in placeholder order. */
    record SelectFloors(String tenant, String topic) implements Statement {
        @Override
        public String sql() {
            return SELECT_FLOORS;
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.of("tenant", tenant), Bind.of("topic", topic));
        }
    }

    /**
     * The head (oldest stored message) of every partition of a topic, and whether it is older
     * than {@code ?} microseconds by the database clock. The partitions come from
     * {@code queue_partition_heads} (one row per partition ever published to; its
     * {@code head_offset} is the newest offset, not this head), and each scalar subquery is one
     * forward step of the partition's primary key: two index look-ups per partition, whatever the
     * backlog. A partition with no stored message comes back with NULLs, which {@link #heads}
     * leaves out. The subqueries name the primary key and order by the whole key prefix, not by
     * {@code offset} alone: MySQL 9.7 plans a correlated {@code ORDER BY offset LIMIT 1} as a read
     * of every row of the partition and a sort (EXPLAIN ANALYZE: 1,000 rows per look), or may take
     * {@code uq_message_id}, whose prefix is the same, and sort; the hint and the whole prefix are
     * one step of the index (1 row).
     *
     * <p>Neither a {@code MIN(offset) ... GROUP BY tenant, topic, partition_key} derived table,
     * which MariaDB 10.11 plans as a read of every stored row of the topic (ANALYZE on the
     * benchmark's database: 200,000 rows and 363 ms for a topic of 100 partitions, against 200
     * index looks and 2.4 ms by subquery), nor a join on {@code offset = (subquery)}, which MySQL
     * 9.7 runs as a read of the partition's rows with the subquery as a filter (9,016 rows for 3
     * partitions of 1,000): once per topic per retention run (docs/architecture.md, "Reads that
     * do not grow with the backlog").
     */
    static final String SELECT_HEADS = """
            SELECT p.partition_key,
                   (SELECT f.`offset` FROM queue_messages f FORCE INDEX (PRIMARY)
                    WHERE f.tenant = p.tenant AND f.topic = p.topic AND f.partition_key = p.partition_key
                    ORDER BY f.tenant, f.topic, f.partition_key, f.`offset`
                    LIMIT 1) AS head_offset,
                   (SELECT f.created_at < UTC_TIMESTAMP(6) - INTERVAL ? MICROSECOND FROM queue_messages f FORCE INDEX (PRIMARY)
                    WHERE f.tenant = p.tenant AND f.topic = p.topic AND f.partition_key = p.partition_key
                    ORDER BY f.tenant, f.topic, f.partition_key, f.`offset`
                    LIMIT 1) AS expired
            FROM queue_partition_heads p
            WHERE p.tenant = ? AND p.topic = ?
            ORDER BY p.partition_key""";

    /** Binds of {@link #SELECT_HEADS}, in placeholder order. */
    record SelectHeads(String tenant, String topic, long maxAgeMicros) implements Statement {
        @Override
        public String sql() {
            return SELECT_HEADS;
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.of("micros", maxAgeMicros), // expired
                    Bind.of("tenant", tenant), Bind.of("topic", topic));
        }
    }

    /** Maps a row of {@link #SELECT_HEADS}. */
    private static final Db.RowMapper<Head> HEAD_ROW = rs -> {
        long offset = rs.getLong("head_offset");
        return rs.wasNull() ? null : new Head(rs.getString("partition_key"), offset, rs.getBoolean("expired"));
    };

    /**
     * The next rows of one partition after offset {@code ?}, in offset order, each with whether
     * it is older than {@code ?} microseconds by the database clock, whether its dead letter
     * (same tenant, partition key and id in the dead-letter topic) exists, and whether a group
     * (%s, twice, is the IN list of the topic's groups) still has it to deliver: a requeued
     * message lies at or below the committed offset. One branch of a {@code UNION ALL} over the
     * partitions one read takes ({@link #rows(String, String, String, List, Map, long, int)}), so
     * it names its partition.
     *
     * <p>Each row's probes (a look-up of {@code uq_message_id} in the dead-letter topic, a
     * primary-key look-up of each group's delivery row) run only where the partition has a
     * dead letter at all, or an unfinished delivery row of these groups above the read's start:
     * each condition is an uncorrelated read, which the server runs once per statement (the
     * second a range of the groups' delivery rows above that offset, up to the first unfinished
     * one), and {@code IF} evaluates only the branch it takes. In the same statement, so the same
     * snapshot: a row gets the flags the probes alone would give it. A partition with a message
     * redelivered or handed back still pays the probes per row. They were most of retention's
     * read (on MariaDB 10.11, 6 to 9 µs of CPU per row with them, 1.3 to 2 without;
     * docs/operations.md, "Retention").
     */
    static final String SELECT_PARTITION_ROWS = StateSql.render(partitionRows("""
            IF(EXISTS (SELECT 1 FROM queue_delivery_state dp
                       WHERE dp.tenant = ? AND dp.consumer_group IN (%s) AND dp.topic = ? AND dp.partition_key = ?
                         AND dp.message_offset > ? AND dp.state IN ({UNFINISHED})),
               EXISTS (SELECT 1 FROM queue_delivery_state d
                       WHERE d.tenant = m.tenant AND d.consumer_group IN (%s) AND d.topic = m.topic
                         AND d.partition_key = m.partition_key AND d.message_offset = m.`offset`
                         AND d.state IN ({UNFINISHED})),
               FALSE)"""));

    /**
     * {@link #SELECT_PARTITION_ROWS} for a topic without consumer groups: nothing is undelivered.
     * Not {@code IN (NULL)}: vtgate (Vitess v0.24.4) plans a statement whose select list holds
     * {@code EXISTS (... consumer_group IN (NULL) ...)} as a route to no shard and returns no
     * rows at all, so retention would never delete anything of such a topic.
     */
    static final String SELECT_PARTITION_ROWS_WITHOUT_GROUPS = StateSql.render(partitionRows("FALSE"));

    /**
     * The text of {@link #SELECT_PARTITION_ROWS} with {@code undelivered} the column's expression.
     * A method, not a constant: a fragment is no statement for {@code StoreSqlRulesTest} to parse.
     */
    private static String partitionRows(String undelivered) {
        return """
                SELECT m.partition_key, m.`offset`,
                       m.created_at < UTC_TIMESTAMP(6) - INTERVAL ? MICROSECOND AS expired,
                       IF(EXISTS (SELECT 1 FROM queue_messages dlp
                                  WHERE dlp.tenant = ? AND dlp.topic = ? AND dlp.partition_key = ?),
                          EXISTS (SELECT 1 FROM queue_messages dl
                                  WHERE dl.tenant = m.tenant AND dl.topic = ? AND dl.partition_key = m.partition_key
                                    AND dl.id = m.id),
                          FALSE) AS dead_lettered,
                       %s AS undelivered
                FROM queue_messages m
                WHERE m.tenant = ? AND m.topic = ? AND m.partition_key = ? AND m.`offset` > ?
                ORDER BY m.`offset`
                LIMIT ?""".replace("%s", undelivered);
    }

    /** Binds of {@link #SELECT_PARTITION_ROWS}, in placeholder order ({@code groups} fills the IN lists). */
    record SelectPartitionRows(long maxAgeMicros, List<String> groups, String deadLetterTopic, String tenant, String topic,
                               String partitionKey, long afterOffset, int limit) implements ConsumerSql.Branch {
        /** The statement with its IN lists for {@code groups}, or without the delivery probe when there are none. */
        @Override
        public String sql() {
            String in = Db.placeholders(groups.size());
            return groups.isEmpty() ? SELECT_PARTITION_ROWS_WITHOUT_GROUPS : SELECT_PARTITION_ROWS.formatted(in, in);
        }

        @Override
        public List<Bind> binds() {
            List<Bind> binds = new java.util.ArrayList<>(Bind.list(Bind.of("micros", maxAgeMicros), // expired
                    // dead_lettered: any dead letter in the partition, then the row's
                    Bind.of("tenant", tenant), Bind.of("topic", deadLetterTopic), Bind.of("partition_key", partitionKey),
                    Bind.of("topic", deadLetterTopic)));
            if (!groups.isEmpty()) { // undelivered: any unfinished delivery row in the partition, then the row's
                binds.addAll(Bind.list(Bind.of("tenant", tenant), Bind.each("consumer_group", groups), Bind.of("topic", topic),
                        Bind.of("partition_key", partitionKey), Bind.of("message_offset", afterOffset),
                        Bind.each("consumer_group", groups)));
            }
            binds.addAll(Bind.list(Bind.of("tenant", tenant), Bind.of("topic", topic), Bind.of("partition_key", partitionKey),
                    Bind.of("offset", afterOffset), // WHERE
                    Bind.of("limit", limit)));
            return binds;
        }
    }

    /** Maps a row of {@link #SELECT_PARTITION_ROWS}. */
    private static final Db.RowMapper<Row> PARTITION_ROW = rs -> new Row(rs.getLong("offset"), rs.getBoolean("expired"),
            rs.getBoolean("dead_lettered"), rs.getBoolean("undelivered"));

    /** Most partitions one read of {@link #rows(String, String, String, List, Map, long, int)} takes: one branch each. */
    public static final int PARTITIONS_PER_READ = 100;
    /** Most rows one read of several partitions may return: partitions times the batch size. */
    static final int ROWS_PER_READ = 50_000;

    /**
     * How many partitions one read of their first rows takes at {@code batchSize} rows each: up
     * to {@link #PARTITIONS_PER_READ}, fewer for a batch size above 500, so that one read returns
     * at most {@link #ROWS_PER_READ} rows; at least 1.
     */
    public static int partitionsPerRead(int batchSize) {
        return Math.max(1, Math.min(PARTITIONS_PER_READ, ROWS_PER_READ / Math.max(1, batchSize)));
    }

    /**
     * Deletes the messages of one partition's offset range {@code [?, ?]}: a primary-key range,
     * whatever its length. Record locks on these rows only (READ COMMITTED takes no gap locks); a
     * publisher waits for them only when the newest row of the partition is among them, for the
     * length of this short transaction.
     */
    static final String DELETE_MESSAGE_RANGE = """
            DELETE FROM queue_messages
            WHERE tenant = ? AND topic = ? AND partition_key = ? AND `offset` >= ? AND `offset` <= ?""";

    /** Binds of {@link #DELETE_MESSAGE_RANGE}, in placeholder order. */
    record DeleteMessageRange(String tenant, String topic, String partitionKey, long from, long to) implements Statement {
        @Override
        public String sql() {
            return DELETE_MESSAGE_RANGE;
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.of("tenant", tenant), Bind.of("topic", topic), Bind.of("partition_key", partitionKey),
                    Bind.of("offset", from), Bind.of("offset", to));
        }
    }

    /**
     * Deletes the delivery state of the topic's groups (%s is the group IN list) for one
     * partition's deleted offset range: a primary-key range per group.
     */
    static final String DELETE_DELIVERY_STATE_RANGE = """
            DELETE FROM queue_delivery_state
            WHERE tenant = ? AND consumer_group IN (%s) AND topic = ? AND partition_key = ?
              AND message_offset >= ? AND message_offset <= ?""";

    /** Binds of {@link #DELETE_DELIVERY_STATE_RANGE}, in placeholder order ({@code groups} fills the IN list). */
    record DeleteDeliveryStateRange(String tenant, List<String> groups, String topic, String partitionKey, long from,
                                    long to) implements Statement {
        /** The statement with its IN list for {@code groups}. */
        @Override
        public String sql() {
            return DELETE_DELIVERY_STATE_RANGE.formatted(Db.placeholders(groups.size()));
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.of("tenant", tenant), Bind.each("consumer_group", groups),
                    Bind.of("topic", topic), Bind.of("partition_key", partitionKey),
                    Bind.of("message_offset", from), Bind.of("message_offset", to));
        }
    }

    /**
     * Locks the heads of the partitions a delete of messages will touch, before anything else of
     * its transaction (docs/architecture.md, "Lag from the partition heads"): every deleter of
     * messages (retention, the admin delete, the requeue, a dead letter replacing a row) takes
     * them first, as every appender does ({@link PublishSql#LOCK_HEADS}, the same statement), so
     * the partition's head is its writers' one lock, taken first, and the count it keeps cannot be
     * written by two of them at once. A deleter that waits for it holds no lease or message row
     * meanwhile. Returns the keys that have a head (a partition of a topic being deleted may have
     * lost its head already).
     */
    static java.util.Set<String> lockHeadsForDelete(java.sql.Connection c, String tenant, String topic,
                                                    java.util.SortedSet<String> partitionKeys) throws SQLException {
        if (partitionKeys.isEmpty()) {
            return java.util.Set.of();
        }
        PublishSql.LockHeads lock = new PublishSql.LockHeads(tenant, topic, List.copyOf(partitionKeys));
        return java.util.Set.copyOf(Db.list(c, lock.sql(), lock, rs -> rs.getString("partition_key")));
    }

    /**
     * Subtracts the messages deleted from partitions from their {@code message_count} (migration
     * V10): the first %s is the partition keys, the second how many each lost (FIELD finds a row's
     * key, ELT its number), the third the keys again. The heads are locked already
     * ({@link #lockHeadsForDelete}, the transaction's first lock). Used by retention and by the
     * admin delete ({@code AdminStore}). Binds: {@link LowerMessageCounts}.
     */
    static final String LOWER_MESSAGE_COUNTS = """
            UPDATE queue_partition_heads
            SET message_count = message_count - CAST(ELT(FIELD(partition_key, %s), %s) AS SIGNED)
            WHERE tenant = ? AND topic = ? AND partition_key IN (%s)""";

    /** Binds of {@link #LOWER_MESSAGE_COUNTS}: {@code deleted[i]} messages left {@code keys[i]}. */
    record LowerMessageCounts(String tenant, String topic, List<String> keys, List<Long> deleted) implements Statement {
        @Override
        public String sql() {
            String list = Db.placeholders(keys.size());
            return LOWER_MESSAGE_COUNTS.formatted(list, list, list);
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.each("partition_key", keys), Bind.each("message_count", deleted),
                    Bind.of("tenant", tenant), Bind.of("topic", topic), Bind.each("partition_key", keys));
        }

        /**
         * Runs it. A key without a head row matches nothing: a partition of a topic being deleted
         * whose heads went first has no count to keep.
         *
         * @throws SQLException when it matched more rows than keys (a bug; rolled back)
         */
        void run(java.sql.Connection c) throws SQLException {
            if (keys.isEmpty()) {
                return;
            }
            int matched = Db.update(c, sql(), this);
            if (matched > keys.size()) {
                throw new SQLException("lowering the message counts of " + keys.size() + " partitions matched "
                        + matched + " head rows");
            }
        }

        /**
         * The statement for what {@code ranges} deleted ({@code deleted[i]} in {@code ranges[i]}),
         * for the partitions in {@code heads}; none deleted: no key.
         *
         * @throws StoreException when a count is unknown (negative: a JDBC batch that did not
         *     report it), which would leave the stored count wrong (a bug; rolled back)
         */
        static LowerMessageCounts of(String tenant, String topic, List<Range> ranges, int[] deleted,
                                     java.util.Set<String> heads) {
            java.util.SortedMap<String, Long> perKey = new java.util.TreeMap<>();
            for (int i = 0; i < deleted.length; i++) {
                if (deleted[i] < 0) {
                    throw new StoreException("retention's delete of a range reported no count (" + deleted[i] + ")", null);
                }
                if (deleted[i] > 0 && heads.contains(ranges.get(i).partitionKey())) {
                    perKey.merge(ranges.get(i).partitionKey(), (long) deleted[i], Long::sum);
                }
            }
            return new LowerMessageCounts(tenant, topic, List.copyOf(perKey.keySet()), List.copyOf(perKey.values()));
        }
    }

    /**
     * A run of consecutive rows of one partition, {@code [from, to]}, every stored message of
     * which (in this partition) retention deletes; the offsets between its rows may belong to
     * other partitions.
     */
    public record Range(String partitionKey, long from, long to) {
        /** How many offsets the range spans; at least as many as it holds messages. */
        public long span() {
            return to - from + 1;
        }
    }

    private final Db db;

    RetentionStore(Db db) {
        this.db = db;
    }

    /**
     * The consumer groups of a topic and the offset up to which all of them have committed
     * each partition.
     *
     * @param groups every consumer group with a committed offset in some partition of the topic
     * @param minCommitted per partition key, the lowest committed offset over the groups that
     *     have a row there, only for partitions where every group has one
     */
    public record Floors(List<String> groups, Map<String, Long> minCommitted) {
        /**
         * The offset at or below which every group of the topic has committed
         * {@code partitionKey}: 0 when there are no groups, or when a group has no committed
         * offset in the partition.
         */
        public long floor(String partitionKey) {
            return minCommitted.getOrDefault(partitionKey, 0L);
        }
    }

    /**
     * The head of a partition.
     *
     * @param offset lowest offset stored in the partition
     * @param expired whether the head is older than the maximum age asked for
     */
    public record Head(String partitionKey, long offset, boolean expired) {}

    /**
     * One stored message as retention sees it.
     *
     * @param expired older than the maximum age asked for (database clock)
     * @param deadLettered a dead letter of it exists in the dead-letter topic
     * @param undelivered a consumer group has it to deliver again (requeued, nacked or in flight)
     */
    public record Row(long offset, boolean expired, boolean deadLettered, boolean undelivered) {}

    /** Topics that have messages in {@code tenant}, in name order. */
    public List<String> topics(String tenant) {
        SelectTopics select = new SelectTopics(tenant);
        return db.read(c -> Db.list(c, select.sql(), select, rs -> rs.getString(1)));
    }

    /** The consumer groups of a topic and the committed floor of each partition (two reads). */
    public Floors floors(String tenant, String topic) {
        return db.read(c -> {
            // Groups first: a group that appears between the two reads only lowers the floors.
            SelectGroups selectGroups = new SelectGroups(tenant, topic);
            List<String> groups = Db.list(c, selectGroups.sql(), selectGroups, rs -> rs.getString(1));
            Map<String, Long> min = new HashMap<>();
            if (groups.isEmpty()) {
                return new Floors(groups, min);
            }
            SelectFloors selectFloors = new SelectFloors(tenant, topic);
            try (PreparedStatement ps = Jdbc.prepare(c, selectFloors.sql())) {
                selectFloors.bindTo(ps);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        if (rs.getInt("group_rows") >= groups.size()) {
                            min.put(rs.getString("partition_key"), rs.getLong("min_committed"));
                        }
                    }
                }
            }
            return new Floors(groups, min);
        });
    }

    /**
     * The head of every partition of a topic.
     *
     * @param maxAgeMicros maximum age in microseconds; a head created earlier than this before
     *     the database's current time is expired
     */
    public List<Head> heads(String tenant, String topic, long maxAgeMicros) {
        SelectHeads select = new SelectHeads(tenant, topic, maxAgeMicros);
        List<Head> rows = db.read(c -> Db.list(c, select.sql(), select, HEAD_ROW));
        return rows.stream().filter(java.util.Objects::nonNull).toList(); // no stored message: no head
    }

    /**
     * Up to {@code limit} rows of each partition of {@code afterOffsets} after its offset, in one
     * statement ({@code UNION ALL}, a branch per partition): the first batch of every partition a
     * run walks, where a statement per partition made retention the most frequent statement of a
     * run over many shallow partitions (docs/operations.md, "Retention").
     *
     * @param afterOffsets per partition key, the offset after which to read; at most
     *     {@link #partitionsPerRead} of {@code limit} partitions
     * @param limit most rows per partition
     * @return per partition key, its rows in offset order; a partition with none is absent
     * @throws IllegalArgumentException with more partitions than that (a bug)
     */
    public Map<String, List<Row>> rows(String tenant, String topic, String deadLetterTopic, List<String> groups,
                                       Map<String, Long> afterOffsets, long maxAgeMicros, int limit) {
        if (afterOffsets.size() > partitionsPerRead(limit)) {
            throw new IllegalArgumentException(afterOffsets.size() + " partitions in one read of " + limit
                    + " rows each, at most " + partitionsPerRead(limit));
        }
        if (afterOffsets.isEmpty()) {
            return Map.of();
        }
        Statement select = ConsumerSql.union(afterOffsets.entrySet().stream().map(e -> new SelectPartitionRows(
                maxAgeMicros, groups, deadLetterTopic, tenant, topic, e.getKey(), e.getValue(), limit)).toList());
        List<Map.Entry<String, Row>> read = db.read(c -> Db.list(c, select.sql(), select,
                rs -> Map.entry(rs.getString("partition_key"), PARTITION_ROW.map(rs))));
        Map<String, List<Row>> byKey = new HashMap<>();
        for (Map.Entry<String, Row> e : read) {
            byKey.computeIfAbsent(e.getKey(), k -> new java.util.ArrayList<>()).add(e.getValue());
        }
        // A UNION ALL promises no order across or within its branches' results.
        byKey.values().forEach(rows -> rows.sort(java.util.Comparator.comparingLong(Row::offset)));
        return byKey;
    }

    /**
     * Up to {@code limit} rows of one partition after {@code afterOffset}, in offset order: the
     * batches after a partition's first ({@link #rows(String, String, String, List, Map, long, int)}).
     *
     * @param deadLetterTopic the topic whose rows with the same partition key and id are this
     *     topic's dead letters ({@code <topic><suffix>})
     * @param groups the topic's consumer groups (see {@link #floors})
     * @param maxAgeMicros maximum age in microseconds, judged by the database clock
     */
    public List<Row> rows(String tenant, String topic, String deadLetterTopic, String partitionKey, List<String> groups,
                          long afterOffset, long maxAgeMicros, int limit) {
        SelectPartitionRows select = new SelectPartitionRows(maxAgeMicros, groups, deadLetterTopic, tenant, topic,
                partitionKey, afterOffset, limit);
        return db.read(c -> Db.list(c, select.sql(), select, PARTITION_ROW));
    }

    /**
     * Deletes the messages of offset ranges of a topic and the delivery state of the topic's
     * groups for them, in one short READ COMMITTED transaction: the identities of their messages
     * younger than the dedup window are remembered ({@link DedupSql#rememberRanges}: one read and
     * one insert), then the ranges are deleted, each kind of delete as one JDBC batch over all
     * ranges, and the partition heads' stored counts are lowered by what left them
     * ({@link #LOWER_MESSAGE_COUNTS}). So a transaction takes the same few round trips however many
     * partitions and messages it deletes.
     * It locks the heads of the ranges' partitions first ({@link #lockHeadsForDelete}), so a
     * publisher of these partitions waits for this short transaction, and it waits for theirs;
     * then record locks only.
     *
     * @param groups the topic's consumer groups (see {@link #floors})
     * @param dedupWindowMicros identities of messages published less than this long ago (in
     *     microseconds) are remembered; 0 remembers none
     * @param ranges offset ranges to delete, every stored message of which is deletable; at most
     *     about one batch of messages in all
     * @param unconsumed partitions of {@code ranges} whose deleted messages reach above some
     *     group's committed offset (expired by the maximum age): their lease rows are locked
     *     first, and each group's committed offset walks over what now follows it
     *     ({@link CommittedOffsets#walkAfterDelete})
     * @return messages deleted; fewer than the ranges span when a concurrent delete (another
     *     process's retention, an admin delete) removed some first, or offsets in them were gaps
     * @throws StoreException when a range lost more rows than it spans, or did not say how many
     *     (a bug; rolled back)
     */
    public int delete(String tenant, String topic, List<String> groups, List<Range> ranges, long dedupWindowMicros,
                      Set<String> unconsumed) {
        if (ranges.isEmpty()) {
            return 0;
        }
        List<String> walked = groups.isEmpty() ? List.of() : unconsumed.stream().sorted().toList();
        return db.inTransaction(Db.Isolation.READ_COMMITTED, c -> {
            java.util.Set<String> heads = lockHeadsForDelete(c, tenant, topic,
                    new java.util.TreeSet<>(ranges.stream().map(Range::partitionKey).toList()));
            if (!walked.isEmpty()) {
                // Before the deletes, as an admin delete takes them: the walk below needs them.
                LockLeasesOfPartitions lock = new LockLeasesOfPartitions(tenant, groups, topic, walked);
                Db.list(c, lock.sql(), lock, rs -> rs.getString("partition_key"));
            }
            if (dedupWindowMicros > 0) {
                DedupSql.rememberRanges(c, ranges.stream().map(r -> new DedupSql.SelectRangeIdentities(tenant, topic,
                        r.partitionKey(), r.from(), r.to(), dedupWindowMicros)).toList());
            }
            int[] counts = Db.updateEach(c, DELETE_MESSAGE_RANGE, ranges.stream()
                    .map(r -> new DeleteMessageRange(tenant, topic, r.partitionKey(), r.from(), r.to())).toList());
            int deleted = 0;
            for (int i = 0; i < counts.length; i++) {
                if (counts[i] > ranges.get(i).span()) {
                    throw new StoreException("retention deleted " + counts[i] + " messages in a range of "
                            + ranges.get(i).span() + " offsets", null);
                }
                deleted += Math.max(counts[i], 0);
            }
            if (!groups.isEmpty()) {
                List<DeleteDeliveryStateRange> states = ranges.stream().map(r -> new DeleteDeliveryStateRange(tenant,
                        groups, topic, r.partitionKey(), r.from(), r.to())).toList();
                // Any number: not every group has state for every message.
                Db.updateEach(c, states.get(0).sql(), states);
            }
            CommittedOffsets.walkAfterDelete(c, tenant, topic, groups, Set.copyOf(walked));
            LowerMessageCounts.of(tenant, topic, ranges, counts, heads).run(c);
            return deleted;
        });
    }

    /**
     * Deletes the remembered identities of a tenant whose dedup window has passed, up to
     * {@code limit} rows in one short READ COMMITTED transaction (record locks on those rows only).
     *
     * @param dedupWindowMicros the window in microseconds; identities published at least this long ago go
     * @return identities deleted; fewer than {@code limit} when no more have expired
     */
    public int deleteExpiredIdentities(String tenant, long dedupWindowMicros, int limit) {
        DedupSql.DeleteExpired delete = new DedupSql.DeleteExpired(tenant, dedupWindowMicros, limit);
        return db.inTransaction(Db.Isolation.READ_COMMITTED, c -> Db.update(c, delete.sql(), delete));
    }
}
