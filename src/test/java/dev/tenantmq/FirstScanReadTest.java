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
 * A fetch's first scan, read with the cursors in one statement, starts at the end of the
 * partition's batch, not at the partition's oldest stored row: its bound is a subquery of the
 * cursor row, which MariaDB 10.11 and MySQL 9.7 evaluate before they plan the range
 * (docs/architecture.md, "The cursors and the first scan in one read"). A bound they could not use
 * would read every consumed row retention has not deleted yet, and a plan that sorted the rows above
 * it every stored one. Measured with the server's handler counters around a fetch that acks the
 * last batch of a partition with 2,000 consumed rows still stored and 2,000 more above (no
 * scheduler tick, so no retention), less what one reading of them adds by itself, the
 * least of three fetches: another session's reads during a fetch only raise a try.
 */
@QuarkusTest
@TestProfile(StatementBudgetTest.NoTicks.class)
class FirstScanReadTest {
    private static final int CONSUMED = 2000;
    private static final int BATCH = 10;
    /**
     * Messages stored above the fetches: a plan that read the partition's backlog above the start
     * (a sort of it, not the primary key's order) would read them all.
     */
    private static final int BACKLOG = 2000;

    @Inject
    AgroalDataSource dataSource;

    @Test
    void a_fetch_that_acks_reads_from_the_end_of_the_batch_not_the_consumed_rows_still_stored() throws Exception {
        HandlerReads.assumeNotVitess(dataSource);
        String tenant = TestIds.tenant();
        String topic = TestIds.topic();
        String group = "g";
        int stored = CONSUMED + 4 * BATCH + BACKLOG;
        for (int n = 0; n < stored; n += 500) {
            List<Map<String, Object>> batch = new ArrayList<>();
            for (int i = n; i < Math.min(n + 500, stored); i++) {
                batch.add(Api.msg("deep", "m-" + i, Map.of("i", i)));
            }
            Api.publishOk(tenant, topic, batch);
        }
        List<Delivered> last = List.of();
        for (int consumed = 0; consumed < CONSUMED; consumed += last.size()) {
            last = Api.fetchAcking(tenant, topic, group, Fetch.upTo(1000).waitSeconds(5), Delivered.receipts(last))
                    .messages();
            assertTrue(!last.isEmpty(), "the partition gives its next messages after " + consumed);
        }

        long least = Long.MAX_VALUE;
        for (int attempt = 0; attempt < 3; attempt++) {
            List<String> receipts = Delivered.receipts(last);
            HandlerReads.Measured<Api.AckingAnswer> fetched = HandlerReads.during(dataSource,
                    () -> Api.fetchAcking(tenant, topic, group, Fetch.upTo(BATCH).waitSeconds(0), receipts));
            least = Math.min(least, fetched.rows());
            Api.AckingAnswer answer = fetched.result();
            assertEquals(List.of("ACKED"), answer.statuses().stream().distinct().toList());
            last = answer.messages();
            assertEquals(BATCH, last.size());
        }

        assertTrue(least <= 30L * BATCH, "rows read by a fetch of " + BATCH + " acking " + BATCH + " in a partition"
                + " with " + CONSUMED + " consumed rows still stored and " + BACKLOG + " above: " + least);
    }
}
