package dev.tenantmq;

import static dev.tenantmq.Api.ack;
import static dev.tenantmq.Api.fetchOk;
import static dev.tenantmq.Api.msg;
import static dev.tenantmq.Api.publishOk;
import static dev.tenantmq.Delivered.ids;
import static dev.tenantmq.Delivered.receipts;
import static dev.tenantmq.Fetch.upTo;
import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tenantmq.domain.FetchSignals;
import dev.tenantmq.scheduler.RetentionJob;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A message deleted while in flight (docs/operations.md, "Retention": an operator's delete lets the partition move
 * on; retention's maximum age) holds nothing back: the next message of its partition is delivered
 * at once, to a fetch or to a long poll already waiting, not at the deleted delivery's visibility
 * deadline. The deliveries use a visibility far longer than every wait here, so only the delete
 * can release the partition.
 */
@QuarkusTest
class InFlightDeleteTest {
    /** Far beyond every wait of these tests: the deleted delivery never expires during them. */
    private static final int VISIBILITY = 600;

    private final String tenant = TestIds.tenant();
    private final String topic = TestIds.topic();
    private final String group = TestIds.group();

    @Inject
    FetchSignals signals;

    @Inject
    RetentionJob retention;

    @Inject
    AgroalDataSource dataSource;

    @Test
    void an_admin_delete_of_the_only_in_flight_message_wakes_a_waiting_long_poll_with_the_next_one() throws Exception {
        publishOk(tenant, topic, List.of(msg("k", "m1", 1)));
        assertEquals(List.of("m1"), ids(fetchOk(tenant, topic, group, upTo(10).waitSeconds(2).visibilitySeconds(VISIBILITY))));
        publishOk(tenant, topic, List.of(msg("k", "m2", 2)));

        CompletableFuture<List<Delivered>> poll = waitingPoll();
        adminDelete("k", "m1");

        assertEquals(List.of("m2"), ids(poll.get(60, TimeUnit.SECONDS)),
                "the deleted delivery no longer holds its partition back");
    }

    @Test
    void after_an_admin_delete_of_the_last_message_of_a_batch_the_ack_of_the_rest_releases_the_partition() {
        publishOk(tenant, topic, List.of(msg("k", "m1", 1), msg("k", "m2", 2)));
        List<Delivered> batch = fetchOk(tenant, topic, group, upTo(10).waitSeconds(2).visibilitySeconds(VISIBILITY));
        assertEquals(List.of("m1", "m2"), ids(batch));
        publishOk(tenant, topic, List.of(msg("k", "m3", 3)));

        adminDelete("k", "m2");
        assertEquals(List.of(), ids(fetchOk(tenant, topic, group, upTo(10).waitSeconds(0).visibilitySeconds(VISIBILITY))), "m1 is still in flight");
        assertEquals(List.of("ACKED"), ack(tenant, topic, group, receipts(batch).subList(0, 1)));

        assertEquals(List.of("m3"), ids(fetchOk(tenant, topic, group, upTo(10).waitSeconds(10).visibilitySeconds(VISIBILITY))));
    }

    @Test
    void after_an_admin_delete_of_the_first_message_of_a_batch_the_rest_stays_in_flight_and_ackable() {
        publishOk(tenant, topic, List.of(msg("k", "m1", 1), msg("k", "m2", 2)));
        List<Delivered> batch = fetchOk(tenant, topic, group, upTo(10).waitSeconds(2).visibilitySeconds(VISIBILITY));
        assertEquals(List.of("m1", "m2"), ids(batch));
        publishOk(tenant, topic, List.of(msg("k", "m3", 3)));

        adminDelete("k", "m1");
        assertEquals(List.of(), ids(fetchOk(tenant, topic, group, upTo(10).waitSeconds(0).visibilitySeconds(VISIBILITY))), "m2 is still in flight");
        assertEquals(List.of("ACKED"), ack(tenant, topic, group, receipts(batch).subList(1, 2)));

        assertEquals(List.of("m3"), ids(fetchOk(tenant, topic, group, upTo(10).waitSeconds(10).visibilitySeconds(VISIBILITY))));
    }

    @Test
    void an_admin_delete_of_the_first_unacked_message_commits_over_the_messages_acked_after_it() throws Exception {
        Published published = publishOk(tenant, topic, List.of(msg("k", "m1", 1), msg("k", "m2", 2), msg("k", "m3", 3)));
        List<Delivered> batch = fetchOk(tenant, topic, group, upTo(10).waitSeconds(2).visibilitySeconds(VISIBILITY));
        assertEquals(List.of("m1", "m2", "m3"), ids(batch));
        assertEquals(List.of("ACKED", "ACKED"), ack(tenant, topic, group, receipts(batch).subList(1, 3)));
        assertEquals(0, CommittedOffsets.of(dataSource, tenant, group, topic, "k"), "m1 holds the committed offset back");

        adminDelete("k", "m1");

        // Nothing is left to acknowledge: without a walk at the delete, the offset stayed and the
        // group's lag and oldest unacknowledged age counted m2 and m3 until a later ack.
        assertEquals(published.offset(2), CommittedOffsets.of(dataSource, tenant, group, topic, "k"),
                "the committed offset moved over the acknowledged m2 and m3");
        assertEquals(List.of(), ids(fetchOk(tenant, topic, group, upTo(10).waitSeconds(0).visibilitySeconds(VISIBILITY))));
        publishOk(tenant, topic, List.of(msg("k", "m4", 4)));
        assertEquals(List.of("m4"), ids(fetchOk(tenant, topic, group, upTo(10).waitSeconds(10).visibilitySeconds(VISIBILITY))));
        StoredCounts.assertMatchStored(dataSource, tenant);
    }

    @Test
    void retention_of_an_expired_first_unacked_message_commits_over_the_messages_acked_after_it() throws Exception {
        Published published = publishOk(tenant, topic, List.of(msg("k", "m1", 1), msg("k", "m2", 2), msg("k", "m3", 3)));
        List<Delivered> batch = fetchOk(tenant, topic, group, upTo(10).waitSeconds(2).visibilitySeconds(VISIBILITY));
        assertEquals(List.of("m1", "m2", "m3"), ids(batch));
        assertEquals(List.of("ACKED", "ACKED"), ack(tenant, topic, group, receipts(batch).subList(1, 3)));
        // m1 was published a day ago; m2 and m3 are fresh. Retention's walk deletes only m1.
        assertEquals(1, execute("""
                UPDATE queue_messages SET created_at = created_at - INTERVAL 1 DAY
                WHERE tenant = ? AND topic = ? AND partition_key = 'k' AND id = 'm1'""", tenant, topic));

        assertEquals(1, retention.purgeTopic(tenant, topic, Duration.ofHours(1), 500));

        assertEquals(published.offset(2), CommittedOffsets.of(dataSource, tenant, group, topic, "k"),
                "the committed offset moved over the acknowledged m2 and m3, as after an admin delete");
        assertEquals(List.of(), ids(fetchOk(tenant, topic, group, upTo(10).waitSeconds(0).visibilitySeconds(VISIBILITY))));
        StoredCounts.assertMatchStored(dataSource, tenant);
    }

    @Test
    void retention_of_an_expired_in_flight_message_wakes_a_waiting_long_poll_with_the_next_one() throws Exception {
        publishOk(tenant, topic, List.of(msg("k", "m1", 1)));
        assertEquals(List.of("m1"), ids(fetchOk(tenant, topic, group, upTo(10).waitSeconds(2).visibilitySeconds(VISIBILITY))));
        publishOk(tenant, topic, List.of(msg("k", "m2", 2), msg("k", "m3", 3)));
        // m1 was published a day ago; m2 and m3 are fresh. Retention's walk deletes only m1.
        assertEquals(1, execute("""
                UPDATE queue_messages SET created_at = created_at - INTERVAL 1 DAY
                WHERE tenant = ? AND topic = ? AND partition_key = 'k' AND id = 'm1'""", tenant, topic));

        CompletableFuture<List<Delivered>> poll = waitingPoll();
        assertEquals(1, retention.purgeTopic(tenant, topic, Duration.ofHours(1), 500));

        assertEquals(List.of("m2", "m3"), ids(poll.get(60, TimeUnit.SECONDS)),
                "the expired delivery no longer holds its partition back");
    }

    /** A long poll of the group, started and waiting (registered for a signal) when this returns. */
    private CompletableFuture<List<Delivered>> waitingPoll() {
        CompletableFuture<List<Delivered>> poll = CompletableFuture.supplyAsync(
                () -> fetchOk(tenant, topic, group, upTo(10).waitSeconds(20).visibilitySeconds(VISIBILITY)));
        await("the long poll waits").atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(5))
                .until(() -> poll.isDone() || signals.waiting(tenant, topic) > 0);
        assertEquals(false, poll.isDone(), "the long poll found nothing before the delete");
        return poll;
    }

    private void adminDelete(String partitionKey, String id) {
        given().header("Authorization", "Bearer " + AdminTest.TOKEN).queryParam("tenant", tenant)
                .queryParam("topic", topic).queryParam("partitionKey", partitionKey).queryParam("id", id)
                .delete("/admin/messages").then().statusCode(200);
    }

    private int execute(String sql, Object... params) throws Exception {
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) {
                ps.setObject(i + 1, params[i]);
            }
            return ps.executeUpdate();
        }
    }
}
