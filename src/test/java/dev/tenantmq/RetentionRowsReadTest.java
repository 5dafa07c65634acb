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
 * Retention's read of the rows it may delete looks a row's dead letter and delivery rows up only
 * where the partition has a dead letter, or an unfinished delivery row, at all (docs/operations.md,
 * "Retention"): a partition of consumed messages is read as its rows alone, where two look-ups per
 * row were most of the read's cost. The flags themselves are RetentionTest's (dead letters and
 * requeued messages are kept). Measured with the server's handler counters, the least of five
 * tries, as in RetentionHeadsReadTest.
 */
@QuarkusTest
@TestProfile(StatementBudgetTest.NoTicks.class)
class RetentionRowsReadTest {
    private static final int MESSAGES = 300;

    @Inject
    AgroalDataSource dataSource;

    @Inject
    RetentionStore store;

    @Test
    void rows_of_a_partition_without_dead_letters_or_delivery_rows_are_read_without_a_look_up_each() throws Exception {
        HandlerReads.assumeNotVitess(dataSource);
        String tenant = TestIds.tenant();
        String topic = TestIds.topic();
        List<Map<String, Object>> batch = new ArrayList<>();
        for (int i = 0; i < MESSAGES; i++) {
            batch.add(Api.msg("k", "m-" + i, Map.of("i", i)));
        }
        long first = Api.publishOk(tenant, topic, batch).offset(0);

        long least = Long.MAX_VALUE;
        List<RetentionStore.Row> rows = List.of();
        for (int attempt = 0; attempt < HandlerReads.TRIES; attempt++) {
            HandlerReads.Measured<List<RetentionStore.Row>> read = HandlerReads.during(dataSource,
                    () -> store.rows(tenant, topic, topic + "-dlq", "k", List.of("g1", "g2"), 0, 86_400_000_000L, MESSAGES));
            rows = read.result();
            least = Math.min(least, read.rows());
        }

        assertEquals(MESSAGES, rows.size());
        assertEquals(first, rows.get(0).offset());
        assertTrue(rows.stream().noneMatch(r -> r.deadLettered() || r.undelivered() || r.expired()), "plain rows");
        // The rows themselves, and a few look-ups per partition; a look-up per row and group was 900 more.
        assertTrue(least <= MESSAGES + 30, "rows read for " + MESSAGES + " messages: " + least);
    }
}
