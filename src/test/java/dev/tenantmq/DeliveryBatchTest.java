package dev.tenantmq;

import static dev.tenantmq.Api.ack;
import static dev.tenantmq.Api.fetchOk;
import static dev.tenantmq.Api.msg;
import static dev.tenantmq.Api.publishOk;
import static dev.tenantmq.Delivered.attempts;
import static dev.tenantmq.Delivered.offsets;
import static dev.tenantmq.Delivered.receipts;
import static dev.tenantmq.Fetch.upTo;
import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Delivery batches (migration V3): the happy path keeps a partition's in-flight messages on its
 * {@code queue_offsets} row and writes no row per message; every exception (an ack out of order,
 * an extend, an expiry) still follows the per-message rules of SPEC section 4.
 */
@QuarkusTest
class DeliveryBatchTest {
    private final String tenant = TestIds.tenant();
    private final String topic = TestIds.topic();
    private final String group = TestIds.group();

    @Inject
    AgroalDataSource dataSource;

    @Test
    void a_fetch_and_an_ack_in_order_write_no_row_per_message() throws Exception {
        List<Long> offsets = publish("1", "2", "3", "4", "5");
        List<Delivered> got = fetchOk(tenant, topic, group, upTo(10));
        assertEquals(offsets, offsets(got));
        assertEquals(0, deliveryRows(), "in flight as one batch, not five rows");
        assertEquals(offsets.get(4), number("SELECT delivered_offset FROM queue_offsets"));

        assertEquals(List.of("ACKED", "ACKED", "ACKED"), ack(tenant, topic, group, receipts(got).subList(0, 3)));
        assertEquals(offsets.get(2), committedOffset());
        assertEquals(List.of("ACKED", "ACKED"), ack(tenant, topic, group, receipts(got).subList(3, 5)));
        assertEquals(offsets.get(4), committedOffset());
        assertEquals(0, deliveryRows());
        assertEquals(List.of("ALREADY_ACKED"), ack(tenant, topic, group, receipts(got).subList(0, 1)));
    }

    @Test
    void an_ack_out_of_order_is_kept_when_the_rest_of_the_batch_expires_and_is_redelivered() throws Exception {
        List<Long> offsets = publish("1", "2", "3");
        List<Delivered> got = fetchOk(tenant, topic, group, upTo(10).visibilitySeconds(1));
        assertEquals(offsets, offsets(got));
        List<String> r = receipts(got);
        assertEquals(List.of("ACKED", "ALREADY_ACKED"), ack(tenant, topic, group, List.of(r.get(1), r.get(1))));
        assertEquals(0L, committedOffset(), "message 1 is still out");

        awaitBatchVisibilityPassed();
        List<Delivered> again = fetchOk(tenant, topic, group, upTo(10));
        assertEquals(List.of(offsets.get(0), offsets.get(2)), offsets(again), "the acked one is not delivered again");
        assertEquals(List.of(2, 2), attempts(again));
        assertEquals(List.of("STALE"), ack(tenant, topic, group, r.subList(0, 1)), "a receipt of the expired batch");
        assertEquals(List.of("ACKED", "ACKED"), ack(tenant, topic, group, receipts(again)));
        assertEquals(offsets.get(2), committedOffset());
        assertEquals(0, deliveryRows(), "acknowledged rows at or below the committed offset are pruned");
    }

    @Test
    void writing_a_batch_out_as_rows_keeps_each_visibility_deadline_to_the_microsecond() throws Exception {
        List<Long> offsets = publish("1", "2", "3");
        List<Delivered> got = fetchOk(tenant, topic, group, upTo(10));
        String batchDeadline = DeliveryStates.of(dataSource, tenant, group, topic, "p", offsets.get(0)).orElseThrow()
                .visibleAt();
        // An ack out of order writes the batch out as one row per message.
        assertEquals(List.of("ACKED"), ack(tenant, topic, group, receipts(got).subList(2, 3)));
        assertEquals(2, deliveryRows() - 1, "messages 1 and 2 have rows now, besides the acked one");
        for (long offset : offsets.subList(0, 2)) {
            assertEquals(batchDeadline, DeliveryStates.of(dataSource, tenant, group, topic, "p", offset).orElseThrow()
                    .visibleAt(), "a materialized delivery expires exactly when its batch would have");
        }
        assertEquals(List.of("ACKED", "ACKED"), ack(tenant, topic, group, receipts(got).subList(0, 2)));
    }

    @Test
    void an_extended_batch_delivery_holds_its_partition_past_the_batch_visibility() throws Exception {
        List<Long> offsets = publish("1", "2");
        List<Delivered> got = fetchOk(tenant, topic, group, upTo(10).visibilitySeconds(1));
        List<String> r = receipts(got);
        List<String> extended = given().contentType(ContentType.JSON)
                .body(Map.of("receipts", r.subList(0, 1), "visibilitySeconds", 60))
                .post("/tenants/{t}/topics/{topic}/consumer-groups/{g}/extend", tenant, topic, group)
                .then().statusCode(200).extract().jsonPath().getList("results.status");
        assertEquals(List.of("EXTENDED"), extended);

        awaitRowVisibilityPassed(offsets.get(1));
        assertEquals(List.of(), fetchOk(tenant, topic, group, upTo(10).waitSeconds(1)),
                "message 1 is still invisible, so nothing of its partition may go");
        assertEquals(List.of("ACKED", "ACKED"), ack(tenant, topic, group, r));
        assertEquals(offsets.get(1), committedOffset());
    }

    private List<Long> publish(String... ids) {
        List<Map<String, Object>> batch = new ArrayList<>();
        for (String id : ids) {
            batch.add(msg("p", id, id));
        }
        return publishOk(tenant, topic, batch).offsets();
    }

    /** Waits, by the database clock, for the group's open batch to pass its visibility deadline. */
    private void awaitBatchVisibilityPassed() {
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(100)).until(() ->
                number("SELECT visible_at <= UTC_TIMESTAMP(6) FROM queue_offsets") == 1);
    }

    /** Waits, by the database clock, for one message's delivery to pass its visibility deadline. */
    private void awaitRowVisibilityPassed(long offset) {
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(100)).until(() ->
                !DeliveryStates.of(dataSource, tenant, group, topic, "p", offset).orElseThrow().visibilityRunning());
    }

    private long committedOffset() {
        return CommittedOffsets.of(dataSource, tenant, group, topic, "p");
    }

    private long deliveryRows() throws Exception {
        return number("SELECT COUNT(*) FROM queue_delivery_state");
    }

    /** One number from a query on this test's (tenant, topic, group) and partition "p": the scope is its WHERE clause. */
    private long number(String select) throws Exception {
        String sql = select + " WHERE tenant = ? AND topic = ? AND consumer_group = ? AND partition_key = 'p'";
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, tenant);
            ps.setString(2, topic);
            ps.setString(3, group);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getLong(1) : -1;
            }
        }
    }
}
