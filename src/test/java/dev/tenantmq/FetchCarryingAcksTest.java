package dev.tenantmq;

import static dev.tenantmq.Api.ack;
import static dev.tenantmq.Api.fetchOk;
import static dev.tenantmq.Api.msg;
import static dev.tenantmq.Api.publishOk;
import static dev.tenantmq.Delivered.attempts;
import static dev.tenantmq.Delivered.ids;
import static dev.tenantmq.Delivered.offsets;
import static dev.tenantmq.Delivered.receipts;
import static dev.tenantmq.Fetch.upTo;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * A fetch whose body carries receipts to acknowledge (docs/api.md, "Fetch and ack in one call"):
 * the receipts settle as an ack settles them, with the same statuses, before the fetch looks, so
 * the partitions whose batch they finish deliver their next messages in the same call; a receipt
 * that cannot settle is a status, never a failed fetch; the list has an ack's limits.
 */
@QuarkusTest
class FetchCarryingAcksTest {
    private static final ObjectMapper JSON = JsonMapper.builder()
            .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false).build();

    private final String tenant = TestIds.tenant();
    private final String topic = TestIds.topic();
    private final String group = TestIds.group();

    @Inject
    AgroalDataSource dataSource;

    /** A fetch answer with its ack results (openapi.yaml {@code FetchResponse}). */
    @JsonIgnoreProperties(ignoreUnknown = true)
    record Answer(List<Delivered> messages, List<Result> ackResults) {}

    /** One ack result. */
    @JsonIgnoreProperties(ignoreUnknown = true)
    record Result(String receipt, String status) {}

    @Test
    void the_acks_a_fetch_carries_free_their_partition_for_the_same_fetch() throws Exception {
        publishOk(tenant, topic, List.of(msg("p", "1", 1), msg("p", "2", 2), msg("p", "3", 3), msg("p", "4", 4)));
        List<Delivered> first = fetchOk(tenant, topic, group, upTo(2));
        assertEquals(List.of("1", "2"), ids(first));

        // Without the ack the partition is held by its open batch: nothing could go now.
        Answer next = fetchAcking(upTo(2).waitSeconds(0), receipts(first));

        assertEquals(List.of("ACKED", "ACKED"), statuses(next));
        assertEquals(receipts(first), next.ackResults().stream().map(Result::receipt).toList(), "in request order");
        assertEquals(List.of("3", "4"), ids(next.messages()), "the partition's next messages, in the same call");
        assertEquals(List.of(1, 1), attempts(next.messages()));
        assertEquals(first.get(1).offset(), committedOffset("p"), "the ack moved the committed offset over the batch");
        assertEquals(List.of("ACKED", "ACKED"), ack(tenant, topic, group, receipts(next.messages())));
        assertEquals(next.messages().get(1).offset(), committedOffset("p"));
    }

    @Test
    void consuming_with_each_fetch_acking_the_last_batch_keeps_every_partition_in_order() throws Exception {
        List<Map<String, Object>> batch = new ArrayList<>();
        for (int i = 0; i < 60; i++) {
            batch.add(msg("k" + (i % 3), "m" + i, i));
        }
        publishOk(tenant, topic, batch);
        Map<String, List<Long>> seen = new HashMap<>();
        Set<String> ids = new HashSet<>();
        List<String> toAck = new ArrayList<>();
        await().atMost(Duration.ofSeconds(60)).until(() -> {
            Answer got = fetchAcking(upTo(7).waitSeconds(1), toAck);
            assertEquals(Collections.nCopies(toAck.size(), "ACKED"), statuses(got));
            for (Delivered d : got.messages()) {
                assertTrue(ids.add(d.id()), "delivered once: " + d.id());
                seen.computeIfAbsent(d.partitionKey(), k -> new ArrayList<>()).add(d.offset());
            }
            toAck.clear();
            toAck.addAll(receipts(got.messages()));
            return ids.size() == 60;
        });
        assertEquals(List.of("ACKED"), new ArrayList<>(new HashSet<>(ack(tenant, topic, group, toAck))));
        for (String key : List.of("k0", "k1", "k2")) {
            List<Long> offsets = seen.get(key);
            assertEquals(20, offsets.size(), key);
            for (int i = 1; i < offsets.size(); i++) {
                assertTrue(offsets.get(i - 1) < offsets.get(i), key + " in offset order: " + offsets);
            }
            assertEquals(offsets.get(19), committedOffset(key));
        }
    }

    @Test
    void a_receipt_of_a_lease_that_expired_and_was_acquired_again_is_stale_and_the_fetch_still_delivers()
            throws Exception {
        publishOk(tenant, topic, List.of(msg("p", "1", 1)));
        Delivered delivered = fetchOk(tenant, topic, group, upTo(10).visibilitySeconds(600)).get(0);
        long epoch = leaseEpoch();
        expireLease(epoch);
        await("the scheduler acquires the expired lease again").atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(100)).until(() -> leaseEpoch() == epoch + 1);

        Answer got = fetchAcking(upTo(10), List.of(delivered.receipt()));

        assertEquals(List.of("STALE"), statuses(got), "fenced by the lease epoch: nothing changed");
        assertEquals(List.of(delivered.offset()), offsets(got.messages()), "the new lease delivers it again");
        assertEquals(List.of(2), attempts(got.messages()), "losing the lease was a failed attempt");
        assertEquals(0L, committedOffset("p"));
        assertEquals(List.of("ACKED"), statuses(fetchAcking(upTo(10).waitSeconds(0), receipts(got.messages()))));
        assertEquals(delivered.offset(), committedOffset("p"));
    }

    @Test
    void a_fetch_acking_the_start_of_an_expired_batch_it_does_not_walk_closes_the_batch_at_the_new_offset()
            throws Exception {
        publishOk(tenant, topic, List.of(msg("a", "a0", 0)));
        assertEquals(List.of("ACKED"), ack(tenant, topic, group, receipts(fetchOk(tenant, topic, group, upTo(10)))));
        publishOk(tenant, topic, List.of(msg("p", "1", 1), msg("p", "2", 2)));
        List<Delivered> first = fetchOk(tenant, topic, group, upTo(2).visibilitySeconds(1));
        assertEquals(List.of("1", "2"), ids(first));
        publishOk(tenant, topic, List.of(msg("a", "a1", 1)));
        await("the batch's visibility timeout passes").atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(100)).until(() -> queryLong("SELECT visible_at <= UTC_TIMESTAMP(6)"
                        + " FROM queue_offsets WHERE tenant = ? AND consumer_group = ? AND topic = ?"
                        + " AND partition_key = 'p'", 0) == 1);

        // The ack moves p's committed offset into its expired batch. The walk closes that batch
        // (its rest gets a row, as a failed attempt) and then spends its budget on partition a
        // before p: so p gets no new batch, and its row must show the batch closed at the new
        // committed offset (migration V3), not at the one it held before the ack.
        Answer got = fetchAcking(upTo(1).waitSeconds(0), List.of(first.get(0).receipt()));

        assertEquals(List.of("ACKED"), statuses(got));
        assertEquals(List.of("a1"), ids(got.messages()));
        assertEquals(first.get(0).offset(), committedOffset("p"));
        assertEquals(first.get(0).offset(), queryLong("SELECT delivered_offset FROM queue_offsets WHERE tenant = ?"
                + " AND consumer_group = ? AND topic = ? AND partition_key = 'p'", -1), "p's batch closed at its committed offset");
        Answer rest = fetchAcking(upTo(10).waitSeconds(0), receipts(got.messages()));
        assertEquals(List.of("2"), ids(rest.messages()), "the rest of the expired batch goes again");
        assertEquals(List.of(2), attempts(rest.messages()), "the expiry was a failed attempt");
        assertEquals(List.of("ACKED"), ack(tenant, topic, group, receipts(rest.messages())));
        assertEquals(first.get(1).offset(), committedOffset("p"));
    }

    @Test
    void each_receipt_gets_its_own_status_as_an_ack_gives_it() throws Exception {
        publishOk(tenant, topic, List.of(msg("a", "a1", 1), msg("b", "b1", 1), msg("b", "b2", 2),
                msg("c", "c1", 1)));
        List<Delivered> got = fetchOk(tenant, topic, group, upTo(10));
        assertEquals(4, got.size());
        Map<String, String> receiptOf = new HashMap<>();
        Map<String, Long> offsetOf = new HashMap<>();
        got.forEach(d -> receiptOf.put(d.id(), d.receipt()));
        got.forEach(d -> offsetOf.put(d.id(), d.offset()));
        assertEquals(List.of("ACKED"), ack(tenant, topic, group, List.of(receiptOf.get("a1"))));
        String foreign = fetchOkOther();

        Answer mixed = fetchAcking(upTo(10).waitSeconds(0), List.of(receiptOf.get("b1"), receiptOf.get("a1"),
                "not-a-receipt", foreign, receiptOf.get("c1")));

        assertEquals(List.of("ACKED", "ALREADY_ACKED", "INVALID", "INVALID", "ACKED"), statuses(mixed));
        assertEquals(List.of(), ids(mixed.messages()), "b2 is still in flight: b stays held");
        assertEquals(offsetOf.get("b1"), committedOffset("b"));
        assertEquals(List.of("ACKED"), ack(tenant, topic, group, List.of(receiptOf.get("b2"))));
        assertEquals(offsetOf.get("b2"), committedOffset("b"));
    }

    @Test
    void the_ack_list_has_the_limits_of_an_ack_and_names_its_field() {
        String tooLong = "A".repeat(8193);
        Api.fetch(tenant, topic, group, Map.of("waitSeconds", 0, "ack", List.of("x", tooLong)))
                .then().statusCode(400).contentType("application/problem+json")
                .body("errors.field", equalTo(List.of("ack[1]")))
                .body("errors[0].message", equalTo("must be at most 8192 characters, as a receipt of a fetch is (got 8193)"));
        Api.fetch(tenant, topic, group, Map.of("waitSeconds", 0, "ack", Collections.nCopies(1001, "x")))
                .then().statusCode(400).body("errors.field", equalTo(List.of("ack")))
                .body("errors[0].message", equalTo("must be an array of 0..1000 receipts (got 1001)"));
        Map<String, Object> explicitNull = new HashMap<>();
        explicitNull.put("ack", null);
        Api.fetch(tenant, topic, group, explicitNull).then().statusCode(400);
        Api.fetch(tenant, topic, group, Map.of("waitSeconds", 0, "ack", List.of(1)))
                .then().statusCode(400);
        // At the limits: a thousand unsigned receipts are a thousand INVALIDs, and an empty list is none.
        Api.fetch(tenant, topic, group, Map.of("waitSeconds", 0, "ack", Collections.nCopies(1000, "A".repeat(8192))))
                .then().statusCode(200).body("ackResults.size()", equalTo(1000))
                .body("ackResults.status.unique()", equalTo(List.of("INVALID")));
        Api.fetch(tenant, topic, group, Map.of("waitSeconds", 0, "ack", List.of()))
                .then().statusCode(200).body("ackResults", equalTo(List.of())).body("messages", equalTo(List.of()));
    }

    @Test
    void a_fetch_without_ack_answers_as_before() throws Exception {
        Answer plain = JSON.readValue(Api.fetch(tenant, topic, group, upTo(1).waitSeconds(0).body())
                .then().statusCode(200).extract().asString(), Answer.class);
        assertNull(plain.ackResults(), "no ackResults unless the request carried ack");
    }

    /** A receipt of another consumer group of the same topic: not this queue's, INVALID here. */
    private String fetchOkOther() {
        String other = TestIds.group();
        return fetchOk(tenant, topic, other, upTo(1)).get(0).receipt();
    }

    private Answer fetchAcking(Fetch request, List<String> receipts) throws Exception {
        Map<String, Object> body = new HashMap<>(request.body());
        body.put("ack", List.copyOf(receipts));
        String json = Api.fetch(tenant, topic, group, body).then().statusCode(200).extract().asString();
        return JSON.readValue(json, Answer.class);
    }

    private static List<String> statuses(Answer a) {
        return a.ackResults().stream().map(Result::status).toList();
    }

    private long leaseEpoch() throws Exception {
        return queryLong("SELECT epoch FROM queue_partition_leases WHERE tenant = ? AND consumer_group = ? AND topic = ?"
                + " AND partition_key = 'p' AND leased_by = 'test-subscriber' AND expires_at > UTC_TIMESTAMP(6)", -1);
    }

    private long committedOffset(String key) throws Exception {
        return queryLong("SELECT committed_offset FROM queue_offsets WHERE tenant = ? AND consumer_group = ?"
                + " AND topic = ? AND partition_key = '" + key + "'", 0);
    }

    private long queryLong(String sql, long absent) throws Exception {
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, tenant);
            ps.setString(2, group);
            ps.setString(3, topic);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getLong(1) : absent;
            }
        }
    }

    private void expireLease(long epoch) throws Exception {
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement("""
                UPDATE queue_partition_leases SET expires_at = UTC_TIMESTAMP(6)
                WHERE tenant = ? AND consumer_group = ? AND topic = ? AND partition_key = 'p' AND epoch = ?""")) {
            ps.setString(1, tenant);
            ps.setString(2, group);
            ps.setString(3, topic);
            ps.setLong(4, epoch);
            assertEquals(1, ps.executeUpdate());
        }
    }
}
