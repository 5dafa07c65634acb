package dev.tenantmq;

import static dev.tenantmq.Api.fetchOk;
import static dev.tenantmq.Api.msg;
import static dev.tenantmq.Api.publishOk;
import static dev.tenantmq.Fetch.upTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A fetch reads from the database about the payload bytes its byte budget lets it hand out, not
 * every payload its row limit reaches (docs/api.md, "Lease-fetch"): with 1 MiB messages and
 * {@code maxMessages} 1000, the scan does not pull 100 MiB into the service to answer 8. Measured
 * as the bytes the database sent ({@code Bytes_sent}, a global counter: the scheduler's ticks are
 * off while it counts), which the payloads dominate.
 */
@QuarkusTest
@TestProfile(FetchPayloadReadTest.NoTicks.class)
class FetchPayloadReadTest {
    private static final int KIB = 1 << 10;
    private static final int MESSAGES = 24;
    private static final int PAYLOAD = 256 * KIB;
    private static final int BUDGET = 1024 * KIB;

    /** No periodic scheduler tick while the test counts (the first fetch still leases at once). */
    public static class NoTicks implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("mq.tick-interval", "30m", "mq.heartbeat-timeout", "1h", "mq.lease-duration", "1h");
        }
    }

    @Inject
    AgroalDataSource dataSource;

    @Test
    void a_fetch_of_large_messages_reads_about_its_byte_budget_of_payload_not_its_row_limit() throws Exception {
        String tenant = TestIds.tenant();
        String topic = TestIds.topic();
        String group = TestIds.group();
        String payload = "x".repeat(PAYLOAD - 2); // a JSON string of PAYLOAD bytes
        for (int batch = 0; batch < MESSAGES / 4; batch++) {
            List<Map<String, Object>> messages = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                int n = batch * 4 + i;
                messages.add(msg("k" + (n % 3), "m" + n, payload));
            }
            publishOk(tenant, topic, messages);
        }
        // The first fetch registers the group and leases its partitions at once (it delivers one message).
        assertEquals(1, fetchOk(tenant, topic, group, upTo(1).maxBytes(PAYLOAD)).size());
        long before = bytesSent();
        List<Delivered> got = fetchOk(tenant, topic, group, upTo(1000).maxBytes(BUDGET).waitSeconds(0));
        long sent = bytesSent() - before;

        assertTrue(!got.isEmpty() && got.size() <= BUDGET / PAYLOAD, "the budget bounds the answer: " + got.size());
        // The scan's rows reach the 16 messages of the two partitions not held (4 MiB); the answer's payloads are at
        // most 1 MiB. Allow the answer, one message read beyond it, and the statements' own bytes.
        assertTrue(sent < BUDGET + 2L * PAYLOAD, "the database sent " + sent + " bytes for a fetch of "
                + got.size() + " messages of " + PAYLOAD + " bytes under a budget of " + BUDGET);
    }

    /**
     * Over deep partitions, only the first partitions of a fetch, those that can fill its budget,
     * read rows beyond their share of it (model.PartitionWalk#scanLimits): the walk spends the
     * budget on them, and the later partitions' extra rows would be read and sent for nothing.
     * Eleven partitions of 60 messages of 4 KiB and a fetch of 100: the scan reads four
     * partitions to 26 rows and seven to their share of 10, 174 rows, where a slack for every
     * partition read 286.
     */
    @Test
    void a_fetch_over_deep_partitions_reads_slack_rows_only_from_the_partitions_that_fill_it() throws Exception {
        String tenant = TestIds.tenant();
        String topic = TestIds.topic();
        String group = TestIds.group();
        int small = 4 * KIB;
        String payload = "x".repeat(small - 2);
        for (int batch = 0; batch < 6; batch++) {
            List<Map<String, Object>> messages = new ArrayList<>();
            for (int i = 0; i < 120; i++) {
                messages.add(msg("k%02d".formatted(i % 12), "m" + batch + "-" + i, payload));
            }
            publishOk(tenant, topic, messages);
        }
        // Registers the group and leases the 12 partitions; its batch holds k00 through the count.
        assertEquals(1, fetchOk(tenant, topic, group, upTo(1)).size());
        long before = bytesSent();
        List<Delivered> got = fetchOk(tenant, topic, group, upTo(100).waitSeconds(0));
        long sent = bytesSent() - before;

        assertEquals(100, got.size(), "deep partitions fill the fetch");
        assertTrue(sent < 200L * small, "the database sent " + sent + " bytes, about " + sent / small
                + " payloads of " + small + " bytes, for a fetch of 100 over 11 deep partitions");
    }

    /**
     * A fetch over shallow partitions and a deep one hands out its whole budget: the rounds that
     * share what the shallow partitions leave reach the deep one, and a partition whose scan ended
     * at its newest message is not scanned again. Six partitions of 25, 23, 200, 1, 7 and 17
     * messages, a fetch of 100.
     */
    @Test
    void a_fetch_over_shallow_partitions_and_a_deep_one_hands_out_its_whole_budget() {
        String tenant = TestIds.tenant();
        String topic = TestIds.topic();
        String group = TestIds.group();
        List<String> keys = List.of("a", "b", "c", "d", "e", "f");
        List<Map<String, Object>> warm = new ArrayList<>();
        keys.forEach(k -> warm.add(msg(k, "warm-" + k, 0)));
        publishOk(tenant, topic, warm);
        List<Delivered> warmed = new ArrayList<>();
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(30)).until(() -> {
            warmed.addAll(fetchOk(tenant, topic, group, upTo(100).waitSeconds(1)));
            return warmed.size() >= keys.size();
        });
        assertEquals(List.of("ACKED"), Api.ack(tenant, topic, group, Delivered.receipts(warmed)).stream().distinct().toList());
        int[] depth = {25, 23, 200, 1, 7, 17};
        List<Map<String, Object>> batch = new ArrayList<>();
        for (int i = 0; i < keys.size(); i++) {
            for (int j = 0; j < depth[i]; j++) {
                batch.add(msg(keys.get(i), keys.get(i) + "-" + j, j));
            }
        }
        publishOk(tenant, topic, batch);

        assertEquals(100, fetchOk(tenant, topic, group, upTo(100).waitSeconds(0)).size());
    }

    private long bytesSent() throws Exception {
        try (Connection c = dataSource.getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SHOW GLOBAL STATUS LIKE 'Bytes_sent'")) {
            assertTrue(rs.next());
            return rs.getLong(2);
        }
    }
}
