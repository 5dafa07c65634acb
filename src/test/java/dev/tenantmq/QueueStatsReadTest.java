package dev.tenantmq;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tenantmq.config.MqConfig;
import dev.tenantmq.store.QueueStatsStore;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The queue statistics (the gauges' refresh and {@code GET /admin/consumer-groups}) of a drained
 * partition do not read the consumed messages retention has not deleted yet: the look at the
 * first message above the committed offset steps the primary key from the partition's oldest
 * stored row, so it runs only where the partition's head is above the committed offset
 * (docs/architecture.md, "Reads that do not grow with the backlog"). Measured with the server's
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
        Api.publishOk(tenant, topic, List.of(Api.msg("deep", "first", Map.of("i", 0))));
        List<Delivered> last = Api.fetchOk(tenant, topic, group, Fetch.upTo(1));
        assertEquals(List.of("ACKED"), Api.ack(tenant, topic, group, Delivered.receipts(last)));
        // The tenant is shared with other tests: what its other partitions cost is measured with
        // this one drained and one consumed row of it stored.
        long baseline = leastRowsRead(tenant);

        for (int n = 0; n < CONSUMED; n += 500) {
            List<Map<String, Object>> batch = new ArrayList<>();
            for (int i = n; i < n + 500; i++) {
                batch.add(Api.msg("deep", "m-" + i, Map.of("i", i + 1)));
            }
            Api.publishOk(tenant, topic, batch);
        }
        last = List.of();
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

    /** Rows read by one statistics read of the tenant, the least of HandlerReads.TRIES. */
    private long leastRowsRead(String tenant) throws Exception {
        long least = Long.MAX_VALUE;
        for (int attempt = 0; attempt < HandlerReads.TRIES; attempt++) {
            least = Math.min(least, HandlerReads.during(dataSource, () -> stats.stats(tenant, config.dlqSuffix())).rows());
        }
        return least;
    }
}
