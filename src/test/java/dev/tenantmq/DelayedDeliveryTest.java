package dev.tenantmq;

import static dev.tenantmq.Api.ack;
import static dev.tenantmq.Api.fetchOk;
import static dev.tenantmq.Api.publish;
import static dev.tenantmq.Api.publishOk;
import static dev.tenantmq.Delivered.ids;
import static dev.tenantmq.Delivered.receipts;
import static dev.tenantmq.Fetch.upTo;
import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.tenantmq.model.GroupScope;
import dev.tenantmq.store.FetchTransaction;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import io.restassured.specification.RequestSpecification;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Delayed delivery (docs/api.md, "Delayed delivery"): a message published with
 * {@code deliverAfterSeconds} or {@code deliverAt} is not delivered before then (database clock),
 * it holds back the later messages of its partition and no other partition, inspect and browse
 * show when it is due, and bad delays are 400 naming the field and the rule.
 *
 * <p>A step that shows "not delivered yet" runs while the message is still not due by the
 * database clock, and checks that afterwards: on a machine so loaded that the delay passed
 * first, the step proves nothing and the test stops there (an assumption, not a pass).
 */
@QuarkusTest
class DelayedDeliveryTest {
    /** Long enough for a few requests on a busy machine, short enough for a test. */
    private static final int DELAY_SECONDS = 3;

    private final String tenant = TestIds.tenant();
    private final String topic = TestIds.topic();
    private final String group = TestIds.group();

    @Inject
    AgroalDataSource dataSource;

    @Inject
    FetchTransaction fetches;

    @Test
    void a_delayed_message_is_not_delivered_before_it_is_due_and_is_delivered_after() throws Exception {
        leaseAndDrain("k");
        publishOk(tenant, topic, List.of(delayed("k", "later", DELAY_SECONDS)));

        List<Delivered> early = fetchOk(tenant, topic, group, upTo(10).waitSeconds(1));
        assumeStillNotDue("later");
        assertEquals(List.of(), ids(early), "a long poll that ends before the due time gets nothing");

        List<Delivered> got = new ArrayList<>();
        await("delivered once due").atMost(Duration.ofSeconds(30)).until(() -> {
            got.addAll(fetchOk(tenant, topic, group, upTo(10).waitSeconds(1)));
            return !got.isEmpty();
        });
        assertEquals(List.of("later"), ids(got));
        assertTrue(dueByDatabaseClock("later"), "delivered only once deliver_at has passed");
    }

    @Test
    void a_message_due_at_a_deliver_at_in_the_past_is_delivered_at_once() {
        Map<String, Object> m = new HashMap<>(Api.msg("k", "past", 1));
        m.put("deliverAt", "2020-01-01T00:00:00Z");
        // A leap second and a fraction of more than nine digits are RFC 3339 too (Java's parser refused both).
        Map<String, Object> leap = new HashMap<>(Api.msg("k", "leap", 2));
        leap.put("deliverAt", "2016-12-31T23:59:60.1234567891Z");
        publishOk(tenant, topic, List.of(m, leap));
        assertEquals(List.of("past", "leap"), ids(fetchOk(tenant, topic, group, upTo(10))));
    }

    @Test
    void a_message_not_yet_due_holds_back_the_later_messages_of_its_partition_but_no_other_partition()
            throws Exception {
        leaseAndDrain("held", "free");
        Map<String, Object> first = new HashMap<>(Api.msg("held", "first", 1));
        first.put("deliverAt", Instant.now().plusSeconds(DELAY_SECONDS).toString());
        publishOk(tenant, topic, List.of(first, Api.msg("held", "second", 2), Api.msg("free", "other", 3)));

        List<Delivered> now = fetchOk(tenant, topic, group, upTo(10));
        assumeStillNotDue("first");
        assertEquals(List.of("other"), ids(now), "only the partition without a delay flows");
        ackAll(now);

        List<Delivered> later = new ArrayList<>();
        await("the held partition flows once its first message is due").atMost(Duration.ofSeconds(30)).until(() -> {
            List<Delivered> got = fetchOk(tenant, topic, group, upTo(10).waitSeconds(1));
            later.addAll(got);
            ackAll(got);
            return later.size() >= 2;
        });
        assertEquals(List.of("first", "second"), ids(later), "in offset order: the delay kept the order");
        StoredCounts.assertMatchStored(dataSource, tenant);
    }

    @Test
    void the_ready_partitions_query_leaves_out_a_partition_whose_next_message_is_not_due() throws Exception {
        leaseAndDrain("a-held", "b-free");
        publishOk(tenant, topic, List.of(delayed("a-held", "due-later", DELAY_SECONDS), Api.msg("a-held", "after", 1),
                Api.msg("b-free", "ready", 1)));
        GroupScope scope = new GroupScope(tenant, group, topic);

        List<String> ready = fetches.readyPartitions(scope, "test-subscriber", null, null, 10);
        assumeStillNotDue("due-later");
        assertEquals(List.of("b-free"), ready, "a-held sorts first but waits for its delay: it takes no LIMIT slot");

        await("ready once due").atMost(Duration.ofSeconds(30))
                .until(() -> fetches.readyPartitions(scope, "test-subscriber", null, null, 10).contains("a-held"));
    }

    @Test
    void inspect_and_browse_show_when_a_message_is_due() {
        publishOk(tenant, topic, List.of(delayed("k", "d", 600), Api.msg("k", "plain", 1)));

        JsonPath inspected = admin().queryParam("tenant", tenant).queryParam("topic", topic)
                .queryParam("partitionKey", "k").queryParam("id", "d").get("/admin/messages")
                .then().statusCode(200).extract().jsonPath();
        Instant created = Instant.parse(inspected.getString("createdAt"));
        Instant due = Instant.parse(inspected.getString("deliverAt"));
        assertEquals(Duration.ofSeconds(600), Duration.between(created, due),
                "deliverAt is the publish time (database clock) plus the delay");

        JsonPath page = admin().queryParam("tenant", tenant).queryParam("topic", topic)
                .get("/admin/messages/browse").then().statusCode(200).extract().jsonPath();
        assertEquals(due, Instant.parse(page.getString("messages[0].deliverAt")));
        assertNull(page.get("messages[1].deliverAt"), "a message without a delay has none");
    }

    @Test
    void bad_delays_are_400_naming_the_field_and_the_rule() throws Exception {
        badDelay(Map.of("deliverAfterSeconds", -1), "messages[0].deliverAfterSeconds", "at least 0");
        badDelay(Map.of("deliverAfterSeconds", 1.5), "messages[0].deliverAfterSeconds", "whole number");
        badDelay(Map.of("deliverAfterSeconds", "10"), "messages[0].deliverAfterSeconds", "whole number");
        badDelay(Map.of("deliverAt", "tomorrow"), "messages[0].deliverAt", "RFC 3339");
        badDelay(Map.of("deliverAt", "2026-12-02T05:00:00"), "messages[0].deliverAt", "RFC 3339"); // no offset
        badDelay(Map.of("deliverAt", 1700000000), "messages[0].deliverAt", "RFC 3339");
        // Java's ISO parser took these two: an offset with seconds, and a time without seconds.
        badDelay(Map.of("deliverAt", "2026-12-05T01:00:00+05:30:15"), "messages[0].deliverAt", "RFC 3339");
        badDelay(Map.of("deliverAt", "2026-12-05T01:00Z"), "messages[0].deliverAt", "RFC 3339");
        badDelay(Map.of("deliverAfterSeconds", 5, "deliverAt", "2030-01-01T00:00:00Z"), "messages[0].deliverAt",
                "deliverAfterSeconds");
        given().contentType(ContentType.JSON)
                .body("{\"messages\":[{\"partitionKey\":\"k\",\"payload\":1,\"deliverAfterSeconds\":null}]}")
                .post("/tenants/{t}/topics/{topic}/messages", tenant, topic)
                .then().statusCode(400).body("errors[0].field", equalTo("messages[0].deliverAfterSeconds"));
        assertEquals(0, storedMessages(), "nothing stored");
    }

    /**
     * A deliverAt of the right form that names no time is refused for that, not for its form, and
     * one before the years the database stores names them (docs/api.md, "Delayed delivery"); one
     * after them names the retention maximum age (ErrorWordsTest).
     */
    @Test
    void a_deliver_at_that_does_not_exist_or_is_before_the_stored_years_says_so() throws Exception {
        String field = "messages[0].deliverAt";
        badDelayIs(Map.of("deliverAt", "2026-02-30T01:00:00Z"), field,
                "names a date that does not exist: February 2026 has days 01 to 28 (got 2026-02-30T01:00:00Z)");
        badDelayIs(Map.of("deliverAt", "2026-12-05T24:00:00Z"), field,
                "names a time that does not exist: an hour is 00 to 23 (got 2026-12-05T24:00:00Z)");
        badDelayIs(Map.of("deliverAt", "0001-01-01T00:00:00Z"), field,
                "must be in the years 1000 to 9999 (UTC), the times the database stores (got 0001-01-01T00:00:00Z)");
        assertEquals(0, storedMessages(), "nothing stored");
    }

    /** A delay too far ahead names what was given, as every range error does (docs/api.md, "Errors"). */
    @Test
    void a_delay_too_far_ahead_names_the_value_given() throws Exception {
        badDelay(Map.of("deliverAfterSeconds", 99999999999L), "messages[0].deliverAfterSeconds", "(got 99999999999)");
        given().contentType(ContentType.JSON).body("{\"messages\":[{\"partitionKey\":\"k\",\"payload\":1,"
                        + "\"deliverAfterSeconds\":99999999999999999999999}]}")
                .post("/tenants/{t}/topics/{topic}/messages", tenant, topic)
                .then().statusCode(400).body("errors[0].field", equalTo("messages[0].deliverAfterSeconds"))
                .body("errors[0].message", containsString("mq.retention.max-age"))
                .body("errors[0].message", containsString("(got 99999999999999999999999)"));
        badDelay(Map.of("deliverAt", "2999-01-01T00:00:00+02:00"), "messages[0].deliverAt",
                "(got 2999-01-01T00:00:00+02:00)");
        assertEquals(0, storedMessages(), "nothing stored");
    }

    @Test
    void a_delay_reaches_at_most_the_retention_max_age_ahead() throws Exception {
        long maxAge = Duration.ofDays(7).toSeconds(); // mq.retention.max-age of the test profile (the default)
        badDelay(Map.of("deliverAfterSeconds", maxAge + 1), "messages[0].deliverAfterSeconds", "mq.retention.max-age");
        badDelay(Map.of("deliverAt", Instant.now().plus(Duration.ofDays(8)).toString()), "messages[0].deliverAt",
                "mq.retention.max-age");
        assertEquals(0, storedMessages(), "nothing stored");

        publishOk(tenant, topic, List.of(delayed("k", "at-the-bound", maxAge)));
        assertEquals(1, storedMessages(), "exactly the max age is allowed");
    }

    /**
     * Publishes a message to each partition and consumes them all: afterwards this process
     * leases the partitions for the group, so an empty fetch is the delay's doing, not a lease
     * still to be taken.
     */
    private void leaseAndDrain(String... keys) {
        List<Map<String, Object>> warm = new ArrayList<>();
        for (String k : keys) {
            warm.add(Api.msg(k, "warm-" + k, 0));
        }
        publishOk(tenant, topic, warm);
        List<Delivered> got = new ArrayList<>();
        await("the partitions are leased and drained").atMost(Duration.ofSeconds(30)).until(() -> {
            List<Delivered> some = fetchOk(tenant, topic, group, upTo(10).waitSeconds(1));
            got.addAll(some);
            ackAll(some);
            return got.size() >= keys.length;
        });
    }

    private void ackAll(List<Delivered> got) {
        if (!got.isEmpty()) {
            ack(tenant, topic, group, receipts(got));
        }
    }

    /** A publish of one message with {@code delay}: 400 problem+json whose first error names {@code field}. */
    private io.restassured.response.ValidatableResponse refused(Map<String, Object> delay, String field) {
        Map<String, Object> m = new HashMap<>(Api.msg("k", "bad", 1));
        m.putAll(delay);
        return publish(tenant, topic, Map.of("messages", List.of(m))).then().statusCode(400)
                .contentType("application/problem+json")
                .body("errors[0].field", equalTo(field));
    }

    private void badDelay(Map<String, Object> delay, String field, String rule) {
        refused(delay, field).body("errors[0].message", containsString(rule));
    }

    private void badDelayIs(Map<String, Object> delay, String field, String message) {
        refused(delay, field).body("errors[0].message", equalTo(message))
                .body("detail", equalTo(field + " " + message));
    }

    private static Map<String, Object> delayed(String key, String id, long seconds) {
        Map<String, Object> m = new HashMap<>(Api.msg(key, id, 1));
        m.put("deliverAfterSeconds", seconds);
        return m;
    }

    private static RequestSpecification admin() {
        return given().header("Authorization", "Bearer " + AdminTest.TOKEN);
    }

    /** Stops the test (an assumption) when the message is due already by the database clock: the step proved nothing. */
    private void assumeStillNotDue(String id) throws SQLException {
        assumeTrue(!dueByDatabaseClock(id), "the machine was too slow: " + id + " fell due during the step");
    }

    private boolean dueByDatabaseClock(String id) throws SQLException {
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement("""
                SELECT deliver_at <= UTC_TIMESTAMP(6) FROM queue_messages
                WHERE tenant = ? AND topic = ? AND id = ?""")) {
            ps.setString(1, tenant);
            ps.setString(2, topic);
            ps.setString(3, id);
            try (ResultSet rs = ps.executeQuery()) {
                assertTrue(rs.next(), "message " + id + " is stored");
                return rs.getBoolean(1);
            }
        }
    }

    private long storedMessages() throws SQLException {
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(
                "SELECT COUNT(*) FROM queue_messages WHERE tenant = ? AND topic = ?")) {
            ps.setString(1, tenant);
            ps.setString(2, topic);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }
}
