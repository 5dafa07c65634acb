package dev.tenantmq;

import static dev.tenantmq.Api.fetchOk;
import static dev.tenantmq.Api.msg;
import static dev.tenantmq.Api.publishOk;
import static dev.tenantmq.Delivered.ids;
import static dev.tenantmq.Fetch.upTo;
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
        String drawn = TestIds.tenant();
        while (drawn.equals(slow)) {
            drawn = TestIds.tenant();
        }
        String other = drawn;
        String slowTopic = TestIds.topic();
        String slowGroup = TestIds.group();
        publishOk(slow, slowTopic, List.of(msg("p", "1", 1)));
        assertEquals(1, fetchOk(slow, slowTopic, slowGroup, upTo(10)).size());
        // The other tenant's group is registered before the slow tenant hangs. Its topic is empty
        // then, so the immediate tick of its registration leases nothing: the lease it needs
        // later can only come from a periodic tick, which is what this test is about.
        String topic = TestIds.topic();
        String group = TestIds.group();
        assertEquals(0, fetchOk(other, topic, group, upTo(10).waitSeconds(0)).size());
        await("the registration tick of the other tenant's group ran (its heartbeat)").atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(100)).until(() -> heartbeats(other, group, topic) == 1);

        try (Connection blocker = dataSource.getConnection()) {
            blocker.setAutoCommit(false);
            lockHeartbeat(blocker, slow, slowGroup, slowTopic);
            await("a tick of the slow tenant hangs on its locked heartbeat row").atMost(Duration.ofSeconds(10))
                    .pollInterval(Duration.ofMillis(100)).until(this::aHeartbeatWaitsForItsLock);

            publishOk(other, topic, List.of(msg("k", "a", 1)));
            List<Delivered> got = fetchOk(other, topic, group, upTo(10).waitSeconds(10));
            assertEquals(List.of("a"), ids(got),
                    "the other tenant is leased by a periodic tick and served while the slow one hangs");
            blocker.rollback();
        }
    }

    /**
     * The first long poll of a new consumer group waits for the leases its registration brings,
     * also while a periodic tick of the same tenant is still running (docs/deployment.md, "Running several instances": a first fetch must
     * not come back empty with messages waiting when the caller is willing to wait). The tick
     * here hangs on a locked heartbeat row of another group, so only the registration can lease.
     */
    @Test
    void the_first_long_poll_of_a_new_group_is_served_while_its_tenant_is_busy_with_a_tick() throws Exception {
        String tenant = TestIds.tenant();
        String busyTopic = TestIds.topic();
        String busyGroup = TestIds.group();
        publishOk(tenant, busyTopic, List.of(msg("p", "1", 1)));
        assertEquals(1, fetchOk(tenant, busyTopic, busyGroup, upTo(10)).size());

        try (Connection blocker = dataSource.getConnection()) {
            blocker.setAutoCommit(false);
            // a record lock only: under REPEATABLE READ its gap lock could hold up the new group's heartbeat insert
            blocker.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
            lockHeartbeat(blocker, tenant, busyGroup, busyTopic);
            await("a tick of the tenant hangs on its locked heartbeat row").atMost(Duration.ofSeconds(10))
                    .pollInterval(Duration.ofMillis(100)).until(this::aHeartbeatWaitsForItsLock);

            String topic = TestIds.topic();
            publishOk(tenant, topic, List.of(msg("k", "a", 1)));
            List<Delivered> got = fetchOk(tenant, topic, TestIds.group(), upTo(10).waitSeconds(3));
            assertEquals(List.of("a"), ids(got),
                    "the first long poll of the new group got the waiting message");
            blocker.rollback();
        }
    }

    private static void lockHeartbeat(Connection blocker, String tenant, String group, String topic) throws Exception {
        try (PreparedStatement ps = blocker.prepareStatement("""
                SELECT subscriber_name FROM queue_subscriber_heartbeats
                WHERE tenant = ? AND consumer_group = ? AND topic = ? FOR UPDATE""")) {
            ps.setString(1, tenant);
            ps.setString(2, group);
            ps.setString(3, topic);
            try (ResultSet rs = ps.executeQuery()) {
                assertEquals(true, rs.next(), "the heartbeat row exists and is now locked");
            }
        }
    }

    /** Heartbeat rows of the triple. */
    private int heartbeats(String tenant, String group, String topic) throws Exception {
        return (int) RowCount.of(dataSource, """
                SELECT COUNT(*) FROM queue_subscriber_heartbeats
                WHERE tenant = ? AND consumer_group = ? AND topic = ?""", tenant, group, topic);
    }

    /**
     * Whether a transaction is waiting for a row lock in a heartbeat upsert (the hung tick). A read
     * MySQL 9.7 refuses ({@link ServerViews#textNotReadable}) answers "not yet": the next poll reads
     * again.
     */
    private boolean aHeartbeatWaitsForItsLock() throws Exception {
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement("""
                SELECT COUNT(*) FROM information_schema.innodb_trx
                WHERE trx_state = 'LOCK WAIT' AND trx_query LIKE '%queue_subscriber_heartbeats%'""");
             ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getInt(1) > 0;
        } catch (java.sql.SQLException e) {
            if (ServerViews.textNotReadable(e)) {
                return false;
            }
            throw e;
        }
    }
}
