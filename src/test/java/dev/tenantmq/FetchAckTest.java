package dev.tenantmq;

import static dev.tenantmq.Api.ack;
import static dev.tenantmq.Api.fetchOk;
import static dev.tenantmq.Api.msg;
import static dev.tenantmq.Api.publishOk;
import static dev.tenantmq.Delivered.attempts;
import static dev.tenantmq.Delivered.ids;
import static dev.tenantmq.Delivered.receipts;
import static dev.tenantmq.Fetch.upTo;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Lease-fetch and ack in one process: order, committed offsets, visibility, fencing. */
@QuarkusTest
class FetchAckTest {
    private final String tenant = TestIds.tenant();
    private final String topic = TestIds.topic();
    private final String group = TestIds.group();

    @Inject
    AgroalDataSource dataSource;

    @Inject
    dev.tenantmq.domain.ReceiptSigning signing;

    @Test
    void each_partition_is_delivered_in_offset_order_with_attempt_one() {
        List<Map<String, Object>> batch = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            batch.add(msg("p" + (i % 3), "m" + i, i));
        }
        publishOk(tenant, topic, batch);
        List<Delivered> got = fetchOk(tenant, topic, group, upTo(100));
        assertEquals(20, got.size());
        Map<String, Long> last = new java.util.HashMap<>();
        for (Delivered m : got) {
            long offset = m.offset();
            Long prev = last.put(m.partitionKey(), offset);
            assertTrue(prev == null || prev < offset, "offset order within " + m.partitionKey());
            assertEquals(1, m.deliveryAttempt());
        }
    }

    @Test
    void a_partition_with_unacked_messages_delivers_nothing_new() {
        publishOk(tenant, topic, List.of(msg("p", "1", 1)));
        List<Delivered> first = fetchOk(tenant, topic, group, upTo(10));
        assertEquals(1, first.size());
        publishOk(tenant, topic, List.of(msg("p", "2", 2)));
        assertEquals(0, fetchOk(tenant, topic, group, upTo(10).waitSeconds(1)).size(), "m2 must wait for m1's ack");
        assertEquals(List.of("ACKED"), ack(tenant, topic, group, receipts(first)));
        List<Delivered> second = fetchOk(tenant, topic, group, upTo(10));
        assertEquals(List.of("2"), ids(second));
    }

    @Test
    void ack_advances_the_committed_offset_over_the_contiguous_acked_prefix() throws Exception {
        List<Long> offsets = publishOk(tenant, topic, List.of(msg("p", "1", 1), msg("p", "2", 2), msg("p", "3", 3)))
                .offsets();
        List<Delivered> got = fetchOk(tenant, topic, group, upTo(10));
        List<String> r = receipts(got);
        assertEquals(List.of("ACKED", "ACKED"), ack(tenant, topic, group, List.of(r.get(1), r.get(2))));
        assertEquals(0L, committedOffset(), "a hole at the first message keeps the offset");
        assertEquals(List.of("ACKED"), ack(tenant, topic, group, List.of(r.get(0))));
        assertEquals(offsets.get(2), committedOffset());
        assertEquals(0, deliveryRows("p"), "delivery state at or below the committed offset is pruned");
        assertEquals(List.of("ALREADY_ACKED", "ALREADY_ACKED", "ALREADY_ACKED"), ack(tenant, topic, group, r));
        assertEquals(0, fetchOk(tenant, topic, group, upTo(10).waitSeconds(0)).size());
    }

    @Test
    void an_expired_delivery_is_redelivered_in_order_with_the_next_attempt() {
        publishOk(tenant, topic, List.of(msg("p", "1", 1), msg("p", "2", 2)));
        List<Delivered> first = fetchOk(tenant, topic, group, upTo(10).visibilitySeconds(1));
        assertEquals(2, first.size());
        List<Delivered> again = new ArrayList<>();
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            again.addAll(fetchOk(tenant, topic, group, upTo(10).waitSeconds(1)));
            return !again.isEmpty();
        });
        assertEquals(List.of("1", "2"), ids(again));
        assertEquals(List.of(2, 2), attempts(again));
        assertEquals(List.of("STALE", "STALE"), ack(tenant, topic, group, receipts(first)),
                "receipts of the expired delivery are stale");
        assertEquals(List.of("ACKED", "ACKED"), ack(tenant, topic, group, receipts(again)));
    }

    @Test
    void acked_messages_beyond_a_hole_are_not_redelivered() {
        publishOk(tenant, topic, List.of(msg("p", "1", 1), msg("p", "2", 2), msg("p", "3", 3)));
        List<Delivered> first = fetchOk(tenant, topic, group, upTo(10).visibilitySeconds(1));
        ack(tenant, topic, group, List.of(receipts(first).get(1)));
        List<Delivered> again = new ArrayList<>();
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            again.addAll(fetchOk(tenant, topic, group, upTo(10).waitSeconds(1)));
            return !again.isEmpty();
        });
        assertEquals(List.of("1", "3"), ids(again));
    }

    @Test
    void extend_pushes_the_redelivery_back() {
        publishOk(tenant, topic, List.of(msg("p", "1", 1)));
        List<Delivered> first = fetchOk(tenant, topic, group, upTo(10).visibilitySeconds(3));
        assertEquals(List.of("EXTENDED"), extend(receipts(first), 30));
        // Without the extend it would be redelivered after 3 s. (A visibility of 3 s, not 1 s: the
        // extend must come before the deadline, on a loaded machine too.)
        await().during(Duration.ofSeconds(4)).atMost(Duration.ofSeconds(6))
                .until(() -> fetchOk(tenant, topic, group, upTo(10).waitSeconds(0)).isEmpty());
        assertEquals(List.of("ACKED"), ack(tenant, topic, group, receipts(first)));
    }

    @Test
    void an_extend_after_the_visibility_deadline_is_stale_and_the_expiry_counts_as_a_failed_attempt() {
        publishOk(tenant, topic, List.of(msg("p", "1", 1)));
        List<Delivered> first = fetchOk(tenant, topic, group, upTo(10).visibilitySeconds(1));
        assertEquals(1, first.size());
        // Past the deadline (database clock) and not yet redelivered: the fetch below is the next.
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(100))
                .until(() -> deliveryExpired(first.get(0).offset()));

        assertEquals(List.of("STALE"), extend(receipts(first), 60), "a late extend cannot revive the delivery");

        List<Delivered> again = fetchOk(tenant, topic, group, upTo(10));
        assertEquals(List.of("1"), ids(again), "redelivered at once");
        assertEquals(List.of(2), attempts(again), "the expiry was a failed attempt");
        assertEquals(List.of("STALE"), ack(tenant, topic, group, receipts(first)));
        assertEquals(List.of("ACKED"), ack(tenant, topic, group, receipts(again)));
    }

    /**
     * Whether the group's delivery of {@code offset} is past its visibility deadline by the
     * database clock: its delivery row's, or, when it has none, its open batch's.
     */
    private boolean deliveryExpired(long offset) throws Exception {
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement("""
                SELECT COALESCE(
                         (SELECT d.visible_at FROM queue_delivery_state d
                          WHERE d.tenant = o.tenant AND d.consumer_group = o.consumer_group AND d.topic = o.topic
                            AND d.partition_key = o.partition_key AND d.message_offset = ?),
                         o.visible_at) <= UTC_TIMESTAMP(6)
                FROM queue_offsets o
                WHERE o.tenant = ? AND o.topic = ? AND o.partition_key = 'p' AND o.consumer_group = ?""")) {
            ps.setLong(1, offset);
            ps.setString(2, tenant);
            ps.setString(3, topic);
            ps.setString(4, group);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() && rs.getBoolean(1);
            }
        }
    }

    @Test
    void extend_of_a_stale_or_acked_receipt_changes_nothing() {
        publishOk(tenant, topic, List.of(msg("p", "1", 1)));
        List<Delivered> first = fetchOk(tenant, topic, group, upTo(10).visibilitySeconds(1));
        List<Delivered> again = new ArrayList<>();
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            again.addAll(fetchOk(tenant, topic, group, upTo(10).waitSeconds(1).visibilitySeconds(1)));
            return !again.isEmpty();
        });
        assertEquals(List.of("STALE"), extend(receipts(first), 60), "an older delivery cannot hide the current one");
        assertEquals(List.of("ACKED"), ack(tenant, topic, group, receipts(again)));
        assertEquals(List.of("ALREADY_ACKED"), extend(receipts(again), 60));
        assertEquals(List.of("INVALID"), extend(List.of("nonsense"), 60));
    }

    @Test
    void extend_requires_a_visibility_in_range() {
        io.restassured.RestAssured.given().contentType(io.restassured.http.ContentType.JSON)
                .body(Map.of("receipts", List.of("x"), "visibilitySeconds", 0))
                .post("/tenants/{t}/topics/{topic}/consumer-groups/{g}/extend", tenant, topic, group)
                .then().statusCode(400).body("errors[0].field", org.hamcrest.Matchers.equalTo("visibilitySeconds"));
        io.restassured.RestAssured.given().contentType(io.restassured.http.ContentType.JSON)
                .body(Map.of("receipts", List.of("x")))
                .post("/tenants/{t}/topics/{topic}/consumer-groups/{g}/extend", tenant, topic, group)
                .then().statusCode(400).body("errors[0].field", org.hamcrest.Matchers.equalTo("visibilitySeconds"));
    }

    /**
     * Keys that start with a character below U+0020 sort before the empty string under the
     * PAD SPACE collation; a fetch's key range must still include them (they were stored and
     * never delivered when "no lower bound" was written as {@code > ''}).
     */
    @Test
    void partition_keys_that_start_with_a_control_character_are_delivered() {
        List<String> keys = List.of("\tk", "\u0001a", "\u001fz", "\nx", "!k", "plain");
        List<Map<String, Object>> batch = new ArrayList<>();
        for (String k : keys) {
            batch.add(msg(k, "id-" + keys.indexOf(k), keys.indexOf(k)));
        }
        publishOk(tenant, topic, batch);
        List<Delivered> got = fetchUntil(keys.size());
        assertEquals(new java.util.TreeSet<>(keys), new java.util.TreeSet<>(got.stream().map(m -> m.partitionKey()).toList()));
    }

    /** Fetches until {@code n} messages arrived (the first fetch registers the group's interest). */
    private List<Delivered> fetchUntil(int n) {
        List<Delivered> got = new ArrayList<>();
        await().atMost(java.time.Duration.ofSeconds(20)).until(() -> {
            got.addAll(fetchOk(tenant, topic, group, upTo(n - got.size()).waitSeconds(1)));
            return got.size() >= n;
        });
        return got;
    }

    private List<String> extend(List<String> receipts, int visibilitySeconds) {
        return io.restassured.RestAssured.given().contentType(io.restassured.http.ContentType.JSON)
                .body(Map.of("receipts", receipts, "visibilitySeconds", visibilitySeconds))
                .post("/tenants/{t}/topics/{topic}/consumer-groups/{g}/extend", tenant, topic, group)
                .then().statusCode(200).extract().jsonPath().getList("results.status");
    }

    @Test
    void two_consumer_groups_each_receive_every_message() {
        publishOk(tenant, topic, List.of(msg("p", "1", 1), msg("q", "2", 2)));
        String other = TestIds.group();
        List<Delivered> a = fetchOk(tenant, topic, group, upTo(10));
        List<Delivered> b = fetchOk(tenant, topic, other, upTo(10));
        assertEquals(2, a.size());
        assertEquals(2, b.size());
        assertEquals(List.of("ACKED", "ACKED"), ack(tenant, topic, group, receipts(a)));
        assertEquals(List.of("INVALID", "INVALID"), ack(tenant, topic, other, receipts(a)),
                "a receipt names its group: another group's receipts are not valid here");
        assertEquals(List.of("ACKED", "ACKED"), ack(tenant, topic, other, receipts(b)));
    }

    private long committedOffset() {
        return CommittedOffsets.of(dataSource, tenant, group, topic, "p");
    }

    private int deliveryRows(String partitionKey) throws Exception {
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement("""
                SELECT COUNT(*) FROM queue_delivery_state
                WHERE tenant = ? AND consumer_group = ? AND topic = ? AND partition_key = ?""")) {
            ps.setString(1, tenant);
            ps.setString(2, group);
            ps.setString(3, topic);
            ps.setString(4, partitionKey);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        }
    }
    /** A receipt with the right tenant, topic, group and lease but an offset no message has is INVALID, not STALE. */
    @Test
    void a_forged_receipt_for_an_offset_without_a_message_is_invalid_for_ack_nack_and_extend() {
        publishOk(tenant, topic, List.of(msg("k", "real", 1)));
        List<Delivered> got = fetchUntil(1);
        String real = got.get(0).receipt();
        // Signed with the service's own key, so that it passes the signature check and reaches the database.
        dev.tenantmq.domain.Receipt r = signing.decode(real).orElseThrow();
        String forged = signing.encode(new dev.tenantmq.domain.Receipt(r.tenant(), r.consumerGroup(), r.topic(),
                r.partitionKey(), r.offset() + 1_000_000, r.leaseEpoch(), r.delivery()));
        assertEquals(List.of("INVALID"), ack(tenant, topic, group, List.of(forged)));
        assertEquals(List.of("INVALID"), Api.nack(tenant, topic, group, List.of(forged), 0, null));
        assertEquals(List.of("INVALID"), extend(List.of(forged), 60));
        assertEquals(List.of("ACKED"), ack(tenant, topic, group, List.of(real)), "the real delivery is untouched");
    }

    /**
     * A receipt of a message an operator deleted is INVALID while the message would lie above
     * the group's committed offset, and ALREADY_ACKED once the group has committed past it (as
     * any message at or below the committed offset); it is never STALE.
     */
    @Test
    void a_receipt_of_an_admin_deleted_message_is_invalid_until_the_group_commits_past_it() {
        publishOk(tenant, topic, List.of(msg("k", "deleted", 1), msg("k", "kept", 2)));
        List<Delivered> got = fetchUntil(2);
        io.restassured.RestAssured.given().header("Authorization", "Bearer " + AdminTest.TOKEN)
                .queryParam("tenant", tenant).queryParam("topic", topic).queryParam("partitionKey", "k")
                .queryParam("id", "deleted").delete("/admin/messages").then().statusCode(200);
        List<String> r = receipts(got);
        assertEquals(List.of("INVALID"), ack(tenant, topic, group, r.subList(0, 1)));
        assertEquals(List.of("INVALID"), extend(r.subList(0, 1), 60));
        assertEquals(List.of("ACKED"), ack(tenant, topic, group, r.subList(1, 2)));
        assertEquals(List.of("ALREADY_ACKED"), ack(tenant, topic, group, r.subList(0, 1)));
    }

    /**
     * The ack of every receipt of a batch moves the committed offset without reading the batch's
     * messages (docs/architecture.md, "Delivery batches"), unless one of them was deleted since
     * the fetch: then the ack reads the messages, and the deleted message's receipt answers as
     * before: INVALID while it lies above the committed offset (here the batch's last message; a
     * deleted message before others of the batch is passed by the offset: ALREADY_ACKED).
     */
    @Test
    void an_ack_of_a_whole_batch_one_of_whose_messages_was_deleted_says_invalid_for_that_one() {
        publishOk(tenant, topic, List.of(msg("k", "first", 1), msg("k", "middle", 2), msg("k", "last", 3)));
        List<Delivered> got = fetchUntil(3);
        io.restassured.RestAssured.given().header("Authorization", "Bearer " + AdminTest.TOKEN)
                .queryParam("tenant", tenant).queryParam("topic", topic).queryParam("partitionKey", "k")
                .queryParam("id", "last").delete("/admin/messages").then().statusCode(200);

        assertEquals(List.of("ACKED", "ACKED", "INVALID"), ack(tenant, topic, group, receipts(got)));
        publishOk(tenant, topic, List.of(msg("k", "after", 4)));
        assertEquals(List.of("after"), fetchUntil(1).stream().map(Delivered::id).toList(),
                "the group committed past the batch");
    }
}
