package dev.tenantmq;

import static dev.tenantmq.Api.ack;
import static dev.tenantmq.Api.fetchOk;
import static dev.tenantmq.Api.msg;
import static dev.tenantmq.Api.nack;
import static dev.tenantmq.Api.publishOk;
import static dev.tenantmq.Delivered.ids;
import static dev.tenantmq.Delivered.receipts;
import static dev.tenantmq.Fetch.upTo;
import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * An ack that names every message of a delivery batch moves the committed offset without reading
 * the messages (docs/architecture.md, "Delivery batches"). These are the cases where counting
 * receipts would be wrong, and the ack must read the messages as before: a receipt of a deleted
 * and re-created group, a message of the batch deleted since (here by a dead letter that replaces
 * it), and a count that belongs to another batch.
 */
@QuarkusTest
class WholeBatchAckTest {
    private final String tenant = TestIds.tenant();
    private final String topic = TestIds.topic();
    private final String group = TestIds.group();

    @Inject
    AgroalDataSource dataSource;

    @Test
    void a_receipt_of_a_deleted_and_recreated_group_never_settles_a_delivery_of_the_new_one() {
        List<Long> offsets = publishOk(tenant, topic, List.of(msg("k", "m1", 1), msg("k", "m2", 2), msg("k", "m3", 3)))
                .offsets();
        List<Delivered> before = fetchUntil(topic, group, 3);
        await("the group is deleted").atMost(Duration.ofSeconds(30)).until(() -> given()
                .header("Authorization", "Bearer " + AdminTest.TOKEN).queryParam("tenant", tenant)
                .queryParam("topic", topic).queryParam("consumerGroup", group).delete("/admin/consumer-groups")
                .then().statusCode(200).extract().jsonPath().getBoolean("done"));
        adminDelete(topic, "m1");
        List<Delivered> after = fetchUntil(topic, group, 2);
        assertEquals(List.of("m2", "m3"), ids(after));

        // The first receipt is of the deleted group's batch, which the new one's must not resemble.
        List<String> statuses = ack(tenant, topic, group, List.of(before.get(0).receipt(), after.get(0).receipt()));

        assertEquals("ACKED", statuses.get(1));
        assertTrue(CommittedOffsets.of(dataSource, tenant, group, topic, "k") < offsets.get(2),
                "m3 is acknowledged by nobody, yet the group committed past it: " + statuses);
        assertEquals(List.of("ACKED"), ack(tenant, topic, group, List.of(after.get(1).receipt())));
        assertEquals(offsets.get(2), CommittedOffsets.of(dataSource, tenant, group, topic, "k"));
    }

    @Test
    void a_message_of_an_open_batch_replaced_by_a_dead_letter_is_invalid_to_ack() {
        String dlq = topic + ".dlq";
        String dlqGroup = TestIds.group();
        publishOk(tenant, dlq, List.of(msg("k", "a", 1), msg("k", "m", "published there directly")));
        List<Delivered> got = fetchUntil(dlq, dlqGroup, 2);
        assertEquals(List.of("a", "m"), ids(got));
        publishOk(tenant, topic, List.of(msg("k", "m", "original")));
        for (int attempt = 1; attempt <= 5; attempt++) {
            assertEquals(List.of("NACKED"), nack(tenant, topic, group, receipts(fetchUntil(topic, group, 1)), 0, "boom"));
        }

        // The dead letter of the original, with the same id, replaced "m" of the dead-letter topic.
        assertEquals(List.of("ACKED", "INVALID"), ack(tenant, dlq, dlqGroup, receipts(got)),
                "the receipt of a message deleted above the committed offset is INVALID (docs/api.md)");
        List<Delivered> next = fetchUntil(dlq, dlqGroup, 1);
        assertEquals(List.of("m"), ids(next));
        assertEquals("original", next.get(0).payload(), "the dead letter that replaced it, delivered next");
    }

    @Test
    void a_batch_size_recorded_for_an_earlier_batch_is_not_trusted() throws Exception {
        publishOk(tenant, topic, List.of(msg("k", "p1", 1), msg("k", "p2", 2), msg("k", "p3", 3)));
        assertEquals(List.of("ACKED", "ACKED", "ACKED"), ack(tenant, topic, group, receipts(fetchUntil(topic, group, 3))));
        List<Long> offsets = publishOk(tenant, topic, List.of(msg("k", "n1", 1), msg("k", "n2", 2), msg("k", "n3", 3),
                msg("k", "n4", 4), msg("k", "n5", 5))).offsets();
        List<Delivered> second = fetchUntil(topic, group, 5);
        // What a process of the previous version leaves when it opens this batch (a rolling update):
        // every batch column but the count, which still holds the first batch's 3.
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement("""
                UPDATE queue_offsets SET batch_messages = 3, batch_seq = delivery_seq - 1
                WHERE tenant = ? AND topic = ? AND consumer_group = ?""")) {
            ps.setString(1, tenant);
            ps.setString(2, topic);
            ps.setString(3, group);
            assertEquals(1, ps.executeUpdate());
        }

        assertEquals(List.of("ACKED", "ACKED", "ACKED"), ack(tenant, topic, group, receipts(second).subList(2, 5)));
        assertTrue(CommittedOffsets.of(dataSource, tenant, group, topic, "k") < offsets.get(0),
                "n1 and n2 are not acknowledged");
    }

    private List<Delivered> fetchUntil(String t, String g, int n) {
        List<Delivered> got = new ArrayList<>();
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            got.addAll(fetchOk(tenant, t, g, upTo(n - got.size()).waitSeconds(1).visibilitySeconds(30)));
            return got.size() >= n;
        });
        return got;
    }

    private void adminDelete(String t, String id) {
        given().header("Authorization", "Bearer " + AdminTest.TOKEN).queryParam("tenant", tenant).queryParam("topic", t)
                .queryParam("partitionKey", "k").queryParam("id", id).delete("/admin/messages").then().statusCode(200);
    }
}
