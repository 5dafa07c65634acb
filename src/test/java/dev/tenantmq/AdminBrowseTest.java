package dev.tenantmq;

import static dev.tenantmq.Api.ack;
import static dev.tenantmq.Api.fetchOk;
import static dev.tenantmq.Api.msg;
import static dev.tenantmq.Api.nack;
import static dev.tenantmq.Api.publishOk;
import static dev.tenantmq.Delivered.receipts;
import static dev.tenantmq.Fetch.upTo;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.restassured.response.Response;
import io.restassured.specification.RequestSpecification;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code GET /admin/messages/browse} (docs/operations.md, "Admin API"): a topic's stored messages in offset
 * order, paged by {@code afterOffset}/{@code nextAfterOffset}, read without touching any consumer
 * state, so a dead-letter topic can be listed without a consumer group.
 */
@QuarkusTest
class AdminBrowseTest {
    private static final int MAX_DELIVERIES = 5;

    private final String tenant = TestIds.tenant();
    private final String topic = TestIds.topic();

    private static RequestSpecification admin() {
        return given().header("Authorization", "Bearer " + AdminTest.TOKEN);
    }

    @Test
    void pages_through_every_partition_in_offset_order_and_ends_with_a_null_next_offset() {
        List<Map<String, Object>> batch = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            batch.add(msg("k" + (i % 3), "m" + i, Map.of("n", i)));
        }
        List<Long> offsets = publishOk(tenant, topic, batch).offsets();

        List<Map<String, Object>> seen = new ArrayList<>();
        List<Object> nexts = new ArrayList<>();
        Long after = null;
        do {
            JsonPath page = browse(Map.of("limit", "3"), after).then().statusCode(200).extract().jsonPath();
            List<Map<String, Object>> messages = page.getList("messages");
            assertTrue(messages.size() <= 3, "a page holds at most limit messages: " + messages);
            seen.addAll(messages);
            Object next = page.get("nextAfterOffset");
            nexts.add(next);
            after = next == null ? null : ((Number) next).longValue();
        } while (after != null && nexts.size() < 10);

        assertEquals(offsets, seen.stream().map(m -> ((Number) m.get("offset")).longValue()).toList(),
                "every message once, in offset order, across the pages");
        assertEquals(List.of("m0", "m1", "m2", "m3", "m4", "m5", "m6"), seen.stream().map(m -> m.get("id")).toList());
        assertEquals(List.of("k0", "k1", "k2", "k0", "k1", "k2", "k0"), seen.stream().map(m -> m.get("partitionKey")).toList());
        assertEquals(java.util.Arrays.asList(offsets.get(2).intValue(), offsets.get(5).intValue(), null), nexts,
                "nextAfterOffset is the last offset of a full page, null on the last page");
        Map<String, Object> first = seen.get(0);
        assertEquals(tenant, first.get("tenant"));
        assertEquals(topic, first.get("topic"));
        assertEquals(Map.of("n", 0), first.get("payload"));
        assertEquals(Map.of("queue_name", tenant), first.get("metadata"));
        assertTrue(first.get("createdAt") instanceof String, "createdAt: " + first);
        // A page of exactly the remaining messages is the last: no empty page after it.
        browse(Map.of("limit", "1"), offsets.get(5)).then().statusCode(200)
                .body("messages.id", equalTo(List.of("m6"))).body("nextAfterOffset", equalTo(null));
    }

    @Test
    void a_partition_key_keeps_only_that_partition_and_pages_within_it() {
        String key = "orders/2026 %41?q=1#frag \uD83D\uDE00";
        List<Long> offsets = publishOk(tenant, topic, List.of(msg(key, "a", 1), msg("other", "b", 2), msg(key, "c", 3),
                msg("other", "d", 4), msg(key, "e", 5))).offsets();

        JsonPath first = browse(Map.of("partitionKey", key, "limit", "2"), null).then().statusCode(200).extract().jsonPath();
        assertEquals(List.of("a", "c"), first.getList("messages.id"));
        assertEquals(List.of(key, key), first.getList("messages.partitionKey"));
        assertEquals(offsets.get(2).longValue(), first.getLong("nextAfterOffset"));
        JsonPath second = browse(Map.of("partitionKey", key, "limit", "2"), first.getLong("nextAfterOffset"))
                .then().statusCode(200).extract().jsonPath();
        assertEquals(List.of("e"), second.getList("messages.id"));
        assertNull(second.get("nextAfterOffset"));
        browse(Map.of("partitionKey", "no-such-key"), null).then().statusCode(200)
                .body("messages", equalTo(List.of())).body("nextAfterOffset", equalTo(null));
    }

    @Test
    void a_dead_letter_topic_lists_its_dead_letters_with_the_metadata_inspect_shows() {
        String group = TestIds.group();
        List<Long> offsets = publishOk(tenant, topic, List.of(msg("k", "poison", "x"), msg("k", "fine", 1)))
                .offsets();
        for (int attempt = 1; attempt <= MAX_DELIVERIES; attempt++) {
            List<Delivered> got = fetchOk(tenant, topic, group, upTo(1));
            assertEquals("poison", got.get(0).id());
            assertEquals(List.of("NACKED"), nack(tenant, topic, group, receipts(got), 0, "cannot parse"));
        }
        String dlq = topic + ".dlq";

        JsonPath page = admin().queryParam("tenant", tenant).queryParam("topic", dlq).get("/admin/messages/browse")
                .then().statusCode(200).extract().jsonPath();
        assertEquals(List.of("poison"), page.getList("messages.id"));
        assertNull(page.get("nextAfterOffset"));
        Map<String, Object> metadata = page.getMap("messages[0].metadata");
        assertEquals(topic, metadata.get("original_topic"));
        assertEquals(String.valueOf(offsets.get(0)), metadata.get("original_offset"));
        assertEquals(group, metadata.get("consumer_group"));
        assertEquals("cannot parse", metadata.get("dead_letter_reason"));
        assertEquals(String.valueOf(MAX_DELIVERIES), metadata.get("delivery_attempts"));
        JsonPath inspected = admin().queryParam("tenant", tenant).queryParam("topic", dlq).queryParam("partitionKey", "k")
                .queryParam("id", "poison").get("/admin/messages").then().statusCode(200).extract().jsonPath();
        for (String field : List.of("tenant", "topic", "partitionKey", "id", "offset", "payload", "metadata", "createdAt")) {
            assertEquals((Object) inspected.get(field), page.get("messages[0]." + field), field + " as inspect shows it");
        }
    }

    @Test
    void browsing_changes_no_offset_lease_delivery_or_heartbeat() {
        String group = TestIds.group();
        publishOk(tenant, topic, List.of(msg("k1", "1", 1), msg("k1", "2", 2), msg("k2", "3", 3)));
        List<Delivered> got = fetchOk(tenant, topic, group, upTo(1));
        assertEquals(List.of("ACKED"), ack(tenant, topic, group, receipts(got)));
        List<Delivered> inFlight = fetchOk(tenant, topic, group, upTo(10));
        assertTrue(!inFlight.isEmpty(), "the group holds messages in flight while the topic is browsed");
        String inFlightId = inFlight.get(0).id();
        String inFlightKey = inFlight.get(0).partitionKey();
        String dlq = topic + ".dlq";
        publishOk(tenant, dlq, List.of(msg("k1", "dl", 1))); // a dead-letter topic that nobody consumes

        Map<String, Object> before = consumerState(topic, dlq);
        Object stateBefore = groupState(topic, inFlightKey, inFlightId, group);
        for (String t : List.of(topic, dlq)) {
            Long after = null;
            int pages = 0;
            do {
                JsonPath page = browse(t, Map.of("limit", "1"), after).then().statusCode(200).extract().jsonPath();
                after = page.get("nextAfterOffset") == null ? null : page.getLong("nextAfterOffset");
                pages++;
            } while (after != null && pages < 10);
            assertNull(after, "browsing " + t + " one message a page ends within 10 pages");
        }
        assertEquals(before, consumerState(topic, dlq), "offsets, leases and heartbeats after browsing");
        assertEquals(stateBefore, groupState(topic, inFlightKey, inFlightId, group), "the in-flight delivery's state");
        assertEquals(List.of(), admin().queryParam("tenant", tenant).queryParam("topic", dlq).get("/admin/offsets")
                .then().statusCode(200).extract().jsonPath().getList("offsets"), "no consumer group appeared on " + dlq);
    }

    @Test
    void bad_limit_after_offset_or_names_are_400_naming_the_parameter() {
        for (Map.Entry<String, String> bad : List.of(Map.entry("limit", "0"), Map.entry("limit", "1001"),
                Map.entry("limit", "ten"), Map.entry("afterOffset", "-1"), Map.entry("afterOffset", "1.5"),
                Map.entry("afterOffset", "9223372036854775808"), Map.entry("afterOffset", ""),
                Map.entry("partitionKey", "trailing "), Map.entry("topic", "-bad"))) {
            Map<String, String> params = new LinkedHashMap<>(Map.of("tenant", tenant, "topic", topic));
            params.put(bad.getKey(), bad.getValue());
            admin().queryParams(params).get("/admin/messages/browse").then().statusCode(400)
                    .contentType("application/problem+json")
                    .body("errors.field", equalTo(List.of(bad.getKey())));
        }
        admin().queryParam("topic", topic).get("/admin/messages/browse").then().statusCode(400)
                .body("errors.field", equalTo(List.of("tenant")));
        admin().urlEncodingEnabled(false).get("/admin/messages/browse?tenant=" + tenant + "&topic=" + topic
                + "&limit=1&limit=2").then().statusCode(400).body("errors.field", equalTo(List.of("limit")));
        browse(Map.of("limit", "1000", "afterOffset", String.valueOf(Long.MAX_VALUE)), null).then().statusCode(200)
                .body("messages", equalTo(List.of()));
        given().queryParam("tenant", tenant).queryParam("topic", topic).get("/admin/messages/browse").then()
                .statusCode(401).contentType("application/problem+json");
    }

    @Test
    void an_unknown_tenant_gets_an_empty_page_as_the_listings_give_an_empty_list() {
        String unknown = "never-served-" + Math.abs(topic.hashCode());
        admin().queryParam("tenant", unknown).get("/admin/topics").then().statusCode(200)
                .body("topics", equalTo(List.of()));
        admin().queryParam("tenant", unknown).queryParam("topic", topic).get("/admin/messages/browse").then()
                .statusCode(200).body("messages", equalTo(List.of())).body("nextAfterOffset", equalTo(null));
    }

    private Response browse(Map<String, String> params, Long after) {
        return browse(topic, params, after);
    }

    private Response browse(String t, Map<String, String> params, Long after) {
        RequestSpecification spec = admin().queryParam("tenant", tenant).queryParam("topic", t).queryParams(params);
        if (after != null) {
            spec = spec.queryParam("afterOffset", after);
        }
        return spec.get("/admin/messages/browse");
    }

    /**
     * What the admin API shows of the consumers of these topics: offsets, leases (their holder and
     * epoch; the scheduler renews expiry on its own) and heartbeats (without lastSeenAt, which the
     * subscriber's heartbeat moves).
     */
    private Map<String, Object> consumerState(String... topics) {
        Map<String, Object> out = new LinkedHashMap<>();
        for (String t : topics) {
            out.put("offsets " + t, admin().queryParam("tenant", tenant).queryParam("topic", t).get("/admin/offsets")
                    .then().statusCode(200).extract().jsonPath().getList("offsets"));
            out.put("leases " + t, admin().queryParam("tenant", tenant).queryParam("limit", "10000").get("/admin/leases")
                    .then().statusCode(200).extract().jsonPath()
                    .getList("leases.findAll { it.topic == '" + t + "' }.collect { [it.consumerGroup, it.partitionKey, it.leasedBy, it.epoch] }"));
            out.put("subscribers " + t, admin().queryParam("tenant", tenant).queryParam("limit", "10000")
                    .get("/admin/subscribers").then().statusCode(200).extract().jsonPath()
                    .getList("subscribers.findAll { it.topic == '" + t + "' }.collect { [it.consumerGroup, it.subscriberName, it.startedAt] }"));
        }
        return out;
    }

    /** The group's state of one message, as inspect shows it. */
    private Object groupState(String t, String key, String id, String group) {
        return admin().queryParam("tenant", tenant).queryParam("topic", t).queryParam("partitionKey", key)
                .queryParam("id", id).get("/admin/messages").then().statusCode(200).extract().jsonPath()
                .get("consumerGroups.find { it.consumerGroup == '" + group + "' }");
    }
}
