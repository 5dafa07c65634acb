package dev.tenantmq.store;

import dev.tenantmq.model.LagCount;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The queue gauges' statements per tenant (docs/operations.md, "Metrics"): per (topic, consumer group)
 * of one tenant, the lag, in-flight deliveries, dead letters and the age of the oldest
 * unacknowledged message, plus every topic that still has stored messages. The scheduler runs it
 * on its tick for each served tenant and publishes the rows into the gauges' snapshot; a scrape
 * of {@code /q/metrics} never runs it.
 */
@ApplicationScoped
public class QueueStatsStore {
    /** A date later than any {@code created_at}: LEAST ignores it, and it stands for "none". */
    private static final String NONE = "TIMESTAMP('9999-12-31 00:00:00')";

    /**
     * Per (topic, consumer group) of one tenant, from each of its {@code queue_offsets} rows (one
     * per partition the group has read), summed over the partitions:
     * <ul>
     *   <li>not the lag (stored messages above the committed offset, as {@code AdminStore.OFFSETS}
     *       counts them for {@code GET /admin/offsets}): {@link #LAGGING_PARTITIONS} and
     *       {@link #COUNT_ABOVE} or {@link #COUNT_AT_OR_BELOW} count it with a range of the primary key;</li>
     *   <li>{@code in_flight}: deliveries within their visibility timeout, both the open delivery
     *       batch's messages (migration V3: in {@code (committed_offset, delivered_offset]} without
     *       a delivery row: the stored ones in the range less the delivery rows in it, which retention
     *       and delete remove together with their message; a nested NOT EXISTS would be a correlated
     *       subquery vtgate cannot plan) and INFLIGHT rows, as {@code LeaseStore.SELECT_BUSY_*} judge
     *       "busy";</li>
     *   <li>{@code dead_letters}: the group's DEAD rows whose dead letter is still stored in
     *       {@code <topic><suffix>} (a requeue or a delete removes it from there);</li>
     *   <li>{@code oldest_age_micros}: by the database clock, the age of the oldest message the group
     *       has not acknowledged: the first one above the committed offset (the commit walk stops at
     *       it), or a requeued one below it (PENDING, RETRY or INFLIGHT rows at or below the
     *       committed offset); NULL when there is none. The first look gets no range from the
     *       committed offset, a column: it steps the primary key from the partition's oldest stored
     *       message, through the consumed ones retention has not deleted yet. So it runs only where
     *       the partition's head (migration V5, one look-up) is above the committed offset: a
     *       drained partition read all its consumed rows to find nothing (400 partitions of
     *       about 2,000 such rows, 836,597 rows in one refresh of the benchmark).</li>
     * </ul>
     * The UNION ALL part lists each topic with stored messages (consumer_group NULL), so that the
     * metrics of a topic that no longer exists can be removed ({@link TopicListSql}: the tenant's
     * head rows and one message per topic). Every subquery correlates on tenant, so the statement
     * stays on the tenant's shard; the COALESCE around each subquery lets vtexplain's fake tablets
     * type the column (see {@code AdminStore.OFFSETS}).
     * Cost per offsets row: while a delivery batch is open, a read of every stored message of its
     * partition (the batch's bounds are columns, which give no range and no stop); one look-up of
     * the partition's head and, when it is above the committed offset, the step to the first
     * message above it; and primary-key range scans of the group's delivery rows of the partition
     * (EXPLAIN: docs/operations.md, "Metrics").
     * Binds: see {@link StatsBinds}.
     */
    static final String QUEUE_STATS = StateSql.render("""
            SELECT o.topic, o.consumer_group,
                   SUM(CASE WHEN o.delivered_offset > o.committed_offset AND o.visible_at > UTC_TIMESTAMP(6)
                       THEN GREATEST(0, COALESCE((
                           SELECT COUNT(*) FROM queue_messages m
                           WHERE m.tenant = o.tenant AND m.topic = o.topic AND m.partition_key = o.partition_key
                             AND m.`offset` > o.committed_offset AND m.`offset` <= o.delivered_offset), 0)
                         - COALESCE((
                           SELECT COUNT(*) FROM queue_delivery_state b
                           WHERE b.tenant = o.tenant AND b.consumer_group = o.consumer_group AND b.topic = o.topic
                             AND b.partition_key = o.partition_key
                             AND b.message_offset > o.committed_offset AND b.message_offset <= o.delivered_offset), 0))
                       ELSE 0 END)
                   + SUM(COALESCE((
                       SELECT COUNT(*) FROM queue_delivery_state d
                       WHERE d.tenant = o.tenant AND d.consumer_group = o.consumer_group AND d.topic = o.topic
                         AND d.partition_key = o.partition_key AND d.state = {INFLIGHT}
                         AND d.visible_at > UTC_TIMESTAMP(6)), 0)) AS in_flight,
                   SUM(COALESCE((
                       SELECT COUNT(*) FROM queue_delivery_state d
                       JOIN queue_messages m
                         ON m.tenant = d.tenant AND m.topic = d.topic AND m.partition_key = d.partition_key
                        AND m.`offset` = d.message_offset
                       JOIN queue_messages dl
                         ON dl.tenant = m.tenant AND dl.topic = CONCAT(m.topic, ?) AND dl.partition_key = m.partition_key
                        AND dl.id = m.id
                       WHERE d.tenant = o.tenant AND d.consumer_group = o.consumer_group AND d.topic = o.topic
                         AND d.partition_key = o.partition_key AND d.state = {DEAD}), 0)) AS dead_letters,
                   TIMESTAMPDIFF(MICROSECOND, NULLIF(MIN(LEAST(
                       COALESCE(CASE WHEN (
                           SELECT h.head_offset FROM queue_partition_heads h
                           WHERE h.tenant = o.tenant AND h.topic = o.topic AND h.partition_key = o.partition_key)
                             > o.committed_offset THEN (
                           SELECT m.created_at FROM queue_messages m FORCE INDEX (PRIMARY)
                           WHERE m.tenant = o.tenant AND m.topic = o.topic AND m.partition_key = o.partition_key
                             AND m.`offset` > o.committed_offset
                           ORDER BY m.tenant, m.topic, m.partition_key, m.`offset` LIMIT 1) END, %1$s),
                       COALESCE((
                           SELECT MIN(m.created_at) FROM queue_delivery_state d
                           JOIN queue_messages m
                             ON m.tenant = d.tenant AND m.topic = d.topic AND m.partition_key = d.partition_key
                            AND m.`offset` = d.message_offset
                           WHERE d.tenant = o.tenant AND d.consumer_group = o.consumer_group AND d.topic = o.topic
                             AND d.partition_key = o.partition_key AND d.message_offset <= o.committed_offset
                             AND d.state IN ({UNFINISHED})), %1$s))), %1$s), UTC_TIMESTAMP(6)) AS oldest_age_micros
            FROM queue_offsets o
            WHERE o.tenant = ?
            GROUP BY o.topic, o.consumer_group
            UNION ALL
            %2$s""".formatted(NONE, TopicListSql.topicsWithStoredMessages("h.topic, NULL, 0, 0, NULL")));

    /**
     * The lag's first step: per (topic, group, partition) of one tenant, the committed offset of
     * each offsets row whose partition head (migration V5) is above it, with what
     * {@link LagCount#choose} weighs: the head's offset and stored count (migration V10) and the
     * partition's first stored offset (one step into the primary key; 0 when it stores nothing).
     * A drained partition, the usual case, costs one head look-up and no message row. A topic
     * being deleted is left out: its messages go before its heads, so its counts are stale until
     * the heads go too. Binds: {@link LaggingPartitions}.
     */
    static final String LAGGING_PARTITIONS = """
            SELECT o.topic, o.consumer_group, o.partition_key, o.committed_offset, h.head_offset, h.message_count,
                   COALESCE((SELECT m.`offset` FROM queue_messages m FORCE INDEX (PRIMARY)
                             WHERE m.tenant = h.tenant AND m.topic = h.topic AND m.partition_key = h.partition_key
                             ORDER BY m.tenant, m.topic, m.partition_key, m.`offset` LIMIT 1), 0) AS first_offset
            FROM queue_offsets o
            JOIN queue_partition_heads h
              ON h.tenant = o.tenant AND h.topic = o.topic AND h.partition_key = o.partition_key
            WHERE o.tenant = ? AND h.head_offset > o.committed_offset AND %s""".formatted(
            DeletionSql.topicNotBeingDeleted("h"));

    /** Binds of {@link #LAGGING_PARTITIONS}. */
    record LaggingPartitions(String tenant) implements Statement {
        @Override
        public String sql() {
            return LAGGING_PARTITIONS;
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.of("tenant", tenant));
        }
    }

    /**
     * The lag's second step for {@link LagCount#ABOVE}, one branch per such partition in a UNION
     * ALL of up to {@link #LAG_BRANCHES} (with {@link #COUNT_AT_OR_BELOW} branches): the stored
     * messages of a partition above a committed offset. The offset is a bound value, not a column
     * of another table, so the count is a range of the full primary key that reads only the
     * messages above it (a correlated {@code offset > o.committed_offset} reads every acknowledged
     * row retention has not deleted yet: it narrows the scan by the first three key columns only).
     * Counts messages, not offsets: offsets are global, not dense per partition. The primary key
     * is named: {@code uq_message_id} orders a partition by id, where the bound gives no range.
     * Binds: {@link CountAbove}.
     */
    static final String COUNT_ABOVE = """
            SELECT COUNT(*) AS lag_messages FROM queue_messages FORCE INDEX (PRIMARY)
            WHERE tenant = ? AND topic = ? AND partition_key = ? AND `offset` > ?""";

    /**
     * The lag's second step for {@link LagCount#AT_OR_BELOW}: the head's stored count less the
     * stored messages of the partition at or below a committed offset (a range of the primary key
     * from the partition's first message), both in one statement, so from one snapshot: a
     * retention delete that commits between two statements would lower the second and not the
     * first. Negative when the count is short of the stored rows (docs/operations.md, "Metrics"):
     * then the caller counts {@link #COUNT_ABOVE} instead. An aggregate over the one head row, so
     * it answers one row, 0, also when the head is gone: a topic whose deletion finished after
     * {@link #LAGGING_PARTITIONS} read it (its branch would otherwise leave the UNION ALL a row
     * short). Binds: {@link CountAtOrBelow}.
     */
    static final String COUNT_AT_OR_BELOW = """
            SELECT COALESCE(SUM(h.message_count - COALESCE((
                       SELECT COUNT(*) FROM queue_messages m FORCE INDEX (PRIMARY)
                       WHERE m.tenant = h.tenant AND m.topic = h.topic AND m.partition_key = h.partition_key
                         AND m.`offset` <= ?), 0)), 0) AS lag_messages
            FROM queue_partition_heads h
            WHERE h.tenant = ? AND h.topic = ? AND h.partition_key = ?""";

    /** Binds of one {@link #COUNT_ABOVE} branch. */
    record CountAbove(String tenant, String topic, String partitionKey, long committedOffset) implements Statement {
        @Override
        public String sql() {
            return COUNT_ABOVE;
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.of("tenant", tenant), Bind.of("topic", topic), Bind.of("partition_key", partitionKey),
                    Bind.of("offset", committedOffset));
        }
    }

    /** Binds of one {@link #COUNT_AT_OR_BELOW} branch. */
    record CountAtOrBelow(String tenant, String topic, String partitionKey, long committedOffset) implements Statement {
        @Override
        public String sql() {
            return COUNT_AT_OR_BELOW;
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.of("offset", committedOffset), // m.`offset` <= ?
                    Bind.of("tenant", tenant), Bind.of("topic", topic), Bind.of("partition_key", partitionKey));
        }
    }

    /** Branches of one count UNION ALL: bounds the statement for a tenant with many lagging partitions. */
    static final int LAG_BRANCHES = 200;

    /** A row of {@link #LAGGING_PARTITIONS}, with the count it needs. */
    private record Lagging(String topic, String consumerGroup, String partitionKey, long committed, long messageCount,
                           LagCount side) {
        /** The (topic, consumer group) it adds to. */
        List<String> group() {
            return List.of(topic, consumerGroup);
        }

        /** This partition counted another way. */
        Lagging counted(LagCount other) {
            return new Lagging(topic, consumerGroup, partitionKey, committed, messageCount, other);
        }

        /** The count branch of {@link #side}, which {@link LagCount#reads}: its one row is the lag. */
        Statement count(String tenant) {
            return side == LagCount.AT_OR_BELOW ? new CountAtOrBelow(tenant, topic, partitionKey, committed)
                    : new CountAbove(tenant, topic, partitionKey, committed);
        }
    }

    /** Binds of {@link #QUEUE_STATS}, in placeholder order. */
    record StatsBinds(String dlqSuffix, String tenant) implements Statement {
        @Override
        public String sql() {
            return QUEUE_STATS;
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.of("dlq_suffix", dlqSuffix), // dl.topic = CONCAT(m.topic, ?)
                    Bind.of("tenant", tenant), // the groups' offsets rows
                    Bind.of("tenant", tenant)); // the topics with stored messages
        }
    }

    /**
     * One result row of {@link #QUEUE_STATS}. {@code consumerGroup} null: the row only says that
     * {@code topic} has stored messages. {@code oldestAgeMicros} is -1 when nothing is unacknowledged.
     */
    public record QueueStatsRow(String topic, String consumerGroup, long lag, long inFlight, long deadLetters,
                                long oldestAgeMicros) {}

    /** A row of {@link #QUEUE_STATS}, lag 0 until {@link #stats} fills it in. */
    private static final Db.RowMapper<QueueStatsRow> ROW = rs -> {
        long age = rs.getLong("oldest_age_micros");
        if (rs.wasNull()) {
            age = -1;
        }
        return new QueueStatsRow(rs.getString("topic"), rs.getString("consumer_group"), 0,
                rs.getLong("in_flight"), rs.getLong("dead_letters"), Math.max(-1, age));
    };

    private final Db db;

    QueueStatsStore(Db db) {
        this.db = db;
    }

    /**
     * Runs {@link #QUEUE_STATS} for one tenant: its groups' figures and its topics with messages,
     * with each group's lag summed from {@link #LAGGING_PARTITIONS} and the counts {@link LagCount} picks.
     */
    public List<QueueStatsRow> stats(String tenant, String dlqSuffix) {
        StatsBinds stats = new StatsBinds(dlqSuffix, tenant);
        return db.read(c -> {
            List<QueueStatsRow> rows = Db.list(c, stats.sql(), stats, ROW);
            Map<List<String>, Long> lag = lag(c, tenant);
            List<QueueStatsRow> out = new ArrayList<>(rows.size());
            for (QueueStatsRow r : rows) {
                long l = r.consumerGroup() == null ? 0 : lag.getOrDefault(List.of(r.topic(), r.consumerGroup()), 0L);
                out.add(new QueueStatsRow(r.topic(), r.consumerGroup(), l, r.inFlight(), r.deadLetters(),
                        r.oldestAgeMicros()));
            }
            return out;
        });
    }

    /** The lag of each (topic, consumer group) of one tenant that has one, summed over its partitions. */
    private static Map<List<String>, Long> lag(Connection c, String tenant) throws SQLException {
        LaggingPartitions select = new LaggingPartitions(tenant);
        List<Lagging> lagging = Db.list(c, select.sql(), select, rs -> {
            long committed = rs.getLong("committed_offset");
            long count = rs.getLong("message_count");
            return new Lagging(rs.getString("topic"), rs.getString("consumer_group"), rs.getString("partition_key"),
                    committed, count, LagCount.choose(committed, rs.getLong("head_offset"), rs.getLong("first_offset"),
                            count));
        });
        Map<List<String>, Long> lag = new HashMap<>();
        List<Lagging> counted = new ArrayList<>();
        for (Lagging p : lagging) {
            if (p.side().reads()) {
                counted.add(p);
            } else {
                lag.merge(p.group(), p.side().known(p.messageCount()), Long::sum);
            }
        }
        List<Lagging> recount = new ArrayList<>();
        count(c, tenant, counted, (p, n) -> {
            if (LagCount.plausible(n)) {
                lag.merge(p.group(), n, Long::sum);
            } else {
                recount.add(p.counted(LagCount.ABOVE)); // the stored count is short of the rows
            }
        });
        count(c, tenant, recount, (p, n) -> lag.merge(p.group(), n, Long::sum));
        return lag;
    }

    /** Runs the count of each of {@code partitions} ({@link Lagging#count}), {@link #LAG_BRANCHES} to a statement. */
    private static void count(Connection c, String tenant, List<Lagging> partitions,
                              java.util.function.ObjLongConsumer<Lagging> each) throws SQLException {
        for (int from = 0; from < partitions.size(); from += LAG_BRANCHES) {
            List<Lagging> chunk = partitions.subList(from, Math.min(partitions.size(), from + LAG_BRANCHES));
            List<String> branches = new ArrayList<>(chunk.size());
            List<Bind> binds = new ArrayList<>(4 * chunk.size());
            for (Lagging p : chunk) {
                Statement branch = p.count(tenant);
                branches.add(branch.sql());
                binds.addAll(branch.binds());
            }
            Statement count = Statement.of(Db.unionAll(branches), binds);
            int[] row = {0};
            Db.forEach(c, count.sql(), count, rs -> {
                // UNION ALL keeps branch order: one row per branch (each is a COUNT or a SUM).
                each.accept(chunk.get(row[0]++), rs.getLong("lag_messages"));
            });
            if (row[0] != chunk.size()) {
                throw new SQLException("the lag counts of " + chunk.size() + " partitions gave " + row[0] + " rows");
            }
        }
    }
}
