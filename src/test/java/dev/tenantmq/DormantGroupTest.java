package dev.tenantmq;

import static dev.tenantmq.Api.ack;
import static dev.tenantmq.Api.fetchOk;
import static dev.tenantmq.Api.msg;
import static dev.tenantmq.Api.publishOk;
import static dev.tenantmq.Delivered.ids;
import static dev.tenantmq.Delivered.receipts;
import static dev.tenantmq.Fetch.upTo;
import static org.awaitility.Awaitility.await;
import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tenantmq.domain.InterestRegistry;
import dev.tenantmq.model.GroupScope;
import io.agroal.api.AgroalDataSource;
import io.restassured.http.ContentType;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.ObservesAsync;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Dormant groups (docs/architecture.md, "Dormant groups"): a (tenant, group, topic) not fetched
 * here for {@code mq.dormant-after} hands back the leases of its drained partitions, keeps and
 * renews the others but leases nothing new, its next fetch ticks it in full at once, and a change
 * of its live subscribers moves the shares as before.
 */
@QuarkusTest
@TestProfile(DormantGroupTest.QuickDormancy.class)
class DormantGroupTest {
    /** Dormant after 2 s without a fetch; leases of 5 s, so a dormant tick that did not renew loses them. */
    public static class QuickDormancy implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("mq.dormant-after", "2s", "mq.lease-duration", "5s");
        }
    }

    /** This class's mq.dormant-after and mq.lease-duration (see {@link QuickDormancy}). */
    private static final Duration DORMANT_AFTER = Duration.ofSeconds(2);
    private static final Duration LEASE_DURATION = Duration.ofSeconds(5);

    /** A subscriber of another instance, named to sort before every host name. */
    private static final String OTHER_INSTANCE = "0-other-instance";

    /** Every full tick asked of the scheduler at once, by triple: a registration or a wake. */
    @ApplicationScoped
    static class TicksAsked {
        final List<GroupScope> scopes = new CopyOnWriteArrayList<>();

        void on(@ObservesAsync InterestRegistry.Registered event) {
            scopes.add(event.scope());
        }

        long of(GroupScope scope) {
            return scopes.stream().filter(scope::equals).count();
        }
    }

    @Inject
    AgroalDataSource dataSource;

    @Inject
    InterestRegistry interest;

    @Inject
    TicksAsked ticksAsked;

    private final String tenant = TestIds.tenant();
    private final String topic = TestIds.topic();
    private final String group = TestIds.group();
    private final GroupScope scope = new GroupScope(tenant, group, topic);

    @AfterEach
    void endTheOtherInstance() throws Exception {
        update("DELETE FROM queue_subscriber_heartbeats WHERE tenant = ? AND consumer_group = ? AND topic = ?"
                + " AND subscriber_name = '" + OTHER_INSTANCE + "'");
    }

    @Test
    void a_quiet_group_hands_back_its_drained_partitions_then_keeps_the_rest_renewed_leases_nothing_new_and_its_next_fetch_delivers() throws Exception {
        publishOk(tenant, topic, List.of(msg("p", "1", 1), msg("r", "2", 2)));
        List<Delivered> first = fetchOk(tenant, topic, group, upTo(10));
        assertEquals(List.of("ACKED", "ACKED"), ack(tenant, topic, group, receipts(first)));
        publishOk(tenant, topic, List.of(msg("p", "3", 3))); // p has work again; r stays drained
        await("the first fetch registered the triple").atMost(Duration.ofSeconds(10))
                .until(() -> ticksAsked.of(scope) == 1);
        await("the group goes quiet").atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(100))
                .until(() -> interest.sinceLastFetch(scope).compareTo(DORMANT_AFTER) > 0);
        // Its first quiet tick is full, and a quiet group keeps only the partitions with work
        // (TickKind.idleAfter): r's lease goes back long before mq.idle-lease-timeout (5 minutes).
        await("the first quiet tick hands back r, drained, and keeps p, which has work")
                .atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(100))
                .until(() -> liveLeases("r") == 0 && liveLeases("p") == 1);

        publishOk(tenant, topic, List.of(msg("q", "4", 4)));
        // Longer than a lease: p's lease lives on only if the dormant ticks renew it, and q, a new
        // partition with work, would be leased by the next full tick (a second at most).
        await("p stays leased and q unleased while the group is dormant")
                .during(LEASE_DURATION.plusSeconds(2)).atMost(LEASE_DURATION.plusSeconds(10))
                .pollInterval(Duration.ofMillis(200))
                .until(() -> liveLeases("p") == 1 && leaseRows("q") == 0);

        List<Delivered> next = new ArrayList<>(fetchOk(tenant, topic, group, upTo(10).waitSeconds(10)));
        assertTrue(ids(next).contains("3"), "the fetch that ended the dormancy got p's message at once: " + ids(next));
        await("that fetch asked for a full tick at once").atMost(Duration.ofSeconds(10))
                .until(() -> ticksAsked.of(scope) == 2);
        if (!ids(next).contains("4")) {
            next.addAll(fetchOk(tenant, topic, group, upTo(10).waitSeconds(10)));
        }
        assertEquals(List.of("3", "4"), ids(next).stream().sorted().toList(), "q's message once that tick leased q");
        assertEquals(List.of("ACKED", "ACKED"), ack(tenant, topic, group, receipts(next)));
    }

    @Test
    void a_dormant_group_that_handed_back_every_lease_sends_no_renewal() throws Exception {
        publishOk(tenant, topic, List.of(msg("p", "1", 1)));
        assertEquals(List.of("ACKED"), ack(tenant, topic, group, receipts(fetchOk(tenant, topic, group, upTo(10)))));
        await("the group goes quiet").atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(100))
                .until(() -> interest.sinceLastFetch(scope).compareTo(DORMANT_AFTER) > 0);
        await("the first quiet tick hands back p, drained").atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(100)).until(() -> liveLeases("p") == 0);

        List<String> sent;
        try (GeneralLog log = GeneralLog.start(dataSource)) {
            // Two dormant ticks at least (the tests' mq.tick-interval is 1 s), and p stays unleased through them.
            await("p stays unleased while the group is dormant").during(Duration.ofSeconds(5))
                    .atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(200))
                    .until(() -> liveLeases("p") == 0);
            sent = log.stop(topic);
        }
        assertTrue(sent.stream().anyMatch(sql -> sql.strip().startsWith("INSERT INTO queue_subscriber_heartbeats")),
                "the dormant ticks ran: they heartbeat");
        assertEquals(List.of(), sent.stream().filter(sql -> sql.strip().startsWith("UPDATE queue_partition_leases")).toList(),
                "no renewal: it would read every lease row of the triple to renew none");
    }

    @Test
    void a_subscriber_that_joins_a_dormant_group_gets_its_share_released() throws Exception {
        publishOk(tenant, topic, List.of(msg("p", "1", 1), msg("q", "2", 2), msg("r", "3", 3)));
        List<Delivered> got = fetchOk(tenant, topic, group, upTo(10));
        assertEquals(3, got.size());
        assertEquals(List.of("ACKED", "ACKED", "ACKED"), ack(tenant, topic, group, receipts(got)));
        // Work on p and q, so the quiet group keeps both leases; r, drained, marks its quiet tick.
        publishOk(tenant, topic, List.of(msg("p", "4", 4), msg("q", "5", 5)));
        await("the group goes quiet").atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(100))
                .until(() -> interest.sinceLastFetch(scope).compareTo(DORMANT_AFTER) > 0);
        await("the quiet tick hands back r and keeps p and q").atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> liveLeases("r") == 0 && liveLeases("p") + liveLeases("q") == 2);
        await("dormant ticks keep both").during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(8))
                .pollInterval(Duration.ofMillis(200)).until(() -> liveLeases("p") + liveLeases("q") == 2);

        // Another instance's subscriber of the group: its heartbeat, live for mq.heartbeat-timeout.
        update("INSERT INTO queue_subscriber_heartbeats (tenant, consumer_group, topic, subscriber_name, started_at,"
                + " last_seen_at) VALUES (?, ?, ?, '" + OTHER_INSTANCE + "', UTC_TIMESTAMP(6), UTC_TIMESTAMP(6))");
        await("the dormant group gives up the surplus over its share, one of two")
                .atMost(Duration.ofSeconds(8)).pollInterval(Duration.ofMillis(100))
                .until(() -> liveLeases("p") + liveLeases("q") == 1);
    }

    @Test
    void a_quiet_instance_keeps_its_share_of_partitions_in_flight_though_the_other_instance_s_are_drained()
            throws Exception {
        // Another instance's subscriber, live before the first fetch and through the test (its last
        // heartbeat dated a minute ahead): the shares are one of the two partitions each.
        update("INSERT INTO queue_subscriber_heartbeats (tenant, consumer_group, topic, subscriber_name, started_at,"
                + " last_seen_at) VALUES (?, ?, ?, '" + OTHER_INSTANCE + "', UTC_TIMESTAMP(6),"
                + " UTC_TIMESTAMP(6) + INTERVAL 60 SECOND)");
        publishOk(tenant, topic, List.of(msg("p", "1", 1), msg("q", "2", 2)));
        // Its consumer works on the batch long after the group went quiet here.
        List<Delivered> got = fetchOk(tenant, topic, group, upTo(10).waitSeconds(10).visibilitySeconds(60));
        assertEquals(1, got.size(), "a share of one of the two partitions: " + ids(got));
        String mine = got.get(0).partitionKey();
        // The other instance drained its partition just now: committed to the head.
        drainedJustNow(mine.equals("p") ? "q" : "p");
        await("the group goes quiet").atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(100))
                .until(() -> interest.sinceLastFetch(scope).compareTo(DORMANT_AFTER) > 0);
        // Its quiet tick: the partition in flight is work, within this instance's share of the two
        // partitions that every instance counts; it is neither idle nor surplus.
        await("the partition in flight stays leased here while the group is quiet").during(Duration.ofSeconds(4))
                .atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(200))
                .until(() -> liveLeases(mine) == 1);
        assertEquals(List.of("ACKED"), ack(tenant, topic, group, receipts(got)),
                "the consumer's acks after the quiet ticks are not stale");
    }

    @Test
    void a_dormant_group_dead_letters_a_last_attempt_whose_visibility_ran_out() throws Exception {
        given().header("Authorization", "Bearer " + AdminTest.TOKEN).queryParam("tenant", tenant)
                .queryParam("topic", topic).contentType(ContentType.JSON).body(Map.of("maxDeliveries", 1))
                .put("/admin/settings").then().statusCode(200);
        publishOk(tenant, topic, List.of(msg("p", "poison", 1)));
        // Its only attempt, visible again only after the group has gone quiet.
        assertEquals(List.of("poison"), ids(fetchOk(tenant, topic, group, upTo(10).visibilitySeconds(5))));
        await("the group goes quiet").atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(100))
                .until(() -> interest.sinceLastFetch(scope).compareTo(DORMANT_AFTER) > 0);
        // A dormant tick dead-letters it; a full tick would come only after a minute.
        await("the expired last attempt reaches the dead-letter topic without a fetch")
                .atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(200))
                .until(() -> RowCount.of(dataSource, "SELECT COUNT(*) FROM queue_messages WHERE tenant = ? AND topic = ?",
                        tenant, topic + ".dlq") == 1);
        assertTrue(interest.sinceLastFetch(scope).compareTo(DORMANT_AFTER) > 0, "no fetch woke the group");
    }

    private long liveLeases(String partitionKey) throws Exception {
        return RowCount.of(dataSource, """
                SELECT COUNT(*) FROM queue_partition_leases
                WHERE tenant = ? AND consumer_group = ? AND topic = ? AND partition_key = ?
                  AND expires_at > UTC_TIMESTAMP(6)""", tenant, group, topic, partitionKey);
    }

    private long leaseRows(String partitionKey) throws Exception {
        return RowCount.of(dataSource, """
                SELECT COUNT(*) FROM queue_partition_leases
                WHERE tenant = ? AND consumer_group = ? AND topic = ? AND partition_key = ?""",
                tenant, group, topic, partitionKey);
    }

    /**
     * Writes {@code partitionKey}'s offsets row for the group as committed up to its head, now:
     * a read, then an upsert of the values, as vtgate routes each to the tenant's shard.
     */
    private void drainedJustNow(String partitionKey) throws Exception {
        long head = RowCount.of(dataSource, """
                SELECT head_offset FROM queue_partition_heads
                WHERE tenant = ? AND topic = ? AND partition_key = ?""", tenant, topic, partitionKey);
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement("""
                INSERT INTO queue_offsets (tenant, topic, partition_key, consumer_group, committed_offset,
                                           delivered_offset, updated_at)
                VALUES (?, ?, ?, ?, ?, ?, UTC_TIMESTAMP(6))
                ON DUPLICATE KEY UPDATE committed_offset = VALUES(committed_offset),
                    delivered_offset = VALUES(delivered_offset), updated_at = VALUES(updated_at)""")) {
            ps.setString(1, tenant);
            ps.setString(2, topic);
            ps.setString(3, partitionKey);
            ps.setString(4, group);
            ps.setLong(5, head);
            ps.setLong(6, head);
            assertTrue(ps.executeUpdate() >= 1, "an offsets row for " + partitionKey);
        }
    }

    private void update(String sql) throws Exception {
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, tenant);
            ps.setString(2, group);
            ps.setString(3, topic);
            ps.executeUpdate();
        }
    }
}
