package dev.tenantmq;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tenantmq.store.QuotaStore;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.path.json.JsonPath;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The counts that need only the messages' keys, the topic listing's and a quota's unacknowledged
 * messages, read them from {@code uq_message_id}'s entries, not from the primary key, whose rows
 * hold the payloads (docs/operations.md, "Counting messages"): MariaDB 10.11 takes the primary key
 * unless told. Measured with the server's rows read per index: MariaDB's
 * {@code information_schema.INDEX_STATISTICS} (with {@code userstat} on), MySQL's
 * {@code performance_schema.table_io_waits_summary_by_index_usage}; the least of three tries, as
 * another session's reads only add.
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

    private String tenant;
    private String topic;

    @BeforeEach
    void publish() throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            Assumptions.assumeFalse(c.getMetaData().getDatabaseProductVersion().endsWith("-Vitess"),
                    "counts one mysqld's reads per index");
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

    @Test
    void the_topic_listing_counts_the_messages_from_the_identity_index() throws Exception {
        Map<String, Long> read = leastRowsReadPerIndex(() -> {
            JsonPath topics = given().header("Authorization", "Bearer " + AdminTest.TOKEN).queryParam("tenant", tenant)
                    .get("/admin/topics").then().statusCode(200).extract().jsonPath();
            assertEquals(List.of(PARTITIONS), topics.getList("topics.findAll { it.topic == '" + topic + "' }.partitions"));
            assertEquals(List.of(MESSAGES), topics.getList("topics.findAll { it.topic == '" + topic + "' }.messages"));
        });

        assertTrue(read.getOrDefault("uq_message_id", 0L) >= MESSAGES, "rows read per index: " + read);
        assertTrue(read.getOrDefault("PRIMARY", 0L) < MESSAGES / 4, "rows read per index: " + read);
    }

    @Test
    void the_unacknowledged_count_of_a_quota_reads_the_identity_index() throws Exception {
        Map<String, Long> read = leastRowsReadPerIndex(() -> assertEquals(MESSAGES, quotas.unacked(tenant, topic, 10_000)));

        assertTrue(read.getOrDefault("uq_message_id", 0L) >= MESSAGES, "rows read per index: " + read);
        assertTrue(read.getOrDefault("PRIMARY", 0L) < MESSAGES / 4, "rows read per index: " + read);
    }

    /** Rows of {@code queue_messages} read through each index while {@code work} ran, the least per index of three tries. */
    private Map<String, Long> leastRowsReadPerIndex(Runnable work) throws SQLException {
        Map<String, Long> least = new HashMap<>();
        for (int attempt = 0; attempt < 3; attempt++) {
            Map<String, Long> before = rowsReadPerIndex();
            work.run();
            Map<String, Long> after = rowsReadPerIndex();
            for (String index : List.of("PRIMARY", "uq_message_id")) {
                long n = after.getOrDefault(index, 0L) - before.getOrDefault(index, 0L);
                least.merge(index, n, Math::min);
            }
        }
        return least;
    }

    /** Rows of {@code queue_messages} read so far through each of its indexes, by every session. */
    private Map<String, Long> rowsReadPerIndex() throws SQLException {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            boolean mariadb = c.getMetaData().getDatabaseProductVersion().contains("MariaDB");
            String sql;
            if (mariadb) {
                s.execute("SET GLOBAL userstat = 1"); // MariaDB counts per index only with it on
                sql = "SELECT INDEX_NAME, ROWS_READ FROM information_schema.INDEX_STATISTICS"
                        + " WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'queue_messages'";
            } else {
                sql = "SELECT INDEX_NAME, COUNT_READ FROM performance_schema.table_io_waits_summary_by_index_usage"
                        + " WHERE OBJECT_SCHEMA = DATABASE() AND OBJECT_NAME = 'queue_messages' AND INDEX_NAME IS NOT NULL";
            }
            Map<String, Long> rows = new HashMap<>();
            try (ResultSet rs = s.executeQuery(sql)) {
                while (rs.next()) {
                    rows.put(rs.getString(1), rs.getLong(2));
                }
            }
            return rows;
        }
    }
}
