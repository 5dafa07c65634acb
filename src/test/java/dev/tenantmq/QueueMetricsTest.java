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
import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agroal.api.AgroalDataSource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.net.URL;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Queue metrics (docs/operations.md, "Metrics") on {@code /q/metrics}: the per-group gauges after a known scenario,
 * removal of a deleted topic's series, the {@code _other} fold past {@code mq.metrics.max-topics},
 * HELP text on every {@code mq_} metric, the nack counter, and that a scrape runs no statement.
 * Its profile serves fresh tenants of its own (so no other test's topics count against the small
 * topic limit), refreshes the gauges on every tick and dead-letters at the second failed attempt.
 */
@QuarkusTest
@TestProfile(QueueMetricsTest.Profile.class)
class QueueMetricsTest {
    /** This class's mq.metrics.max-topics. */
    static final int MAX_TOPICS = 3;
    /** This class's mq.max-deliveries. */
    static final int MAX_DELIVERIES = 2;
    /**
     * Fresh tenants for this run: a-d, one per test that counts topics. Kept in a system property:
     * Quarkus loads the profile and the test instance in different class loaders.
     */
    static final String RUN = (String) System.getProperties().computeIfAbsent("tenant-mq.queue-metrics-test.run",
            k -> UUID.randomUUID().toString().substring(0, 8));
    static final String GAUGES = "qm-" + RUN + "-a";
    static final String DELETED = "qm-" + RUN + "-b";
    static final String FOLDED = "qm-" + RUN + "-c";
    static final String SCRAPED = "qm-" + RUN + "-d";
    private static final String ADMIN = "Bearer test-admin-token-0123456789";

    /** Overrides of this class. */
    public static class Profile implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("mq.tenants", String.join(",", GAUGES, DELETED, FOLDED, SCRAPED),
                    "mq.metrics.max-topics", String.valueOf(MAX_TOPICS),
                    "mq.metrics.refresh-interval", "1s",
                    "mq.max-deliveries", String.valueOf(MAX_DELIVERIES));
        }
    }

    /** /q/metrics on the management interface (paths are relative to its /q). */
    @TestHTTPResource(value = "/metrics", management = true)
    URL metrics;

    @Inject
    AgroalDataSource dataSource;

    @Test
    void group_gauges_show_lag_in_flight_dead_letters_and_oldest_age_after_a_known_scenario() {
        String topic = TestIds.topic();
        String group = TestIds.group();
        publishOk(GAUGES, topic, List.of(msg("k", "m1", 1), msg("k", "m2", 2), msg("k", "m3", 3), msg("k", "m4", 4),
                msg("k", "m5", 5)));
        List<Delivered> got = fetchUntil(topic, group, 3, 3);
        assertEquals(List.of("m1", "m2", "m3"), ids(got));
        assertEquals(List.of("ACKED"), ack(GAUGES, topic, group, receipts(got.subList(0, 1))));
        // m2 and m3 stay in flight (60 s visibility), so partition k delivers nothing more.
        publishOk(GAUGES, topic, List.of(msg("poison", "x", 0)));
        for (int attempt = 1; attempt <= MAX_DELIVERIES; attempt++) {
            List<Delivered> poison = fetchUntil(topic, group, 10, 1);
            assertEquals(List.of("x"), ids(poison), "attempt " + attempt);
            assertEquals(List.of("NACKED"), nack(GAUGES, topic, group, receipts(poison), 0, "cannot parse"));
        }
        String labels = "{consumer_group=\"" + group + "\",tenant=\"" + GAUGES + "\",topic=\"" + topic + "\"}";
        String counterLabels = "{tenant=\"" + GAUGES + "\",topic=\"" + topic + "\"}";
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            String text = scrape();
            assertAll(
                    () -> assertEquals(4.0, value(text, "mq_group_lag" + labels).orElse(-1),
                            "lag: m2..m5 are above the committed offset"),
                    () -> assertEquals(2.0, value(text, "mq_group_inflight" + labels).orElse(-1),
                            "in flight: m2 and m3"),
                    () -> assertEquals(1.0, value(text, "mq_group_dead_letters" + labels).orElse(-1),
                            "dead letters: x in " + topic + ".dlq"),
                    () -> assertTrue(value(text, "mq_group_oldest_age_seconds" + labels).orElse(-1) > 0,
                            "oldest age: m2 waits"),
                    () -> assertEquals(MAX_DELIVERIES, value(text, "mq_messages_nacked_total" + counterLabels).orElse(-1),
                            "nacked: every NACKED answer counts, the one that dead-lettered x too"),
                    () -> assertEquals(1.0, value(text, "mq_messages_dead_lettered_total" + counterLabels).orElse(-1),
                            "dead_lettered"),
                    () -> assertEquals(1.0, value(text, "mq_messages_acked_total" + counterLabels).orElse(-1), "acked"),
                    () -> assertEquals(6.0, value(text, "mq_messages_published_total" + counterLabels).orElse(-1),
                            "published"));
        });
    }

    @Test
    void a_topic_whose_last_message_is_deleted_loses_its_series() {
        String topic = TestIds.topic();
        publishOk(DELETED, topic, List.of(msg("k", "only", 1)));
        String series = "mq_messages_published_total{tenant=\"" + DELETED + "\",topic=\"" + topic + "\"}";
        assertEquals(1.0, value(scrape(), series).orElse(-1));
        letTimePass(Duration.ofSeconds(2), "two gauge refreshes (mq.metrics.refresh-interval 1s) that find the topic");
        assertTrue(value(scrape(), series).isPresent(), "a topic with a stored message keeps its series");

        given().header("Authorization", ADMIN).queryParam("tenant", DELETED).queryParam("topic", topic)
                .queryParam("partitionKey", "k").queryParam("id", "only")
                .delete("/admin/messages").then().statusCode(200);
        await().atMost(Duration.ofSeconds(15)).untilAsserted(() ->
                assertFalse(scrape().contains("topic=\"" + topic + "\""), "every series of the deleted topic is gone"));
    }

    @Test
    void topics_past_max_topics_are_counted_under_other_and_logged_once() throws Exception {
        List<String> topics = new ArrayList<>();
        try (LogCapture log = LogCapture.start()) {
            for (int i = 0; i < MAX_TOPICS + 2; i++) {
                String topic = "t" + i + "-" + UUID.randomUUID();
                topics.add(topic);
                publishOk(FOLDED, topic, List.of(msg("k", "m", i)));
            }
            Map<String, Double> published = byTopic(scrape(), "mq_messages_published_total", FOLDED);
            Map<String, Double> expected = new TreeMap<>();
            topics.subList(0, MAX_TOPICS).forEach(t -> expected.put(t, 1.0));
            expected.put("_other", 2.0);
            assertEquals(expected, published);
            assertEquals(1, log.lines().stream().filter(l -> l.contains("mq.metrics.max-topics")
                    && l.contains(FOLDED)).count(), "logged once for the tenant: " + log.lines());
        }
    }

    @Test
    void every_mq_metric_has_help_text_and_pool_metrics_are_exported() {
        publishOk(SCRAPED, TestIds.topic(), List.of(msg("k", "m", 1)));
        String text = scrape();
        Set<String> types = new TreeSet<>();
        Matcher m = Pattern.compile("(?m)^# TYPE (mq_\\S+) ").matcher(text);
        while (m.find()) {
            types.add(m.group(1));
        }
        assertTrue(types.contains("mq_messages_published") && types.contains("mq_ready"), "types: " + types);
        List<String> withoutHelp = types.stream()
                .filter(name -> !Pattern.compile("(?m)^# HELP " + Pattern.quote(name) + " \\S").matcher(text).find())
                .toList();
        assertEquals(List.of(), withoutHelp, "metrics without HELP text");
        assertTrue(text.contains("\nagroal_active_count"), "pool metrics (quarkus.datasource.metrics.enabled)");
        assertEquals(1.0, value(text, "mq_ready{check=\"schema\"}").orElse(-1));
    }

    @Test
    void a_scrape_runs_no_statement_the_gauges_read_the_last_refresh() throws Exception {
        int scrapes = 40;
        List<String> statements;
        long started = System.nanoTime();
        try (GeneralLog log = GeneralLog.start(dataSource)) {
            for (int i = 0; i < scrapes; i++) {
                scrape();
            }
            statements = log.stop("oldest_age_micros").stream().filter(sql -> sql.contains("'" + SCRAPED + "'")).toList();
        }
        long elapsedSeconds = Duration.ofNanos(System.nanoTime() - started).toSeconds();
        // One refresh per tick (mq.metrics.refresh-interval 1s) ran meanwhile; a scrape that queried would add 40.
        assertTrue(statements.size() <= elapsedSeconds + 2,
                statements.size() + " statements for tenant " + SCRAPED + " in " + elapsedSeconds + " s of " + scrapes
                        + " scrapes");
    }

    /** Fetches until the group receives messages (its partitions are leased on a tick). */
    private static List<Delivered> fetchUntil(String topic, String group, int max, int expected) {
        List<Delivered> got = new ArrayList<>();
        await().atMost(Duration.ofSeconds(20)).until(() -> {
            got.addAll(fetchOk(GAUGES, topic, group, upTo(max - got.size()).waitSeconds(1).visibilitySeconds(60)));
            return got.size() >= expected;
        });
        return got;
    }

    private String scrape() {
        return given().get(metrics).then().statusCode(200).extract().asString();
    }

    /** The value of one series (name with its labels, as exported), if present. */
    private static OptionalDouble value(String text, String series) {
        return text.lines().filter(l -> l.startsWith(series + " "))
                .mapToDouble(l -> Double.parseDouble(l.substring(series.length() + 1).trim())).findFirst();
    }

    /** Values of {@code name} for {@code tenant}, by topic label. */
    private static Map<String, Double> byTopic(String text, String name, String tenant) {
        Pattern p = Pattern.compile("^" + Pattern.quote(name) + "\\{tenant=\"" + Pattern.quote(tenant)
                + "\",topic=\"([^\"]+)\"} (\\S+)$");
        Map<String, Double> out = new TreeMap<>();
        text.lines().map(p::matcher).filter(Matcher::matches)
                .forEach(mm -> out.put(mm.group(1), Double.parseDouble(mm.group(2))));
        return out;
    }
}
