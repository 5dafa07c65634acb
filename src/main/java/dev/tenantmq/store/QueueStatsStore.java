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
    /** A date later than any {@code created_at}: MIN ignores it beside a real one, and it stands for "none". */
    private static final String NONE = "TIMESTAMP('9999-12-31 00:00:00')";

    /**
     * Per (topic, consumer group) of one tenant, from each of its {@code queue_offsets} rows (one
     * per partition the group has read), summed over the partitions:
     * <ul>
     *   <li>not the lag (stored messages above the committed offset, as {@code AdminStore.OFFSETS}
     *       counts them for {@code GET /admin/offsets}): {@link #LAGGING_PARTITIONS} and
     *       {@link #COUNT_ABOVE} or {@link #COUNT_AT_OR_BELOW} count it with a range of the primary key;</li>
     *   <li>{@code in_flight}: the INFLIGHT delivery rows within their visibility timeout whose
     *       message is still stored (a topic's deletion deletes the messages first and their
     *       delivery rows later: a delivery of a deleted message is no longer in flight, its
     *       receipt answers INVALID; {@code STRAIGHT_JOIN} reads the few delivery rows first and
     *       looks each message up: MySQL 9.7 otherwise read every stored message of the partition
     *       and probed the delivery rows, as {@code QueueStatsReadTest} found); the open
     *       delivery batches' messages, the rest of the in-flight figure, are not counted here but
     *       with bound offsets by {@link #COUNT_IN_BATCH}, as {@code LeaseStore.SELECT_BUSY_*}
     *       judge "busy";</li>
     *   <li>{@code dead_letters}: the group's DEAD rows whose dead letter is still stored in
     *       {@code <topic><suffix>} (a requeue or a delete removes it from there);</li>
     *   <li>{@code oldest_age_micros}: by the database clock, the age of the oldest requeued message
     *       the group has not acknowledged (PENDING, RETRY or INFLIGHT rows at or below the
     *       committed offset); NULL when there is none. The other candidate for the oldest, the
     *       first message above the committed offset (the commit walk stops at it), is read with
     *       the offset bound as a value by {@link #FIRST_ABOVE_AGE}, only where the partition's
     *       head is above the committed offset: a correlated bound gives no range, and stepped the
     *       primary key from the partition's oldest stored message through every consumed one
     *       retention has not deleted yet.</li>
     * </ul>
     * The UNION ALL part lists each topic with stored messages (consumer_group NULL), so that the
     * metrics of a topic that no longer exists can be removed ({@link TopicListSql}: the tenant's
     * head rows and one message per topic). Every subquery correlates on tenant, so the statement
     * stays on the tenant's shard; the COALESCE around each subquery lets vtexplain's fake tablets
     * type the column (see {@code AdminStore.OFFSETS}).
     * Cost per offsets row: primary-key range scans of the group's delivery rows of the partition
     * (EXPLAIN: docs/operations.md, "Metrics").
     * Binds: see {@link StatsBinds}.
     */
    static final String QUEUE_STATS = StateSql.render("""
            SELECT o.topic, o.consumer_group,
                   SUM(COALESCE((
                       SELECT COUNT(*) FROM queue_delivery_state d
                       STRAIGHT_JOIN queue_messages m
                         ON m.tenant = d.tenant AND m.topic = d.topic AND m.partition_key = d.partition_key
                        AND m.`offset` = d.message_offset
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
                   TIMESTAMPDIFF(MICROSECOND, NULLIF(MIN(COALESCE((
                           SELECT MIN(m.created_at) FROM queue_delivery_state d
                           JOIN queue_messages m
                             ON m.tenant = d.tenant AND m.topic = d.topic AND m.partition_key = d.partition_key
                            AND m.`offset` = d.message_offset
                           WHERE d.tenant = o.tenant AND d.consumer_group = o.consumer_group AND d.topic = o.topic
                             AND d.partition_key = o.partition_key AND d.message_offset <= o.committed_offset
                             AND d.state IN ({UNFINISHED})), %1$s)), %1$s), UTC_TIMESTAMP(6)) AS oldest_age_micros
            FROM queue_offsets o
            WHERE o.tenant = ?
            GROUP BY o.topic, o.consumer_group
            UNION ALL
            %2$s""".formatted(NONE, TopicListSql.topicsWithStoredMessages("h.topic, NULL, 0, 0, NULL")));

    /**
     * The first step of the lag and of the open batches' part of the in-flight figure: per (topic,
     * group, partition) of one tenant, the committed offset of each offsets row whose partition
     * head (migration V5) is above it, with what {@link LagCount#choose} weighs: the head's offset
     * and stored count (migration V10) and the partition's first stored offset (one step into the
     * primary key; 0 when it stores nothing); and the last offset of its open delivery batch
     * within its visibility timeout (migration V3; 0 when there is none), which lies above the
     * committed offset and at or below the head, so every open batch is among these rows, as is
     * every partition with a message above its committed offset ({@link #FIRST_ABOVE_AGE}). A
     * drained partition, the usual case, costs one head look-up and no message row. Whether the
     * topic is being deleted: its lag is not counted, since its messages go before its heads, so
     * its counts are stale until the heads go too. Binds: {@link LaggingPartitions}.
     */
    static final String LAGGING_PARTITIONS = """
            SELECT o.topic, o.consumer_group, o.partition_key, o.committed_offset, h.head_offset, h.message_count,
                   COALESCE((SELECT m.`offset` FROM queue_messages m FORCE INDEX (PRIMARY)
                             WHERE m.tenant = h.tenant AND m.topic = h.topic AND m.partition_key = h.partition_key
                             ORDER BY m.tenant, m.topic, m.partition_key, m.`offset` LIMIT 1), 0) AS first_offset,
                   CASE WHEN o.delivered_offset > o.committed_offset AND o.visible_at > UTC_TIMESTAMP(6)
                        THEN o.delivered_offset ELSE 0 END AS open_batch_to,
                   CASE WHEN %s THEN 0 ELSE 1 END AS topic_deleting
            FROM queue_offsets o
            JOIN queue_partition_heads h
              ON h.tenant = o.tenant AND h.topic = o.topic AND h.partition_key = o.partition_key
            WHERE o.tenant = ? AND h.head_offset > o.committed_offset""".formatted(
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
            SELECT COUNT(*) AS figure FROM queue_messages FORCE INDEX (PRIMARY)
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
                         AND m.`offset` <= ?), 0)), 0) AS figure
            FROM queue_partition_heads h
            WHERE h.tenant = ? AND h.topic = ? AND h.partition_key = ?""";

    /**
     * The open delivery batch's part of a group's in-flight figure in one partition, a branch of
     * the same UNION ALL as the lag's counts: the stored messages in the batch's range
     * {@code (committed_offset, delivered_offset]} as {@link #LAGGING_PARTITIONS} read them, less
     * the delivery rows in it (a message of the batch that was acknowledged, nacked, extended or
     * dead-lettered on its own has a row, and an INFLIGHT one is counted by {@link #QUEUE_STATS};
     * retention and a delete remove a row with its message). Both bounds are values, so each count
     * is a range of its primary key that reads the batch, not every message the partition still
     * stores (a correlated bound gives no range). An aggregate over the offsets row, so it answers
     * one row, 0, also when the row is gone (its group deleted since the first step). It reads a
     * snapshot of its own, after {@link #QUEUE_STATS} counted the INFLIGHT rows in another: for
     * one refresh, a batch acknowledged in between still counts in flight, and one written out as
     * rows in between (nacked, extended, handed back) counts in neither. Binds: {@link CountInBatch}.
     */
    static final String COUNT_IN_BATCH = """
            SELECT COALESCE(SUM(GREATEST(0,
                       COALESCE((SELECT COUNT(*) FROM queue_messages m FORCE INDEX (PRIMARY)
                                 WHERE m.tenant = o.tenant AND m.topic = o.topic AND m.partition_key = o.partition_key
                                   AND m.`offset` > ? AND m.`offset` <= ?), 0)
                       - COALESCE((SELECT COUNT(*) FROM queue_delivery_state b
                                   WHERE b.tenant = o.tenant AND b.consumer_group = o.consumer_group
                                     AND b.topic = o.topic AND b.partition_key = o.partition_key
                                     AND b.message_offset > ? AND b.message_offset <= ?), 0))), 0) AS figure
            FROM queue_offsets o
            WHERE o.tenant = ? AND o.topic = ? AND o.partition_key = ? AND o.consumer_group = ?""";

    /** Binds of one {@link #COUNT_IN_BATCH} branch: the batch is {@code (committedOffset, batchTo]}. */
    record CountInBatch(String tenant, String topic, String consumerGroup, String partitionKey, long committedOffset,
                        long batchTo) implements Statement {
        @Override
        public String sql() {
            return COUNT_IN_BATCH;
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.of("offset", committedOffset), Bind.of("offset", batchTo), // m.`offset` range
                    Bind.of("message_offset", committedOffset), Bind.of("message_offset", batchTo), // b range
                    Bind.of("tenant", tenant), Bind.of("topic", topic), Bind.of("partition_key", partitionKey),
                    Bind.of("consumer_group", consumerGroup)); // the offsets row
        }
    }

    /**
     * The age, by the database clock, of the first stored message of a partition above a committed
     * offset, in microseconds; -1 when it stores none. A branch of the same UNION ALL as the
     * counts: the offset is a bound value, so the look is one step of a range of the primary key
     * (a correlated bound steps from the partition's oldest stored message). An aggregate over
     * the head row, one row also when the head is gone. Binds: {@link FirstAboveAge}.
     */
    static final String FIRST_ABOVE_AGE = """
            SELECT COALESCE(MAX(TIMESTAMPDIFF(MICROSECOND, (
                       SELECT m.created_at FROM queue_messages m FORCE INDEX (PRIMARY)
                       WHERE m.tenant = h.tenant AND m.topic = h.topic AND m.partition_key = h.partition_key
                         AND m.`offset` > ?
                       ORDER BY m.tenant, m.topic, m.partition_key, m.`offset` LIMIT 1), UTC_TIMESTAMP(6))), -1) AS figure
            FROM queue_partition_heads h
            WHERE h.tenant = ? AND h.topic = ? AND h.partition_key = ?""";

    /** Binds of one {@link #FIRST_ABOVE_AGE} branch. */
    record FirstAboveAge(String tenant, String topic, String partitionKey, long committedOffset) implements Statement {
        @Override
        public String sql() {
            return FIRST_ABOVE_AGE;
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.of("offset", committedOffset), // m.`offset` > ?
                    Bind.of("tenant", tenant), Bind.of("topic", topic), Bind.of("partition_key", partitionKey));
        }
    }

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

    /**
     * A row of {@link #LAGGING_PARTITIONS}, with the count its lag needs; {@code openBatchTo} is
     * the last offset of its open batch, 0 when none; {@code storesNone}: the partition stores no
     * message (its first stored offset read as 0), so nothing of it is in a batch or above the
     * committed offset.
     */
    private record Lagging(String topic, String consumerGroup, String partitionKey, long committed, long messageCount,
                           LagCount side, long openBatchTo, boolean topicDeleting, boolean storesNone) {
        /** The (topic, consumer group) it adds to. */
        List<String> group() {
            return List.of(topic, consumerGroup);
        }

        /** This partition counted another way. */
        Lagging counted(LagCount other) {
            return new Lagging(topic, consumerGroup, partitionKey, committed, messageCount, other, openBatchTo,
                    topicDeleting, storesNone);
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
     * with each group's lag summed from {@link #LAGGING_PARTITIONS} and the counts {@link LagCount}
     * picks, and its open batches' messages ({@link #COUNT_IN_BATCH}) added to its in-flight figure.
     */
    public List<QueueStatsRow> stats(String tenant, String dlqSuffix) {
        StatsBinds stats = new StatsBinds(dlqSuffix, tenant);
        return db.read(c -> {
            List<QueueStatsRow> rows = Db.list(c, stats.sql(), stats, ROW);
            Counts counts = counts(c, tenant);
            List<QueueStatsRow> out = new ArrayList<>(rows.size());
            for (QueueStatsRow r : rows) {
                long lag = 0;
                long inBatches = 0;
                long age = r.oldestAgeMicros();
                if (r.consumerGroup() != null) { // else the row says only that the topic has stored messages
                    List<String> group = List.of(r.topic(), r.consumerGroup());
                    lag = counts.lag().getOrDefault(group, 0L);
                    inBatches = counts.inBatches().getOrDefault(group, 0L);
                    age = Math.max(age, counts.firstAboveAge().getOrDefault(group, -1L));
                }
                out.add(new QueueStatsRow(r.topic(), r.consumerGroup(), lag, r.inFlight() + inBatches, r.deadLetters(),
                        age));
            }
            return out;
        });
    }

    /**
     * Per (topic, consumer group) of one tenant: its lag, the messages of its open batches, and the
     * age of the oldest first message above a committed offset of its partitions (microseconds).
     */
    private record Counts(Map<List<String>, Long> lag, Map<List<String>, Long> inBatches,
                          Map<List<String>, Long> firstAboveAge) {}

    /** One branch of a count UNION ALL and what takes its one row. */
    private record Branch(Statement statement, java.util.function.LongConsumer result) {}

    /**
     * The lag and the open batches' messages of each (topic, consumer group) of one tenant that
     * has them, summed over its partitions, and the age of its oldest first message above a
     * committed offset: the first step's rows, then their counts and looks, {@link #LAG_BRANCHES}
     * to a UNION ALL, then the recount of any stored count found short.
     */
    private static Counts counts(Connection c, String tenant) throws SQLException {
        LaggingPartitions select = new LaggingPartitions(tenant);
        List<Lagging> lagging = Db.list(c, select.sql(), select, rs -> {
            long committed = rs.getLong("committed_offset");
            long count = rs.getLong("message_count");
            long firstOffset = rs.getLong("first_offset");
            return new Lagging(rs.getString("topic"), rs.getString("consumer_group"), rs.getString("partition_key"),
                    committed, count, LagCount.choose(committed, rs.getLong("head_offset"), firstOffset, count),
                    rs.getLong("open_batch_to"), rs.getInt("topic_deleting") != 0, firstOffset == 0);
        });
        Map<List<String>, Long> lag = new HashMap<>();
        Map<List<String>, Long> inBatches = new HashMap<>();
        Map<List<String>, Long> firstAboveAge = new HashMap<>();
        List<Branch> branches = new ArrayList<>();
        List<Branch> recount = new ArrayList<>();
        for (Lagging p : lagging) {
            if (!p.storesNone()) {
                branches.add(new Branch(new FirstAboveAge(tenant, p.topic(), p.partitionKey(), p.committed()),
                        age -> firstAboveAge.merge(p.group(), age, Math::max)));
            }
            if (p.openBatchTo() > 0 && !p.storesNone()) {
                branches.add(new Branch(new CountInBatch(tenant, p.topic(), p.consumerGroup(), p.partitionKey(),
                        p.committed(), p.openBatchTo()), n -> inBatches.merge(p.group(), n, Long::sum)));
            }
            if (p.topicDeleting()) {
                continue; // no lag while the topic's deletion runs (see LAGGING_PARTITIONS)
            }
            if (!p.side().reads()) {
                lag.merge(p.group(), p.side().known(p.messageCount()), Long::sum);
                continue;
            }
            branches.add(new Branch(p.count(tenant), n -> {
                if (LagCount.plausible(n)) {
                    lag.merge(p.group(), n, Long::sum);
                } else { // the stored count is short of the rows
                    Lagging above = p.counted(LagCount.ABOVE);
                    recount.add(new Branch(above.count(tenant), m -> lag.merge(p.group(), m, Long::sum)));
                }
            }));
        }
        run(c, branches);
        run(c, recount);
        return new Counts(lag, inBatches, firstAboveAge);
    }

    /** Runs {@code branches}, {@link #LAG_BRANCHES} to a UNION ALL statement, each row to its branch's result. */
    private static void run(Connection c, List<Branch> branches) throws SQLException {
        for (int from = 0; from < branches.size(); from += LAG_BRANCHES) {
            List<Branch> chunk = branches.subList(from, Math.min(branches.size(), from + LAG_BRANCHES));
            List<String> texts = new ArrayList<>(chunk.size());
            List<Bind> binds = new ArrayList<>();
            for (Branch b : chunk) {
                texts.add(b.statement().sql());
                binds.addAll(b.statement().binds());
            }
            Statement count = Statement.of(Db.unionAll(texts), binds);
            // Collected first: a result may add a branch to the recount while the set is open.
            long[] counted = new long[chunk.size()];
            int[] row = {0};
            Db.forEach(c, count.sql(), count, rs -> {
                // UNION ALL keeps branch order: one row per branch (each an aggregate without GROUP BY).
                if (row[0] < counted.length) {
                    counted[row[0]] = rs.getLong("figure");
                }
                row[0]++;
            });
            if (row[0] != chunk.size()) {
                throw new SQLException("the counts of " + chunk.size() + " branches gave " + row[0] + " rows");
            }
            for (int i = 0; i < counted.length; i++) {
                chunk.get(i).result().accept(counted[i]);
            }
        }
    }
}
