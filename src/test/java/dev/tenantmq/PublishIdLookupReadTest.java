package dev.tenantmq;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Publish's look-up of a batch's ids among the stored messages and the remembered identities
 * reads one index entry per id, not the topic's stored messages (docs/architecture.md, "Publish:
 * the partition head lock"). Left to its statistics, MariaDB 10.11 read the id look-up of 200
 * ids as every stored row of the topic (a {@code ref} on the primary key's {@code (tenant,
 * topic)} prefix): in the benchmark's replay, 26,000 rows per request of 500. Measured with the
 * server's handler counters around each publish, less what one reading of them adds by itself,
 * the least of three publishes: another session's reads during a publish only raise a try.
 */
@QuarkusTest
@TestProfile(StatementBudgetTest.NoTicks.class)
class PublishIdLookupReadTest {
    private static final int PARTITIONS = 200;
    private static final int STORED_PER_PARTITION = 100;

    @Inject
    AgroalDataSource dataSource;

    @Test
    void the_id_look_up_of_a_publish_reads_one_entry_per_id_whatever_the_topic_stores() throws Exception {
        HandlerReads.assumeNotVitess(dataSource);
        String tenant = TestIds.tenant();
        String topic = TestIds.topic();
        for (int n = 0; n < STORED_PER_PARTITION; n += 5) {
            List<Map<String, Object>> batch = new ArrayList<>();
            for (int i = n; i < n + 5; i++) {
                for (int p = 0; p < PARTITIONS; p++) {
                    batch.add(Api.msg("p" + p, "stored-" + p + "-" + i, Map.of("i", i)));
                }
            }
            Api.publishOk(tenant, topic, batch);
        }

        long least = Long.MAX_VALUE;
        for (int attempt = 0; attempt < 3; attempt++) {
            List<Map<String, Object>> batch = new ArrayList<>();
            for (int p = 0; p < PARTITIONS; p++) {
                batch.add(Api.msg("p" + p, "new-" + attempt + "-" + p, Map.of("p", p)));
            }
            HandlerReads.Measured<Published> published = HandlerReads.during(dataSource,
                    () -> Api.publishOk(tenant, topic, batch));
            least = Math.min(least, published.rows());
            assertEquals(PARTITIONS, published.result().offsets().size());
        }

        // Per partition: its head (locked, then moved) and the id looked up in two tables.
        assertTrue(least <= 10L * PARTITIONS, "rows read to publish " + PARTITIONS + " new ids into a topic of "
                + PARTITIONS * STORED_PER_PARTITION + " stored messages: " + least);
    }
}
