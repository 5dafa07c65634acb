package dev.tenantmq;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.allOf;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.everyItem;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.startsWith;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import io.restassured.specification.RequestSpecification;
import io.smallrye.jwt.build.Jwt;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.security.KeyPairGenerator;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;
import org.junit.jupiter.api.Test;

/**
 * mq.auth.mode=jwt (docs/security.md, "Modes" and "Permissions"): bearer JWTs signed by a key the
 * test mints, verified by quarkus-smallrye-jwt, and the tmq claim's permissions enforced per tenant
 * and topic on the data plane and the admin API.
 */
@QuarkusTest
@DatabaseAgnostic
@TestProfile(TestJwt.Profile.class)
class JwtAuthTest {
    private static final String MESSAGES = "/tenants/{t}/topics/{topic}/messages";
    private static final String GROUP = "/tenants/{t}/topics/{topic}/consumer-groups/{g}/";

    private final String tenant = TestIds.tenant();
    private final String other = tenant.equals("it-00") ? "it-01" : "it-00";
    private final String topic = TestIds.topic();
    private final String group = TestIds.group();

    private static RequestSpecification as(String bearer) {
        RequestSpecification r = given().contentType(ContentType.JSON);
        return bearer == null ? r : r.header("Authorization", bearer);
    }

    private static String grant(String tenant, String... grants) {
        return TestJwt.bearer(Map.of(tenant, List.of(grants)));
    }

    private static Response publish(String bearer, String tenant, String topic, String id) {
        return as(bearer).body(Map.of("messages", List.of(Api.msg("k", id, 1)))).post(MESSAGES, tenant, topic);
    }

    private static Response fetch(String bearer, String tenant, String topic, String group) {
        return as(bearer).body(Map.of("maxMessages", 10, "waitSeconds", 5, "visibilitySeconds", 30))
                .post(GROUP + "fetch", tenant, topic, group);
    }

    private static Response settle(String bearer, String verb, String tenant, String topic, String group,
                                   List<String> receipts) {
        Map<String, Object> body = verb.equals("extend") ? Map.of("receipts", receipts, "visibilitySeconds", 60)
                : verb.equals("nack") ? Map.of("receipts", receipts, "delaySeconds", 0) : Map.of("receipts", receipts);
        return as(bearer).body(body).post(GROUP + verb, tenant, topic, group);
    }

    /** Publishes one message with a token of its own and fetches it: the receipt. */
    private static String deliveredReceipt(String tenant, String topic, String group) {
        String token = grant(tenant, "publish", "consume");
        publish(token, tenant, topic, "m-1").then().statusCode(201);
        List<String> receipts = fetch(token, tenant, topic, group).then().statusCode(200).extract().jsonPath()
                .getList("messages.receipt");
        assertEquals(1, receipts.size(), "one message delivered");
        return receipts.get(0);
    }

    /** Messages stored in a topic, as the admin listing counts them (0 when the topic has none). */
    private static int stored(String tenant, String topic) {
        List<Integer> counts = as("Bearer " + AdminTest.TOKEN).queryParam("tenant", tenant).get("/admin/topics").then()
                .statusCode(200).extract().jsonPath().getList("topics.findAll { it.topic == '" + topic + "' }.messages");
        return counts.stream().mapToInt(Integer::intValue).sum();
    }

    private static void assertForbidden(Response r, String tenant, String permission) {
        r.then().statusCode(403).contentType("application/problem+json")
                .body("type", equalTo("urn:tenant-mq:problem:forbidden"))
                .body("detail", allOf(containsString("'" + tenant + "'"), containsString("'" + permission + "'")));
    }

    private static void assertUnauthorized(Response r, String reason) {
        r.then().statusCode(401).contentType("application/problem+json")
                .body("type", equalTo("urn:tenant-mq:problem:unauthorized"))
                .body("detail", containsString(reason))
                .header("WWW-Authenticate", allOf(startsWith("Bearer realm="), containsString("error=\"invalid_token\"")));
    }

    @Test
    void a_call_without_a_token_gets_401_with_a_bearer_challenge_and_stores_nothing() {
        for (Response r : List.of(publish(null, tenant, topic, "m-1"), fetch(null, tenant, topic, group),
                settle(null, "ack", tenant, topic, group, List.of("x")))) {
            r.then().statusCode(401).contentType("application/problem+json")
                    .header("WWW-Authenticate", allOf(startsWith("Bearer realm=\"tenant-mq\""), not(containsString("error="))))
                    .body("detail", containsString("Authorization: Bearer"));
        }
        assertEquals(0, stored(tenant, topic), "nothing stored");
    }

    @Test
    void publish_needs_the_publish_permission_of_the_path_tenant() {
        publish(grant(tenant, "publish"), tenant, topic, "m-1").then().statusCode(201);
        assertForbidden(publish(grant(tenant, "consume", "admin"), tenant, topic, "m-2"), tenant, "publish");
        assertForbidden(publish(grant(other, "publish"), tenant, topic, "m-3"), tenant, "publish");
        assertEquals(1, stored(tenant, topic), "only the permitted publish stored a message");
    }

    @Test
    void fetch_ack_nack_and_extend_need_the_consume_permission_of_the_path_tenant() {
        String receipt = deliveredReceipt(tenant, topic, group);
        String publishOnly = grant(tenant, "publish");
        assertForbidden(fetch(publishOnly, tenant, topic, group), tenant, "consume");
        assertForbidden(fetch(grant(other, "consume"), tenant, topic, group), tenant, "consume");
        for (String verb : List.of("extend", "nack", "ack")) {
            assertForbidden(settle(publishOnly, verb, tenant, topic, group, List.of(receipt)), tenant, "consume");
        }
        String consumer = grant(tenant, "consume");
        settle(consumer, "extend", tenant, topic, group, List.of(receipt)).then().statusCode(200)
                .body("results.status", equalTo(List.of("EXTENDED")));
        settle(consumer, "nack", tenant, topic, group, List.of(receipt)).then().statusCode(200)
                .body("results.status", equalTo(List.of("NACKED")));
        List<String> again = fetch(consumer, tenant, topic, group).then().statusCode(200).extract().jsonPath()
                .getList("messages.receipt");
        settle(consumer, "ack", tenant, topic, group, again).then().statusCode(200)
                .body("results.status", equalTo(List.of("ACKED")));
    }

    @Test
    void a_topic_prefix_narrows_publish_and_consume_to_matching_topics() {
        String inside = "orders." + topic;
        String outside = "billing." + topic;
        String narrow = grant(tenant, "publish:orders.", "consume:orders.");
        publish(narrow, tenant, inside, "m-1").then().statusCode(201);
        fetch(narrow, tenant, inside, group).then().statusCode(200).body("messages.id", equalTo(List.of("m-1")));
        assertForbidden(publish(narrow, tenant, outside, "m-1"), tenant, "publish");
        publish(grant(tenant, "publish"), tenant, outside, "m-1").then().statusCode(201);
        assertForbidden(fetch(narrow, tenant, outside, group), tenant, "consume");
        // A receipt of a topic outside the prefix is refused too.
        String receipt = deliveredReceipt(tenant, "billing2." + topic, group);
        assertForbidden(settle(narrow, "ack", tenant, inside, group, List.of(receipt)), tenant, "consume");
    }

    @Test
    void an_exact_topic_grant_covers_that_topic_and_not_the_topics_it_prefixes() {
        String exact = grant(tenant, "publish:=" + topic, "consume:=" + topic);
        publish(exact, tenant, topic, "m-1").then().statusCode(201);
        fetch(exact, tenant, topic, group).then().statusCode(200).body("messages.id", equalTo(List.of("m-1")));
        String longer = topic + "-internal";
        assertForbidden(publish(exact, tenant, longer, "m-1"), tenant, "publish");
        assertForbidden(fetch(exact, tenant, longer, group), tenant, "consume");
        // The first grammar's bare prefix keeps its meaning: it covers the longer name too.
        publish(grant(tenant, "publish:" + topic), tenant, longer, "m-1").then().statusCode(201);
        fetch(grant(tenant, "consume:" + topic + "*"), tenant, longer, group).then().statusCode(200)
                .body("messages.id", equalTo(List.of("m-1")));
        assertEquals(1, stored(tenant, longer), "only the prefix grant published to the longer topic");
    }

    @Test
    void a_consume_grant_with_a_group_pattern_refuses_other_groups_on_fetch_ack_nack_and_extend() {
        String billing = "billing-" + group;
        String receipt = deliveredReceipt(tenant, topic, billing);
        String otherGroupsReceipt = deliveredReceipt(tenant, topic, "audit-" + group);
        String narrow = grant(tenant, "consume:=" + topic + "/billing-*");
        for (Response r : List.of(fetch(narrow, tenant, topic, "audit-" + group),
                settle(narrow, "extend", tenant, topic, "audit-" + group, List.of(otherGroupsReceipt)),
                settle(narrow, "nack", tenant, topic, "audit-" + group, List.of(otherGroupsReceipt)),
                settle(narrow, "ack", tenant, topic, "audit-" + group, List.of(otherGroupsReceipt)))) {
            assertForbidden(r, tenant, "consume");
            r.then().body("detail", allOf(containsString("'audit-" + group + "'"),
                    containsString("consume:=" + topic + "/billing-*"), containsString("group pattern")));
        }
        // A receipt of another group, presented on the permitted group's path, is refused too.
        settle(narrow, "ack", tenant, topic, billing, List.of(otherGroupsReceipt)).then().statusCode(403)
                .body("detail", startsWith("receipts[0]"));
        settle(narrow, "extend", tenant, topic, billing, List.of(receipt)).then().statusCode(200)
                .body("results.status", equalTo(List.of("EXTENDED")));
        settle(narrow, "ack", tenant, topic, billing, List.of(receipt)).then().statusCode(200)
                .body("results.status", equalTo(List.of("ACKED")));
        fetch(narrow, tenant, topic, billing).then().statusCode(200);
        // The receipt of the refused group is untouched: its own group may still settle it.
        settle(grant(tenant, "consume:*/audit-*"), "ack", tenant, topic, "audit-" + group, List.of(otherGroupsReceipt))
                .then().statusCode(200).body("results.status", equalTo(List.of("ACKED")));
    }

    @Test
    void publishing_to_a_dead_letter_topic_needs_the_admin_permission_besides_publish() {
        String dlq = topic + ".dlq";
        Response refused = publish(grant(tenant, "publish"), tenant, dlq, "forged");
        assertForbidden(refused, tenant, "admin");
        refused.then().body("detail", allOf(containsString("dead-letter topic"), containsString("mq.dlq-suffix")));
        assertForbidden(publish(grant(tenant, "admin"), tenant, dlq, "forged"), tenant, "publish");
        assertEquals(0, stored(tenant, dlq), "no forged dead letter was stored");
        publish(grant(tenant, "publish", "admin"), tenant, dlq, "m-1").then().statusCode(201);
        publish(grant(tenant, "publish"), tenant, topic + ".dlq2", "m-1").then().statusCode(201);
        assertEquals(1, stored(tenant, dlq), "an admin may publish there");
    }

    @Test
    void a_receipt_of_another_tenant_gets_403_under_a_token_for_the_path_tenant_though_it_is_valid() {
        String foreign = deliveredReceipt(other, topic, group);
        String own = deliveredReceipt(tenant, topic, group);
        String token = grant(tenant, "consume");
        for (String verb : List.of("extend", "nack", "ack")) {
            Response r = settle(token, verb, tenant, topic, group, List.of(own, foreign));
            assertForbidden(r, other, "consume");
            r.then().body("detail", startsWith("receipts[1]"));
        }
        // Nothing of the refused batches was applied: the own receipt is still current, the foreign
        // one is valid for its own tenant's token.
        settle(token, "ack", tenant, topic, group, List.of(own)).then().statusCode(200)
                .body("results.status", equalTo(List.of("ACKED")));
        settle(grant(other, "consume"), "ack", other, topic, group, List.of(foreign)).then().statusCode(200)
                .body("results.status", equalTo(List.of("ACKED")));
    }

    @Test
    void an_expired_token_gets_401() {
        String expired = TestJwt.claims(Map.of(tenant, List.of("publish"))).issuedAt(Instant.now().minusSeconds(1200))
                .expiresAt(Instant.now().minusSeconds(600)).sign(TestJwt.privateKey());
        assertUnauthorized(publish("Bearer " + expired, tenant, topic, "m-1"), "expired");
    }

    /** A token signed with these iat and exp (seconds from now) and a publish grant. */
    private String timed(long iatFromNow, long expFromNow) {
        Instant now = Instant.now();
        return "Bearer " + TestJwt.claims(Map.of(tenant, List.of("publish"))).issuedAt(now.plusSeconds(iatFromNow))
                .expiresAt(now.plusSeconds(expFromNow)).sign(TestJwt.privateKey());
    }

    @Test
    void a_token_expired_within_the_30_second_leeway_is_accepted_and_beyond_it_refused() {
        publish(timed(-300, -5), tenant, topic, "m-1").then().statusCode(201);
        assertUnauthorized(publish(timed(-300, -45), tenant, topic, "m-2"), "expired");
    }

    @Test
    void a_token_issued_in_the_future_beyond_the_leeway_gets_401() {
        publish(timed(5, 300), tenant, topic, "m-1").then().statusCode(201);
        assertUnauthorized(publish(timed(120, 420), tenant, topic, "m-2"), "issued in the future");
    }

    @Test
    void a_token_that_lives_longer_than_the_maximum_lifetime_gets_401_naming_the_setting() {
        publish(timed(-60, 23 * 3600), tenant, topic, "m-1").then().statusCode(201);
        assertUnauthorized(publish(timed(-60, 25 * 3600), tenant, topic, "m-2"), "mq.auth.max-token-lifetime");
        assertUnauthorized(publish(timed(-60, 100L * 365 * 24 * 3600), tenant, topic, "m-3"), "maximum token lifetime");
    }

    @Test
    void a_token_of_another_issuer_gets_401() {
        String token = Jwt.issuer("https://someone-else.test").audience(TestJwt.AUDIENCE)
                .claim("tmq", Map.of(tenant, List.of("publish"))).expiresIn(300).sign(TestJwt.privateKey());
        assertUnauthorized(publish("Bearer " + token, tenant, topic, "m-1"), "issuer");
    }

    @Test
    void a_token_without_a_subject_gets_401_naming_the_required_claims() {
        String token = Jwt.issuer(TestJwt.ISSUER).audience(TestJwt.AUDIENCE)
                .claim("tmq", Map.of(tenant, List.of("publish"))).expiresIn(300).sign(TestJwt.privateKey());
        assertUnauthorized(publish("Bearer " + token, tenant, topic, "m-1"), "sub");
    }

    @Test
    void a_token_for_another_audience_gets_401() {
        String token = Jwt.issuer(TestJwt.ISSUER).audience("another-service")
                .claim("tmq", Map.of(tenant, List.of("publish"))).expiresIn(300).sign(TestJwt.privateKey());
        assertUnauthorized(publish("Bearer " + token, tenant, topic, "m-1"), "audience");
    }

    @Test
    void a_token_signed_with_another_key_or_no_jwt_at_all_gets_401() throws Exception {
        KeyPairGenerator gen = KeyPairGenerator.getInstance("RSA");
        gen.initialize(2048);
        String forged = TestJwt.claims(Map.of(tenant, List.of("publish"))).sign(gen.generateKeyPair().getPrivate());
        assertUnauthorized(publish("Bearer " + forged, tenant, topic, "m-1"), "bearer token");
        assertUnauthorized(publish("Bearer not-a-jwt", tenant, topic, "m-1"), "bearer token");
        // The static admin token is no JWT and grants nothing on the data plane.
        assertUnauthorized(publish("Bearer " + AdminTest.TOKEN, tenant, topic, "m-1"), "bearer token");
        assertEquals(0, stored(tenant, topic), "nothing stored");
    }

    @Test
    void an_admin_of_some_tenants_sees_only_those_and_all_tenants_needs_an_unrestricted_admin() {
        deliveredReceipt(tenant, topic, group);
        deliveredReceipt(other, topic, group);
        String restricted = grant(tenant, "admin");
        for (String path : List.of("/admin/topics", "/admin/offsets", "/admin/consumer-groups", "/admin/leases",
                "/admin/subscribers")) {
            String list = path.substring("/admin/".length()).replace("consumer-groups", "consumerGroups");
            as(restricted).queryParam("tenant", tenant).get(path).then().statusCode(200)
                    .body(list + ".tenant", everyItem(equalTo(tenant))).body(list + ".topic", hasItem(topic));
            assertForbidden(as(restricted).queryParam("tenant", other).get(path), other, "admin");
            as(restricted).queryParam("allTenants", "true").get(path).then().statusCode(403)
                    .contentType("application/problem+json").body("detail", containsString("allTenants=true"));
            assertListsOtherTenants(path, list);
        }
        // The served tenants it is shown are its own; the static token sees every served tenant.
        as(restricted).get("/admin/tenants").then().statusCode(200).body("tenants", equalTo(List.of(tenant)));
        as("Bearer " + AdminTest.TOKEN).get("/admin/tenants").then().statusCode(200)
                .body("tenants", hasItem(tenant)).body("tenants", hasItem(other));
        // Tenant-scoped message calls: the own tenant reaches the service (404: no such message), another is 403.
        as(restricted).queryParam("tenant", tenant).queryParam("topic", topic).queryParam("partitionKey", "k")
                .queryParam("id", "none").get("/admin/messages").then().statusCode(404);
        for (String method : List.of("GET", "DELETE")) {
            assertForbidden(as(restricted).queryParam("tenant", other).queryParam("topic", topic)
                    .queryParam("partitionKey", "k").queryParam("id", "m-1").request(method, "/admin/messages"), other, "admin");
        }
        assertForbidden(as(restricted).queryParam("tenant", other).queryParam("topic", topic + ".dlq")
                .queryParam("partitionKey", "k").queryParam("id", "m-1").post("/admin/messages/requeue"), other, "admin");
        // Browsing a topic's messages is tenant-scoped too.
        as(restricted).queryParam("tenant", tenant).queryParam("topic", topic).get("/admin/messages/browse").then()
                .statusCode(200).body("messages.tenant", everyItem(equalTo(tenant))).body("messages", hasSize(1));
        assertForbidden(as(restricted).queryParam("tenant", other).queryParam("topic", topic)
                .get("/admin/messages/browse"), other, "admin");
        // The message of the other tenant is still there for its admin.
        as(grant(other, "admin")).queryParam("tenant", other).queryParam("topic", topic).queryParam("partitionKey", "k")
                .queryParam("id", "m-1").get("/admin/messages").then().statusCode(200);
    }

    /**
     * An unrestricted admin's {@code allTenants=true} listing shows tenants besides {@link #tenant}:
     * {@link #other}'s rows when the listing holds every row. The listing is ordered by tenant and
     * capped at {@code limit} rows, so in a database that other tests filled (the replay's tenants
     * sort before {@code it-00}) its page can end before {@code other}; then its rows of other
     * tenants show it is not restricted either.
     */
    private void assertListsOtherTenants(String path, String list) {
        io.restassured.path.json.JsonPath all = as(TestJwt.bearer(Map.of("*", List.of("admin"))))
                .queryParam("allTenants", "true").queryParam("limit", "10000").get(path).then().statusCode(200)
                .extract().jsonPath();
        List<String> tenants = all.getList(list + ".tenant", String.class);
        if (all.getBoolean("truncated")) {
            assertTrue(tenants.stream().anyMatch(t -> !t.equals(tenant)),
                    path + " with allTenants=true lists other tenants than " + tenant);
        } else {
            assertTrue(tenants.contains(other),
                    path + " with allTenants=true lists " + other);
        }
    }

    @Test
    void deleting_a_topic_or_a_group_needs_the_admin_permission_on_its_tenant() {
        deliveredReceipt(other, topic, group);
        String restricted = grant(tenant, "admin");
        String dataPlane = grant(other, "publish", "consume");
        for (String caller : List.of(restricted, dataPlane)) {
            assertEquals(403, as(caller).queryParam("tenant", other).queryParam("topic", topic).delete("/admin/topics")
                    .then().contentType("application/problem+json").extract().statusCode());
            assertEquals(403, as(caller).queryParam("tenant", other).queryParam("topic", topic)
                    .queryParam("consumerGroup", group).delete("/admin/consumer-groups").then().extract().statusCode());
        }
        assertEquals(1, stored(other, topic), "nothing deleted");
        // Its own tenant's admin reaches the service: nothing of the topic is stored there (404).
        as(restricted).queryParam("tenant", tenant).queryParam("topic", topic).delete("/admin/topics").then()
                .statusCode(404);
    }

    @Test
    void the_admin_api_needs_the_admin_permission_or_the_static_token() {
        String dataPlane = grant(tenant, "publish", "consume");
        as(dataPlane).queryParam("tenant", tenant).get("/admin/topics").then().statusCode(403)
                .contentType("application/problem+json").body("detail", containsString("'admin'"));
        // Refused before the query is even read: no admin on any tenant is 403, not a 400 about parameters.
        as(dataPlane).get("/admin/topics").then().statusCode(403).body("detail", containsString("'admin'"));
        as(null).queryParam("tenant", tenant).get("/admin/topics").then().statusCode(401)
                .header("WWW-Authenticate", startsWith("Bearer realm=\"tenant-mq admin\""));
        assertUnauthorized(as("Bearer wrong-token-0123456789").queryParam("tenant", tenant).get("/admin/topics"),
                "bearer token");
        // The static token keeps working in jwt mode, as an admin of every tenant.
        as("Bearer " + AdminTest.TOKEN).queryParam("allTenants", "true").get("/admin/topics").then().statusCode(200);
        as("Bearer " + AdminTest.TOKEN).queryParam("tenant", other).get("/admin/topics").then().statusCode(200);
    }

    @Test
    void no_token_reaches_a_log_line_even_at_debug() {
        // The service's side only: the test's own HTTP client (org.apache.http) logs its request headers at debug.
        List<String> names = List.of("dev.tenantmq", "io.smallrye", "io.quarkus", "org.jose4j", "io.vertx",
                "org.jboss.resteasy");
        List<Level> before = new ArrayList<>();
        names.forEach(n -> before.add(Logger.getLogger(n).getLevel()));
        List<String> lines = new CopyOnWriteArrayList<>();
        Handler capture = new Handler() {
            @Override
            public void publish(LogRecord r) {
                if (r.getLoggerName() != null && r.getLoggerName().startsWith("org.apache.http")) {
                    return;
                }
                StringWriter text = new StringWriter().append(new SimpleFormatter().formatMessage(r));
                if (r.getThrown() != null) {
                    r.getThrown().printStackTrace(new PrintWriter(text));
                }
                lines.add(r.getLoggerName() + " " + r.getLevel() + " " + text);
            }

            @Override
            public void flush() {}

            @Override
            public void close() {}
        };
        capture.setLevel(Level.ALL);
        names.forEach(n -> Logger.getLogger(n).setLevel(Level.FINEST));
        Logger.getLogger("").addHandler(capture);
        List<String> secrets = new ArrayList<>();
        try {
            String valid = TestJwt.token(Map.of(tenant, List.of("publish", "admin")));
            String expired = TestJwt.claims(Map.of(tenant, List.of("publish"))).issuedAt(Instant.now().minusSeconds(1200))
                    .expiresAt(Instant.now().minusSeconds(600)).sign(TestJwt.privateKey());
            String wrongIssuer = Jwt.issuer("https://someone-else.test").audience(TestJwt.AUDIENCE)
                    .claim("tmq", Map.of(tenant, List.of("publish"))).expiresIn(300).sign(TestJwt.privateKey());
            for (String token : List.of(valid, expired, wrongIssuer)) {
                secrets.add(token.substring(token.lastIndexOf('.') + 1)); // the signature
                publish("Bearer " + token, tenant, topic, "m-1");
                as("Bearer " + token).queryParam("tenant", tenant).get("/admin/topics");
            }
            secrets.add(AdminTest.TOKEN);
            as("Bearer " + AdminTest.TOKEN).queryParam("tenant", tenant).get("/admin/topics").then().statusCode(200);
            as("Bearer " + AdminTest.TOKEN + "-wrong").queryParam("tenant", tenant).get("/admin/topics").then().statusCode(401);
        } finally {
            Logger.getLogger("").removeHandler(capture);
            for (int i = 0; i < names.size(); i++) {
                Logger.getLogger(names.get(i)).setLevel(before.get(i));
            }
        }
        for (String secret : secrets) {
            for (String line : lines) {
                assertFalse(line.contains(secret), "a log line shows a token: " + line);
            }
        }
        assertTrue(secrets.size() == 4);
    }
}
