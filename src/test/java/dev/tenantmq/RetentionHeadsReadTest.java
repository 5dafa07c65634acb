package dev.tenantmq;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tenantmq.store.RetentionStore;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Retention's look at the oldest stored message of each partition reads a few index entries per
 * partition, not the topic's backlog (docs/architecture.md, "Reads that do not grow with the
 * backlog"). It runs once per topic on every retention run, for every topic of every served
 * tenant, so a read of every stored row made a queue with a backlog busy the database while idle.
 * Measured with the server's handler counters (rows the engine handed over), the least of five
 * tries, so that another session's reads in between can only raise a try, never pass it.
 */
@QuarkusTest
@TestProfile(StatementBudgetTest.NoTicks.class)
class RetentionHeadsReadTest {
    private static final int PARTITIONS = 3;
    private static final int PER_PARTITION = 1000;

    @Inject
    AgroalDataSource dataSource;

    @Inject
    RetentionStore store;

    @Test
    void the_heads_of_a_topics_partitions_are_found_without_reading_its_backlog() throws Exception {
        HandlerReads.assumeNotVitess(dataSource);
        String tenant = TestIds.tenant();
        String topic = TestIds.topic();
        List<Long> oldest = new ArrayList<>();
        for (int p = 0; p < PARTITIONS; p++) {
            List<Map<String, Object>> batch = new ArrayList<>();
            for (int i = 0; i < PER_PARTITION; i++) {
                batch.add(Api.msg("p" + p, "m-" + p + "-" + i, Map.of("i", i)));
            }
            oldest.add(Api.publishOk(tenant, topic, batch).offset(0));
        }

        long least = Long.MAX_VALUE;
        List<RetentionStore.Head> heads = List.of();
        for (int attempt = 0; attempt < HandlerReads.TRIES; attempt++) {
            HandlerReads.Measured<List<RetentionStore.Head>> read = HandlerReads.during(dataSource,
                    () -> store.heads(tenant, topic, 0));
            heads = read.result();
            least = Math.min(least, read.rows());
        }

        assertEquals(List.of("p0", "p1", "p2"), heads.stream().map(RetentionStore.Head::partitionKey).toList());
        assertEquals(oldest, heads.stream().map(RetentionStore.Head::offset).toList(), "each partition's oldest message");
        assertTrue(heads.stream().allMatch(RetentionStore.Head::expired), "a maximum age of 0 expires every head");
        assertTrue(least <= 20 * PARTITIONS, "rows read to find " + PARTITIONS + " heads among "
                + PARTITIONS * PER_PARTITION + " stored messages: " + least);
    }
}
