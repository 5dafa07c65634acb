package dev.tenantmq;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tenantmq.config.MqConfig;
import dev.tenantmq.store.QueueStatsStore;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.path.json.JsonPath;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The queue statistics (the gauges' refresh and {@code GET /admin/consumer-groups}) read neither
 * a deep backlog nor the consumed messages retention has not deleted yet: the lag is counted on
 * the shorter side of the committed offset, from the partition head's stored count
 * (docs/architecture.md, "Lag from the partition heads"), and agrees with the offsets listing's
 * count, whichever side it reads. An open delivery batch's messages (in flight) and the first
 * message above the committed offset (the oldest age) are read with their offsets bound as values,
 * and only where the partition's head is above the committed offset (docs/architecture.md, "Reads
 * that do not grow with the backlog"). Measured with the server's
 * handler counters, the least of five refreshes (another session's reads only raise a try), with
 * 2,001 consumed messages of the partition still stored (retention is off in the test profile), less
 * the rows read with one: the tenant is shared with other tests, whose partitions cost the same in
 * both.
 */
@QuarkusTest
@TestProfile(StatementBudgetTest.NoTicks.class)
class QueueStatsReadTest {
    private static final int CONSUMED = 2000;

    @Inject
    AgroalDataSource dataSource;

    @Inject
    QueueStatsStore stats;

    @Inject
    MqConfig config;

    @Test
    void the_statistics_of_a_drained_partition_do_not_read_its_consumed_messages() throws Exception {
        HandlerReads.assumeNotVitess(dataSource);
        String tenant = TestIds.tenant();
        String topic = TestIds.topic();
        String group = "g";
        drainOne(tenant, topic, group);
        // The tenant is shared with other tests: what its other partitions cost is measured with
        // this one drained and one consumed row of it stored.
        long baseline = leastRowsRead(tenant);

        publishMany(tenant, topic, "deep", CONSUMED);
        List<Delivered> last = List.of();
        for (int consumed = 0; consumed < CONSUMED; consumed += last.size()) {
            last = Api.fetchAcking(tenant, topic, group, Fetch.upTo(1000).waitSeconds(5), Delivered.receipts(last))
                    .messages();
            assertTrue(!last.isEmpty(), "the partition gives its next messages after " + consumed);
        }
        assertEquals(List.of("ACKED"), Api.ack(tenant, topic, group, Delivered.receipts(last)).stream().distinct().toList());
        long drained = leastRowsRead(tenant);

        assertEquals(List.of(new QueueStatsStore.QueueStatsRow(topic, group, 0, 0, 0, -1),
                        new QueueStatsStore.QueueStatsRow(topic, null, 0, 0, 0, -1)),
                stats.stats(tenant, config.dlqSuffix()).stream().filter(r -> r.topic().equals(topic)).toList(),
                "the group has nothing unacknowledged, and the topic still has stored messages");
        assertTrue(drained - baseline <= 50, "rows read by the statistics of a drained partition with " + (CONSUMED + 1)
                + " consumed messages still stored, less those read with 1: " + drained + " - " + baseline);
    }

    @Test
    void the_lag_of_a_deep_backlog_is_counted_from_its_consumed_side_without_reading_the_backlog() throws Exception {
        HandlerReads.assumeNotVitess(dataSource);
        String tenant = TestIds.tenant();
        String topic = TestIds.topic();
        String group = "g";
        drainOne(tenant, topic, group);
        long baseline = leastRowsRead(tenant);

        publishMany(tenant, topic, "deep", CONSUMED);
        List<Delivered> one = Api.fetchOk(tenant, topic, group, Fetch.upTo(1));
        assertEquals(List.of("ACKED"), Api.ack(tenant, topic, group, Delivered.receipts(one)));
        long backlog = leastRowsRead(tenant);

        assertEquals(Map.of(group, (long) CONSUMED - 1), lagByGroup(tenant, topic));
        assertEquals(Map.of(group, (long) CONSUMED - 1), listedLagByGroup(tenant, topic), "the offsets listing counts the same");
        assertTrue(backlog - baseline <= 50, "rows read by the statistics of a partition with a backlog of "
                + (CONSUMED - 1) + " behind 2 consumed messages, less those read with it drained: " + backlog + " - "
                + baseline);
    }

    @Test
    void an_open_batch_and_the_oldest_age_behind_consumed_messages_read_the_batch_not_the_consumed_messages()
            throws Exception {
        HandlerReads.assumeNotVitess(dataSource);
        String tenant = TestIds.tenant();
        String topic = TestIds.topic();
        String group = "g";
        int batch = 10;
        drainOne(tenant, topic, group);
        long baseline = leastRowsRead(tenant);

        publishMany(tenant, topic, "deep", CONSUMED + batch + 5);
        consume(tenant, topic, group, CONSUMED, true);
        assertEquals(batch, Api.fetchOk(tenant, topic, group, Fetch.upTo(batch).visibilitySeconds(600)).size());
        long open = leastRowsRead(tenant);

        QueueStatsStore.QueueStatsRow row = stats.stats(tenant, config.dlqSuffix()).stream()
                .filter(r -> r.topic().equals(topic) && group.equals(r.consumerGroup())).findFirst().orElseThrow();
        assertEquals(List.of((long) batch + 5, (long) batch), List.of(row.lag(), row.inFlight()), "lag, in flight: " + row);
        assertTrue(row.oldestAgeMicros() >= 0, "a message above the committed offset has an age: " + row);
        // The batch's count and the lag's count above the committed offset read 10 and 15 messages;
        // with the batch's bounds or the first message's as columns, each read the 2,001 consumed
        // messages before them too.
        assertTrue(open - baseline <= 100, "rows read by the statistics of a partition with an open batch of " + batch
                + " behind " + (CONSUMED + 1) + " consumed messages, less those read with it drained: " + open + " - "
                + baseline);
    }

    @Test
    void each_partitions_figures_go_to_its_group_when_lag_batches_and_ages_share_the_counts_statement() {
        String tenant = TestIds.tenant();
        String topic = TestIds.topic();
        for (String key : List.of("a", "b", "c")) {
            publishMany(tenant, topic, key, 40);
        }
        consume(tenant, topic, "g1", 45, true); // committed offsets above 0 in some partitions: counts read
        consume(tenant, topic, "g1", 30, false); // open batches
        consume(tenant, topic, "g2", 12, false); // nothing committed: no count, open batches and ages only

        Map<String, QueueStatsStore.QueueStatsRow> rows = new TreeMap<>();
        for (QueueStatsStore.QueueStatsRow r : stats.stats(tenant, config.dlqSuffix())) {
            if (r.topic().equals(topic) && r.consumerGroup() != null) {
                rows.put(r.consumerGroup(), r);
            }
        }
        // Branches of three kinds per partition and group in one UNION ALL: a row read into the
        // wrong branch would put an age (microseconds, or -1) into a lag or an in-flight figure.
        assertEquals(List.of(75L, 30L), List.of(rows.get("g1").lag(), rows.get("g1").inFlight()), "g1: " + rows.get("g1"));
        assertEquals(List.of(120L, 12L), List.of(rows.get("g2").lag(), rows.get("g2").inFlight()), "g2: " + rows.get("g2"));
        for (QueueStatsStore.QueueStatsRow r : rows.values()) {
            assertTrue(r.oldestAgeMicros() >= 0 && r.oldestAgeMicros() < 600_000_000L,
                    "the oldest unacknowledged message was published during the test: " + r);
        }
        assertEquals(lagByGroup(tenant, topic), listedLagByGroup(tenant, topic));
    }

    @Test
    void every_way_of_counting_the_lag_agrees_with_the_offsets_listing_after_duplicates_and_a_delete() throws Exception {
        String tenant = TestIds.tenant();
        String topic = TestIds.topic();
        publishMany(tenant, topic, "p", 300);
        // Duplicates store nothing, of a stored id or of one earlier in the batch: not counted either.
        assertEquals(List.of(true, true, false, true), Api.publishOk(tenant, topic, List.of(Api.msg("p", "m-7", 1),
                Api.msg("p", "m-7", 1), Api.msg("p", "extra", 1), Api.msg("p", "extra", 1))).duplicates());
        consume(tenant, topic, "slow", 10, true); // 10 at or below, 291 above: counted at or below
        consume(tenant, topic, "fast", 290, true); // 290 at or below, 11 above: counted above
        consume(tenant, topic, "idle", 5, false); // nothing committed: every stored message, no count
        assertEquals(Map.of("slow", 291L, "fast", 11L, "idle", 301L), lagByGroup(tenant, topic));
        assertEquals(lagByGroup(tenant, topic), listedLagByGroup(tenant, topic));

        given().header("Authorization", "Bearer " + AdminTest.TOKEN).queryParam("tenant", tenant)
                .queryParam("topic", topic).queryParam("partitionKey", "p").queryParam("id", "m-299")
                .delete("/admin/messages").then().statusCode(200);
        assertEquals(Map.of("slow", 290L, "fast", 10L, "idle", 300L), lagByGroup(tenant, topic));
        assertEquals(lagByGroup(tenant, topic), listedLagByGroup(tenant, topic));
        assertEquals(300L, StoredCounts.assertMatchStored(dataSource, tenant).get(topic + "/p"));
    }

    @Test
    void a_stored_count_short_of_the_rows_is_not_used_and_the_lag_is_counted_row_by_row() throws Exception {
        String tenant = TestIds.tenant();
        String topic = TestIds.topic();
        publishMany(tenant, topic, "p", 300);
        consume(tenant, topic, "slow", 10, true); // 10 at or below, 290 above: counted at or below
        assertEquals(Map.of("slow", 290L), lagByGroup(tenant, topic));
        // What a writer that does not keep the count leaves (docs/operations.md, "Metrics"): 5 of 300.
        assertEquals(1, setStoredCount(tenant, topic, "p", 5));
        try {
            assertEquals(Map.of("slow", 290L), lagByGroup(tenant, topic), "5 - 10 is no lag: counted above instead");
        } finally {
            assertEquals(1, setStoredCount(tenant, topic, "p", 300)); // the tenant is shared: StoredCounts checks it
        }
    }

    @Test
    void the_count_at_or_below_a_committed_offset_answers_one_row_for_a_partition_whose_head_is_gone()
            throws Exception {
        // A topic whose deletion finishes between the lag's two statements: each branch of the
        // count's UNION ALL must still answer one row, or the rows after it shift to the wrong
        // partitions (docs/architecture.md, "Lag from the partition heads").
        String tenant = TestIds.tenant();
        try (java.sql.Connection c = dataSource.getConnection();
             java.sql.PreparedStatement ps = c.prepareStatement(StoreStatements.all().get("QueueStatsStore.COUNT_AT_OR_BELOW"))) {
            ps.setLong(1, 10);
            ps.setString(2, tenant);
            ps.setString(3, TestIds.topic()); // no head: never published to
            ps.setString(4, "p");
            try (java.sql.ResultSet rs = ps.executeQuery()) {
                assertTrue(rs.next(), "one row");
                assertEquals(0, rs.getLong("figure"));
                assertTrue(!rs.next(), "only one");
            }
        }
    }

    private int setStoredCount(String tenant, String topic, String partitionKey, long count) throws Exception {
        try (java.sql.Connection c = dataSource.getConnection(); java.sql.PreparedStatement ps = c.prepareStatement(
                "UPDATE queue_partition_heads SET message_count = ? WHERE tenant = ? AND topic = ? AND partition_key = ?")) {
            ps.setLong(1, count);
            ps.setString(2, tenant);
            ps.setString(3, topic);
            ps.setString(4, partitionKey);
            return ps.executeUpdate();
        }
    }

    /** Publishes one message to partition "deep" and has {@code group} consume and acknowledge it. */
    private static void drainOne(String tenant, String topic, String group) {
        Api.publishOk(tenant, topic, List.of(Api.msg("deep", "first", Map.of("i", 0))));
        List<Delivered> first = Api.fetchOk(tenant, topic, group, Fetch.upTo(1));
        assertEquals(List.of("ACKED"), Api.ack(tenant, topic, group, Delivered.receipts(first)));
    }

    private static void publishMany(String tenant, String topic, String partitionKey, int n) {
        for (int from = 0; from < n; from += 500) {
            List<Map<String, Object>> batch = new ArrayList<>();
            for (int i = from; i < Math.min(n, from + 500); i++) {
                batch.add(Api.msg(partitionKey, "m-" + i, Map.of("i", i + 1)));
            }
            Api.publishOk(tenant, topic, batch);
        }
    }

    /**
     * Takes the partition's next {@code n} messages for {@code group}, at most 1,000 a fetch (the
     * default {@code mq.fetch.max-messages}), acknowledging them or not.
     */
    private static void consume(String tenant, String topic, String group, int n, boolean ack) {
        int taken = 0;
        while (taken < n) {
            List<Delivered> got = Api.fetchOk(tenant, topic, group, Fetch.upTo(Math.min(1000, n - taken)).waitSeconds(5));
            assertTrue(!got.isEmpty(), group + " gets its next messages after " + taken);
            if (ack) {
                assertEquals(List.of("ACKED"), Api.ack(tenant, topic, group, Delivered.receipts(got)).stream()
                        .distinct().toList());
            }
            taken += got.size();
        }
    }

    /** The gauges' lag per consumer group of the topic. */
    private Map<String, Long> lagByGroup(String tenant, String topic) {
        Map<String, Long> lag = new TreeMap<>();
        for (QueueStatsStore.QueueStatsRow r : stats.stats(tenant, config.dlqSuffix())) {
            if (r.topic().equals(topic) && r.consumerGroup() != null) {
                lag.put(r.consumerGroup(), r.lag());
            }
        }
        return lag;
    }

    /** {@code GET /admin/offsets}'s lag per consumer group of the topic (a count of the stored messages above). */
    private static Map<String, Long> listedLagByGroup(String tenant, String topic) {
        JsonPath listed = given().header("Authorization", "Bearer " + AdminTest.TOKEN).queryParam("tenant", tenant)
                .queryParam("topic", topic).get("/admin/offsets").then().statusCode(200).extract().jsonPath();
        Map<String, Long> lag = new TreeMap<>();
        List<Map<String, Object>> rows = listed.getList("offsets");
        for (Map<String, Object> row : rows) {
            lag.merge((String) row.get("consumerGroup"), ((Number) row.get("lag")).longValue(), Long::sum);
        }
        return lag;
    }

    /** Rows read by one statistics read of the tenant, the least of HandlerReads.TRIES. */
    private long leastRowsRead(String tenant) throws Exception {
        long least = Long.MAX_VALUE;
        for (int attempt = 0; attempt < HandlerReads.TRIES; attempt++) {
            least = Math.min(least, HandlerReads.during(dataSource, () -> stats.stats(tenant, config.dlqSuffix())).rows());
        }
        return least;
    }
}
