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
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.everyItem;
import static org.hamcrest.Matchers.hasItem;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import io.restassured.path.json.JsonPath;
import io.restassured.response.Response;
import io.restassured.specification.RequestSpecification;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The admin API (SPEC section 4, "Admin" and "Dead letters"): scope rule, auth, inspect, delete, requeue. */
@QuarkusTest
class AdminTest {
    /** The test profile's mq.admin.token. */
    static final String TOKEN = "test-admin-token-0123456789";
    private static final List<String> LISTINGS = List.of("/admin/topics", "/admin/offsets", "/admin/leases",
            "/admin/subscribers");
    private static final int MAX_DELIVERIES = 5;

    private final String tenant = TestIds.tenant();
    private final String topic = TestIds.topic();

    private static RequestSpecification admin() {
        return given().header("Authorization", "Bearer " + TOKEN);
    }

    @Test
    void every_listing_needs_exactly_one_of_tenant_or_all_tenants() {
        for (String path : LISTINGS) {
            admin().get(path).then().statusCode(400).contentType("application/problem+json")
                    .body("errors.field", hasItem("tenant"));
            admin().queryParam("tenant", tenant).queryParam("allTenants", "true").get(path).then().statusCode(400)
                    .body("errors.field", hasItem("tenant"));
            admin().queryParam("allTenants", "false").get(path).then().statusCode(400).body("errors.field", hasItem("tenant"));
            admin().queryParam("allTenants", "yes").get(path).then().statusCode(400)
                    .body("errors.field", hasItem("allTenants"));
            admin().queryParam("tenant", "bad tenant").get(path).then().statusCode(400).body("errors.field", hasItem("tenant"));
            admin().queryParam("tenant", tenant).queryParam("limit", "0").get(path).then().statusCode(400)
                    .body("errors.field", hasItem("limit"));
            admin().queryParam("tenant", tenant).get(path).then().statusCode(200);
            admin().queryParam("allTenants", "true").get(path).then().statusCode(200);
        }
    }

    @Test
    void listings_of_one_tenant_never_show_another_tenant() {
        String other = tenant.equals("it-00") ? "it-01" : "it-00";
        String group = TestIds.group();
        publishOk(tenant, topic, List.of(msg("k1", "1", 1), msg("k2", "2", 2)));
        publishOk(other, topic, List.of(msg("k1", "1", 1)));
        fetchOk(tenant, topic, group, upTo(10));
        fetchOk(other, topic, group, upTo(10));

        JsonPath topics = listing("/admin/topics", tenant);
        assertEquals(List.of(2), topics.getList("topics.findAll { it.topic == '" + topic + "' }.partitions"));
        assertEquals(List.of(2), topics.getList("topics.findAll { it.topic == '" + topic + "' }.messages"));
        for (String path : LISTINGS) {
            JsonPath page = listing(path, tenant);
            String list = path.substring("/admin/".length());
            // Not vacuous: the fetch above made rows of this topic in every listing (offsets,
            // leases and a heartbeat of the group), so each page has them, and only them.
            assertTrue(page.getList(list + ".topic", String.class).contains(topic), path + " lists " + topic);
            List<String> tenants = page.getList(list + ".tenant", String.class);
            assertTrue(tenants.stream().allMatch(tenant::equals), path + " lists only " + tenant + ": " + tenants);
        }
        // The topic's rows only: a page of every tenant's rows may end before them.
        JsonPath all = admin().queryParam("allTenants", "true").queryParam("topic", topic).get("/admin/offsets")
                .then().statusCode(200).extract().jsonPath();
        List<String> tenants = all.getList("offsets.findAll { it.topic == '" + topic + "' }.tenant", String.class);
        assertTrue(tenants.contains(tenant) && tenants.contains(other), "allTenants=true lists both: " + tenants);
    }

    @Test
    void offsets_leases_and_subscribers_show_the_group_at_work() {
        String group = TestIds.group();
        Published published = publishOk(tenant, topic, List.of(msg("k", "1", 1), msg("k", "2", 2), msg("k", "3", 3)));
        List<Delivered> got = fetchOk(tenant, topic, group, upTo(1));
        assertEquals(List.of("ACKED"), ack(tenant, topic, group, receipts(got)));

        JsonPath offsets = admin().queryParam("tenant", tenant).queryParam("topic", topic).queryParam("consumerGroup", group)
                .get("/admin/offsets").then().statusCode(200).extract().jsonPath();
        assertEquals(1, offsets.getList("offsets").size());
        assertEquals(got.get(0).offset(), offsets.getLong("offsets[0].committedOffset"));
        assertEquals(2, offsets.getInt("offsets[0].lag"));
        assertEquals(published.offset(2), offsets.getLong("offsets[0].latestOffset"));

        // The test tenants are shared: another test's leases may fill a default page (1000 rows).
        admin().queryParam("tenant", tenant).queryParam("state", "active").queryParam("limit", "10000")
                .get("/admin/leases").then().statusCode(200)
                .body("leases.findAll { it.topic == '" + topic + "' }.leasedBy", equalTo(List.of("test-subscriber")))
                .body("leases.active", everyItem(equalTo(true)));
        admin().queryParam("tenant", tenant).queryParam("state", "stale").get("/admin/leases").then().statusCode(200)
                .body("leases.findAll { it.topic == '" + topic + "' }", equalTo(List.of()));
        admin().queryParam("tenant", tenant).queryParam("state", "gone").get("/admin/leases").then().statusCode(400)
                .body("errors.field", hasItem("state"));
        admin().queryParam("tenant", tenant).get("/admin/subscribers").then().statusCode(200)
                .body("subscribers.findAll { it.topic == '" + topic + "' && it.consumerGroup == '" + group + "' }.live",
                        equalTo(List.of(true)));
    }

    @Inject
    AgroalDataSource dataSource;

    @Test
    void a_lease_whose_holder_has_no_live_heartbeat_is_listed_as_stale() throws Exception {
        String group = TestIds.group();
        // A lease left by a subscriber that died without a trace: unexpired, but no heartbeat.
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement("""
                INSERT INTO queue_partition_leases
                  (tenant, consumer_group, topic, partition_key, leased_by, epoch, expires_at, acquired_at, renewed_at)
                VALUES (?, ?, ?, 'k', 'gone-subscriber', 1, UTC_TIMESTAMP(6) + INTERVAL 1 HOUR,
                        UTC_TIMESTAMP(6), UTC_TIMESTAMP(6))""")) {
            ps.setString(1, tenant);
            ps.setString(2, group);
            ps.setString(3, topic);
            assertEquals(1, ps.executeUpdate());
        }
        String ours = "leases.findAll { it.consumerGroup == '" + group + "' }";
        admin().queryParam("tenant", tenant).queryParam("state", "stale").queryParam("limit", "10000")
                .get("/admin/leases").then().statusCode(200)
                .body(ours + ".leasedBy", equalTo(List.of("gone-subscriber")))
                .body(ours + ".active", equalTo(List.of(false)));
        admin().queryParam("tenant", tenant).queryParam("state", "active").queryParam("limit", "10000")
                .get("/admin/leases").then().statusCode(200)
                .body(ours, equalTo(List.of()));
    }

    @Test
    void inspect_and_delete_work_for_the_longest_keys_and_ids() {
        // 255 four-byte characters each: 3,060 bytes apiece in the query string.
        String key = "\uD83D\uDE00".repeat(255);
        String id = "\uD83D\uDCA9".repeat(255);
        publishOk(tenant, topic, List.of(Map.of("partitionKey", key, "id", id, "payload", 1)));
        inspect(topic, key, id).then().statusCode(200).body("id", equalTo(id)).body("partitionKey", equalTo(key));
        admin().queryParam("tenant", tenant).queryParam("topic", topic).queryParam("partitionKey", key)
                .queryParam("id", id).delete("/admin/messages").then().statusCode(200);
        inspect(topic, key, id).then().statusCode(404).contentType("application/problem+json");
    }

    @Test
    void admin_calls_need_the_admin_token_and_consumer_calls_do_not() {
        given().queryParam("tenant", tenant).get("/admin/topics").then().statusCode(401)
                .contentType("application/problem+json").header("WWW-Authenticate", containsString("Bearer"));
        given().header("Authorization", "Bearer wrong-token-0123456789").queryParam("tenant", tenant).get("/admin/topics")
                .then().statusCode(401);
        given().header("Authorization", TOKEN).queryParam("tenant", tenant).get("/admin/topics").then().statusCode(401);
        given().queryParam("tenant", tenant).queryParam("topic", topic).queryParam("partitionKey", "k")
                .queryParam("id", "x").delete("/admin/messages").then().statusCode(401);
        publishOk(tenant, topic, List.of(msg("k", "1", 1))); // publish needs no admin role
    }

    @Test
    void a_requeued_dead_letter_goes_back_first_with_attempt_one_only_to_the_group_that_dead_lettered_it() {
        String failing = TestIds.group();
        String acking = TestIds.group();
        List<Long> offsets = publishOk(tenant, topic, List.of(msg("k", "m", "poison"), msg("k", "n1", 1)))
                .offsets();
        deadLetter(failing, "k", "m");
        List<Delivered> next = fetchOk(tenant, topic, failing, upTo(10));
        assertEquals(List.of("n1"), ids(next));
        assertEquals(List.of("ACKED"), ack(tenant, topic, failing, receipts(next)));
        List<Delivered> inAcking = fetchOk(tenant, topic, acking, upTo(10));
        assertEquals(List.of("ACKED", "ACKED"), ack(tenant, topic, acking, receipts(inAcking)));

        String dlq = topic + ".dlq";
        // A consumer of the dead-letter topic holds its lease and has the dead letter ready to
        // deliver again (nacked without delay), so an empty fetch below means the row is gone.
        String dlqGroup = TestIds.group();
        List<Delivered> deadLetters = fetchOk(tenant, dlq, dlqGroup, upTo(10));
        assertEquals(List.of("m"), ids(deadLetters));
        assertEquals(List.of("NACKED"), nack(tenant, dlq, dlqGroup, receipts(deadLetters), 0, "not yet"));
        requeue(dlq, "k", "m").then().statusCode(200)
                .body("consumerGroups", equalTo(List.of(failing)))
                .body("originalTopic", equalTo(topic))
                .body("originalOffset", equalTo(offsets.get(0).intValue()));
        assertEquals(0, fetchOk(tenant, dlq, dlqGroup, upTo(10).waitSeconds(1)).size(), "the row left the dead-letter topic");
        inspect(dlq, "k", "m").then().statusCode(404);

        publishOk(tenant, topic, List.of(msg("k", "n2", 2)));
        List<Delivered> again = fetchOk(tenant, topic, failing, upTo(10));
        assertEquals(List.of("m", "n2"), ids(again),
                "the requeued message comes before later ones although the committed offset is past it");
        assertEquals(offsets.get(0).longValue(), again.get(0).offset());
        assertEquals(List.of(1, 1), attempts(again));
        assertEquals(List.of("ACKED", "ACKED"), ack(tenant, topic, failing, receipts(again)));
        assertEquals(0, fetchOk(tenant, topic, failing, upTo(10).waitSeconds(0)).size());

        List<Delivered> other = fetchOk(tenant, topic, acking, upTo(10));
        assertEquals(List.of("n2"), ids(other), "the acking group never gets m again");
        requeue(dlq, "k", "m").then().statusCode(404);
    }

    @Test
    void inspect_delete_and_requeue_work_for_keys_and_ids_with_reserved_characters_and_emoji() {
        String group = TestIds.group();
        String key = "orders/2026 %41?q=1#frag \uD83D\uDE00 end";
        String id = "id/%2F? #x \uD83D\uDCA9 y";
        publishOk(tenant, topic, List.of(msg(key, id, Map.of("n", 1)), msg(key, "after", 2)));
        inspect(topic, key, id).then().statusCode(200)
                .body("partitionKey", equalTo(key)).body("id", equalTo(id)).body("payload.n", equalTo(1))
                .body("metadata.queue_name", equalTo(tenant));

        deadLetter(group, key, id);
        String dlq = topic + ".dlq";
        inspect(dlq, key, id).then().statusCode(200).body("metadata.consumer_group", equalTo(group))
                .body("metadata.original_topic", equalTo(topic));
        inspect(topic, key, id).then().statusCode(200)
                .body("consumerGroups.find { it.consumerGroup == '" + group + "' }.state", equalTo("DEAD"));
        requeue(dlq, key, id).then().statusCode(200).body("consumerGroups", equalTo(List.of(group)));
        inspect(topic, key, id).then().statusCode(200)
                .body("consumerGroups.find { it.consumerGroup == '" + group + "' }.state", equalTo("PENDING"))
                .body("consumerGroups.find { it.consumerGroup == '" + group + "' }.deliveryAttempt", equalTo(1));
        List<Delivered> back = fetchOk(tenant, topic, group, upTo(1));
        assertEquals(key, back.get(0).partitionKey());
        assertEquals(id, back.get(0).id());

        admin().queryParam("tenant", tenant).queryParam("topic", topic).queryParam("partitionKey", key)
                .queryParam("id", id).delete("/admin/messages").then().statusCode(200)
                .body("id", equalTo(id)).body("partitionKey", equalTo(key));
        inspect(topic, key, id).then().statusCode(404);
        List<Delivered> later = fetchOk(tenant, topic, group, upTo(10));
        assertEquals(List.of("after"), ids(later),
                "deleting the in-flight message (with its delivery state) releases the partition at once");
    }

    @Test
    void message_calls_name_missing_parameters_and_refuse_what_is_not_a_dead_letter() {
        admin().queryParam("tenant", tenant).queryParam("topic", topic).get("/admin/messages").then().statusCode(400)
                .body("errors.field", equalTo(List.of("partitionKey", "id")));
        inspect(topic, "k", "absent").then().statusCode(404).contentType("application/problem+json");
        publishOk(tenant, topic, List.of(msg("k", "plain", 1)));
        requeue(topic, "k", "plain").then().statusCode(409).contentType("application/problem+json");
        publishOk(tenant, topic + ".dlq", List.of(msg("k", "forged", 1)));
        requeue(topic + ".dlq", "k", "forged").then().statusCode(409);
        inspect(topic + ".dlq", "k", "forged").then().statusCode(200); // a refused requeue changes nothing
    }

    @Test
    void malformed_repeated_or_empty_query_parameters_are_rejected_naming_the_parameter() {
        publishOk(tenant, topic, List.of(msg("\uFFFD", "\uFFFD", "kept")));
        // %FF is not UTF-8: it must not be read as U+FFFD and name (and delete) the message above.
        admin().urlEncodingEnabled(false)
                .delete("/admin/messages?tenant=" + tenant + "&topic=" + topic + "&partitionKey=%FF&id=%ED%A0%80")
                .then().statusCode(400).contentType("application/problem+json")
                .body("errors.field", hasItem("partitionKey"));
        inspect(topic, "\uFFFD", "\uFFFD").then().statusCode(200);
        // Quarkus's HTTP layer rejects a malformed escape before any application code (400 with an
        // empty body, see docs/api.md, "Errors"); the admin API never sees it.
        String raw = rawGet("/admin/topics?tenant=%zz");
        assertTrue(raw.startsWith("HTTP/1.1 400"), raw);
        admin().urlEncodingEnabled(false).get("/admin/topics?tenant=" + tenant + "&tenant=it-00").then().statusCode(400)
                .body("errors.field", hasItem("tenant"));
        admin().urlEncodingEnabled(false).get("/admin/offsets?tenant=" + tenant + "&topic=").then().statusCode(400)
                .body("errors.field", hasItem("topic"));
        admin().urlEncodingEnabled(false).get("/admin/leases?tenant=" + tenant + "&state=").then().statusCode(400)
                .body("errors.field", hasItem("state"));
    }

    /** Sends a GET with the request target exactly as given (clients refuse malformed escapes); returns the response. */
    private static String rawGet(String target) {
        try (java.net.Socket socket = new java.net.Socket("localhost", io.restassured.RestAssured.port)) {
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write(("GET " + target + " HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer "
                    + TOKEN + "\r\nConnection: close\r\n\r\n").getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            return new String(socket.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        } catch (java.io.IOException e) {
            throw new AssertionError(e);
        }
    }

    /** Nacks message {@code id} (the head of partition {@code key}) in {@code group} until it is dead-lettered. */
    private void deadLetter(String group, String key, String id) {
        for (int attempt = 1; attempt <= MAX_DELIVERIES; attempt++) {
            List<Delivered> got = fetchOk(tenant, topic, group, upTo(1));
            assertEquals(id, got.get(0).id());
            assertEquals(List.of("NACKED"), nack(tenant, topic, group, receipts(got), 0, "test"));
        }
    }

    private JsonPath listing(String path, String t) {
        return admin().queryParam("tenant", t).queryParam("limit", "10000").get(path).then().statusCode(200)
                .extract().jsonPath();
    }

    private Response inspect(String t, String key, String id) {
        return admin().queryParam("tenant", tenant).queryParam("topic", t).queryParam("partitionKey", key)
                .queryParam("id", id).get("/admin/messages");
    }

    private Response requeue(String t, String key, String id) {
        return admin().queryParam("tenant", tenant).queryParam("topic", t).queryParam("partitionKey", key)
                .queryParam("id", id).post("/admin/messages/requeue");
    }
}
