package dev.tenantmq;

import static dev.tenantmq.Api.ack;
import static dev.tenantmq.Api.fetchOk;
import static dev.tenantmq.Api.msg;
import static dev.tenantmq.Api.publishOk;
import static dev.tenantmq.Api.receipts;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Idle-lease release (SPEC section 5, step 6): a partition with nothing pending for
 * {@code mq.idle-lease-timeout} loses its lease, and a new message makes it leased and
 * delivered again.
 */
@QuarkusTest
@TestProfile(IdleLeaseReleaseTest.ShortIdleTimeout.class)
class IdleLeaseReleaseTest {
    /** Idle after one second. */
    public static class ShortIdleTimeout implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("mq.idle-lease-timeout", "1s");
        }
    }

    @Inject
    AgroalDataSource dataSource;

    private final String tenant = TestIds.tenant();
    private final String topic = TestIds.topic();
    private final String group = TestIds.group();

    @Test
    void an_idle_partition_is_released_and_leased_again_when_a_message_arrives() throws Exception {
        publishOk(tenant, topic, List.of(msg("p", "1", 1)));
        List<Map<String, Object>> got = fetchOk(tenant, topic, group, 10, 5, 30);
        assertEquals(List.of("ACKED"), ack(tenant, topic, group, receipts(got)));
        assertEquals(1, liveLeases());
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(200)).until(() -> {
            fetchOk(tenant, topic, group, 1, 0, 30); // keep the interest alive
            return liveLeases() == 0;
        });
        publishOk(tenant, topic, List.of(msg("p", "2", 2)));
        List<Map<String, Object>> next = fetchOk(tenant, topic, group, 10, 10, 30);
        assertEquals(List.of("2"), next.stream().map(m -> m.get("id")).toList());
        assertEquals(1, liveLeases());
    }

    private int liveLeases() throws Exception {
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement("""
                SELECT COUNT(*) FROM queue_partition_leases
                WHERE tenant = ? AND consumer_group = ? AND topic = ? AND expires_at > UTC_TIMESTAMP(6)""")) {
            ps.setString(1, tenant);
            ps.setString(2, group);
            ps.setString(3, topic);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        }
    }
}
