package dev.tenantmq;

import static dev.tenantmq.Api.ack;
import static dev.tenantmq.Api.fetchOk;
import static dev.tenantmq.Api.publishOk;
import static dev.tenantmq.Delivered.receipts;
import static dev.tenantmq.Fetch.upTo;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tenantmq.domain.FetchSignals;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.net.URL;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * A long poll waiting for a topic wakes when a delayed message published through this process
 * falls due (docs/api.md, "Delayed delivery"), not at its next re-check: the class runs with a
 * re-check interval of an hour ({@link LongPollTest.NoTimerRechecks}), so a poll that was not
 * woken ends empty at the end of its wait.
 */
@QuarkusTest
@TestProfile(LongPollTest.NoTimerRechecks.class)
class DelayedWakeTest {
    @TestHTTPResource("/")
    URL base;

    @Inject
    FetchSignals signals;

    @Inject
    io.agroal.api.AgroalDataSource dataSource;

    @Test
    void a_waiting_long_poll_gets_a_delayed_message_when_it_falls_due_without_a_recheck() throws Exception {
        String tenant = TestIds.tenant();
        String topic = TestIds.topic();
        String group = TestIds.group();
        // Lease the partition first: the poll under test then waits only for the delay.
        publishOk(tenant, topic, List.of(Api.msg("k", "warm", 0)));
        List<Delivered> warm = new ArrayList<>();
        await("the partition is leased and drained").atMost(Duration.ofSeconds(30)).until(() -> {
            List<Delivered> got = fetchOk(tenant, topic, group, upTo(10).waitSeconds(1));
            warm.addAll(got);
            if (!got.isEmpty()) {
                ack(tenant, topic, group, receipts(got));
            }
            return !warm.isEmpty();
        });

        Map<String, Object> delayed = new HashMap<>(Api.msg("k", "due-soon", 1));
        delayed.put("deliverAfterSeconds", 5);
        publishOk(tenant, topic, List.of(delayed));
        HttpJson http = new HttpJson(base.toString());
        CompletableFuture<JsonNode> poll = http.postAsync("/tenants/" + tenant + "/topics/" + topic
                + "/consumer-groups/" + group + "/fetch", Map.of("maxMessages", 1, "waitSeconds", 25));
        await("the poll waits").atMost(Duration.ofSeconds(30)).until(() -> signals.waiting(tenant, topic) >= 1
                || poll.isDone());
        // A poll that started after the due time proves nothing about the wake: the test stops there.
        assumeTrue(!poll.isDone() && !dueByDatabaseClock(tenant, topic, "due-soon"),
                "the machine was too slow: the message fell due before the poll waited");

        // Without the wake the poll would look again only after an hour, and end empty after 25 s.
        JsonNode answer = poll.orTimeout(40, java.util.concurrent.TimeUnit.SECONDS).join();
        assertEquals(1, answer.get("messages").size(), "the poll got the message when it fell due: " + answer);
        assertEquals("due-soon", answer.get("messages").get(0).get("id").asText());
    }

    private boolean dueByDatabaseClock(String tenant, String topic, String id) throws java.sql.SQLException {
        try (java.sql.Connection c = dataSource.getConnection(); java.sql.PreparedStatement ps = c.prepareStatement(
                "SELECT deliver_at <= UTC_TIMESTAMP(6) FROM queue_messages WHERE tenant = ? AND topic = ? AND id = ?")) {
            ps.setString(1, tenant);
            ps.setString(2, topic);
            ps.setString(3, id);
            try (java.sql.ResultSet rs = ps.executeQuery()) {
                return rs.next() && rs.getBoolean(1);
            }
        }
    }
}
