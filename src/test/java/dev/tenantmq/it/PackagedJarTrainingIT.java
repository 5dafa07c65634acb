package dev.tenantmq.it;

import static dev.tenantmq.Api.ack;
import static dev.tenantmq.Api.fetchOk;
import static dev.tenantmq.Api.msg;
import static dev.tenantmq.Api.nack;
import static dev.tenantmq.Api.publishOk;
import static dev.tenantmq.Delivered.ids;
import static dev.tenantmq.Delivered.receipts;
import static dev.tenantmq.Fetch.upTo;
import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tenantmq.Delivered;
import dev.tenantmq.Published;
import dev.tenantmq.TestIds;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusIntegrationTest;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import io.restassured.specification.RequestSpecification;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The packaged jar ({@code target/quarkus-app}, started by Quarkus in the prod profile) used
 * through its HTTP API the way a sidecar's application uses it: single and batch publishes,
 * long-poll fetches, extend, ack, nack into the dead-letter topic, an admin requeue and the
 * admin listings (SPEC section 4).
 *
 * <p>It is also the JDK AOT cache's training workload (docs/deployment.md, "JVM start-up for sidecars"): with
 * {@code quarkus.package.jar.aot.enabled=true} on JDK 25 ({@code ./mvnw verify -Paot}), Quarkus
 * starts the jar with {@code -XX:AOTMode=record} for this test and assembles
 * {@code target/quarkus-app/app.aot} when it stops it. On JDK 17 it is a plain test.
 */
@QuarkusIntegrationTest
@WithTestResource(PackagedJarResource.class)
class PackagedJarTrainingIT {
    private static final int PARTITIONS = 8;
    private static final int SINGLE_PUBLISHES = 100;
    private static final int BATCHES = 4;
    private static final int BATCH_SIZE = 50;
    private static final int MESSAGES = SINGLE_PUBLISHES + BATCHES * BATCH_SIZE;
    private static final Duration CONSUME_LIMIT = Duration.ofSeconds(60);

    private final String tenant = TestIds.tenant();

    @Test
    void three_hundred_messages_are_published_then_long_polled_extended_and_acked_once_each_in_partition_order() {
        String topic = TestIds.topic();
        String group = TestIds.group();
        Map<String, Integer> payloadById = new HashMap<>();
        Map<String, Long> offsetById = new HashMap<>();
        for (int i = 0; i < SINGLE_PUBLISHES; i++) {
            String id = "s" + i;
            Published published = publishOk(tenant, topic, List.of(msg("k" + (i % PARTITIONS), id, Map.of("n", i))));
            assertEquals(List.of(false), published.duplicates());
            payloadById.put(id, i);
            offsetById.put(id, published.offset(0));
        }
        for (int b = 0; b < BATCHES; b++) {
            List<Map<String, Object>> batch = new ArrayList<>();
            for (int j = 0; j < BATCH_SIZE; j++) {
                int n = SINGLE_PUBLISHES + b * BATCH_SIZE + j;
                batch.add(msg("k" + (n % PARTITIONS), "b" + n, Map.of("n", n)));
                payloadById.put("b" + n, n);
            }
            Published published = publishOk(tenant, topic, batch);
            List<String> ids = published.ids();
            List<Long> offsets = published.offsets();
            assertEquals(BATCH_SIZE, ids.size());
            assertFalse(published.duplicates().contains(true));
            for (int j = 0; j < ids.size(); j++) {
                offsetById.put(ids.get(j), offsets.get(j));
            }
        }
        assertEquals(MESSAGES, new HashSet<>(offsetById.values()).size(), "every message has an offset of its own");
        Published again = publishOk(tenant, topic, List.of(msg("k0", "s0", Map.of("n", 0))));
        assertEquals(List.of(true), again.duplicates(), "a retried publish is a duplicate");
        assertEquals(offsetById.get("s0"), again.offset(0));

        Set<String> acked = new HashSet<>();
        Map<String, Long> lastOffsetByKey = new HashMap<>();
        List<String> firstReceipt = new ArrayList<>();
        await().atMost(CONSUME_LIMIT).pollInterval(Duration.ZERO).until(() -> {
            List<Delivered> got = fetchOk(tenant, topic, group, upTo(BATCH_SIZE));
            for (Delivered m : got) {
                String id = m.id();
                String key = m.partitionKey();
                long offset = m.offset();
                assertEquals(offsetById.get(id), offset, id);
                assertEquals(Map.of("n", payloadById.get(id)), m.payload(), id);
                assertEquals(1, m.deliveryAttempt(), id + " is delivered once, never again after its ack");
                Long previous = lastOffsetByKey.put(key, offset);
                assertTrue(previous == null || previous < offset, key + ": " + offset + " after " + previous);
            }
            if (!got.isEmpty()) {
                List<String> receipts = receipts(got);
                assertEquals(statuses("EXTENDED", got.size()), extend(topic, group, receipts, 60));
                assertEquals(statuses("ACKED", got.size()), ack(tenant, topic, group, receipts));
                got.forEach(m -> assertTrue(acked.add(m.id()), m.id() + " acked twice"));
                if (firstReceipt.isEmpty()) {
                    firstReceipt.add(receipts.get(0));
                }
            }
            return acked.size() == MESSAGES;
        });
        assertEquals(payloadById.keySet(), acked);
        assertEquals(List.of("ALREADY_ACKED"), ack(tenant, topic, group, firstReceipt));
        assertEquals(List.of(), fetchOk(tenant, topic, group, upTo(BATCH_SIZE).waitSeconds(0)));

        List<Map<String, Object>> topics = admin().queryParam("tenant", tenant).get("/admin/topics")
                .then().statusCode(200).extract().jsonPath().getList("topics.findAll { it.topic == '" + topic + "' }");
        assertEquals(1, topics.size());
        assertEquals(PARTITIONS, topics.get(0).get("partitions"));
        assertEquals(MESSAGES, topics.get(0).get("messages"));
        JsonPath offsets = admin().queryParam("tenant", tenant).queryParam("topic", topic).queryParam("consumerGroup", group)
                .get("/admin/offsets").then().statusCode(200).extract().jsonPath();
        assertEquals(PARTITIONS, offsets.getList("offsets").size());
        assertEquals(statuses(0, PARTITIONS), offsets.getList("offsets.lag", Integer.class), "nothing is left to consume");
        List<String> holders = admin().queryParam("tenant", tenant).queryParam("state", "active").get("/admin/leases")
                .then().statusCode(200).extract().jsonPath()
                .getList("leases.findAll { it.topic == '" + topic + "' && it.consumerGroup == '" + group + "' }.leasedBy");
        assertEquals(statuses(PackagedJarResource.SUBSCRIBER, PARTITIONS), holders, "the one process holds every partition");
        List<Boolean> live = admin().queryParam("tenant", tenant).get("/admin/subscribers").then().statusCode(200)
                .extract().jsonPath().getList("subscribers.findAll { it.topic == '" + topic + "' && it.consumerGroup == '"
                        + group + "' && it.subscriberName == '" + PackagedJarResource.SUBSCRIBER + "' }.live");
        assertEquals(List.of(true), live);
        given().queryParam("tenant", tenant).get("/admin/topics").then().statusCode(401);
    }

    @Test
    void a_message_nacked_max_deliveries_times_is_dead_lettered_and_an_admin_requeue_delivers_it_again() {
        String topic = TestIds.topic();
        String dlq = topic + ".dlq";
        String group = TestIds.group();
        long poisonOffset = publishOk(tenant, topic, List.of(msg("p", "poison", Map.of("amount", "twelve")), msg("q", "fine", 1)))
                .offset(0);

        Set<String> ackedFine = new HashSet<>();
        for (int attempt = 1; attempt <= PackagedJarResource.MAX_DELIVERIES; attempt++) {
            int expectedAttempt = attempt;
            List<Delivered> poison = new ArrayList<>();
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ZERO).until(() -> {
                for (Delivered m : fetchOk(tenant, topic, group, upTo(10))) {
                    if ("fine".equals(m.id())) {
                        assertEquals(List.of("ACKED"), ack(tenant, topic, group, List.of(m.receipt())));
                        ackedFine.add("fine");
                    } else {
                        poison.add(m);
                    }
                }
                return !poison.isEmpty();
            });
            assertEquals(1, poison.size());
            assertEquals(expectedAttempt, poison.get(0).deliveryAttempt());
            List<String> receipt = receipts(poison);
            assertEquals(List.of("EXTENDED"), extend(topic, group, receipt, 60));
            assertEquals(List.of("NACKED"), nack(tenant, topic, group, receipt, 0, "amount does not parse"));
        }
        assertEquals(Set.of("fine"), ackedFine);

        JsonPath inspected = admin().queryParam("tenant", tenant).queryParam("topic", topic).queryParam("partitionKey", "p")
                .queryParam("id", "poison").get("/admin/messages").then().statusCode(200).extract().jsonPath();
        assertEquals(List.of("DEAD"), inspected.getList("consumerGroups.findAll { it.consumerGroup == '" + group + "' }.state"));

        List<Delivered> dead = fetchOk(tenant, dlq, TestIds.group(), upTo(10));
        assertEquals(List.of("poison"), ids(dead));
        Map<String, String> metadata = dead.get(0).metadata();
        assertEquals(topic, metadata.get("original_topic"));
        assertEquals(group, metadata.get("consumer_group"));
        assertEquals("amount does not parse", metadata.get("dead_letter_reason"));
        assertEquals(String.valueOf(PackagedJarResource.MAX_DELIVERIES), metadata.get("delivery_attempts"));

        JsonPath requeued = admin().queryParam("tenant", tenant).queryParam("topic", dlq).queryParam("partitionKey", "p")
                .queryParam("id", "poison").post("/admin/messages/requeue").then().statusCode(200).extract().jsonPath();
        assertEquals(List.of(group), requeued.getList("consumerGroups"));
        assertEquals(poisonOffset, requeued.getLong("originalOffset"));
        List<Delivered> again = fetchOk(tenant, topic, group, upTo(10));
        assertEquals(List.of("poison"), ids(again));
        assertEquals(1, again.get(0).deliveryAttempt(), "a requeued message starts its attempts again");
        assertEquals(List.of("ACKED"), ack(tenant, topic, group, receipts(again)));
    }

    private List<String> extend(String topic, String group, List<String> receipts, int visibilitySeconds) {
        return given().contentType(ContentType.JSON).body(Map.of("receipts", receipts, "visibilitySeconds", visibilitySeconds))
                .post("/tenants/{t}/topics/{topic}/consumer-groups/{g}/extend", tenant, topic, group)
                .then().statusCode(200).extract().jsonPath().getList("results.status");
    }

    private static RequestSpecification admin() {
        return given().header("Authorization", "Bearer " + PackagedJarResource.ADMIN_TOKEN);
    }

    private static <T> List<T> statuses(T value, int n) {
        return java.util.Collections.nCopies(n, value);
    }
}
