package dev.tenantmq;

import static dev.tenantmq.Api.ack;
import static dev.tenantmq.Api.fetchOk;
import static dev.tenantmq.Api.msg;
import static dev.tenantmq.Api.nack;
import static dev.tenantmq.Api.publishOk;
import static dev.tenantmq.Delivered.ids;
import static dev.tenantmq.Delivered.receipts;
import static dev.tenantmq.Fetch.upTo;
import static dev.tenantmq.Waiting.letTimePass;
import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.restassured.response.Response;
import io.restassured.specification.RequestSpecification;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.Test;

/**
 * {@code GET /admin/consumer-groups} and {@code GET /admin/tenants} (docs/operations.md, "Admin API"): per
 * (tenant, topic, group) lag, in-flight deliveries, dead letters and oldest unacknowledged age,
 * computed on demand; and the tenants this process serves, for the admin UI's picker.
 */
@QuarkusTest
class AdminConsumerGroupsTest {
    /** mq.max-deliveries of the test profile (the default): the fifth nack dead-letters. */
    private static final int MAX_DELIVERIES = 5;
    /** How much older the first message is made than the others, in seconds. */
    private static final int PAUSE_SECONDS = 2;

    private final String tenant = TestIds.tenant();
    private final String topic = TestIds.topic();
    private final String group = TestIds.group();

    private static RequestSpecification admin() {
        return given().header("Authorization", "Bearer " + AdminTest.TOKEN);
    }

    private static Response groups(Map<String, String> params) {
        return admin().queryParams(params).get("/admin/consumer-groups");
    }

    /** The one row of (tenant, topic, group) in a tenant-scoped listing of the topic. */
    private Map<String, Object> row() {
        JsonPath page = groups(Map.of("tenant", tenant, "topic", topic)).then().statusCode(200).extract().jsonPath();
        assertEquals(false, page.getBoolean("truncated"));
        List<Map<String, Object>> rows = page.getList("consumerGroups");
        assertEquals(1, rows.size(), "one group on the topic: " + rows);
        Map<String, Object> r = rows.get(0);
        assertEquals(List.of(tenant, topic, group), List.of(r.get("tenant"), r.get("topic"), r.get("consumerGroup")));
        assertTrue(r.containsKey("oldestUnackedAgeSeconds"), "the age is always written, null or not: " + r);
        return r;
    }

    private static List<Object> figures(Map<String, Object> r) {
        return List.of(((Number) r.get("lag")).longValue(), ((Number) r.get("inFlight")).longValue(),
                ((Number) r.get("deadLetters")).longValue());
    }

    /** Whole seconds since {@code startNanos}, rounded up: a bound no age measured after it exceeds. */
    private static long secondsSince(long startNanos) {
        return (System.nanoTime() - startNanos + 999_999_999L) / 1_000_000_000L;
    }

    private static long age(Map<String, Object> r) {
        Object age = r.get("oldestUnackedAgeSeconds");
        assertNotNull(age, "something is unacknowledged: " + r);
        return ((Number) age).longValue();
    }

    @Test
    void figures_follow_publish_deliver_ack_dead_letter_and_requeue() {
        publishOk(tenant, topic, List.of(msg("a", "m1", 1)));
        letTimePass(Duration.ofSeconds(PAUSE_SECONDS), "so the first message is measurably the oldest");
        long afterPause = System.nanoTime();
        publishOk(tenant, topic, List.of(msg("a", "m2", 2), msg("a", "m3", 3), msg("p", "poison", "x")));

        List<Delivered> got = new ArrayList<>();
        await().atMost(Duration.ofSeconds(20)).until(() -> {
            got.addAll(fetchOk(tenant, topic, group, upTo(10).waitSeconds(1).visibilitySeconds(120)));
            return got.size() >= 4;
        });
        assertEquals(List.of("m1", "m2", "m3", "poison"), got.stream().map(m -> m.id()).sorted().toList());
        Map<String, Object> delivered = row();
        assertEquals(List.of(4L, 4L, 0L), figures(delivered), "lag, inFlight, deadLetters after delivery: " + delivered);
        assertTrue(age(delivered) >= PAUSE_SECONDS, "the oldest is m1, published before the pause: " + delivered);

        List<Delivered> inA = got.stream().filter(m -> "a".equals(m.partitionKey())).toList();
        assertEquals(List.of("ACKED", "ACKED", "ACKED"), ack(tenant, topic, group, receipts(inA)));
        Map<String, Object> acked = row();
        assertEquals(List.of(1L, 1L, 0L), figures(acked), "only the poison message is left: " + acked);
        assertTrue(age(acked) <= secondsSince(afterPause), "the oldest is now one published after the pause: " + acked);

        List<Delivered> poison = got.stream().filter(m -> "poison".equals(m.id())).toList();
        for (int attempt = 1; attempt <= MAX_DELIVERIES; attempt++) {
            List<String> statuses = nack(tenant, topic, group, receipts(poison), 0, "cannot parse");
            assertEquals(List.of("NACKED"), statuses, "attempt " + attempt);
            if (attempt < MAX_DELIVERIES) {
                poison = fetchOk(tenant, topic, group, upTo(1).visibilitySeconds(120));
                assertEquals(List.of("poison"), ids(poison));
            }
        }
        Map<String, Object> dead = row();
        assertEquals(List.of(0L, 0L, 1L), figures(dead), "lag, inFlight, deadLetters once dead-lettered: " + dead);
        assertNull(dead.get("oldestUnackedAgeSeconds"), "nothing is unacknowledged: " + dead);

        long beforeLate = System.nanoTime();
        publishOk(tenant, topic, List.of(msg("a", "late", 4))); // a partition the group has read: lag counts it
        Map<String, Object> late = row();
        assertEquals(List.of(1L, 0L, 1L), figures(late), "a published, undelivered message lags but is not in flight");
        assertTrue(age(late) <= secondsSince(beforeLate), "the oldest is the late message: " + late);

        admin().queryParam("tenant", tenant).queryParam("topic", topic + ".dlq").queryParam("partitionKey", "p")
                .queryParam("id", "poison").post("/admin/messages/requeue").then().statusCode(200);
        Map<String, Object> requeued = row();
        assertEquals(List.of(1L, 0L, 0L), figures(requeued), "the requeued message left the DLQ: " + requeued);
        assertTrue(age(requeued) <= secondsSince(afterPause), "the requeued one is the oldest again: " + requeued);
        assertTrue(age(requeued) >= age(late), "the requeued poison is older than the late message: " + requeued);
    }

    @Test
    void all_tenants_lists_each_tenant_with_a_group_on_the_topic_in_tenant_order_and_truncates_at_the_limit() {
        String other = TestIds.tenant();
        while (other.equals(tenant)) {
            other = TestIds.tenant();
        }
        String first = tenant.compareTo(other) < 0 ? tenant : other;
        String second = first.equals(tenant) ? other : tenant;
        String otherTopic = TestIds.topic();
        for (String t : List.of(first, second)) {
            publishOk(t, topic, List.of(msg("k", "m-" + t, 1)));
            await().atMost(Duration.ofSeconds(20)).until(() -> !fetchOk(t, topic, group, upTo(1).waitSeconds(1).visibilitySeconds(120)).isEmpty());
        }
        publishOk(first, otherTopic, List.of(msg("k", "elsewhere", 1)));
        await().atMost(Duration.ofSeconds(20)).until(() -> !fetchOk(first, otherTopic, group, upTo(1).waitSeconds(1).visibilitySeconds(120)).isEmpty());

        JsonPath all = groups(Map.of("allTenants", "true", "topic", topic)).then().statusCode(200).extract().jsonPath();
        assertEquals(List.of(first, second), all.getList("consumerGroups.tenant"), all.prettify());
        assertEquals(List.of(topic, topic), all.getList("consumerGroups.topic"));
        assertEquals(List.of(1, 1), all.getList("consumerGroups.inFlight"));
        assertEquals(false, all.getBoolean("truncated"));

        JsonPath one = groups(Map.of("allTenants", "true", "topic", topic, "limit", "1")).then().statusCode(200)
                .extract().jsonPath();
        assertEquals(List.of(first), one.getList("consumerGroups.tenant"));
        assertEquals(true, one.getBoolean("truncated"));

        JsonPath scoped = groups(Map.of("tenant", first)).then().statusCode(200).extract().jsonPath();
        List<String> topics = scoped.getList("consumerGroups.findAll { it.consumerGroup == '" + group + "' }.topic");
        assertEquals(new ArrayList<>(new java.util.TreeSet<>(List.of(topic, otherTopic))), topics,
                "without a topic filter, every topic of the group in that tenant, in topic order");
        assertEquals(List.of(first), scoped.getList("consumerGroups.tenant").stream().distinct().toList());

        assertEquals(List.of(), groups(Map.of("tenant", "not-served-" + TestIds.topic().substring(6, 14)))
                .then().statusCode(200).extract().jsonPath().getList("consumerGroups"),
                "a tenant without groups (served or not) lists none");
    }

    @Test
    void bad_parameters_are_400_naming_the_field() {
        Map<Map<String, String>, String> cases = new LinkedHashMap<>();
        cases.put(Map.of(), "tenant");
        cases.put(Map.of("tenant", tenant, "allTenants", "true"), "tenant");
        cases.put(Map.of("allTenants", "yes"), "allTenants");
        cases.put(Map.of("tenant", "bad tenant!"), "tenant");
        cases.put(Map.of("tenant", tenant, "topic", "-starts-with-a-dash"), "topic");
        cases.put(Map.of("tenant", tenant, "topic", ""), "topic");
        cases.put(Map.of("tenant", tenant, "limit", "0"), "limit");
        cases.put(Map.of("tenant", tenant, "limit", "10001"), "limit");
        cases.put(Map.of("tenant", tenant, "limit", "many"), "limit");
        for (Map.Entry<Map<String, String>, String> c : cases.entrySet()) {
            Response r = groups(c.getKey());
            assertEquals(400, r.statusCode(), c.getKey() + ": " + r.asString());
            assertEquals("application/problem+json", r.contentType().split(";")[0], c.getKey().toString());
            assertTrue(r.jsonPath().getList("errors.field").contains(c.getValue()),
                    c.getKey() + " names " + c.getValue() + ": " + r.asString());
        }
        Response repeated = admin().get("/admin/consumer-groups?tenant=" + tenant + "&tenant=" + tenant);
        assertEquals(400, repeated.statusCode());
        assertEquals(List.of("tenant"), repeated.jsonPath().getList("errors.field"));
        Response malformed = admin().urlEncodingEnabled(false).get("/admin/consumer-groups?tenant=" + tenant + "&topic=%FF");
        assertEquals(400, malformed.statusCode());
        assertEquals(List.of("topic"), malformed.jsonPath().getList("errors.field"));
        given().queryParam("tenant", tenant).get("/admin/consumer-groups").then().statusCode(401);
    }

    @Test
    void tenants_lists_exactly_the_served_tenants_in_configured_order() {
        List<String> served = Arrays.stream(ConfigProvider.getConfig().getValue("mq.tenants", String.class).split(","))
                .map(String::trim).toList();
        JsonPath body = admin().get("/admin/tenants").then().statusCode(200).extract().jsonPath();
        assertEquals(served, body.getList("tenants"));
        assertNotEquals(List.of(), served, "the test profile serves tenants");
        given().get("/admin/tenants").then().statusCode(401);
        given().header("Authorization", "Bearer wrong-" + AdminTest.TOKEN).get("/admin/tenants").then().statusCode(401);
    }
}
