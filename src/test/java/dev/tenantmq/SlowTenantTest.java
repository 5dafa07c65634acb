package dev.tenantmq;

import static dev.tenantmq.Api.fetchOk;
import static dev.tenantmq.Api.msg;
import static dev.tenantmq.Api.publishOk;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A tenant whose scheduler tick hangs (here: its heartbeat row is locked by another
 * transaction, as a stuck shard would hold it) does not hold up another tenant's ticks
 * (SPEC section 5: a failing shard fails the tick for the tenants it owns; other work goes on).
 */
@QuarkusTest
class SlowTenantTest {
    @Inject
    AgroalDataSource dataSource;

    @Test
    void a_hung_tick_of_one_tenant_does_not_delay_another_tenant() throws Exception {
        String slow = TestIds.tenant();
        String other = TestIds.tenant();
        while (other.equals(slow)) {
            other = TestIds.tenant();
        }
        String slowTopic = TestIds.topic();
        String slowGroup = TestIds.group();
        publishOk(slow, slowTopic, List.of(msg("p", "1", 1)));
        assertEquals(1, fetchOk(slow, slowTopic, slowGroup, 10, 5, 30).size());

        try (Connection blocker = dataSource.getConnection()) {
            blocker.setAutoCommit(false);
            try (PreparedStatement ps = blocker.prepareStatement("""
                    SELECT subscriber_name FROM queue_subscriber_heartbeats
                    WHERE tenant = ? AND consumer_group = ? AND topic = ? FOR UPDATE""")) {
                ps.setString(1, slow);
                ps.setString(2, slowGroup);
                ps.setString(3, slowTopic);
                try (ResultSet rs = ps.executeQuery()) {
                    assertEquals(true, rs.next(), "the slow tenant's heartbeat row exists and is now locked");
                }
            }
            // Let the slow tenant's next ticks reach the locked row and hang on it.
            await().pollDelay(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(3)).until(() -> true);

            String topic = TestIds.topic();
            String group = TestIds.group();
            String tenant = other;
            publishOk(tenant, topic, List.of(msg("k", "a", 1)));
            List<Map<String, Object>> got = fetchOk(tenant, topic, group, 10, 10, 30);
            assertEquals(List.of("a"), got.stream().map(m -> m.get("id")).toList(),
                    "the other tenant is leased and served while the slow one hangs");
            blocker.rollback();
        }
    }
}
