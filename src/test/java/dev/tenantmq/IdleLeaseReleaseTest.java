package dev.tenantmq;

import static dev.tenantmq.Api.ack;
import static dev.tenantmq.Api.fetchOk;
import static dev.tenantmq.Api.msg;
import static dev.tenantmq.Api.nack;
import static dev.tenantmq.Api.publishOk;
import static dev.tenantmq.Delivered.attempts;
import static dev.tenantmq.Delivered.ids;
import static dev.tenantmq.Delivered.receipts;
import static dev.tenantmq.Fetch.upTo;
import static org.awaitility.Awaitility.await;
import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tenantmq.model.GroupScope;
import dev.tenantmq.store.LeaseStore;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.net.URL;
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
 * delivered again. A consumer group that stops fetching for {@code mq.interest-timeout} is
 * dropped: its leases are released and its topic's gauges removed.
 */
@QuarkusTest
@TestProfile(IdleLeaseReleaseTest.ShortIdleTimeout.class)
class IdleLeaseReleaseTest {
    /** /q/metrics: served by the management interface, on a port of its own (paths are relative to its /q). */
    @TestHTTPResource(value = "/metrics", management = true)
    URL metrics;

    /** Idle after one second; a group without a fetch for three seconds is dropped. */
    public static class ShortIdleTimeout implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("mq.idle-lease-timeout", "1s", "mq.interest-timeout", "3s");
        }
    }

    @Inject
    AgroalDataSource dataSource;

    @Inject
    LeaseStore leaseStore;

    @Inject
    dev.tenantmq.domain.ConsumeService consume;

    /** This class's mq.interest-timeout (see {@link ShortIdleTimeout}). */
    private static final Duration INTEREST_TIMEOUT = Duration.ofSeconds(3);

    /** The test profile's mq.max-deliveries (the default). */
    private static final int MAX_DELIVERIES = 5;

    private final String tenant = TestIds.tenant();
    private final String topic = TestIds.topic();
    private final String group = TestIds.group();

    @Test
    void an_idle_partition_is_released_and_leased_again_when_a_message_arrives() throws Exception {
        publishOk(tenant, topic, List.of(msg("p", "1", 1)));
        List<Delivered> got = fetchOk(tenant, topic, group, upTo(10));
        assertEquals(List.of("ACKED"), ack(tenant, topic, group, receipts(got)));
        assertEquals(1, liveLeases());
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(200)).until(() -> {
            fetchOk(tenant, topic, group, upTo(1).waitSeconds(0)); // keep the interest alive
            return liveLeases() == 0;
        });
        publishOk(tenant, topic, List.of(msg("p", "2", 2)));
        List<Delivered> next = fetchOk(tenant, topic, group, upTo(10).waitSeconds(10));
        assertEquals(List.of("2"), ids(next));
        assertEquals(1, liveLeases());
    }

    @Test
    void a_dead_letter_requeued_into_an_idle_partition_is_delivered() throws Exception {
        publishOk(tenant, topic, List.of(msg("p", "poison", 1)));
        for (int attempt = 1; attempt <= MAX_DELIVERIES; attempt++) {
            List<Delivered> got = fetchOk(tenant, topic, group, upTo(10));
            assertEquals(List.of("NACKED"), nack(tenant, topic, group, receipts(got), 0, "test"));
        }
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(200)).until(() -> {
            fetchOk(tenant, topic, group, upTo(1).waitSeconds(0)); // keep the interest alive
            return liveLeases() == 0;
        });
        given().header("Authorization", "Bearer " + AdminTest.TOKEN).queryParam("tenant", tenant)
                .queryParam("topic", topic + ".dlq").queryParam("partitionKey", "p").queryParam("id", "poison")
                .post("/admin/messages/requeue").then().statusCode(200);
        List<Delivered> again = fetchOk(tenant, topic, group, upTo(10).waitSeconds(10));
        assertEquals(List.of("poison"), ids(again),
                "the requeued message is delivered without a new message arriving");
        assertEquals(1, again.get(0).deliveryAttempt());
    }

    @Test
    void a_long_poll_longer_than_the_interest_timeout_keeps_its_group_served() throws Exception {
        publishOk(tenant, topic, List.of(msg("p", "1", 1)));
        List<Delivered> got = fetchOk(tenant, topic, group, upTo(10));
        // Nacked with a delay longer than this test: p keeps work pending, so it is not idle and
        // keeps its lease past mq.idle-lease-timeout, yet has nothing in flight (which alone keeps
        // a group served) and nothing the poll below could take.
        assertEquals(List.of("NACKED"), nack(tenant, topic, group, receipts(got), 60, "later"));
        // One poll of 10 s, over three times mq.interest-timeout, is the group's only interest.
        java.util.concurrent.CompletableFuture<List<Delivered>> poll =
                java.util.concurrent.CompletableFuture.supplyAsync(() -> fetchOk(tenant, topic, group, upTo(10).waitSeconds(10)));
        await("the group stays served (its lease of p live) for longer than mq.interest-timeout while the poll waits")
                .during(INTEREST_TIMEOUT.plusSeconds(1)).atMost(INTEREST_TIMEOUT.plusSeconds(3))
                .pollInterval(Duration.ofMillis(200))
                .until(() -> liveLeases() == 1 && !poll.isDone());
        publishOk(tenant, topic, List.of(msg("q", "2", 2)));
        assertEquals(List.of("2"), poll.get(10, java.util.concurrent.TimeUnit.SECONDS).stream()
                .map(Delivered::id).toList(), "the waiting poll still counts as the group's interest");
    }

    @Test
    void a_dropped_group_leaves_no_fetch_state_behind() {
        GroupScope scope = new GroupScope(tenant, group, topic);
        publishOk(tenant, topic, List.of(msg("p", "1", 1)));
        List<Delivered> got = fetchOk(tenant, topic, group, upTo(10));
        assertEquals(List.of("ACKED"), ack(tenant, topic, group, receipts(got)));
        fetchOk(tenant, topic, group, upTo(10).waitSeconds(1)); // an empty look and a re-check too
        assertTrue(consume.hasFetchState(scope), "a served group has fetch state");
        // No more fetches and nothing in flight: after mq.interest-timeout the scheduler drops the group.
        await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(250))
                .until(() -> !consume.hasFetchState(scope));
    }

    @Test
    void a_group_that_stops_fetching_is_dropped_with_its_leases_and_its_topic_gauges() throws Exception {
        publishOk(tenant, topic, List.of(msg("p", "1", 1), msg("q", "2", 2)));
        List<Delivered> got = fetchOk(tenant, topic, group, upTo(10));
        assertEquals(2, got.size());
        assertEquals(List.of("ACKED", "ACKED"), ack(tenant, topic, group, receipts(got)));
        assertTrue(gaugeSeries().contains("mq_leases_held"), "the topic's gauges exist while the group is served");
        // No more fetches and nothing in flight: after mq.interest-timeout the scheduler drops the group.
        await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(250))
                .until(() -> liveLeases() == 0 && gaugeSeries().isEmpty());
    }

    @Test
    void a_delivery_whose_visibility_expired_before_a_release_still_counts_as_a_failed_attempt() throws Exception {
        publishOk(tenant, topic, List.of(msg("p", "1", 1)));
        List<Delivered> first = fetchOk(tenant, topic, group, upTo(10).visibilitySeconds(1));
        long offset = first.get(0).offset();
        await("the 1 s visibility timeout of the first delivery runs out").atMost(Duration.ofSeconds(5))
                .pollInterval(Duration.ofMillis(100)).until(() -> visibilityOfPExpired(offset));
        GroupScope scope = new GroupScope(tenant, group, topic);
        List<LeaseStore.Lease> mine = leaseStore.leases(scope);
        assertEquals(1, leaseStore.release(scope, mine.get(0).leasedBy(), mine));

        List<Delivered> again = fetchOk(tenant, topic, group, upTo(10).waitSeconds(10));
        assertEquals(List.of("1"), ids(again));
        assertEquals(2, again.get(0).deliveryAttempt(), "the expiry before the release was a failed attempt");
        assertEquals(List.of("STALE"), ack(tenant, topic, group, receipts(first)));
    }

    @Test
    void a_group_with_a_message_in_flight_stays_served_past_the_interest_timeout() throws Exception {
        publishOk(tenant, topic, List.of(msg("p", "1", 1)));
        List<Delivered> got = fetchOk(tenant, topic, group, upTo(10));
        // The consumer works on it for twice mq.interest-timeout without fetching.
        await().during(Duration.ofSeconds(6)).atMost(Duration.ofSeconds(8)).pollInterval(Duration.ofMillis(250))
                .until(() -> liveLeases() == 1);
        assertEquals(List.of("ACKED"), ack(tenant, topic, group, receipts(got)));
    }

    @Test
    void released_leases_hand_their_in_flight_messages_back_in_order_without_a_failed_attempt() throws Exception {
        publishOk(tenant, topic, List.of(msg("p", "1", 1), msg("p", "2", 2), msg("q", "3", 3), msg("q", "4", 4)));
        List<Delivered> first = fetchOk(tenant, topic, group, upTo(10));
        assertEquals(4, first.size());
        GroupScope scope = new GroupScope(tenant, group, topic);
        // q's lease alone first: the scheduler leases q again under the next epoch, and its
        // messages go out again, so p's and q's batches are in flight under different epochs.
        List<LeaseStore.Lease> qLease = leaseStore.leases(scope).stream().filter(l -> l.partitionKey().equals("q")).toList();
        assertEquals(1, leaseStore.release(scope, qLease.get(0).leasedBy(), qLease));
        List<Delivered> qAgain = new java.util.ArrayList<>();
        await().atMost(Duration.ofSeconds(20)).until(() -> {
            qAgain.addAll(fetchOk(tenant, topic, group, upTo(10).waitSeconds(1)));
            return qAgain.size() >= 2;
        });
        assertEquals(List.of("3", "4"), ids(qAgain));
        // q's batch is materialized (its messages have rows), p's is still open: both ways back.
        assertEquals(List.of("EXTENDED"), given().contentType(io.restassured.http.ContentType.JSON)
                .body(Map.of("receipts", List.of(qAgain.get(0).receipt()), "visibilitySeconds", 60))
                .post("/tenants/{t}/topics/{topic}/consumer-groups/{g}/extend", tenant, topic, group)
                .then().statusCode(200).extract().jsonPath().getList("results.status"));
        List<LeaseStore.Lease> mine = leaseStore.leases(scope);
        assertEquals(2, mine.size());
        assertEquals(2, mine.stream().map(LeaseStore.Lease::epoch).distinct().count(), "p and q under different epochs");
        // What the scheduler does with surplus partitions when another instance joins: one call.
        assertEquals(2, leaseStore.release(scope, mine.get(0).leasedBy(), mine));

        List<Delivered> again = new java.util.ArrayList<>();
        await().atMost(Duration.ofSeconds(20)).until(() -> {
            again.addAll(fetchOk(tenant, topic, group, upTo(10).waitSeconds(1)));
            return again.size() >= 4;
        });
        assertEquals(List.of("1", "2"), ids(again.stream().filter(d -> d.partitionKey().equals("p")).toList()));
        assertEquals(List.of("3", "4"), ids(again.stream().filter(d -> d.partitionKey().equals("q")).toList()));
        assertEquals(List.of(1, 1, 1, 1), attempts(again), "each lease's deliveries went back under its own epoch");
        assertEquals(List.of("STALE", "STALE", "STALE", "STALE"), ack(tenant, topic, group, receipts(first)));
        assertEquals(List.of("STALE", "STALE"), ack(tenant, topic, group, receipts(qAgain)));
        assertEquals(List.of("ACKED", "ACKED", "ACKED", "ACKED"), ack(tenant, topic, group, receipts(again)));
    }

    /** The Prometheus gauge series of this test's topic, by name. */
    private List<String> gaugeSeries() {
        String body = given().get(metrics).then().statusCode(200).extract().asString();
        return body.lines()
                .filter(l -> l.startsWith("mq_leases_held{") || l.startsWith("mq_partitions_discovered{"))
                .filter(l -> l.contains("topic=\"" + topic + "\""))
                .map(l -> l.substring(0, l.indexOf('{')))
                .toList();
    }

    @Test
    void a_released_lease_is_not_renewed_by_later_ticks() throws Exception {
        publishOk(tenant, topic, List.of(msg("p", "1", 1)));
        assertEquals(List.of("ACKED"), ack(tenant, topic, group, receipts(fetchOk(tenant, topic, group, upTo(10)))));
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(200)).until(() -> {
            fetchOk(tenant, topic, group, upTo(1).waitSeconds(0)); // keep the interest alive
            return liveLeases() == 0;
        });
        java.sql.Timestamp released = renewedAt();
        // Seven ticks later the released lease is still as it was: not revived, not released again.
        // The condition must hold for 7 s, longer than the renewal age plus a tick (4.5 s + 1 s in
        // the test profile; a tick renews only leases older than that, docs/architecture.md, "The
        // scheduler's tick"), so a renewal that revived it would have run; the generous limit is
        // for the first look on a loaded machine.
        await().during(Duration.ofSeconds(7)).atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
                .until(() -> {
                    fetchOk(tenant, topic, group, upTo(1).waitSeconds(0));
                    return liveLeases() == 0 && released.equals(renewedAt());
                });
    }

    private java.sql.Timestamp renewedAt() throws Exception {
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement("""
                SELECT renewed_at FROM queue_partition_leases
                WHERE tenant = ? AND consumer_group = ? AND topic = ? AND partition_key = 'p'""")) {
            ps.setString(1, tenant);
            ps.setString(2, group);
            ps.setString(3, topic);
            try (ResultSet rs = ps.executeQuery()) {
                assertTrue(rs.next(), "the lease row exists");
                return rs.getTimestamp(1);
            }
        }
    }

    /** Whether the delivery of p's message (at {@code offset}) is past its visibility timeout, by the database clock. */
    private boolean visibilityOfPExpired(long offset) throws Exception {
        DeliveryStates.State st = DeliveryStates.of(dataSource, tenant, group, topic, "p", offset)
                .orElseThrow(() -> new AssertionError("p's message has a delivery state"));
        return !st.visibilityRunning();
    }

    private int liveLeases() throws Exception {
        return (int) RowCount.of(dataSource, """
                SELECT COUNT(*) FROM queue_partition_leases
                WHERE tenant = ? AND consumer_group = ? AND topic = ? AND expires_at > UTC_TIMESTAMP(6)""", tenant, group, topic);
    }
}
