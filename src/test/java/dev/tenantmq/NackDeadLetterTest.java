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
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import io.restassured.http.ContentType;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Nack, attempts and dead letters (SPEC "Ack, nack, extend" and "Dead letters"), with the
 * test profile's defaults: mq.max-deliveries 5, mq.dlq-suffix .dlq.
 */
@QuarkusTest
class NackDeadLetterTest {
    private static final int MAX_DELIVERIES = 5;
    private final String tenant = TestIds.tenant();
    private final String topic = TestIds.topic();
    private final String dlq = topic + ".dlq";

    @Inject
    AgroalDataSource dataSource;

    @Test
    void the_255_character_dead_letter_topic_of_a_251_character_topic_is_consumed_and_retries_without_limit() {
        String longTopic = topic + "x".repeat(251 - topic.length());
        String longDlq = longTopic + ".dlq";
        String group = TestIds.group();
        publishOk(tenant, longTopic, List.of(msg("k", "m", 1)));
        for (int attempt = 1; attempt <= MAX_DELIVERIES; attempt++) {
            List<Delivered> got = fetchOk(tenant, longTopic, group, upTo(10));
            assertEquals(List.of("NACKED"), nack(tenant, longTopic, group, receipts(got), 0, "fails"));
        }
        // Its own dead-letter topic would need 259 characters, so it has none: nacks go on.
        String dlqGroup = TestIds.group();
        List<Delivered> got = List.of();
        for (int attempt = 1; attempt <= MAX_DELIVERIES + 2; attempt++) {
            got = fetchOk(tenant, longDlq, dlqGroup, upTo(10));
            assertEquals(List.of("m"), ids(got), "attempt " + attempt);
            assertEquals(List.of(attempt), attempts(got));
            assertEquals(List.of("NACKED"), nack(tenant, longDlq, dlqGroup, receipts(got), 0, "fails again"));
        }
        got = fetchOk(tenant, longDlq, dlqGroup, upTo(10));
        assertEquals(List.of(MAX_DELIVERIES + 3), attempts(got));
        assertEquals(List.of("ACKED"), ack(tenant, longDlq, dlqGroup, receipts(got)));
    }

    @Test
    void poison_message_is_dead_lettered_after_max_deliveries_and_the_two_after_it_keep_attempt_one() {
        String group = TestIds.group();
        List<Long> offsets = publishOk(tenant, topic, List.of(msg("k", "poison", 0), msg("k", "a", 1), msg("k", "b", 2)))
                .offsets();
        List<Delivered> got = List.of();
        for (int attempt = 1; attempt <= MAX_DELIVERIES; attempt++) {
            got = fetchOk(tenant, topic, group, upTo(10));
            assertEquals(List.of("poison", "a", "b"), ids(got), "attempt " + attempt);
            assertEquals(List.of(attempt, 1, 1), attempts(got),
                    "the poison message's failures never use up the attempts of the messages after it");
            assertEquals(List.of("NACKED"), nack(tenant, topic, group, List.of(receipt(got, 0)), 0, "cannot parse"));
        }
        // The fifth nack dead-lettered it and handed a and b back at once, still at attempt 1.
        List<Delivered> after = fetchOk(tenant, topic, group, upTo(10));
        assertEquals(List.of("a", "b"), ids(after));
        assertEquals(List.of(1, 1), attempts(after));
        assertEquals(List.of("STALE", "STALE"), ack(tenant, topic, group, List.of(receipt(got, 1), receipt(got, 2))));
        assertEquals(List.of("ACKED", "ACKED"), ack(tenant, topic, group, receipts(after)));
        assertEquals(offsets.get(2), committedOffset(group), "dead-lettered and acked: the offset passes all three");
        assertEquals(0, fetchOk(tenant, topic, group, upTo(10).waitSeconds(0)).size(), "the poison message is not delivered again");

        List<Delivered> dead = fetchOk(tenant, dlq, TestIds.group(), upTo(10));
        assertEquals(List.of("poison"), ids(dead));
        Map<String, String> metadata = dead.get(0).metadata();
        assertEquals(topic, metadata.get("original_topic"));
        assertEquals(String.valueOf(offsets.get(0)), metadata.get("original_offset"));
        assertEquals(group, metadata.get("consumer_group"));
        assertEquals("cannot parse", metadata.get("dead_letter_reason"));
        assertEquals(String.valueOf(MAX_DELIVERIES), metadata.get("delivery_attempts"));
        assertEquals(tenant, metadata.get("queue_name"));
        assertEquals("k", dead.get(0).partitionKey());
        assertEquals(0, dead.get(0).payload());
    }

    @Test
    void messages_handed_back_after_a_nack_follow_the_nacked_one_and_their_old_receipts_are_stale() {
        String group = TestIds.group();
        publishOk(tenant, topic, List.of(msg("k", "1", 1), msg("k", "2", 2), msg("k", "3", 3)));
        List<Delivered> first = fetchOk(tenant, topic, group, upTo(10));
        assertEquals(List.of("NACKED"), nack(tenant, topic, group, List.of(receipt(first, 1)), 0, null));
        // 1 is still in flight; 2 was nacked and 3 handed back behind it.
        assertEquals(List.of("ACKED", "STALE"), ack(tenant, topic, group, List.of(receipt(first, 0), receipt(first, 2))));
        List<Delivered> second = fetchOk(tenant, topic, group, upTo(10));
        assertEquals(List.of("2", "3"), ids(second));
        assertEquals(List.of(2, 1), attempts(second));
        assertEquals(List.of("ACKED", "ACKED"), ack(tenant, topic, group, receipts(second)));
    }

    @Test
    void visibility_expiry_counts_as_a_failed_attempt_until_the_message_is_dead_lettered() throws Exception {
        String group = TestIds.group();
        publishOk(tenant, topic, List.of(msg("k", "slow", 1), msg("k", "next", 2)));
        List<Integer> seen = new ArrayList<>();
        await().atMost(Duration.ofSeconds(60)).until(() -> {
            List<Delivered> got = fetchOk(tenant, topic, group, upTo(1).waitSeconds(2).visibilitySeconds(1));
            if (!got.isEmpty() && "slow".equals(got.get(0).id())) {
                seen.add(got.get(0).deliveryAttempt());
                return false;
            }
            if (!got.isEmpty()) {
                assertEquals("next", got.get(0).id());
                assertEquals(1, got.get(0).deliveryAttempt());
                return true;
            }
            return false;
        });
        assertEquals(List.of(1, 2, 3, 4, 5), seen);
        List<Delivered> dead = fetchOk(tenant, dlq, TestIds.group(), upTo(10));
        Map<String, String> metadata = dead.get(0).metadata();
        assertEquals("visibility timeout expired", metadata.get("dead_letter_reason"));
        StoredCounts.assertMatchStored(dataSource, tenant);
    }

    /**
     * A group whose consumers all stopped still gets its dead letter: after the last attempt's
     * visibility timeout the scheduler dead-letters the message, with no fetch of the group.
     */
    @Test
    void a_last_attempt_that_expires_is_dead_lettered_by_the_scheduler_without_another_fetch() throws Exception {
        String group = TestIds.group();
        publishOk(tenant, topic, List.of(msg("k", "abandoned", 1), msg("k", "after", 2)));
        List<Integer> attempts = new ArrayList<>();
        await().atMost(Duration.ofSeconds(60)).until(() -> {
            List<Delivered> got = fetchOk(tenant, topic, group, upTo(1).waitSeconds(2).visibilitySeconds(1));
            got.forEach(m -> {
                assertEquals("abandoned", m.id(), "nothing after it while it is in flight or retried");
                attempts.add(m.deliveryAttempt());
            });
            return attempts.size() == MAX_DELIVERIES;
        });
        assertEquals(List.of(1, 2, 3, 4, 5), attempts);
        // No fetch from here on: the consumers of the group are gone.
        await("dead-lettered by the scheduler").atMost(Duration.ofSeconds(15)).until(() -> deadLetters("abandoned") == 1);
        given().header("Authorization", "Bearer " + AdminTest.TOKEN).queryParam("tenant", tenant)
                .queryParam("topic", topic).queryParam("partitionKey", "k").queryParam("id", "abandoned")
                .get("/admin/messages").then().statusCode(200)
                .body("consumerGroups.find { it.consumerGroup == '" + group + "' }.state", equalTo("DEAD"));
        List<Delivered> dead = fetchOk(tenant, dlq, TestIds.group(), upTo(10));
        Map<String, String> metadata = dead.get(0).metadata();
        assertEquals("visibility timeout expired", metadata.get("dead_letter_reason"));
        List<Delivered> next = fetchOk(tenant, topic, group, upTo(1));
        assertEquals("after", next.get(0).id(), "the partition moved on");
        StoredCounts.assertMatchStored(dataSource, tenant);
    }

    /** Rows with this id in the dead-letter topic. */
    private long deadLetters(String id) throws Exception {
        return RowCount.of(dataSource,
                "SELECT COUNT(*) FROM queue_messages WHERE tenant = ? AND topic = ? AND partition_key = 'k' AND id = ?",
                tenant, dlq, id);
    }

    @Test
    void a_group_that_dead_letters_a_message_does_not_take_it_from_another_group() {
        String a = TestIds.group();
        String b = TestIds.group();
        List<Long> offsets = publishOk(tenant, topic, List.of(msg("k", "m", "payload"))).offsets();
        poison(a, "m", 1);
        List<Delivered> inB = fetchOk(tenant, topic, b, upTo(10));
        assertEquals(List.of("m"), ids(inB));
        assertEquals(List.of(1), attempts(inB));
        assertEquals(List.of("NACKED"), nack(tenant, topic, b, receipts(inB), 0, "boom"));
        poison(b, "m", 2);

        List<Delivered> dead = fetchOk(tenant, dlq, TestIds.group(), upTo(10));
        assertEquals(1, dead.size(), "the dead-letter topic holds the message once");
        Map<String, String> metadata = dead.get(0).metadata();
        assertEquals(a + "," + b, metadata.get("consumer_group"));
        assertEquals(String.valueOf(offsets.get(0)), metadata.get("original_offset"));
    }

    @Test
    void groups_dead_lettering_one_message_at_the_same_moment_all_succeed_and_share_one_dead_letter() throws Exception {
        List<String> groups = List.of(TestIds.group(), TestIds.group(), TestIds.group(), TestIds.group());
        publishOk(tenant, topic, List.of(msg("k", "m", 1)));
        List<String> lastReceipts = new ArrayList<>();
        for (String g : groups) {
            poison(g, "m", 1, MAX_DELIVERIES - 1);
            List<Delivered> got = fetchOk(tenant, topic, g, upTo(10));
            assertEquals(List.of(MAX_DELIVERIES), attempts(got));
            lastReceipts.add(receipt(got, 0));
        }
        // The dead-letter partition is empty: every group takes the gap-lock path at once.
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(groups.size());
        try {
            List<java.util.concurrent.Future<List<String>>> results = new ArrayList<>();
            for (int i = 0; i < groups.size(); i++) {
                int n = i;
                results.add(pool.submit(() -> nack(tenant, topic, groups.get(n), List.of(lastReceipts.get(n)), 0, "boom")));
            }
            for (var r : results) {
                assertEquals(List.of("NACKED"), r.get());
            }
        } finally {
            pool.shutdownNow();
        }
        List<Delivered> dead = fetchOk(tenant, dlq, TestIds.group(), upTo(10));
        assertEquals(1, dead.size());
        Map<String, String> metadata = dead.get(0).metadata();
        assertEquals(new java.util.TreeSet<>(groups),
                new java.util.TreeSet<>(List.of(metadata.get("consumer_group").split(","))));
        StoredCounts.assertMatchStored(dataSource, tenant);
    }

    @Test
    void a_dead_letter_replaces_a_row_of_the_dead_letter_topic_that_only_shares_its_id() throws Exception {
        String group = TestIds.group();
        publishOk(tenant, dlq, List.of(msg("k", "m", "published there directly")));
        List<Long> offsets = publishOk(tenant, topic, List.of(msg("k", "m", "original"))).offsets();
        poison(group, "m", 1);
        List<Delivered> dead = fetchOk(tenant, dlq, TestIds.group(), upTo(10));
        assertEquals(1, dead.size());
        assertEquals("original", dead.get(0).payload());
        Map<String, String> metadata = dead.get(0).metadata();
        assertEquals(String.valueOf(offsets.get(0)), metadata.get("original_offset"));
        assertEquals(group, metadata.get("consumer_group"));
        StoredCounts.assertMatchStored(dataSource, tenant);
    }

    @Test
    void nack_without_delay_waits_for_the_backoff() {
        String group = TestIds.group();
        publishOk(tenant, topic, List.of(msg("k", "m", 1)));
        List<Delivered> first = fetchOk(tenant, topic, group, upTo(10));
        assertEquals(List.of("NACKED"), nack(tenant, topic, group, receipts(first), null, null));
        assertEquals(0, fetchOk(tenant, topic, group, upTo(10).waitSeconds(0)).size(), "backoff base is 1 s");
        List<Delivered> again = fetchOk(tenant, topic, group, upTo(10));
        assertEquals(List.of(2), attempts(again));
        assertEquals(List.of("STALE"), nack(tenant, topic, group, receipts(first), 0, null), "old delivery");
    }

    @Test
    void nack_with_bad_delay_or_reason_is_rejected_naming_the_field() {
        String group = TestIds.group();
        given().contentType(ContentType.JSON).body(Map.of("receipts", List.of("x"), "delaySeconds", -1))
                .post("/tenants/{t}/topics/{topic}/consumer-groups/{g}/nack", tenant, topic, group)
                .then().statusCode(400).body("errors.field", hasItem("delaySeconds"));
        given().contentType(ContentType.JSON).body(Map.of("receipts", List.of("x"), "reason", "r".repeat(1025)))
                .post("/tenants/{t}/topics/{topic}/consumer-groups/{g}/nack", tenant, topic, group)
                .then().statusCode(400).body("errors.field", hasItem("reason"));
        given().contentType(ContentType.JSON).body(Map.of("receipts", List.of("not-a-receipt")))
                .post("/tenants/{t}/topics/{topic}/consumer-groups/{g}/nack", tenant, topic, group)
                .then().statusCode(200).body("results[0].status", equalTo("INVALID"));
    }

    /**
     * An empty or blank reason is no reason, as an absent one (docs/api.md, "Failures: nack,
     * retries and dead letters"): accepted, and the dead letter records {@code nacked}. Clients
     * whose strings default to empty (protobuf's, Go's) nack as clients that leave it out do.
     */
    @Test
    void a_nack_with_an_empty_or_blank_reason_is_accepted_and_the_dead_letter_records_nacked() {
        for (String reason : List.of("", " \t ")) {
            String reasonTopic = TestIds.topic();
            String group = TestIds.group();
            publishOk(tenant, reasonTopic, List.of(msg("k", "m", 1)));
            for (int attempt = 1; attempt <= MAX_DELIVERIES; attempt++) {
                List<Delivered> got = fetchOk(tenant, reasonTopic, group, upTo(10));
                assertEquals(List.of(attempt), attempts(got), "reason '" + reason + "'");
                assertEquals(List.of("NACKED"), nack(tenant, reasonTopic, group, receipts(got), 0, reason));
            }
            List<Delivered> dead = fetchOk(tenant, reasonTopic + ".dlq", TestIds.group(), upTo(10));
            assertEquals(List.of("m"), ids(dead));
            assertEquals("nacked", dead.get(0).metadata().get("dead_letter_reason"), "reason '" + reason + "'");
        }
    }

    /** Fetches and nacks message {@code id} of partition k in {@code group} until it is dead-lettered. */
    private void poison(String group, String id, int fromAttempt) {
        poison(group, id, fromAttempt, MAX_DELIVERIES);
        assertEquals(0, fetchOk(tenant, topic, group, upTo(10).waitSeconds(0)).size());
    }

    /** Fetches and nacks message {@code id} of partition k in {@code group} for attempts {@code from..to}. */
    private void poison(String group, String id, int from, int to) {
        for (int attempt = from; attempt <= to; attempt++) {
            List<Delivered> got = fetchOk(tenant, topic, group, upTo(10));
            assertEquals(List.of(id), ids(got));
            assertEquals(List.of(attempt), attempts(got));
            assertEquals(List.of("NACKED"), nack(tenant, topic, group, receipts(got), 0, "boom"));
        }
    }

    private long committedOffset(String group) {
        return CommittedOffsets.of(dataSource, tenant, group, topic, "k");
    }

    private static String receipt(List<Delivered> got, int i) {
        return got.get(i).receipt();
    }
}
