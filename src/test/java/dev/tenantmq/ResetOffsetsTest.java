package dev.tenantmq;

import static dev.tenantmq.Api.ack;
import static dev.tenantmq.Api.fetchOk;
import static dev.tenantmq.Api.msg;
import static dev.tenantmq.Api.publishOk;
import static dev.tenantmq.Delivered.ids;
import static dev.tenantmq.Delivered.offsets;
import static dev.tenantmq.Delivered.receipts;
import static dev.tenantmq.Fetch.upTo;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.hasItem;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tenantmq.scheduler.RetentionJob;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.restassured.specification.RequestSpecification;
import jakarta.inject.Inject;
import java.net.URI;
import java.net.URL;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Replay (docs/operations.md, "Replay: resetting a group's offsets"): {@code POST
 * /admin/consumer-groups/reset-offsets} moves a group's committed offsets to the earliest stored
 * message, the latest, an offset or a time; the receipts the group had in flight answer STALE
 * afterwards, and the next fetch delivers in offset order from the new position.
 */
@QuarkusTest
class ResetOffsetsTest {
    private static final Duration WEEK = Duration.ofDays(7);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final String tenant = TestIds.tenant();
    private final String topic = TestIds.topic();
    private final String group = TestIds.group();

    @Inject
    RetentionJob retention;

    @Inject
    io.agroal.api.AgroalDataSource dataSource;

    @TestHTTPResource("/")
    URL base;

    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @Test
    void to_earliest_delivers_every_stored_message_again_in_order_and_fences_the_old_receipts() {
        List<Long> stored = publishOk(tenant, topic, List.of(msg("k", "a", 1), msg("k", "b", 2), msg("k", "c", 3)))
                .offsets();
        List<Delivered> first = fetchOk(tenant, topic, group, upTo(10));
        assertEquals(List.of("a", "b", "c"), ids(first));
        assertEquals(List.of("ACKED"), ack(tenant, topic, group, receipts(first.subList(0, 1))));

        long epochBefore = leaseEpoch();
        JsonPath answer = reset(Map.of("to", "earliest"));
        assertEquals("earliest", answer.getString("to"));
        assertFalse(answer.getBoolean("dryRun"));
        assertEquals(1, answer.getList("partitions").size());
        assertEquals(stored.get(0), answer.getLong("partitions[0].fromOffset"));
        assertEquals(stored.get(0) - 1, answer.getLong("partitions[0].toOffset"));
        assertEquals(stored.get(0), answer.getLong("partitions[0].nextOffset"));
        assertEquals(stored.get(0), answer.getLong("partitions[0].earliestOffset"));
        assertEquals(stored.get(2), answer.getLong("partitions[0].latestOffset"));

        assertEquals(epochBefore + 1, leaseEpoch(), "the reset bumps the lease epoch: old receipts are fenced");
        assertEquals(List.of("STALE", "STALE"), ack(tenant, topic, group, receipts(first.subList(1, 3))),
                "the deliveries in flight before the reset are fenced");
        List<Delivered> again = fetchOk(tenant, topic, group, upTo(10));
        assertEquals(List.of("a", "b", "c"), ids(again), "from the earliest stored message, in offset order");
        assertEquals(stored, offsets(again));
        assertEquals(List.of("ACKED", "ACKED", "ACKED"), ack(tenant, topic, group, receipts(again)));
    }

    @Test
    void a_reset_clears_retries_hand_backs_and_dead_letters_above_the_new_position() {
        publishOk(tenant, topic, List.of(msg("k", "poison", 1), msg("k", "b", 2), msg("k", "c", 3)));
        for (int attempt = 1; attempt <= 5; attempt++) { // mq.max-deliveries: the fifth nack dead-letters it
            List<Delivered> got = fetchOk(tenant, topic, group, upTo(1));
            assertEquals(List.of("poison"), ids(got), "attempt " + attempt);
            assertEquals(List.of("NACKED"), Api.nack(tenant, topic, group, receipts(got), 0, "test"));
        }
        List<Delivered> rest = fetchOk(tenant, topic, group, upTo(10));
        assertEquals(List.of("b", "c"), ids(rest));
        // b waits in a retry an hour away; c is handed back behind it: the partition is held.
        assertEquals(List.of("NACKED"), Api.nack(tenant, topic, group, receipts(rest.subList(0, 1)), 3600, "later"));
        assertEquals(List.of(), ids(fetchOk(tenant, topic, group, upTo(10).waitSeconds(0))));

        reset(Map.of("to", "earliest"));
        assertEquals(List.of("poison", "b", "c"), ids(fetchOk(tenant, topic, group, upTo(10))),
                "the dead letter, the retry and the hand-back are forgotten: the group starts over");
    }

    @Test
    void to_latest_skips_every_stored_message_and_delivers_what_is_published_after() {
        List<Long> stored = publishOk(tenant, topic, List.of(msg("k", "a", 1), msg("k", "b", 2))).offsets();
        List<Delivered> first = fetchOk(tenant, topic, group, upTo(1));
        assertEquals(List.of("a"), ids(first));

        JsonPath answer = reset(Map.of("to", "latest"));
        assertEquals(stored.get(1), answer.getLong("partitions[0].toOffset"));
        assertNull(answer.get("partitions[0].nextOffset"), "nothing stored above the latest offset");

        assertEquals(List.of("STALE"), ack(tenant, topic, group, receipts(first)));
        assertEquals(List.of(), ids(fetchOk(tenant, topic, group, upTo(10).waitSeconds(0))));
        publishOk(tenant, topic, List.of(msg("k", "c", 3)));
        assertEquals(List.of("c"), ids(fetchOk(tenant, topic, group, upTo(10))));
    }

    @Test
    void to_offset_n_makes_n_the_next_message_delivered() {
        List<Long> stored = publishOk(tenant, topic, List.of(msg("k", "a", 1), msg("k", "b", 2), msg("k", "c", 3),
                msg("k", "d", 4))).offsets();
        consumeAll(4);

        JsonPath answer = reset(Map.of("to", "offset", "toOffset", String.valueOf(stored.get(2))));
        assertEquals(stored.get(3), answer.getLong("partitions[0].fromOffset"));
        assertEquals(stored.get(2) - 1, answer.getLong("partitions[0].toOffset"));
        assertEquals(stored.get(2), answer.getLong("partitions[0].nextOffset"));
        assertFalse(answer.getBoolean("partitions[0].beforeEarliest"));
        assertEquals(List.of("c", "d"), ids(fetchOk(tenant, topic, group, upTo(10))));
    }

    @Test
    void to_an_offset_beyond_the_head_is_clamped_to_the_latest() {
        List<Long> stored = publishOk(tenant, topic, List.of(msg("k", "a", 1))).offsets();
        consumeAll(1);
        JsonPath answer = reset(Map.of("to", "offset", "toOffset", String.valueOf(Long.MAX_VALUE)));
        assertEquals(stored.get(0), answer.getLong("partitions[0].toOffset"), "never above the head");
        publishOk(tenant, topic, List.of(msg("k", "b", 2)));
        assertEquals(List.of("b"), ids(fetchOk(tenant, topic, group, upTo(10))),
                "a message published after the reset is delivered");
    }

    @Test
    void to_datetime_starts_at_the_first_message_published_at_or_after_it() {
        List<String> names = new ArrayList<>();
        List<Long> stored = new ArrayList<>();
        for (int i = 0; i < 20; i++) { // one request each: increasing publish times, a search over 20 offsets
            names.add("m" + i);
            stored.add(publishOk(tenant, topic, List.of(msg("k", "m" + i, i))).offset(0));
        }
        consumeAll(20);
        Instant t12 = createdAt("k", "m12");
        Instant t11 = createdAt("k", "m11");
        assertTrue(t11.isBefore(t12), "publish times increase: " + t11 + " " + t12);

        JsonPath exact = reset(Map.of("to", "datetime", "toDatetime", t12.toString()));
        assertEquals(stored.get(12) - 1, exact.getLong("partitions[0].toOffset"));
        assertEquals(stored.get(12), exact.getLong("partitions[0].nextOffset"));
        assertEquals(names.subList(12, 20), ids(fetchOk(tenant, topic, group, upTo(20))));

        JsonPath between = reset(Map.of("to", "datetime", "toDatetime", t11.plusNanos(1000).toString(),
                "dryRun", "true"));
        assertEquals(stored.get(12), between.getLong("partitions[0].nextOffset"), "the first at or after the time");

        JsonPath before = reset(Map.of("to", "datetime", "toDatetime", "2000-01-01T00:00:00Z", "dryRun", "true"));
        assertEquals(stored.get(0), before.getLong("partitions[0].nextOffset"));
        assertTrue(before.getBoolean("partitions[0].beforeEarliest"));

        JsonPath after = reset(Map.of("to", "datetime", "toDatetime", "2999-01-01T00:00:00+02:00", "dryRun", "true"));
        assertEquals(stored.get(19), after.getLong("partitions[0].toOffset"), "nothing that late: the latest");
        assertNull(after.get("partitions[0].nextOffset"));
    }

    @Test
    void a_partition_key_resets_that_partition_only() {
        List<Long> stored = publishOk(tenant, topic, List.of(msg("k1", "a", 1), msg("k2", "b", 2))).offsets();
        consumeAll(2);

        JsonPath one = reset(Map.of("to", "earliest", "partitionKey", "k1"));
        assertEquals(List.of("k1"), one.getList("partitions.partitionKey"));
        assertEquals(List.of("a"), ids(fetchOk(tenant, topic, group, upTo(10))), "k2 stays where it was");

        JsonPath all = reset(Map.of("to", "earliest"));
        assertEquals(List.of("k1", "k2"), all.getList("partitions.partitionKey"));
        assertEquals(stored.get(1) - 1, all.getLong("partitions[1].toOffset"));
    }

    @Test
    void a_dry_run_answers_the_move_and_changes_nothing() {
        List<Long> stored = publishOk(tenant, topic, List.of(msg("k", "a", 1), msg("k", "b", 2))).offsets();
        List<Delivered> first = fetchOk(tenant, topic, group, upTo(10));
        assertEquals(List.of("ACKED"), ack(tenant, topic, group, receipts(first.subList(0, 1))));

        JsonPath answer = reset(Map.of("to", "earliest", "dryRun", "true"));
        assertTrue(answer.getBoolean("dryRun"));
        assertEquals(stored.get(0), answer.getLong("partitions[0].fromOffset"));
        assertEquals(stored.get(0) - 1, answer.getLong("partitions[0].toOffset"));

        assertEquals(List.of("ACKED"), ack(tenant, topic, group, receipts(first.subList(1, 2))),
                "the receipt in flight is still current");
        assertEquals(List.of(), ids(fetchOk(tenant, topic, group, upTo(10).waitSeconds(0))), "nothing redelivered");
        JsonPath offsets = given().header("Authorization", "Bearer " + AdminTest.TOKEN).queryParam("tenant", tenant)
                .queryParam("topic", topic).queryParam("consumerGroup", group)
                .get("/admin/offsets").then().statusCode(200).extract().jsonPath();
        assertEquals(stored.get(1), offsets.getLong("offsets[0].committedOffset"));
    }

    @Test
    void messages_deleted_by_retention_cannot_be_replayed_and_the_answer_says_how_far_back_it_can_go() {
        List<Long> stored = publishOk(tenant, topic, List.of(msg("k", "a", 1), msg("k", "b", 2), msg("k", "c", 3)))
                .offsets();
        List<Delivered> first = fetchOk(tenant, topic, group, upTo(2));
        assertEquals(List.of("ACKED", "ACKED"), ack(tenant, topic, group, receipts(first)));
        assertTrue(retention.purgeTenant(tenant, WEEK) >= 2, "retention deleted a and b");
        Instant cAt = createdAt("k", "c");

        JsonPath answer = reset(Map.of("to", "offset", "toOffset", String.valueOf(stored.get(0))));
        assertTrue(answer.getBoolean("partitions[0].beforeEarliest"));
        assertEquals(stored.get(2), answer.getLong("partitions[0].earliestOffset"));
        assertEquals(cAt, Instant.parse(answer.getString("partitions[0].earliestCreatedAt")));
        assertEquals(stored.get(2) - 1, answer.getLong("partitions[0].toOffset"));
        assertEquals(List.of("c"), ids(fetchOk(tenant, topic, group, upTo(10))));
    }

    /**
     * A partition whose messages retention deleted stores nothing to replay: every target, dry run
     * or not, leaves the group at the head and answers beforeEarliest false (there is no earliest
     * stored message to lie before), with earliestOffset and nextOffset null.
     */
    @Test
    void every_target_on_a_partition_retention_emptied_answers_alike_and_not_before_earliest() {
        List<Long> stored = publishOk(tenant, topic, List.of(msg("k", "a", 1), msg("k", "b", 2))).offsets();
        consumeAll(2);
        assertTrue(retention.purgeTenant(tenant, WEEK) >= 2, "retention deleted both");
        long head = stored.get(1);

        List<Map<String, String>> targets = List.of(Map.of("to", "earliest"), Map.of("to", "latest"),
                Map.of("to", "offset", "toOffset", String.valueOf(stored.get(0))),
                Map.of("to", "offset", "toOffset", "1"),
                Map.of("to", "datetime", "toDatetime", "2000-01-01T00:00:00Z"));
        for (String dryRun : List.of("true", "false")) {
            for (Map<String, String> target : targets) {
                Map<String, String> params = new LinkedHashMap<>(target);
                params.put("dryRun", dryRun);
                JsonPath answer = reset(params);
                String row = "dryRun " + dryRun + ", " + target + ": " + answer.prettify();
                assertFalse(answer.getBoolean("partitions[0].beforeEarliest"), row);
                assertEquals(head, answer.getLong("partitions[0].toOffset"), row);
                assertNull(answer.get("partitions[0].earliestOffset"), row);
                assertNull(answer.get("partitions[0].nextOffset"), row);
                assertEquals(head, answer.getLong("partitions[0].latestOffset"), row);
            }
        }
    }

    /**
     * toDatetime is read as deliverAt is (docs/api.md, "Delayed delivery"): a time that does not
     * exist says so, and one outside the years the database stores is refused, not clamped to
     * the earliest or the latest message; nothing moves.
     */
    @Test
    void a_to_datetime_is_held_to_the_rules_of_deliver_at_and_nothing_moves() {
        List<Long> stored = publishOk(tenant, topic, List.of(msg("k", "a", 1))).offsets();
        consumeAll(1);
        Map<String, String> refused = new LinkedHashMap<>();
        refused.put("2026-02-30T01:00:00Z", "names a date that does not exist: February 2026 has days 01 to 28");
        refused.put("0001-01-01T00:00:00Z", "must be in the years 1000 to 9999 (UTC), the times the database stores");
        refused.put("+10000-01-01T00:00:00Z", "must be in the years 1000 to 9999 (UTC), the times the database stores");
        refused.put("9999-12-31T23:00:00-05:00", "must be in the years 1000 to 9999 (UTC), the times the database stores");
        for (Map.Entry<String, String> e : refused.entrySet()) {
            String message = e.getValue() + " (got " + e.getKey() + ")";
            admin().queryParams(scope(Map.of("to", "datetime", "toDatetime", e.getKey())))
                    .post("/admin/consumer-groups/reset-offsets").then().statusCode(400)
                    .body("errors[0].field", org.hamcrest.Matchers.equalTo("toDatetime"))
                    .body("errors[0].message", org.hamcrest.Matchers.equalTo(message));
        }
        assertEquals(List.of(), fetchOk(tenant, topic, group, upTo(1)), "the committed offset did not move");
        JsonPath last = reset(Map.of("to", "datetime", "toDatetime", "9999-12-31T23:59:59Z", "dryRun", "true"));
        assertEquals(stored.get(0), last.getLong("partitions[0].toOffset"), "the last time stored is taken");
    }

    @Test
    void bad_parameters_are_400_naming_the_field() {
        publishOk(tenant, topic, List.of(msg("k", "a", 1)));
        consumeAll(1);
        bad(Map.of(), "to");
        bad(Map.of("to", "beginning"), "to");
        bad(Map.of("to", "offset"), "toOffset");
        bad(Map.of("to", "offset", "toOffset", "0"), "toOffset");
        bad(Map.of("to", "offset", "toOffset", "x"), "toOffset");
        bad(Map.of("to", "latest", "toOffset", "3"), "toOffset");
        bad(Map.of("to", "datetime"), "toDatetime");
        bad(Map.of("to", "datetime", "toDatetime", "yesterday"), "toDatetime");
        bad(Map.of("to", "earliest", "toDatetime", "2026-01-01T00:00:00Z"), "toDatetime");
        bad(Map.of("to", "earliest", "dryRun", "yes"), "dryRun");
        bad(Map.of("to", "earliest", "partitionKey", ""), "partitionKey");
        bad(Map.of("to", "earliest", "execute", "true"), "execute");
        given().header("Authorization", "Bearer " + AdminTest.TOKEN).queryParam("topic", topic)
                .queryParam("consumerGroup", group).queryParam("to", "earliest")
                .post("/admin/consumer-groups/reset-offsets").then().statusCode(400)
                .body("errors.field", hasItem("tenant"));
    }

    @Test
    void a_group_without_a_committed_offset_on_the_topic_is_404_and_no_token_is_401() {
        publishOk(tenant, topic, List.of(msg("k", "a", 1)));
        admin().queryParam("tenant", tenant).queryParam("topic", topic).queryParam("consumerGroup", TestIds.group())
                .queryParam("to", "earliest").post("/admin/consumer-groups/reset-offsets").then().statusCode(404)
                .body("detail", containsString("no committed offset"));
        given().queryParam("tenant", tenant).queryParam("topic", topic).queryParam("consumerGroup", group)
                .queryParam("to", "earliest").post("/admin/consumer-groups/reset-offsets").then().statusCode(401);
    }

    /**
     * A fetch and an ack of the group race a reset to earliest, round after round, over several
     * partitions (docs/operations.md, "What the move does to a running group"): all three lock the
     * partitions' lease rows first, in key order, so they serialize without a deadlock reaching a
     * client (every call answers 200), the ack lands wholly before or wholly after the reset, every
     * receipt issued before the reset answers STALE after it, and afterwards the group still gets
     * every message, each partition in offset order.
     */
    @Test
    void a_fetch_and_an_ack_racing_a_reset_serialize_with_it_and_lose_nothing() throws Exception {
        List<String> keys = List.of("k0", "k1", "k2", "k3", "k4", "k5");
        List<Map<String, Object>> messages = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            messages.add(msg(keys.get(i % keys.size()), "m" + i, i));
        }
        publishOk(tenant, topic, messages);
        Set<String> published = messages.stream().map(m -> (String) m.get("id")).collect(Collectors.toSet());
        // Everything in flight first; the leases come with the scheduler's ticks.
        List<Delivered> held = new ArrayList<>();
        await("all 30 in flight").atMost(Duration.ofSeconds(60)).until(() -> {
            held.addAll(fetch(0).messages());
            return held.size() == published.size();
        });

        ExecutorService racers = Executors.newFixedThreadPool(3);
        try {
            for (int round = 0; round < 5; round++) {
                List<String> ackedInRace = receipts(held.subList(0, held.size() / 2));
                List<String> heldBack = receipts(held.subList(held.size() / 2, held.size()));
                CyclicBarrier start = new CyclicBarrier(3);
                Future<HttpResponse<String>> ackCall = racers.submit(() -> {
                    start.await(30, TimeUnit.SECONDS);
                    return post(path("/ack"), Map.of("receipts", ackedInRace), false);
                });
                Future<HttpResponse<String>> fetchCall = racers.submit(() -> {
                    start.await(30, TimeUnit.SECONDS);
                    return post(path("/fetch"), Map.of("maxMessages", 100, "waitSeconds", 0,
                            "visibilitySeconds", 600), false);
                });
                Future<HttpResponse<String>> resetCall = racers.submit(() -> {
                    start.await(30, TimeUnit.SECONDS);
                    return post("/admin/consumer-groups/reset-offsets?" + query(scope(Map.of("to", "earliest"))),
                            null, true);
                });
                String r = "round " + round + ": ";
                HttpResponse<String> acked = ok(r + "ack", ackCall);
                HttpResponse<String> fetched = ok(r + "fetch", fetchCall);
                HttpResponse<String> moved = ok(r + "reset", resetCall);
                assertEquals(keys.size(), JsonPath.from(moved.body()).getList("partitions").size(), r + moved.body());

                Set<String> statuses = new HashSet<>(JsonPath.from(acked.body()).getList("results.status"));
                assertTrue(statuses.equals(Set.of("ACKED")) || statuses.equals(Set.of("STALE")),
                        r + "the ack ran wholly before or wholly after the reset: " + acked.body());
                assertEquals(heldBack.stream().map(x -> "STALE").toList(), ack(tenant, topic, group, heldBack),
                        r + "every receipt from before the reset is fenced");

                // The racing fetch got everything (it ran after the reset) or nothing (before it: all was
                // in flight); the rest comes now, each message once, under the epoch of this reset.
                held.clear();
                held.addAll(JSON.readValue(fetched.body(), Api.FetchAnswer.class).messages());
                await(r + "all 30 in flight again").atMost(Duration.ofSeconds(60)).until(() -> {
                    held.addAll(fetch(0).messages());
                    return held.size() >= published.size();
                });
            }
        } finally {
            racers.shutdownNow();
        }

        // Nothing lost: after the last reset the group holds every message once, each partition in
        // offset order, and every receipt of it acks.
        assertEquals(published, held.stream().map(Delivered::id).collect(Collectors.toSet()));
        assertEquals(published.size(), held.size(), "each message once: " + ids(held));
        Map<String, Long> lastOffset = new HashMap<>();
        for (Delivered d : held) {
            Long prev = lastOffset.put(d.partitionKey(), d.offset());
            assertTrue(prev == null || prev < d.offset(), d.partitionKey() + ": " + d.offset() + " after " + prev);
        }
        assertEquals(held.stream().map(d -> "ACKED").toList(), ack(tenant, topic, group, receipts(held)));
        assertEquals(List.of(), ids(fetch(0).messages()), "nothing more to deliver");
    }

    /** A fetch of up to 100 messages, visible again only after 600 s (longer than the test). */
    private Api.FetchAnswer fetch(int waitSeconds) throws Exception {
        HttpResponse<String> r = post(path("/fetch"), Map.of("maxMessages", 100, "waitSeconds", waitSeconds,
                "visibilitySeconds", 600), false);
        assertEquals(200, r.statusCode(), r.body());
        return JSON.readValue(r.body(), Api.FetchAnswer.class);
    }

    /** The consumer group's path, {@code /tenants/t/topics/x/consumer-groups/g} and {@code suffix}. */
    private String path(String suffix) {
        return "/tenants/" + tenant + "/topics/" + topic + "/consumer-groups/" + group + suffix;
    }

    /** A POST from any thread (REST Assured's static set-up is not meant for several). */
    private HttpResponse<String> post(String path, Object body, boolean asAdmin) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base.toString()).resolve(path))
                .timeout(Duration.ofSeconds(60));
        if (asAdmin) {
            request.header("Authorization", "Bearer " + AdminTest.TOKEN);
        }
        if (body == null) {
            request.POST(HttpRequest.BodyPublishers.noBody());
        } else {
            request.header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body)));
        }
        return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static String query(Map<String, String> params) {
        return params.entrySet().stream().map(e -> e.getKey() + "=" + URLEncoder.encode(e.getValue(), StandardCharsets.UTF_8))
                .collect(Collectors.joining("&"));
    }

    /** The racer's answer, which must be 200: a deadlock or lock-wait time-out must never reach the client. */
    private static HttpResponse<String> ok(String what, Future<HttpResponse<String>> call) throws Exception {
        HttpResponse<String> r = call.get(120, TimeUnit.SECONDS);
        assertEquals(200, r.statusCode(), what + ": " + r.body());
        return r;
    }

    /**
     * The epoch of the group's lease of partition k, read by its primary key. Not from the
     * /admin/leases listing: the test tenants are shared, and a listing holds the first 1000 rows
     * of the tenant in group order, so another test's group with more leases may fill it.
     */
    private long leaseEpoch() {
        try (java.sql.Connection c = dataSource.getConnection(); java.sql.PreparedStatement ps = c.prepareStatement(
                "SELECT epoch FROM queue_partition_leases WHERE tenant = ? AND consumer_group = ? AND topic = ?"
                        + " AND partition_key = 'k'")) {
            ps.setString(1, tenant);
            ps.setString(2, group);
            ps.setString(3, topic);
            try (java.sql.ResultSet rs = ps.executeQuery()) {
                assertTrue(rs.next(), "no lease of k");
                return rs.getLong(1);
            }
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Fetches and acks {@code n} messages in one fetch. */
    private void consumeAll(int n) {
        List<Delivered> got = fetchOk(tenant, topic, group, upTo(n));
        assertEquals(n, got.size());
        List<String> acked = new ArrayList<>();
        got.forEach(d -> acked.add("ACKED"));
        assertEquals(acked, ack(tenant, topic, group, receipts(got)));
    }

    private static RequestSpecification admin() {
        return given().header("Authorization", "Bearer " + AdminTest.TOKEN);
    }

    private JsonPath reset(Map<String, String> params) {
        return admin().queryParams(scope(params)).post("/admin/consumer-groups/reset-offsets").then().statusCode(200)
                .extract().jsonPath();
    }

    private void bad(Map<String, String> params, String field) {
        admin().queryParams(scope(params)).post("/admin/consumer-groups/reset-offsets").then().statusCode(400)
                .body("errors.field", hasItem(field));
    }

    private Map<String, String> scope(Map<String, String> params) {
        Map<String, String> all = new LinkedHashMap<>();
        all.put("tenant", tenant);
        all.put("topic", topic);
        all.put("consumerGroup", group);
        all.putAll(params);
        return all;
    }

    private Instant createdAt(String key, String id) {
        return Instant.parse(admin().queryParam("tenant", tenant).queryParam("topic", topic)
                .queryParam("partitionKey", key).queryParam("id", id).get("/admin/messages").then().statusCode(200)
                .extract().jsonPath().getString("createdAt"));
    }
}
