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

    private long bytesSent() throws Exception {
        try (Connection c = dataSource.getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SHOW GLOBAL STATUS LIKE 'Bytes_sent'")) {
            assertTrue(rs.next());
            return rs.getLong(2);
        }
    }
}
