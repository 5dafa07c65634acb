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
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.path.json.JsonPath;
import io.restassured.response.Response;
import io.restassured.specification.RequestSpecification;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Deleting a topic or a consumer group (docs/operations.md, "Deleting a topic or a consumer
 * group"), with chunks of {@value #CHUNK} rows and {@value #CHUNKS} chunks a call, so that every
 * deletion here takes several calls.
 */
@QuarkusTest
@TestProfile(DeletionTest.SmallChunks.class)
class DeletionTest {
    static final int CHUNK = 3;
    static final int CHUNKS = 4;

    /** Small chunks, and one delivery before a nack dead-letters. */
    public static class SmallChunks implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("mq.admin.delete-chunk-size", String.valueOf(CHUNK),
                    "mq.admin.delete-chunks-per-call", String.valueOf(CHUNKS), "mq.max-deliveries", "1");
        }
    }

    /** The tables that hold a topic's state, each counted by (tenant, topic). */
    private static final List<String> TOPIC_TABLES = List.of("queue_messages", "queue_delivery_state", "queue_offsets",
            "queue_partition_leases", "queue_subscriber_heartbeats", "queue_partition_heads", "queue_dedup_ids");
    /** The tables that hold a group's state on a topic. */
    private static final List<String> GROUP_TABLES = List.of("queue_delivery_state", "queue_offsets",
            "queue_partition_leases", "queue_subscriber_heartbeats");

    @Inject
    AgroalDataSource dataSource;

    private final String tenant = TestIds.tenant();
    private final String topic = TestIds.topic();

    private static RequestSpecification admin() {
        return given().header("Authorization", "Bearer " + AdminTest.TOKEN);
    }

    private Response deleteTopic(String t, Boolean includeDeadLetters) {
        RequestSpecification r = admin().queryParam("tenant", tenant).queryParam("topic", t);
        if (includeDeadLetters != null) {
            r = r.queryParam("includeDeadLetters", includeDeadLetters.toString());
        }
        return r.delete("/admin/topics");
    }

    private Response deleteGroup(String group) {
        return admin().queryParam("tenant", tenant).queryParam("topic", topic).queryParam("consumerGroup", group)
                .delete("/admin/consumer-groups");
    }

    /** Calls until done; returns each call's body. Asserts every call deleted at most its chunk budget per topic. */
    private List<JsonPath> untilDone(java.util.function.Supplier<Response> call) {
        List<JsonPath> calls = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            JsonPath body = call.get().then().log().ifValidationFails().statusCode(200).extract().jsonPath();
            calls.add(body);
            for (Map<String, Object> deleted : deletedPerTopic(body)) {
                long rows = deleted.values().stream().mapToLong(v -> ((Number) v).longValue()).sum();
                assertTrue(rows <= (long) CHUNK * (CHUNKS + 1), "a call deletes at most its chunks (and one that finds"
                        + " the last rows): " + body.prettify());
            }
            if (body.getBoolean("done")) {
                return calls;
            }
        }
        throw new AssertionError("no deletion was done after 200 calls");
    }

    private static List<Map<String, Object>> deletedPerTopic(JsonPath body) {
        Map<String, Object> group = body.getMap("deleted");
        return group != null ? List.of(group) : body.getList("topics.deleted");
    }

    private long topicRows(String table, String t) throws Exception {
        return RowCount.of(dataSource, "SELECT COUNT(*) FROM " + table + " WHERE tenant = ? AND topic = ?", tenant, t);
    }

    private Map<String, Long> groupRows(String group) throws Exception {
        Map<String, Long> rows = new LinkedHashMap<>();
        for (String table : GROUP_TABLES) {
            rows.put(table, RowCount.of(dataSource, "SELECT COUNT(*) FROM " + table
                    + " WHERE tenant = ? AND topic = ? AND consumer_group = ?", tenant, topic, group));
        }
        return rows;
    }

    private void publishSpread(int n, String prefix) {
        publishSpread(n, prefix, 3);
    }

    /** Publishes {@code n} messages {@code prefix0..}, message i to partition {@code k<i % partitions>}. */
    private void publishSpread(int n, String prefix, int partitions) {
        List<Map<String, Object>> batch = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            batch.add(msg("k" + (i % partitions), prefix + i, Map.of("n", i)));
        }
        publishOk(tenant, topic, batch);
    }

    @Test
    void deleting_a_group_removes_its_offsets_batches_deliveries_leases_and_heartbeats_and_leaves_other_groups_alone()
            throws Exception {
        publishSpread(24, "m", 12); // 12 partitions: 12 leases and 12 offset rows, more than one call's chunks
        String doomed = TestIds.group();
        String kept = TestIds.group();
        List<Delivered> got = fetchOk(tenant, topic, doomed, upTo(6));
        assertFalse(got.isEmpty());
        ack(tenant, topic, doomed, receipts(got.subList(0, 1)));
        nack(tenant, topic, doomed, receipts(got.subList(1, 2)), 0, "dead-letters: a DEAD delivery row");
        List<Delivered> keptGot = fetchOk(tenant, topic, kept, upTo(5));
        ack(tenant, topic, kept, receipts(keptGot.subList(0, 2)));
        Map<String, Long> before = groupRows(doomed);
        assertTrue(before.values().stream().allMatch(n -> n > 0), "the group has state in every table: " + before);
        Map<String, Long> keptBefore = groupRows(kept);
        long messages = topicRows("queue_messages", topic);

        List<JsonPath> calls = untilDone(() -> deleteGroup(doomed));

        assertTrue(calls.size() > 1, "small chunks take several calls: " + calls.size());
        assertEquals(tenant, calls.get(0).getString("tenant"));
        assertEquals(doomed, calls.get(0).getString("consumerGroup"));
        long deletedOffsets = calls.stream().mapToLong(c -> c.getLong("deleted.offsets")).sum();
        assertEquals(before.get("queue_offsets"), deletedOffsets, "the counts add up to the rows there were");
        assertEquals(Map.of("queue_delivery_state", 0L, "queue_offsets", 0L, "queue_partition_leases", 0L,
                "queue_subscriber_heartbeats", 0L), groupRows(doomed));
        assertEquals(keptBefore, groupRows(kept), "the other group's state is untouched");
        assertEquals(messages, topicRows("queue_messages", topic), "the messages stay");
        deleteGroup(doomed).then().statusCode(404).contentType("application/problem+json");

        // A group of the same name starts over from the earliest stored message.
        java.util.Set<String> again = new java.util.HashSet<>();
        org.awaitility.Awaitility.await("the acknowledged message comes again").atMost(java.time.Duration.ofSeconds(60))
                .until(() -> {
                    again.addAll(ids(fetchOk(tenant, topic, doomed, upTo(24).waitSeconds(1))));
                    return again.contains(got.get(0).id());
                });
    }

    @Test
    void a_group_with_a_live_subscriber_elsewhere_is_not_deleted() throws Exception {
        publishSpread(3, "m");
        String group = TestIds.group();
        fetchOk(tenant, topic, group, upTo(3));
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement("""
                INSERT INTO queue_subscriber_heartbeats (tenant, consumer_group, topic, subscriber_name, started_at, last_seen_at)
                VALUES (?, ?, ?, 'another-instance', UTC_TIMESTAMP(6), UTC_TIMESTAMP(6))""")) {
            ps.setString(1, tenant);
            ps.setString(2, group);
            ps.setString(3, topic);
            ps.executeUpdate();
        }
        Map<String, Long> before = groupRows(group);
        deleteGroup(group).then().statusCode(409).contentType("application/problem+json")
                .body("detail", containsString("live subscriber"));
        // Not equal: the other instance's heartbeat halves this one's share, so a tick may
        // release a lease meanwhile and hand its batch back, which adds delivery rows.
        Map<String, Long> after = groupRows(group);
        before.forEach((table, rows) -> assertTrue(after.get(table) >= rows,
                "nothing was deleted from " + table + ": " + before + " then " + after));
    }

    @Test
    void deleting_a_topic_removes_everything_of_it_in_chunks_and_keeps_its_dead_letters_unless_asked() throws Exception {
        publishSpread(15, "m");
        String group = TestIds.group();
        List<Delivered> got = fetchOk(tenant, topic, group, upTo(4));
        ack(tenant, topic, group, receipts(got.subList(0, 1)));
        nack(tenant, topic, group, receipts(got.subList(1, 2)), 0, "to the dead-letter topic");
        String dlq = topic + ".dlq";
        assertEquals(1, topicRows("queue_messages", dlq));
        // An operator's delete keeps the identity for the dedup window (queue_dedup_ids).
        admin().queryParam("tenant", tenant).queryParam("topic", topic).queryParam("partitionKey", "k2")
                .queryParam("id", "m2").delete("/admin/messages").then().statusCode(200);
        for (String table : TOPIC_TABLES) {
            assertTrue(topicRows(table, topic) > 0, table + " holds state of the topic");
        }
        assertEquals(Boolean.TRUE, Api.publishOk(tenant, topic, List.of(msg("k2", "m2", 0))).messages().get(0).duplicate(),
                "a deleted message's id is a duplicate within the window");

        List<JsonPath> calls = untilDone(() -> deleteTopic(topic, null));

        assertTrue(calls.size() > 1, "small chunks take several calls: " + calls.size());
        assertEquals(List.of(topic), calls.get(0).getList("topics.topic"), "the dead-letter topic is not included");
        assertEquals(15L - 1, calls.stream().mapToLong(c -> c.getLong("topics[0].deleted.messages")).sum());
        for (String table : TOPIC_TABLES) {
            assertEquals(0, topicRows(table, topic), table + " holds nothing of the topic");
        }
        assertEquals(1, topicRows("queue_messages", dlq), "the dead letter stays");
        deleteTopic(topic, null).then().statusCode(404).contentType("application/problem+json");

        // Its ids are no duplicates any more: neither a stored one nor one of the dedup window.
        Published again = publishOk(tenant, topic, List.of(msg("k2", "m2", 1), msg("k0", "m0", 1)));
        assertEquals(List.of(false, false), again.messages().stream().map(Published.Message::duplicate).toList());

        // includeDeadLetters takes the dead-letter topic too (the topic itself is deleted again).
        List<JsonPath> withDeadLetters = untilDone(() -> deleteTopic(topic, true));
        assertTrue(withDeadLetters.get(0).getList("topics.topic").contains(dlq));
        assertEquals(0, topicRows("queue_messages", dlq));
        assertEquals(0, topicRows("queue_messages", topic));
        assertEquals(0, topicRows("queue_partition_heads", dlq));
    }

    /** Publishes 30 messages and makes a first deletion call that is not done; answers the messages left. */
    private long halfDeleted() throws Exception {
        publishSpread(30, "m");
        JsonPath first = deleteTopic(topic, false).then().statusCode(200).body("done", equalTo(false))
                .extract().jsonPath();
        long left = topicRows("queue_messages", topic);
        assertTrue(left > 0 && left < 30, "a first call deleted some, not all: " + first.prettify());
        return left;
    }

    @Test
    void while_a_topic_is_being_deleted_publishes_to_it_are_refused_and_land_in_a_new_topic_after() throws Exception {
        long left = halfDeleted();
        Api.publish(tenant, topic, Map.of("messages", List.of(msg("k9", "during", 1)))).then().statusCode(409)
                .contentType("application/problem+json").body("type", containsString("topic-being-deleted"))
                .body("detail", containsString("being deleted"));
        assertEquals(left, topicRows("queue_messages", topic), "the refused publish stored nothing");
        // Another topic of the tenant is not affected.
        publishOk(tenant, topic + "-other", List.of(msg("k", "x", 1)));

        untilDone(() -> deleteTopic(topic, false));

        Published after = publishOk(tenant, topic, List.of(msg("k9", "during", 2)));
        assertFalse(after.messages().get(0).duplicate());
        assertEquals(1, topicRows("queue_messages", topic));
        StoredCounts.assertMatchStored(dataSource, tenant);
    }

    @Test
    void while_a_topic_is_being_deleted_its_groups_count_in_flight_only_deliveries_of_messages_still_stored()
            throws Exception {
        publishSpread(30, "m");
        String group = TestIds.group();
        List<Delivered> taken = new ArrayList<>();
        while (taken.size() < 30) {
            List<Delivered> got = fetchOk(tenant, topic, group, upTo(30 - taken.size()).waitSeconds(5).visibilitySeconds(600));
            assertFalse(got.isEmpty(), "the group takes every message: " + taken.size() + " of 30");
            taken.addAll(got);
        }
        // Extended: each delivery gets an INFLIGHT row of its own, beside its batch.
        given().contentType(io.restassured.http.ContentType.JSON)
                .body(Map.of("receipts", receipts(taken), "visibilitySeconds", 600))
                .post("/tenants/{t}/topics/{topic}/consumer-groups/{g}/extend", tenant, topic, group)
                .then().statusCode(200);
        assertEquals(30L, inFlight(group));

        deleteTopic(topic, false).then().statusCode(200).body("done", equalTo(false));
        long stored = topicRows("queue_messages", topic);
        assertTrue(stored > 0 && stored < 30, "a first call deleted some messages, not all: " + stored);
        assertTrue(topicRows("queue_delivery_state", topic) > stored, "the deleted messages' delivery rows are still there");

        assertEquals(stored, inFlight(group), "a delivery of a deleted message is not in flight");
        untilDone(() -> deleteTopic(topic, false));
    }

    /** The in-flight figure of {@code group} on the topic, from {@code GET /admin/consumer-groups}. */
    private long inFlight(String group) {
        JsonPath groups = admin().queryParam("tenant", tenant).queryParam("topic", topic).get("/admin/consumer-groups")
                .then().statusCode(200).extract().jsonPath();
        return groups.getLong("consumerGroups.find { it.consumerGroup == '" + group + "' }.inFlight");
    }

    @Test
    void while_a_topic_is_being_deleted_nothing_of_it_is_delivered() throws Exception {
        halfDeleted();
        String group = TestIds.group();
        assertEquals(List.of(), ids(fetchOk(tenant, topic, group, upTo(10).waitSeconds(1))),
                "no message of a half-deleted topic is delivered");

        untilDone(() -> deleteTopic(topic, false));

        publishOk(tenant, topic, List.of(msg("k9", "after", 2)));
        assertEquals(List.of("after"), ids(fetchOk(tenant, topic, group, upTo(10))),
                "after the deletion, only what was published after it");
    }

    @Test
    void deletions_name_bad_parameters_answer_404_for_nothing_stored_and_need_the_admin_token() throws Exception {
        deleteTopic(TestIds.topic(), null).then().statusCode(404).contentType("application/problem+json");
        deleteGroup(TestIds.group()).then().statusCode(404).contentType("application/problem+json");
        admin().queryParam("tenant", tenant).delete("/admin/topics").then().statusCode(400)
                .body("errors.field", hasItem("topic"));
        admin().queryParam("tenant", tenant).queryParam("topic", topic).delete("/admin/consumer-groups").then()
                .statusCode(400).body("errors.field", hasItem("consumerGroup"));
        admin().queryParam("tenant", tenant).queryParam("topic", topic).queryParam("includeDeadLetters", "yes")
                .delete("/admin/topics").then().statusCode(400).body("errors.field", hasItem("includeDeadLetters"));

        publishSpread(3, "m");
        // Without the admin token: 401 (with a JWT lacking admin on the tenant, 403: JwtAuthTest).
        given().queryParam("tenant", tenant).queryParam("topic", topic).delete("/admin/topics").then()
                .statusCode(401).contentType("application/problem+json");
        given().header("Authorization", "Bearer not-the-admin-token-at-all").queryParam("tenant", tenant)
                .queryParam("topic", topic).queryParam("consumerGroup", "g").delete("/admin/consumer-groups").then()
                .statusCode(401);
        assertEquals(3, topicRows("queue_messages", topic), "refused calls delete nothing");
    }
}
