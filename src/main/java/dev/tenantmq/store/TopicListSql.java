package dev.tenantmq.store;

/**
 * The one home of "the topics of a tenant that have stored messages", for retention's list of
 * topics ({@link RetentionStore#SELECT_TOPICS}) and the gauges' list of topics that still exist
 * ({@link QueueStatsStore#QUEUE_STATS}).
 *
 * <p>The topics come from the partition heads (migration V5: one row per partition, written by
 * every appender, deleted with the topic), each confirmed by one step into the topic's messages.
 * A {@code GROUP BY tenant, topic} over {@code queue_messages} is a loose index scan only while
 * the table's statistics say a tenant has many rows per topic: in the benchmark, with the
 * statistics of a table under constant inserts and deletes, MariaDB 10.11 read every message of
 * the tenant instead (1,274,700 rows and 36 s in one gauge refresh). This form reads at most the
 * tenant's head rows, narrow and one per partition, and one message per topic, whatever the
 * statistics (docs/architecture.md, "Reads that do not grow with the backlog").
 */
final class TopicListSql {
    private TopicListSql() {}

    /**
     * A statement over the heads {@code h} of one tenant (one {@code ?}: the tenant), one row per
     * topic with at least one stored message, selecting {@code columns} (the grouped
     * {@code h.topic}, or constants). The probe stands in {@code HAVING}, so MariaDB and MySQL run
     * it once per topic, not once per partition (vtgate v0.24.4, which rebuilds a statement with
     * subqueries, moves a HAVING condition without an aggregate into WHERE: through it the probe
     * runs once per head row, the same answer at a cost that still grows with the partitions, not
     * the messages). A {@code LIMIT 1} scalar subquery, not an {@code EXISTS}, which MariaDB may
     * turn into a semi-join materialized from every message.
     */
    static String topicsWithStoredMessages(String columns) {
        return """
                SELECT %s
                FROM queue_partition_heads h
                WHERE h.tenant = ?
                GROUP BY h.tenant, h.topic
                HAVING (SELECT t.partition_key FROM queue_messages t FORCE INDEX (PRIMARY)
                        WHERE t.tenant = h.tenant AND t.topic = h.topic
                        LIMIT 1) IS NOT NULL""".formatted(columns);
    }
}
