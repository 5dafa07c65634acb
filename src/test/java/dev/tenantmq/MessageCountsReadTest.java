package dev.tenantmq;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tenantmq.model.GroupScope;
import dev.tenantmq.store.LeaseStore;
import dev.tenantmq.store.QuotaStore;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.path.json.JsonPath;
import io.restassured.specification.RequestSpecification;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The reads that need only the messages' keys (the topic listing's counts, a quota's
 * unacknowledged messages, the offsets listing's lag) read them from
 * {@code uq_message_id}'s entries, not from the primary key, whose rows hold the payloads
 * (docs/operations.md, "Counting messages"): MariaDB 10.11 and MySQL 9.7 take the primary key
 * unless told. Measured with the server's rows read per index
 * ({@link HandlerReads#rowsReadPerIndex}), the least of five tries, as another session's reads
 * only add. The tick's idle check of a drained partition reads its head and no message.
 */
@QuarkusTest
@TestProfile(StatementBudgetTest.NoTicks.class)
class MessageCountsReadTest {
    private static final int MESSAGES = 200;
    private static final int PARTITIONS = 4;

    @Inject
    AgroalDataSource dataSource;

    @Inject
    QuotaStore quotas;

    @Inject
    LeaseStore leases;

    private String tenant;
    private String topic;
    /** MariaDB's global {@code userstat} before the test turned it on, restored after; null on MySQL. */
    private String userstatBefore;

    @BeforeEach
    void publish() throws SQLException {
        HandlerReads.assumeNotVitess(dataSource);
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            if (GeneralLogFromStart.isMariaDb(c)) {
                try (ResultSet rs = s.executeQuery("SELECT @@GLOBAL.userstat")) {
                    rs.next();
                    userstatBefore = rs.getString(1);
                }
                s.execute("SET GLOBAL userstat = 1"); // MariaDB counts rows per index only with it on
            }
        }
        tenant = TestIds.tenant();
        topic = TestIds.topic();
        for (int from = 0; from < MESSAGES; from += 50) {
            List<Map<String, Object>> batch = new ArrayList<>();
            for (int i = from; i < from + 50; i++) {
                batch.add(Api.msg("k" + (i % PARTITIONS), "m-" + i, Map.of("i", i)));
            }
            Api.publishOk(tenant, topic, batch);
        }
    }

    @AfterEach
    void restoreUserstat() throws SQLException {
        if (userstatBefore != null) {
            try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
                s.execute("SET GLOBAL userstat = " + ("1".equals(userstatBefore) || "ON".equalsIgnoreCase(userstatBefore) ? 1 : 0));
            }
        }
    }

    @Test
    void the_topic_listing_counts_the_messages_from_the_identity_index() throws Exception {
        Map<String, Long> read = leastRowsReadPerIndex(() -> {
            JsonPath topics = admin().queryParam("tenant", tenant).get("/admin/topics")
                    .then().statusCode(200).extract().jsonPath();
            assertEquals(List.of(PARTITIONS), topics.getList("topics.findAll { it.topic == '" + topic + "' }.partitions"));
            assertEquals(List.of(MESSAGES), topics.getList("topics.findAll { it.topic == '" + topic + "' }.messages"));
        });

        assertReadFromTheIdentityIndex(read);
    }

    @Test
    void the_unacknowledged_count_of_a_quota_reads_the_identity_index() throws Exception {
        Map<String, Long> read = leastRowsReadPerIndex(() -> assertEquals(MESSAGES, quotas.unacked(tenant, topic, 10_000)));

        assertReadFromTheIdentityIndex(read);
    }

    @Test
    void the_lag_of_the_offsets_listing_counts_from_the_identity_index() throws Exception {
        String group = TestIds.group();
        Api.fetchOk(tenant, topic, group, Fetch.upTo(1).waitSeconds(0)); // the group's offsets rows, nothing committed
        // The fetch's tick creates them; a fetch that does not wait may answer before it finishes.
        await("the group's offsets rows of every partition").atMost(Duration.ofSeconds(30))
                .until(() -> offsetsOf(group).getList("offsets").size() == PARTITIONS);

        Map<String, Long> read = leastRowsReadPerIndex(() -> {
            JsonPath offsets = offsetsOf(group);
            assertEquals(MESSAGES, offsets.getList("offsets.lag", Integer.class).stream().mapToInt(Integer::intValue).sum());
        });

        assertReadFromTheIdentityIndex(read);
    }

    @Test
    void the_idle_check_of_a_drained_partition_reads_its_head_and_no_message() throws Exception {
        String group = TestIds.group();
        drain(group);
        GroupScope scope = new GroupScope(tenant, group, topic);

        Map<String, Long> read = leastRowsReadPerIndex(() -> assertEquals(Set.of("k0", "k1", "k2", "k3"),
                leases.idlePartitions(scope, 0)));

        // The check used to read every stored message of each partition (MESSAGES in all).
        assertEquals(0L, read.getOrDefault("uq_message_id", 0L) + read.getOrDefault("PRIMARY", 0L),
                "rows of queue_messages read per index: " + read);
    }

    @Test
    void the_idle_check_holds_a_partition_with_a_message_above_its_committed_offset_until_that_message_is_deleted() throws SQLException {
        String group = TestIds.group();
        drain(group);
        GroupScope scope = new GroupScope(tenant, group, topic);
        Api.publishOk(tenant, topic, List.of(Api.msg("k0", "late", Map.of("i", -1))));

        assertEquals(Set.of("k1", "k2", "k3"), leases.idlePartitions(scope, 0), "k0 stores a message above its committed offset");

        given().header("Authorization", "Bearer " + AdminTest.TOKEN).queryParam("tenant", tenant)
                .queryParam("topic", topic).queryParam("partitionKey", "k0").queryParam("id", "late")
                .delete("/admin/messages").then().statusCode(200);

        assertTrue(headAboveCommitted(group, "k0"), "k0's head stays above the committed offset after the delete");
        assertEquals(Set.of("k0", "k1", "k2", "k3"), leases.idlePartitions(scope, 0),
                "k0's newest stored message is at or below its committed offset");
    }

    /** Whether the partition head of {@code partitionKey} is above {@code group}'s committed offset. */
    private boolean headAboveCommitted(String group, String partitionKey) throws SQLException {
        try (Connection c = dataSource.getConnection(); var ps = c.prepareStatement("""
                SELECT h.head_offset > o.committed_offset FROM queue_partition_heads h
                JOIN queue_offsets o ON o.tenant = h.tenant AND o.topic = h.topic AND o.partition_key = h.partition_key
                WHERE h.tenant = ? AND h.topic = ? AND h.partition_key = ? AND o.consumer_group = ?""")) {
            ps.setString(1, tenant);
            ps.setString(2, topic);
            ps.setString(3, partitionKey);
            ps.setString(4, group);
            try (ResultSet rs = ps.executeQuery()) {
                assertTrue(rs.next(), "a head and an offsets row for " + partitionKey);
                return rs.getBoolean(1);
            }
        }
    }

    /** Fetches and acknowledges every message of the topic for {@code group}: its offsets rows at the heads. */
    private void drain(String group) {
        int acked = 0;
        while (acked < MESSAGES) {
            List<Delivered> got = Api.fetchOk(tenant, topic, group, Fetch.upTo(100).waitSeconds(1));
            assertTrue(!got.isEmpty(), "the group drains the topic: " + acked + " of " + MESSAGES + " acknowledged");
            Api.ack(tenant, topic, group, Delivered.receipts(got));
            acked += got.size();
        }
    }

    /**
     * At least every message read from the identity index, and fewer than a quarter of them from
     * the primary key (a look at each partition's newest message is one row there).
     */
    private static void assertReadFromTheIdentityIndex(Map<String, Long> read) {
        assertTrue(read.getOrDefault("uq_message_id", 0L) >= MESSAGES, "rows read per index: " + read);
        assertTrue(read.getOrDefault("PRIMARY", 0L) < MESSAGES / 4, "rows read per index: " + read);
    }

    /** {@code GET /admin/offsets} of the test's topic for {@code group}. */
    private JsonPath offsetsOf(String group) {
        return admin().queryParam("tenant", tenant).queryParam("topic", topic).queryParam("consumerGroup", group)
                .get("/admin/offsets").then().statusCode(200).extract().jsonPath();
    }

    private static RequestSpecification admin() {
        return given().header("Authorization", "Bearer " + AdminTest.TOKEN);
    }

    /** Rows of {@code queue_messages} read through each index while {@code work} ran, the least per index of HandlerReads.TRIES tries. */
    private Map<String, Long> leastRowsReadPerIndex(Runnable work) throws SQLException {
        Map<String, Long> least = new HashMap<>();
        for (int attempt = 0; attempt < HandlerReads.TRIES; attempt++) {
            Map<String, Long> before = HandlerReads.rowsReadPerIndex(dataSource, "queue_messages");
            work.run();
            Map<String, Long> after = HandlerReads.rowsReadPerIndex(dataSource, "queue_messages");
            for (String index : List.of("PRIMARY", "uq_message_id")) {
                least.merge(index, after.getOrDefault(index, 0L) - before.getOrDefault(index, 0L), Math::min);
            }
        }
        return least;
    }
}
