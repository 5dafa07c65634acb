package dev.tenantmq;

import static dev.tenantmq.Api.ack;
import static dev.tenantmq.Api.fetch;
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
import static org.hamcrest.Matchers.hasItem;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tenantmq.domain.SettingsCache;
import dev.tenantmq.model.SettingOverrides;
import dev.tenantmq.scheduler.RetentionJob;
import dev.tenantmq.store.SettingsStore;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import io.restassured.specification.RequestSpecification;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Per-topic and per-group settings (docs/settings.md, "Per-topic and per-group settings"): the
 * admin API stores overrides, the effective view shows each value's source, and publish, fetch,
 * nack and retention act on them; a change written by another instance applies here on the next
 * scheduler tick. The test profile's globals: mq.max-deliveries 5, backoff 1 s .. 5 min, retention
 * max-age 7 d, dedup window 24 h.
 */
@QuarkusTest
class TopicSettingsTest {
    private static final int GLOBAL_MAX_DELIVERIES = 5;
    private final String tenant = TestIds.tenant();
    private final String topic = TestIds.topic();

    @Inject
    SettingsStore store;

    @Inject
    SettingsCache cache;

    @Inject
    RetentionJob retention;

    private static RequestSpecification admin() {
        return given().header("Authorization", "Bearer " + AdminTest.TOKEN).accept(ContentType.JSON);
    }

    private RequestSpecification at(String onTopic, String group) {
        RequestSpecification spec = admin().queryParam("tenant", tenant).queryParam("topic", onTopic);
        return group == null ? spec : spec.queryParam("consumerGroup", group);
    }

    private JsonPath put(String onTopic, String group, Map<String, Object> body) {
        return at(onTopic, group).contentType(ContentType.JSON).body(body).put("/admin/settings")
                .then().statusCode(200).extract().jsonPath();
    }

    private JsonPath get(String onTopic, String group) {
        return at(onTopic, group).get("/admin/settings").then().statusCode(200).extract().jsonPath();
    }

    /** Fetches the one message, nacks it without delay, and says whether the nack dead-lettered it. */
    private boolean firstNackDeadLetters(String onTopic, String group, String id) {
        List<Delivered> got = fetchOk(tenant, onTopic, group, upTo(10));
        assertEquals(List.of(id), ids(got));
        assertEquals(List.of("NACKED"), nack(tenant, onTopic, group, receipts(got), 0, "fails"));
        List<Delivered> again = fetchOk(tenant, onTopic, group, upTo(10).waitSeconds(1));
        if (again.isEmpty()) {
            return true;
        }
        assertEquals(List.of(2), attempts(again), "redelivered as its second attempt");
        ack(tenant, onTopic, group, receipts(again));
        return false;
    }

    @Test
    void max_deliveries_1_on_a_topic_dead_letters_the_first_nack_of_that_topic_only() {
        String other = TestIds.topic();
        String group = TestIds.group();
        put(topic, null, Map.of("maxDeliveries", 1));
        publishOk(tenant, topic, List.of(msg("k", "m", 1)));
        publishOk(tenant, other, List.of(msg("k", "m", 1)));

        assertTrue(firstNackDeadLetters(topic, group, "m"), "maxDeliveries 1: the first failed attempt is the last");
        assertEquals(List.of("m"), ids(fetchOk(tenant, topic + ".dlq", TestIds.group(), upTo(10))));
        assertTrue(!firstNackDeadLetters(other, group, "m"), "another topic keeps the global 5");
    }

    @Test
    void a_group_override_beats_the_topic_override_which_beats_the_global_setting() {
        String strict = TestIds.group();
        String lenient = TestIds.group();
        put(topic, null, Map.of("maxDeliveries", 3, "defaultVisibilitySeconds", 60));
        JsonPath g = put(topic, strict, Map.of("maxDeliveries", 1));

        assertEquals(1, g.getInt("effective.maxDeliveries.value"));
        assertEquals("group", g.getString("effective.maxDeliveries.source"));
        assertEquals(60, g.getInt("effective.defaultVisibilitySeconds.value"));
        assertEquals("topic", g.getString("effective.defaultVisibilitySeconds.source"));
        assertEquals(GLOBAL_MAX_DELIVERIES, get(TestIds.topic(), strict).getInt("effective.maxDeliveries.value"));
        assertEquals("global", get(TestIds.topic(), strict).getString("effective.maxDeliveries.source"));
        JsonPath l = get(topic, lenient);
        assertEquals(3, l.getInt("effective.maxDeliveries.value"));
        assertEquals("topic", l.getString("effective.maxDeliveries.source"));
        assertEquals(Map.of(), nonNull(l.getMap("groupOverrides")));
        assertEquals(Map.of("maxDeliveries", 3, "defaultVisibilitySeconds", 60), nonNull(l.getMap("topicOverrides")));

        publishOk(tenant, topic, List.of(msg("k", "m", 1)));
        assertTrue(firstNackDeadLetters(topic, strict, "m"), "the group's 1 applies to it");
        assertTrue(!firstNackDeadLetters(topic, lenient, "m"), "the topic's 3 applies to another group");
    }

    @Test
    void dead_lettering_off_retries_without_limit_even_at_max_deliveries_1() {
        String group = TestIds.group();
        put(topic, null, Map.of("maxDeliveries", 1, "deadLetterEnabled", false));
        publishOk(tenant, topic, List.of(msg("k", "m", 1)));
        for (int attempt = 1; attempt <= 3; attempt++) {
            List<Delivered> got = fetchOk(tenant, topic, group, upTo(10));
            assertEquals(List.of(attempt), attempts(got));
            assertEquals(List.of("NACKED"), nack(tenant, topic, group, receipts(got), 0, "fails"));
        }
    }

    @Test
    void clearing_the_overrides_restores_the_global_settings() {
        String group = TestIds.group();
        put(topic, null, Map.of("maxDeliveries", 1));
        put(topic, group, Map.of("maxDeliveries", 2));
        JsonPath groupCleared = at(topic, group).delete("/admin/settings").then().statusCode(200).extract().jsonPath();
        assertEquals("topic", groupCleared.getString("effective.maxDeliveries.source"));
        JsonPath cleared = at(topic, null).delete("/admin/settings").then().statusCode(200).extract().jsonPath();
        assertEquals(GLOBAL_MAX_DELIVERIES, cleared.getInt("effective.maxDeliveries.value"));
        assertEquals("global", cleared.getString("effective.maxDeliveries.source"));
        org.junit.jupiter.api.Assertions.assertNull(cleared.get("groupOverrides"));

        publishOk(tenant, topic, List.of(msg("k", "m", 1)));
        assertTrue(!firstNackDeadLetters(topic, group, "m"), "back to the global 5");
    }

    @Test
    void a_change_written_by_another_instance_applies_here_on_the_next_tick() {
        String group = TestIds.group();
        // Another instance's change: the row, without this instance's own refresh.
        store.replace(tenant, topic, Optional.empty(), new SettingOverrides(1, null, null, null, null, null, null, null));
        // The scheduler tick (every mq.tick-interval, 1 s in tests) refreshes the cache.
        await().atMost(Duration.ofSeconds(30))
                .until(() -> cache.effective(tenant, topic, group).maxDeliveries().value() == 1);
        publishOk(tenant, topic, List.of(msg("k", "m", 1)));
        assertTrue(firstNackDeadLetters(topic, group, "m"));

        store.replace(tenant, topic, Optional.empty(), SettingOverrides.NONE);
        cache.refreshAll(); // what the tick runs, driven directly
        assertEquals(GLOBAL_MAX_DELIVERIES, cache.effective(tenant, topic, group).maxDeliveries().value());
    }

    @Test
    void overrides_out_of_the_global_bounds_are_400_naming_the_field_and_nothing_is_stored() {
        Map<String, Object> bad = new HashMap<>();
        bad.put("maxDeliveries", 0);
        bad.put("nackBackoffBaseMillis", -1);
        bad.put("maxVisibilitySeconds", 43_201);
        at(topic, null).contentType(ContentType.JSON).body(bad).put("/admin/settings").then().statusCode(400)
                .contentType("application/problem+json")
                .body("errors.field", hasItem("maxDeliveries"))
                .body("errors.field", hasItem("nackBackoffBaseMillis"))
                .body("errors.field", hasItem("maxVisibilitySeconds"))
                .body("errors.find { it.field == 'maxDeliveries' }.message", org.hamcrest.Matchers.startsWith("must be at least 1"));
        at(topic, null).contentType(ContentType.JSON).body(Map.of("defaultVisibilitySeconds", 120,
                "maxVisibilitySeconds", 60)).put("/admin/settings").then().statusCode(400)
                .body("errors[0].field", org.hamcrest.Matchers.equalTo("defaultVisibilitySeconds"));
        at(topic, TestIds.group()).contentType(ContentType.JSON).body(Map.of("retentionMaxAgeSeconds", 60))
                .put("/admin/settings").then().statusCode(400)
                .body("errors[0].field", org.hamcrest.Matchers.equalTo("retentionMaxAgeSeconds"));
        at(topic, null).contentType(ContentType.JSON).body(Map.of("maxDeliverys", 2)).put("/admin/settings")
                .then().statusCode(400).body("errors[0].field", org.hamcrest.Matchers.equalTo("maxDeliverys"));
        assertEquals("global", get(topic, null).getString("effective.maxDeliveries.source"));
        assertEquals(Map.of(), nonNull(get(topic, null).getMap("topicOverrides")));
    }

    /**
     * A nack backoff base above its cap would never be waited (the backoff is min(cap, base * 2^n)):
     * 400 naming both fields, whether both are set in the request, or one is and the other is
     * inherited from the topic or the global settings (backoff 1 s .. 5 min); nothing is stored.
     */
    @Test
    void a_nack_backoff_base_above_its_cap_is_400_naming_both_set_here_or_inherited() {
        String group = TestIds.group();
        backoffRefused(topic, null, Map.of("nackBackoffBaseMillis", 5_000L, "nackBackoffCapMillis", 2_000L),
                "nackBackoffBaseMillis", "must be at most nackBackoffCapMillis (2000 ms; got 5000)");
        backoffRefused(topic, null, Map.of("nackBackoffBaseMillis", 600_000L), "nackBackoffBaseMillis",
                "must be at most nackBackoffCapMillis (300000 ms, the global mq.nack.backoff-cap; got 600000)");
        backoffRefused(topic, null, Map.of("nackBackoffCapMillis", 500L), "nackBackoffCapMillis",
                "must be at least nackBackoffBaseMillis (1000 ms, the global mq.nack.backoff-base; got 500)");
        assertEquals(Map.of(), nonNull(get(topic, null).getMap("topicOverrides")), "nothing stored");

        put(topic, null, Map.of("nackBackoffCapMillis", 2_000L));
        backoffRefused(topic, group, Map.of("nackBackoffBaseMillis", 5_000L), "nackBackoffBaseMillis",
                "must be at most nackBackoffCapMillis (2000 ms, the topic's; got 5000)");
        assertEquals(Map.of(), nonNull(get(topic, group).getMap("groupOverrides")), "nothing stored");

        JsonPath both = put(topic, group, Map.of("nackBackoffBaseMillis", 5_000L, "nackBackoffCapMillis", 8_000L));
        assertEquals(5_000L, both.getLong("effective.nackBackoffBaseMillis.value"));
        assertEquals("group", both.getString("effective.nackBackoffCapMillis.source"));
        put(topic, null, Map.of("nackBackoffBaseMillis", 2_000L, "nackBackoffCapMillis", 2_000L)); // equal: allowed
    }

    private void backoffRefused(String onTopic, String group, Map<String, Object> body, String field, String message) {
        at(onTopic, group).contentType(ContentType.JSON).body(body).put("/admin/settings").then().statusCode(400)
                .contentType("application/problem+json")
                .body("errors.size()", org.hamcrest.Matchers.equalTo(1))
                .body("errors[0].field", org.hamcrest.Matchers.equalTo(field))
                .body("errors[0].message", org.hamcrest.Matchers.startsWith(message));
    }

    @Test
    void a_delay_reaches_at_most_the_topics_own_retention_max_age_lowered_or_raised() {
        put(topic, null, Map.of("retentionMaxAgeSeconds", 30));
        Map<String, Object> tooLate = new HashMap<>(msg("k", "remind", 1));
        tooLate.put("deliverAfterSeconds", 120);
        Api.publish(tenant, topic, Map.of("messages", List.of(tooLate))).then().statusCode(400)
                .contentType("application/problem+json")
                .body("errors[0].field", org.hamcrest.Matchers.equalTo("messages[0].deliverAfterSeconds"))
                // names the bound where the user set it, not the global setting of another value
                .body("errors[0].message", org.hamcrest.Matchers.startsWith(
                        "must be at most the retention maximum age (the topic's retentionMaxAgeSeconds, 30 s) ahead"));
        Map<String, Object> inTime = new HashMap<>(msg("k", "remind", 1));
        inTime.put("deliverAfterSeconds", 20);
        Api.publish(tenant, topic, Map.of("messages", List.of(inTime))).then().statusCode(201);

        String kept = TestIds.topic();
        put(kept, null, Map.of("retentionMaxAgeSeconds", 30L * 24 * 3600));
        Map<String, Object> eightDays = new HashMap<>(msg("k", "later", 1));
        eightDays.put("deliverAfterSeconds", 8 * 24 * 3600);
        Api.publish(tenant, kept, Map.of("messages", List.of(eightDays))).then().statusCode(201);
    }

    @Test
    void a_dedup_window_or_retention_beyond_3650_days_is_400_naming_the_field() {
        long tooLong = dev.tenantmq.model.SettingOverrides.MAX_AGE_SECONDS + 1;
        at(topic, null).contentType(ContentType.JSON).body(Map.of("dedupWindowSeconds", Long.MAX_VALUE,
                "retentionMaxAgeSeconds", tooLong)).put("/admin/settings").then().statusCode(400)
                .body("errors.field", hasItem("dedupWindowSeconds"))
                .body("errors.field", hasItem("retentionMaxAgeSeconds"));
        assertEquals(Map.of(), nonNull(get(topic, null).getMap("topicOverrides")));
    }

    @Test
    void a_topic_default_visibility_applies_to_fetches_that_name_none_and_its_maximum_bounds_them() {
        String group = TestIds.group();
        put(topic, null, Map.of("defaultVisibilitySeconds", 1, "maxVisibilitySeconds", 60));
        publishOk(tenant, topic, List.of(msg("k", "m", 1)));
        // no visibilitySeconds: the topic's default
        List<String> got = fetch(tenant, topic, group, Map.of("maxMessages", 10, "waitSeconds", 5)).then()
                .statusCode(200).extract().jsonPath().getList("messages.id");
        assertEquals(List.of("m"), got);
        // Visible again after the topic's 1 s, not the global 30 s.
        await().atMost(Duration.ofSeconds(20)).until(() -> {
            List<Delivered> again = fetchOk(tenant, topic, group, upTo(10).waitSeconds(1));
            return !again.isEmpty() && again.get(0).deliveryAttempt() == 2;
        });
        fetch(tenant, topic, group, Map.of("visibilitySeconds", 61)).then().statusCode(400)
                .body("errors[0].field", org.hamcrest.Matchers.equalTo("visibilitySeconds"))
                .body("errors[0].message", org.hamcrest.Matchers.containsString("maxVisibilitySeconds of this topic"));
    }

    @Test
    void a_topic_backoff_of_zero_redelivers_a_nack_without_delay_at_once() {
        String group = TestIds.group();
        put(topic, null, Map.of("nackBackoffBaseMillis", 0L, "nackBackoffCapMillis", 0L));
        publishOk(tenant, topic, List.of(msg("k", "m", 1)));
        List<Delivered> got = fetchOk(tenant, topic, group, upTo(10));
        assertEquals(List.of("NACKED"), nack(tenant, topic, group, receipts(got), null, "fails"));
        assertEquals(List.of(2), attempts(fetchOk(tenant, topic, group, upTo(10).waitSeconds(0))),
                "no backoff: the global 1 s would hide it from this fetch");
    }

    @Test
    void a_topic_retention_max_age_expires_that_topics_messages_only() {
        String other = TestIds.topic();
        put(topic, null, Map.of("retentionMaxAgeSeconds", 0L));
        publishOk(tenant, topic, List.of(msg("k", "m", 1)));
        publishOk(tenant, other, List.of(msg("k", "m", 1)));
        retention.runOnce();
        assertEquals(0, browse(topic), "max age 0: unconsumed messages of the topic expire");
        assertEquals(1, browse(other), "the global 7 days keep the other topic's");
    }

    @Test
    void a_topic_dedup_window_of_zero_forgets_a_deleted_message_at_once() {
        String other = TestIds.topic();
        put(topic, null, Map.of("dedupWindowSeconds", 0L));
        for (String t : List.of(topic, other)) {
            publishOk(tenant, t, List.of(msg("k", "m", 1)));
            admin().queryParam("tenant", tenant).queryParam("topic", t).queryParam("partitionKey", "k")
                    .queryParam("id", "m").delete("/admin/messages").then().statusCode(200);
        }
        assertEquals(List.of(false), publishOk(tenant, topic, List.of(msg("k", "m", 1))).duplicates(),
                "window 0: stored again");
        assertEquals(List.of(true), publishOk(tenant, other, List.of(msg("k", "m", 1))).duplicates(),
                "the global 24 h window: still a duplicate");
    }

    private int browse(String onTopic) {
        return admin().queryParam("tenant", tenant).queryParam("topic", onTopic).get("/admin/messages/browse")
                .then().statusCode(200).extract().jsonPath().getList("messages").size();
    }

    private static Map<String, Object> nonNull(Map<String, Object> m) {
        Map<String, Object> out = new HashMap<>();
        m.forEach((k, v) -> {
            if (v != null) {
                out.put(k, v);
            }
        });
        return out;
    }
}
