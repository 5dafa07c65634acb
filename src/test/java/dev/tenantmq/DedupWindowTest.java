package dev.tenantmq;

import static dev.tenantmq.Api.ack;
import static dev.tenantmq.Api.fetchOk;
import static dev.tenantmq.Api.msg;
import static dev.tenantmq.Api.publishOk;
import static dev.tenantmq.Delivered.receipts;
import static dev.tenantmq.Fetch.upTo;
import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.tenantmq.scheduler.RetentionJob;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Duplicate detection outlives the message (issue "Idempotency that outlives consumption"): an
 * identity (tenant, topic, partitionKey, id) stays a duplicate for {@code mq.publish.dedup-window}
 * after its publish, whether the message was consumed and purged by retention or deleted by an
 * operator; after the window it is a new message. The window is 8 s here, so the test can pass it,
 * and long enough for a consume and a purge to fit in it on a loaded CI machine.
 */
@QuarkusTest
@TestProfile(DedupWindowTest.ShortWindow.class)
class DedupWindowTest {
    private static final Duration WINDOW = Duration.ofSeconds(8);
    private static final Duration WEEK = Duration.ofDays(7);

    /** A dedup window of 8 s. */
    public static class ShortWindow implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("mq.publish.dedup-window", WINDOW.toSeconds() + "s");
        }
    }

    @Inject
    RetentionJob retention;

    @Inject
    AgroalDataSource dataSource;

    @Test
    void a_consumed_and_purged_message_stays_a_duplicate_for_the_window_then_is_new() throws Exception {
        String tenant = TestIds.tenant();
        String topic = TestIds.topic();
        String group = TestIds.group();
        long first = publishOne(tenant, topic, "evt-1", false);
        Instant published = createdAt(consumeAll(tenant, topic, group, 1));
        assertEquals(1, retention.purgeTopic(tenant, topic, WEEK, 100), "consumed: retention deletes it");
        assertEquals(0, count("SELECT COUNT(*) FROM queue_messages WHERE tenant = ? AND topic = ?", tenant, topic));
        assumeWithinWindow(published);

        long again = publishOne(tenant, topic, "evt-1", true);
        assertEquals(first, again, "a duplicate answers the first offset");
        assertEquals(0, count("SELECT COUNT(*) FROM queue_messages WHERE tenant = ? AND topic = ?", tenant, topic),
                "nothing stored again");

        // After the window the identity is forgotten: retention deletes it, and the id is new.
        await().atMost(WINDOW.multipliedBy(3)).pollInterval(Duration.ofMillis(200))
                .until(() -> Instant.now().isAfter(published.plus(WINDOW).plusMillis(500)));
        retention.purgeTenant(tenant, WEEK);
        assertEquals(0, count("SELECT COUNT(*) FROM queue_dedup_ids WHERE tenant = ?", tenant),
                "retention deletes identities whose window passed");
        long fresh = publishOne(tenant, topic, "evt-1", false);
        assertTrue(fresh > first, "a new message gets a new offset: " + fresh + " after " + first);
        assertEquals("evt-1", consumeAll(tenant, topic, group, 1).get(0).id(), "and is delivered");
    }

    @Test
    void an_admin_deleted_message_stays_a_duplicate_within_the_window() {
        String tenant = TestIds.tenant();
        String topic = TestIds.topic();
        long first = publishOne(tenant, topic, "evt-2", false);
        given().header("Authorization", "Bearer " + AdminTest.TOKEN).queryParam("tenant", tenant)
                .queryParam("topic", topic).queryParam("partitionKey", "k").queryParam("id", "evt-2")
                .delete("/admin/messages").then().statusCode(200);
        assertEquals(first, publishOne(tenant, topic, "evt-2", true));
    }

    @Test
    void a_duplicate_in_a_batch_with_new_messages_changes_only_the_new_ones() throws Exception {
        String tenant = TestIds.tenant();
        String topic = TestIds.topic();
        String group = TestIds.group();
        long first = publishOne(tenant, topic, "evt-3", false);
        Instant published = createdAt(consumeAll(tenant, topic, group, 1));
        retention.purgeTopic(tenant, topic, WEEK, 100);
        assumeWithinWindow(published);

        Published batch = publishOk(tenant, topic, List.of(msg("k", "evt-3", 3), msg("k", "evt-4", 4)));
        assertEquals(List.of(true, false), batch.duplicates());
        assertEquals(first, batch.offset(0));
        List<Delivered> got = consumeAll(tenant, topic, group, 1);
        assertEquals("evt-4", got.get(0).id(), "only the new message is delivered");
    }

    /**
     * The steps before a "still a duplicate" check (a consume and a purge) left at least 2 s of
     * the window; on a machine so loaded that they did not, the identity may rightly be new again.
     */
    private static void assumeWithinWindow(Instant published) {
        assumeTrue(Instant.now().isBefore(published.plus(WINDOW).minusSeconds(2)),
                "consuming and purging took " + Duration.between(published, Instant.now()).toMillis() + " ms of the "
                        + WINDOW + " window on this machine");
    }

    /** When the one message consumed was stored: its window starts there (same machine clock as the database's). */
    private static Instant createdAt(List<Delivered> consumed) {
        return Instant.parse(consumed.get(0).createdAt());
    }

    private static long publishOne(String tenant, String topic, String id, boolean duplicate) {
        Published r = publishOk(tenant, topic, List.of(msg("k", id, Map.of("n", 1))));
        assertEquals(duplicate, r.duplicate(0), id + " duplicate");
        return r.offset(0);
    }

    /** Fetches and acks until {@code n} messages arrived (the first fetch registers the group). */
    private static List<Delivered> consumeAll(String tenant, String topic, String group, int n) {
        List<Delivered> got = new ArrayList<>();
        await().atMost(Duration.ofSeconds(20)).until(() -> {
            List<Delivered> batch = fetchOk(tenant, topic, group, upTo(n - got.size()).waitSeconds(1));
            if (!batch.isEmpty()) {
                assertTrue(ack(tenant, topic, group, receipts(batch)).stream().allMatch("ACKED"::equals));
            }
            got.addAll(batch);
            return got.size() >= n;
        });
        return got;
    }

    private long count(String sql, String... params) throws Exception {
        return RowCount.of(dataSource, sql, params);
    }
}
