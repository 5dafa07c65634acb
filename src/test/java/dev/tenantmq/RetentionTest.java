package dev.tenantmq;

import static io.restassured.RestAssured.given;
import static dev.tenantmq.Api.ack;
import static dev.tenantmq.Api.fetchOk;
import static dev.tenantmq.Api.msg;
import static dev.tenantmq.Api.publishOk;
import static dev.tenantmq.Delivered.ids;
import static dev.tenantmq.Delivered.receipts;
import static dev.tenantmq.Fetch.upTo;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tenantmq.config.MqConfig;
import dev.tenantmq.scheduler.RetentionJob;
import dev.tenantmq.store.RetentionStore;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Retention ({@code mq.retention.*}): committed messages and expired ones are deleted with
 * their delivery state; a message is kept while a group has not committed it or while its dead
 * letter exists; other tenants are never touched. The test profile disables the scheduled run,
 * so each test runs the job itself.
 */
@QuarkusTest
class RetentionTest {
    private static final Duration WEEK = Duration.ofDays(7);

    private final String tenant = TestIds.tenant();
    private final String topic = TestIds.topic();
    private final String group = TestIds.group();

    @Inject
    AgroalDataSource dataSource;

    @Inject
    RetentionJob retention;

    @Inject
    MqConfig config;

    @Test
    void after_retention_the_offsets_listing_reports_the_committed_offset_as_latest() throws Exception {
        List<Long> offsets = publish(tenant, topic, "p", "1", "2");
        assertEquals(List.of("ACKED", "ACKED"), ack(tenant, topic, group, receipts(fetchAll(tenant, topic, group, 2))));
        assertTrue(retention.purgeTenant(tenant, WEEK) >= 2);
        assertEquals(List.of(), messageOffsets(tenant, topic, "p"));

        io.restassured.path.json.JsonPath listed = io.restassured.RestAssured.given()
                .header("Authorization", "Bearer " + AdminTest.TOKEN).queryParam("tenant", tenant)
                .queryParam("topic", topic).queryParam("consumerGroup", group)
                .get("/admin/offsets").then().statusCode(200).extract().jsonPath();
        assertEquals(offsets.get(1), listed.getLong("offsets[0].committedOffset"));
        assertEquals(offsets.get(1), listed.getLong("offsets[0].latestOffset"), "not 0 once the rows are gone");
        assertEquals(0, listed.getInt("offsets[0].lag"));
    }

    /**
     * The topics listing is read live from the stored messages, for one tenant and for all
     * alike: a topic is listed the moment its publish returned, and a topic that every group has
     * consumed leaves both listings at the next retention run (every minute by default), not
     * one of them.
     */
    @Test
    void the_topics_listings_of_one_tenant_and_of_all_tenants_agree_before_and_after_retention() throws Exception {
        publish(tenant, topic, "p", "1", "2");
        assertEquals(List.of(2L, 2L), topicRows());
        assertEquals(List.of("ACKED", "ACKED"), ack(tenant, topic, group, receipts(fetchAll(tenant, topic, group, 2))));
        assertEquals(List.of(2L, 2L), topicRows(), "consumed messages stay listed until retention deletes them");
        assertTrue(retention.purgeTenant(tenant, WEEK) >= 2);
        assertEquals(List.of(), topicRows(), "a fully consumed topic leaves both listings at once");
    }

    /** Message counts of this test's topic in GET /admin/topics for its tenant, then for all tenants. */
    private List<Long> topicRows() {
        List<Long> counts = new ArrayList<>();
        for (Map<String, String> scope : List.of(Map.of("tenant", tenant), Map.of("allTenants", "true", "limit", "10000"))) {
            io.restassured.path.json.JsonPath listed = given().header("Authorization", "Bearer " + AdminTest.TOKEN)
                    .queryParams(scope).get("/admin/topics").then().statusCode(200).extract().jsonPath();
            assertEquals(false, listed.getBoolean("truncated"), listed.prettify());
            List<Map<String, Object>> rows = listed.getList("topics");
            rows.stream().filter(t -> tenant.equals(t.get("tenant")) && topic.equals(t.get("topic")))
                    .forEach(t -> counts.add(((Number) t.get("messages")).longValue()));
        }
        return counts;
    }

    @Test
    void consumed_messages_are_deleted_and_unacknowledged_kept() throws Exception {
        List<Long> offsets = publish(tenant, topic, "p", "1", "2", "3");
        List<Delivered> got = fetchAll(tenant, topic, group, 3);
        List<String> r = receipts(got);
        assertEquals(List.of("ACKED", "ACKED"), ack(tenant, topic, group, r.subList(0, 2)));
        assertEquals(offsets, messageOffsets(tenant, topic, "p"));

        assertTrue(retention.purgeTenant(tenant, WEEK) >= 2);

        assertEquals(List.of(offsets.get(2)), messageOffsets(tenant, topic, "p"));
        assertEquals(List.of(offsets.get(2)), deliveryOffsets(tenant, topic, "p"));
        assertEquals(List.of("ACKED"), ack(tenant, topic, group, r.subList(2, 3)), "the kept message is still ackable");
        StoredCounts.assertMatchStored(dataSource, tenant);
    }

    @Test
    void a_message_is_kept_until_every_group_has_committed_it() throws Exception {
        String other = TestIds.group();
        List<Long> offsets = publish(tenant, topic, "p", "1", "2", "3");
        List<Delivered> a = fetchAll(tenant, topic, group, 3);
        List<Delivered> b = fetchAll(tenant, topic, other, 3);
        assertEquals(List.of("ACKED", "ACKED", "ACKED"), ack(tenant, topic, group, receipts(a)));
        assertEquals(List.of("ACKED"), ack(tenant, topic, other, receipts(b).subList(0, 1)));

        assertEquals(1, retention.purgeTopic(tenant, topic, WEEK, 500));

        assertEquals(offsets.subList(1, 3), messageOffsets(tenant, topic, "p"),
                "only the first message is committed by both groups");
        assertEquals(offsets.subList(1, 3), deliveryOffsets(tenant, topic, "p"), "the other group's deliveries remain");
        assertEquals(List.of("ACKED", "ACKED"), ack(tenant, topic, other, receipts(b).subList(1, 3)));
        assertEquals(2, retention.purgeTopic(tenant, topic, WEEK, 500));
        assertEquals(List.of(), messageOffsets(tenant, topic, "p"));
    }

    @Test
    void a_group_that_committed_nothing_in_a_partition_keeps_all_of_it() throws Exception {
        List<Long> offsets = publish(tenant, topic, "p", "1", "2");
        assertEquals(List.of("ACKED", "ACKED"), ack(tenant, topic, group, receipts(fetchAll(tenant, topic, group, 2))));
        // A second group of the topic that has an offset only in another partition.
        execute("""
                INSERT INTO queue_offsets (tenant, topic, partition_key, consumer_group, committed_offset, updated_at)
                VALUES (?, ?, 'elsewhere', ?, 0, UTC_TIMESTAMP(6))""", tenant, topic, TestIds.group());

        assertEquals(0, retention.purgeTopic(tenant, topic, WEEK, 500));

        assertEquals(offsets, messageOffsets(tenant, topic, "p"));
    }

    @Test
    void expired_messages_are_deleted_even_unacknowledged() throws Exception {
        List<Long> offsets = publish(tenant, topic, "p", "1", "2", "3");
        List<Delivered> got = fetchAll(tenant, topic, group, 3);
        publish(tenant, topic, "q", "never-fetched");

        assertEquals(4, retention.purgeTopic(tenant, topic, Duration.ZERO, 500));

        assertEquals(List.of(), messageOffsets(tenant, topic, "p"));
        assertEquals(List.of(), messageOffsets(tenant, topic, "q"));
        assertEquals(List.of(), deliveryOffsets(tenant, topic, "p"));
        assertEquals(List.of("INVALID", "INVALID", "INVALID"), ack(tenant, topic, group, receipts(got)),
                "receipts of deleted messages name no message: nothing changes, and retrying cannot help");
        // The partition is not stuck behind the deleted in-flight deliveries.
        long next = publish(tenant, topic, "p", "4").get(0);
        assertTrue(next > offsets.get(2));
        assertEquals(List.of("4"), ids(fetchAll(tenant, topic, group, 1)));
        StoredCounts.assertMatchStored(dataSource, tenant);
    }

    @Test
    void a_dead_lettered_original_is_kept_past_the_commit_until_requeued_and_acknowledged() throws Exception {
        List<Long> offsets = publish(tenant, topic, "k", "poison", "next");
        deadLetterThroughNacks(tenant, topic, group, "k", "poison");
        List<Delivered> next = fetchAll(tenant, topic, group, 1);
        assertEquals("next", next.get(0).id(), "dead-lettering released the partition");
        assertEquals(List.of("ACKED"), ack(tenant, topic, group, receipts(next)));
        assertEquals(offsets.get(1), CommittedOffsets.of(dataSource, tenant, group, topic, "k"),
                "the group committed past the original");

        assertEquals(1, retention.purgeTopic(tenant, topic, config.retention().maxAge(), config.retention().batchSize()),
                "only the acknowledged message goes");
        assertEquals(offsets.subList(0, 1), messageOffsets(tenant, topic, "k"), "the dead letter's original stays");

        requeue(tenant, topic + config.dlqSuffix(), "k", "poison");
        List<Delivered> again = fetchAll(tenant, topic, group, 1);
        assertEquals("poison", again.get(0).id());
        assertEquals(offsets.get(0), again.get(0).offset());
        assertEquals(List.of("ACKED"), ack(tenant, topic, group, receipts(again)));
        assertEquals(1, retention.purgeTopic(tenant, topic, config.retention().maxAge(), config.retention().batchSize()));
        assertEquals(List.of(), messageOffsets(tenant, topic, "k"));
    }

    @Test
    void a_requeued_dead_letter_is_kept_until_delivered_though_the_offset_is_past_it() throws Exception {
        List<Long> offsets = publish(tenant, topic, "k", "poison", "next");
        for (int attempt = 1; attempt <= 5; attempt++) {
            List<Delivered> got = fetchAll(tenant, topic, group, 1);
            assertEquals("poison", got.get(0).id());
            assertEquals(List.of("NACKED"), Api.nack(tenant, topic, group, receipts(got), 0, null));
        }
        assertEquals(List.of("ACKED"), ack(tenant, topic, group, receipts(fetchAll(tenant, topic, group, 1))));
        given().header("Authorization", "Bearer " + AdminTest.TOKEN).queryParam("tenant", tenant)
                .queryParam("topic", topic + ".dlq").queryParam("partitionKey", "k").queryParam("id", "poison")
                .post("/admin/messages/requeue").then().statusCode(200);

        // Committed past both, but "poison" waits for redelivery: only "next" may go.
        assertEquals(1, retention.purgeTopic(tenant, topic, WEEK, 500));
        assertEquals(List.of(offsets.get(0)), messageOffsets(tenant, topic, "k"));
        List<Delivered> again = fetchAll(tenant, topic, group, 1);
        assertEquals("poison", again.get(0).id());
        assertEquals(List.of("ACKED"), ack(tenant, topic, group, receipts(again)));
        assertEquals(1, retention.purgeTopic(tenant, topic, WEEK, 500));
        assertEquals(List.of(), messageOffsets(tenant, topic, "k"));
    }

    @Test
    void the_walk_skips_dead_lettered_messages_and_stops_at_the_first_uncommitted_one() throws Exception {
        List<Long> offsets = publish(tenant, topic, "p", "1", "2", "3", "4", "5", "6", "7");
        assertEquals(List.of("ACKED"), ack(tenant, topic, group, receipts(fetchAll(tenant, topic, group, 1))));
        deadLetterThroughNacks(tenant, topic, group, "p", "2");
        List<Delivered> got = fetchAll(tenant, topic, group, 5);
        assertEquals(List.of("3", "4", "5", "6", "7"), ids(got));
        assertEquals(List.of("ACKED", "ACKED", "ACKED"), ack(tenant, topic, group, receipts(got).subList(0, 3)));
        assertEquals(offsets.get(4), CommittedOffsets.of(dataSource, tenant, group, topic, "p"), "the commit passed the dead letter");

        // Batches of two: [1, 2] [3, 4] [5, 6 stop].
        assertEquals(4, retention.purgeTopic(tenant, topic, WEEK, 2));

        assertEquals(List.of(offsets.get(1), offsets.get(5), offsets.get(6)), messageOffsets(tenant, topic, "p"));
        assertEquals(List.of(offsets.get(1), offsets.get(5), offsets.get(6)), deliveryOffsets(tenant, topic, "p"),
                "delivery state of the consumed prefix was pruned by ack; the dead letter's and the in-flight ones remain");
    }

    @Test
    void purging_one_tenant_never_touches_another() throws Exception {
        String other = otherTenant();
        publish(tenant, topic, "p", "1", "2");
        List<Long> theirs = publish(other, topic, "p", "1", "2");
        deadLetterThroughNacks(other, topic, group, "p", "1");
        List<Long> theirDeadLetter = messageOffsets(other, topic + config.dlqSuffix(), "p");
        assertEquals("2", fetchAll(other, topic, group, 1).get(0).id(), "left in flight");

        assertTrue(retention.purgeTenant(tenant, Duration.ZERO) >= 2);

        assertEquals(List.of(), messageOffsets(tenant, topic, "p"),
                "another tenant's dead letter with the same key and id does not hold this tenant's message");
        assertEquals(theirs, messageOffsets(other, topic, "p"));
        assertEquals(theirDeadLetter, messageOffsets(other, topic + config.dlqSuffix(), "p"));
        assertEquals(theirs, deliveryOffsets(other, topic, "p"), "the dead letter's and the in-flight delivery state");
    }

    @Test
    void deletes_of_many_small_partitions_are_grouped_across_partitions_and_miss_none() throws Exception {
        List<Map<String, Object>> batch = new ArrayList<>();
        for (int p = 0; p < 30; p++) {
            for (int i = 0; i < 3; i++) {
                batch.add(msg("p" + p, "m" + i, i));
            }
        }
        publishOk(tenant, topic, batch);
        List<Delivered> got = fetchAll(tenant, topic, group, 90);
        // Ack the first two of each partition, leave the third.
        List<String> firstTwo = new ArrayList<>();
        for (Delivered m : got) {
            if (!"m2".equals(m.id())) {
                firstTwo.add(m.receipt());
            }
        }
        assertEquals(60, ack(tenant, topic, group, firstTwo).stream().filter("ACKED"::equals).count());

        // A batch of 7 rows straddles partitions of 2 deletable rows each.
        assertEquals(60, retention.purgeTopic(tenant, topic, WEEK, 7));
        for (int p = 0; p < 30; p++) {
            assertEquals(1, messageOffsets(tenant, topic, "p" + p).size(), "partition p" + p);
        }
        StoredCounts.assertMatchStored(dataSource, tenant);
    }

    @Test
    void the_first_rows_of_many_partitions_are_read_a_hundred_partitions_per_statement() throws Exception {
        int partitions = 250;
        List<Map<String, Object>> batch = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            for (int i = 0; i < 2; i++) {
                batch.add(msg("p" + p, "m" + p + "-" + i, i));
            }
        }
        publishOk(tenant, topic, batch);
        List<Delivered> got = fetchAll(tenant, topic, group, 2 * partitions);
        assertEquals(2 * partitions, ack(tenant, topic, group, receipts(got)).stream().filter("ACKED"::equals).count());

        long deleted;
        List<String> sent;
        try (GeneralLog log = GeneralLog.start(dataSource)) {
            deleted = retention.purgeTopic(tenant, topic, WEEK, 500);
            sent = log.stopUnitsOf(topic);
        }

        assertEquals(2L * partitions, deleted);
        List<String> reads = sent.stream().filter(sql -> sql.contains("AS dead_lettered")).toList();
        // ceil(250 / RetentionStore.PARTITIONS_PER_READ): a read per partition made 250.
        assertEquals(3, reads.size(), "reads of the partitions' rows");
        for (int p = 0; p < partitions; p++) {
            assertEquals(List.of(), messageOffsets(tenant, topic, "p" + p), "partition p" + p);
        }
    }

    @Test
    void partitions_deeper_than_a_batch_go_on_alone_after_the_shared_read_and_a_topic_without_groups_is_read_too()
            throws Exception {
        List<Map<String, Object>> batch = new ArrayList<>();
        for (int p = 0; p < 100; p++) {
            for (int i = 0; i < 5; i++) {
                batch.add(msg("p" + p, "m" + p + "-" + i, i));
            }
        }
        publishOk(tenant, topic, batch);
        List<Delivered> got = fetchAll(tenant, topic, group, 500);
        assertEquals(500, ack(tenant, topic, group, receipts(got)).stream().filter("ACKED"::equals).count());
        String unread = TestIds.topic(); // no consumer group: the read without the delivery probe
        List<Map<String, Object>> other = new ArrayList<>();
        for (int p = 0; p < 120; p++) {
            other.add(msg("q" + p, "a", 0));
            other.add(msg("q" + p, "b", 1));
        }
        publishOk(tenant, unread, other);

        // Batches of 2: one read takes the first 2 rows of all 100 partitions, then each goes on alone.
        assertEquals(500, retention.purgeTopic(tenant, topic, WEEK, 2));
        assertEquals(240, retention.purgeTopic(tenant, unread, Duration.ZERO, 500), "expired, in two shared reads");
        for (int p = 0; p < 100; p++) {
            assertEquals(List.of(), messageOffsets(tenant, topic, "p" + p), "partition p" + p);
        }
        for (int p = 0; p < 120; p++) {
            assertEquals(List.of(), messageOffsets(tenant, unread, "q" + p), "partition q" + p);
        }
        assertEquals(100, RetentionStore.partitionsPerRead(500));
        assertEquals(5, RetentionStore.partitionsPerRead(10_000), "a read returns at most 50,000 rows");
    }

    @Test
    void a_run_over_all_served_tenants_deletes_committed_messages() throws Exception {
        List<Long> offsets = publish(tenant, topic, "p", "1", "2");
        List<Delivered> got = fetchAll(tenant, topic, group, 2);
        assertEquals(List.of("ACKED"), ack(tenant, topic, group, receipts(got).subList(0, 1)));

        RetentionJob.RetentionResult result = retention.runOnce();

        assertEquals(0, result.failures());
        assertTrue(result.deleted() >= 1);
        assertEquals(offsets.subList(1, 2), messageOffsets(tenant, topic, "p"));
    }

    @Test
    void a_tenant_this_process_does_not_serve_is_refused() {
        assertThrows(IllegalArgumentException.class, () -> retention.purgeTenant("not-served", Duration.ZERO));
        assertThrows(IllegalArgumentException.class, () -> retention.purgeTenant(tenant, Duration.ofSeconds(-1)));
        assertThrows(IllegalArgumentException.class, () -> retention.purgeTopic(tenant, topic, WEEK, 0));
    }

    /** Publishes one message per id to one partition; returns their offsets in id order. */
    private static List<Long> publish(String tenant, String topic, String partitionKey, String... ids) {
        List<Map<String, Object>> batch = new ArrayList<>();
        for (String id : ids) {
            batch.add(msg(partitionKey, id, id));
        }
        return publishOk(tenant, topic, batch).offsets();
    }

    /**
     * Fetches until {@code n} messages arrived: the first fetch registers the group's interest,
     * and messages come once the scheduler has leased the partition.
     */
    private static List<Delivered> fetchAll(String tenant, String topic, String group, int n) {
        List<Delivered> got = new ArrayList<>();
        await().atMost(Duration.ofSeconds(20)).until(() -> {
            got.addAll(fetchOk(tenant, topic, group, upTo(n - got.size()).waitSeconds(1)));
            return got.size() >= n;
        });
        return got;
    }

    /**
     * Dead-letters message {@code id} for {@code group} the way consumers do: nacks each of its
     * {@code mq.max-deliveries} deliveries without delay, then checks that the dead-letter topic
     * holds it.
     */
    private void deadLetterThroughNacks(String tenant, String topic, String group, String partitionKey, String id)
            throws Exception {
        for (int attempt = 1; attempt <= config.maxDeliveries(); attempt++) {
            List<Delivered> delivered = new ArrayList<>();
            await().atMost(Duration.ofSeconds(20)).until(() -> {
                fetchOk(tenant, topic, group, upTo(10).waitSeconds(1)).stream().filter(m -> id.equals(m.id()))
                        .forEach(delivered::add);
                return !delivered.isEmpty();
            });
            assertEquals(attempt, delivered.get(0).deliveryAttempt());
            assertEquals(List.of("NACKED"), Api.nack(tenant, topic, group, receipts(delivered), 0, null));
        }
        assertEquals(1, messageOffsets(tenant, topic + config.dlqSuffix(), partitionKey).size(),
                "the dead-letter topic holds " + id);
    }

    private static void requeue(String tenant, String deadLetterTopic, String partitionKey, String id) {
        given().header("Authorization", "Bearer " + AdminTest.TOKEN).queryParam("tenant", tenant)
                .queryParam("topic", deadLetterTopic).queryParam("partitionKey", partitionKey).queryParam("id", id)
                .post("/admin/messages/requeue").then().statusCode(200);
    }

    private String otherTenant() {
        String other;
        do {
            other = TestIds.tenant();
        } while (other.equals(tenant));
        assertNotEquals(tenant, other);
        return other;
    }

    private List<Long> messageOffsets(String tenant, String topic, String partitionKey) throws Exception {
        return longs("""
                SELECT `offset` FROM queue_messages
                WHERE tenant = ? AND topic = ? AND partition_key = ? ORDER BY `offset`""", tenant, topic, partitionKey);
    }

    /**
     * Offsets with delivery state in any consumer group, ascending and distinct: a delivery row,
     * or a place in a group's open delivery batch ({@code (committed_offset, delivered_offset]} of
     * {@code queue_offsets}, migration V3), where in-flight messages have no row of their own.
     */
    private List<Long> deliveryOffsets(String tenant, String topic, String partitionKey) throws Exception {
        return longs("""
                SELECT message_offset FROM queue_delivery_state
                WHERE tenant = ? AND topic = ? AND partition_key = ?
                UNION
                SELECT m.`offset` FROM queue_offsets o
                JOIN queue_messages m
                  ON m.tenant = o.tenant AND m.topic = o.topic AND m.partition_key = o.partition_key
                 AND m.`offset` > o.committed_offset AND m.`offset` <= o.delivered_offset
                WHERE o.tenant = ? AND o.topic = ? AND o.partition_key = ?
                ORDER BY 1""", tenant, topic, partitionKey, tenant, topic, partitionKey);
    }

    private List<Long> longs(String sql, Object... params) throws Exception {
        List<Long> out = new ArrayList<>();
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) {
                ps.setObject(i + 1, params[i]);
            }
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getLong(1));
                }
            }
        }
        return out;
    }

    private int execute(String sql, Object... params) throws Exception {
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) {
                ps.setObject(i + 1, params[i]);
            }
            return ps.executeUpdate();
        }
    }
}
