package dev.tenantmq;

import static dev.tenantmq.Api.ack;
import static dev.tenantmq.Api.fetchOk;
import static dev.tenantmq.Api.msg;
import static dev.tenantmq.Api.publish;
import static dev.tenantmq.Api.publishOk;
import static dev.tenantmq.Delivered.receipts;
import static dev.tenantmq.Fetch.upTo;
import static dev.tenantmq.Waiting.letTimePass;
import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.response.Response;
import java.net.URL;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * Per-tenant quotas (docs/security.md, "Quotas") against the real embedded database: a batch
 * over the publish rate or over a topic's unacknowledged messages gets 429 with
 * {@code Retry-After} as problem+json naming the tenant, the quota and the limit, and nothing of
 * it is stored; acks free room; one tenant flooding leaves another unaffected. Each test has a
 * tenant (or topic) of its own, because buckets and counts outlive a test in the process.
 */
@QuarkusTest
@TestProfile(QuotaTest.SmallQuotas.class)
class QuotaTest {
    private static final String ADMIN_TOKEN = "test-admin-token-0123456789";

    /**
     * Tenants with small quotas: every tenant gets 1000 messages per second by default
     * ({@code q-calm} keeps it); {@code q-rate} 1 per second with a burst of 100; {@code q-unacked}
     * 10 unacknowledged messages per topic; {@code q-flood} 20 per second; {@code q-total} 10 per
     * topic and 15 over all its topics; {@code q-bytes} 100 payload bytes per second with a burst
     * of 5000.
     */
    public static class SmallQuotas implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.ofEntries(
                    Map.entry("mq.tenants", "it-00,q-rate,q-unacked,q-flood,q-calm,q-total,q-bytes"),
                    Map.entry("mq.quota.default.publish-rate", "1000"),
                    Map.entry("mq.quota.tenants.\"q-rate\".publish-rate", "1"),
                    Map.entry("mq.quota.tenants.\"q-rate\".publish-burst", "100"),
                    Map.entry("mq.quota.tenants.\"q-unacked\".max-unacked-per-topic", "10"),
                    Map.entry("mq.quota.tenants.\"q-flood\".publish-rate", "20"),
                    Map.entry("mq.quota.tenants.\"q-total\".max-unacked-per-topic", "10"),
                    Map.entry("mq.quota.tenants.\"q-total\".max-unacked-per-tenant", "15"),
                    Map.entry("mq.quota.tenants.\"q-bytes\".publish-byte-rate", "100"),
                    Map.entry("mq.quota.tenants.\"q-bytes\".publish-byte-burst", "5000"));
        }
    }

    @TestHTTPResource(value = "/metrics", management = true)
    URL metrics;

    @Test
    void a_batch_over_the_publish_rate_gets_429_with_retry_after_and_nothing_of_it_is_stored() {
        String topic = TestIds.topic();
        publishOk("q-rate", topic, batch("ok", 100)); // the whole burst

        Response refused = publish("q-rate", topic, Map.of("messages", batch("over", 50)));

        assertEquals(429, refused.statusCode(), refused.asString());
        assertEquals("application/problem+json", refused.contentType().split(";")[0]);
        assertEquals("urn:tenant-mq:problem:quota-exceeded", refused.jsonPath().getString("type"));
        assertEquals("q-rate", refused.jsonPath().getString("tenant"));
        assertEquals("publish-rate", refused.jsonPath().getString("quota"));
        assertEquals(1, refused.jsonPath().getLong("limit"));
        long retryAfter = Long.parseLong(refused.getHeader("Retry-After"));
        assertTrue(retryAfter >= 1 && retryAfter <= 50, "50 tokens at 1/s come back within 50 s: " + retryAfter);
        assertEquals(100, stored("q-rate", topic), "nothing of the refused batch is stored");

        String text = given().get(metrics).then().statusCode(200).extract().asString();
        // OpenMetrics names the family without _total in its TYPE and HELP lines.
        assertTrue(text.contains("# HELP mq_quota_rejections Publish requests refused with 429"),
                "the counter has a HELP text: " + text.lines().filter(l -> l.contains("mq_quota")).toList());
        assertEquals(1.0, metric(text, "mq_quota_rejections_total{quota=\"publish_rate\",tenant=\"q-rate\"}"));
    }

    @Test
    void a_batch_over_the_publish_byte_rate_gets_429_with_retry_after_and_nothing_of_it_is_stored() {
        String topic = TestIds.topic();
        String kilobyte = "x".repeat(998); // 1000 bytes of JSON text with its quotes
        List<Map<String, Object>> five = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            five.add(msg("k", "ok-" + i, kilobyte));
        }
        publishOk("q-bytes", topic, five); // the whole byte burst

        Response refused = publish("q-bytes", topic, Map.of("messages", List.of(msg("k", "over", kilobyte))));

        assertEquals(429, refused.statusCode(), refused.asString());
        assertEquals("application/problem+json", refused.contentType().split(";")[0]);
        assertEquals("q-bytes", refused.jsonPath().getString("tenant"));
        assertEquals("publish-byte-rate", refused.jsonPath().getString("quota"));
        assertEquals(100, refused.jsonPath().getLong("limit"));
        long retryAfter = Long.parseLong(refused.getHeader("Retry-After"));
        assertTrue(retryAfter >= 1 && retryAfter <= 10, "1000 bytes at 100/s come back within 10 s: " + retryAfter);
        assertEquals(5, stored("q-bytes", topic), "nothing of the refused batch is stored");

        Response tooBig = publish("q-bytes", topic, Map.of("messages", List.of(msg("k", "huge", "x".repeat(5_000)))));
        assertEquals(400, tooBig.statusCode(), tooBig.asString());
        assertEquals("messages", tooBig.jsonPath().getString("errors[0].field"));
        assertTrue(tooBig.jsonPath().getString("errors[0].message").contains("at most 5000 payload bytes"), tooBig.asString());
    }

    @Test
    void a_batch_larger_than_the_burst_gets_400_naming_messages_because_no_retry_could_pass() {
        Response r = publish("q-rate", TestIds.topic(), Map.of("messages", batch("big", 101)));

        assertEquals(400, r.statusCode(), r.asString());
        assertEquals("messages", r.jsonPath().getString("errors[0].field"));
        assertTrue(r.jsonPath().getString("errors[0].message").contains("at most 100"), r.asString());
    }

    @Test
    void a_topic_at_its_unacked_limit_refuses_a_batch_that_does_not_fit_whole() {
        String topic = TestIds.topic();
        publishOk("q-unacked", topic, batch("a", 8));

        Response refused = publish("q-unacked", topic, Map.of("messages", batch("b", 3)));

        assertEquals(429, refused.statusCode(), refused.asString());
        assertEquals("q-unacked", refused.jsonPath().getString("tenant"));
        assertEquals("max-unacked-per-topic", refused.jsonPath().getString("quota"));
        assertEquals(10, refused.jsonPath().getLong("limit"));
        assertEquals("1", refused.getHeader("Retry-After"), "a count refreshes every mq.tick-interval (1 s in tests)");
        assertEquals(8, stored("q-unacked", topic), "nothing of the refused batch is stored");
        publishOk("q-unacked", topic, batch("c", 2)); // 10: what fits is admitted
        assertEquals(429, publish("q-unacked", topic, Map.of("messages", batch("d", 1))).statusCode());
        publishOk("q-unacked", TestIds.topic(), batch("e", 10)); // another topic of the tenant has its own room
    }

    @Test
    void more_topics_do_not_dodge_the_tenant_wide_unacked_limit() {
        String full = TestIds.topic();
        String half = TestIds.topic();
        String third = TestIds.topic();
        publishOk("q-total", full, batch("a", 10)); // the topic's limit
        publishOk("q-total", half, batch("b", 5)); // 15: the tenant's limit

        Response refused = publish("q-total", third, Map.of("messages", batch("c", 1)));

        assertEquals(429, refused.statusCode(), refused.asString());
        assertEquals("application/problem+json", refused.contentType().split(";")[0]);
        assertEquals("urn:tenant-mq:problem:quota-exceeded", refused.jsonPath().getString("type"));
        assertEquals("q-total", refused.jsonPath().getString("tenant"));
        assertEquals("max-unacked-per-tenant", refused.jsonPath().getString("quota"));
        assertEquals(15, refused.jsonPath().getLong("limit"));
        assertEquals("1", refused.getHeader("Retry-After"), "a count refreshes every mq.tick-interval (1 s in tests)");
        assertEquals(0, stored("q-total", third), "nothing of the refused batch is stored");
        String text = given().get(metrics).then().statusCode(200).extract().asString();
        assertEquals(1.0, metric(text, "mq_quota_rejections_total{quota=\"max_unacked_per_tenant\",tenant=\"q-total\"}"));

        // Acking frees the tenant's room within a tick; the refused batch took none of the third topic's.
        fetchUntil("q-total", half, TestIds.group(), 5, true);
        await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(200)).until(() -> {
            int status = publish("q-total", third, Map.of("messages", batch("d", 5))).statusCode();
            assertTrue(status == 201 || status == 429, "status " + status);
            return status == 201;
        });
        assertEquals(5, stored("q-total", third));
    }

    @Test
    void acking_frees_room_for_new_messages() {
        String topic = TestIds.topic();
        String group = TestIds.group();
        publishOk("q-unacked", topic, batch("a", 10));
        assertEquals(429, publish("q-unacked", topic, Map.of("messages", batch("b", 1))).statusCode());

        fetchUntil("q-unacked", topic, group, 10, true);

        // The count refreshes on the next tick: until then the answer stays 429, never anything else.
        await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(200)).until(() -> {
            int status = publish("q-unacked", topic, Map.of("messages", batch("b", 1))).statusCode();
            assertTrue(status == 201 || status == 429, "status " + status);
            return status == 201;
        });
    }

    @Test
    void the_slowest_consumer_group_holds_the_room() {
        String topic = TestIds.topic();
        String fast = TestIds.group();
        String slow = TestIds.group();
        publishOk("q-unacked", topic, batch("a", 10));
        List<Delivered> held = fetchUntil("q-unacked", topic, slow, 10, false); // in flight, never acked
        assertEquals(10, held.size());
        fetchUntil("q-unacked", topic, fast, 10, true);

        // Let the refresh that would count the fast group's acks run (a tick is 1 s in tests):
        // the slow group has acknowledged nothing, so the topic stays full.
        List<Integer> statuses = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            letTimePass(Duration.ofSeconds(1), "one mq.tick-interval: the count refreshes");
            statuses.add(publish("q-unacked", topic, Map.of("messages", batch("b" + i, 1))).statusCode());
        }
        assertEquals(List.of(429, 429, 429), statuses);
    }

    @Test
    void one_tenant_flooding_leaves_another_publishing_and_consuming_in_order_without_a_429() throws Exception {
        String floodTopic = TestIds.topic();
        String calmTopic = TestIds.topic();
        String group = TestIds.group();
        int calmMessages = 60;
        AtomicBoolean calmDone = new AtomicBoolean();
        ConcurrentLinkedQueue<Integer> floodStatuses = new ConcurrentLinkedQueue<>();
        ExecutorService pool = Executors.newFixedThreadPool(6);
        try {
            List<Future<?>> flooders = new ArrayList<>();
            for (int f = 0; f < 4; f++) {
                int flooder = f;
                flooders.add(pool.submit(() -> {
                    for (int i = 0; !calmDone.get() || i < 5; i++) {
                        floodStatuses.add(publish("q-flood", floodTopic,
                                Map.of("messages", batch("f" + flooder + "-" + i + "-", 10))).statusCode());
                    }
                }));
            }
            Future<List<Delivered>> consumer =
                    pool.submit(() -> fetchUntil("q-calm", calmTopic, group, calmMessages, true));
            List<Integer> calmStatuses = new ArrayList<>();
            for (int i = 0; i < calmMessages; i++) {
                calmStatuses.add(publish("q-calm", calmTopic,
                        Map.of("messages", List.of(msg("calm", String.format("c-%03d", i), i)))).statusCode());
            }
            calmDone.set(true);
            assertEquals(Collections.nCopies(calmMessages, 201), calmStatuses, "the calm tenant never sees a 429");
            List<Delivered> received = consumer.get(3, TimeUnit.MINUTES);
            for (Future<?> f : flooders) {
                f.get(3, TimeUnit.MINUTES);
            }

            assertEquals(IntStream.range(0, calmMessages).mapToObj(i -> String.format("c-%03d", i)).toList(),
                    Delivered.ids(received), "everything, in order");
            assertTrue(floodStatuses.stream().allMatch(s -> s == 201 || s == 429), "flood: " + floodStatuses);
            long admitted = floodStatuses.stream().filter(s -> s == 201).count();
            assertTrue(floodStatuses.contains(429), "the flooding tenant was refused: " + floodStatuses);
            assertEquals(admitted * 10, stored("q-flood", floodTopic), "only the admitted batches are stored, whole");
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * Fetches until {@code n} messages arrived, acking each response when {@code ack}; returns
     * them in arrival order. The first fetch registers the group.
     */
    private static List<Delivered> fetchUntil(String tenant, String topic, String group, int n, boolean ack) {
        List<Delivered> got = new ArrayList<>();
        // A generous bound, not a speed target: the consumer runs beside four flooders and the
        // calm tenant's 60 single publishes, which take minutes on a loaded 2-core machine.
        await().atMost(Duration.ofMinutes(3)).until(() -> {
            List<Delivered> batch = fetchOk(tenant, topic, group, upTo(n - got.size()).waitSeconds(1).visibilitySeconds(60));
            if (ack && !batch.isEmpty()) {
                assertTrue(ack(tenant, topic, group, receipts(batch)).stream().allMatch("ACKED"::equals));
            }
            got.addAll(batch);
            return got.size() >= n;
        });
        return got;
    }

    private static List<Map<String, Object>> batch(String idPrefix, int n) {
        return IntStream.range(0, n).mapToObj(i -> msg("k" + (i % 3), idPrefix + i, Map.of("n", i))).toList();
    }

    /** Messages stored in (tenant, topic), by the admin API's topic listing. */
    private static long stored(String tenant, String topic) {
        List<Map<String, Object>> topics = given().header("Authorization", "Bearer " + ADMIN_TOKEN)
                .queryParam("tenant", tenant).get("/admin/topics").then().statusCode(200).extract().jsonPath()
                .getList("topics");
        return topics.stream().filter(t -> topic.equals(t.get("topic")))
                .mapToLong(t -> ((Number) t.get("messages")).longValue()).sum();
    }

    private static double metric(String text, String series) {
        String line = text.lines().filter(l -> l.startsWith(series + " ")).findFirst().orElse(null);
        assertNotNull(line, series + " is not on /q/metrics");
        return Double.parseDouble(line.substring(series.length() + 1));
    }
}
