package dev.tenantmq.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tenantmq.Api;
import dev.tenantmq.Fetch;
import dev.tenantmq.TestIds;
import dev.tenantmq.model.GroupScope;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The timestamps the store reads only to bind them back (a deleted message's {@code created_at}
 * into {@code queue_dedup_ids}, an open batch's {@code visible_at} into its delivery rows) come
 * from the database as text, microseconds included: the driver turns a DATETIME column into text
 * through {@code String.format}, which cost the service a tenth of its CPU in the benchmark's
 * consume run and its replay (docs/architecture.md, "Rows into responses").
 */
@QuarkusTest
class TimestampTextTest {
    private static final Set<Integer> TEXT = Set.of(Types.VARCHAR, Types.LONGVARCHAR, Types.CHAR);
    private static final String MICROSECONDS = "\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}\\.\\d{6}";

    @Inject
    AgroalDataSource dataSource;

    private final String tenant = TestIds.tenant();
    private final String topic = TestIds.topic();

    @Test
    void a_deleted_message_s_publish_time_is_read_as_the_database_prints_it() throws SQLException {
        long offset = Api.publishOk(tenant, topic, List.of(Api.msg("k", "m1", 1))).offsets().get(0);
        long window = 86_400_000_000L;
        String stored = databaseText("created_at", "queue_messages", "`offset` = " + offset);

        assertColumnIsText(new DedupSql.SelectRangeIdentities(tenant, topic, "k", offset, offset, window), "created_at",
                stored);
        assertColumnIsText(new DedupSql.SelectRecentIdentities(tenant, topic, "k", List.of(offset), window), "created_at",
                stored);
    }

    @Test
    void an_open_batch_s_visibility_deadline_is_read_as_the_database_prints_it() throws SQLException {
        String group = TestIds.group();
        Api.publishOk(tenant, topic, List.of(Api.msg("k", "m1", 1)));
        assertEquals(1, Api.fetchOk(tenant, topic, group, Fetch.upTo(1)).size());
        String stored = databaseText("visible_at", "queue_offsets", "consumer_group = '" + group + "'");

        assertColumnIsText(new ConsumerSql.SelectCursors(new GroupScope(tenant, group, topic), List.of("k")), "visible_at",
                stored);
    }

    /** Runs {@code q} and checks the type and value of its {@code column} in the first row. */
    private void assertColumnIsText(Statement q, String column, String stored) throws SQLException {
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(q.sql())) {
            q.bindTo(ps);
            try (ResultSet rs = ps.executeQuery()) {
                assertTrue(rs.next(), q.getClass().getSimpleName() + " returned a row");
                int index = rs.findColumn(column);
                int type = rs.getMetaData().getColumnType(index);
                assertTrue(TEXT.contains(type), q.getClass().getSimpleName() + "." + column
                        + " comes as text, not as a timestamp the driver formats: JDBC type " + type);
                assertEquals(stored, rs.getString(index), "the value as the database prints it");
            }
        }
    }

    /** A timestamp column as the database prints it with DATE_FORMAT, microseconds included. */
    private String databaseText(String column, String table, String where) throws SQLException {
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(
                "SELECT DATE_FORMAT(" + column + ", '%Y-%m-%d %H:%i:%s.%f') FROM " + table
                        + " WHERE tenant = ? AND topic = ? AND " + where)) {
            ps.setString(1, tenant);
            ps.setString(2, topic);
            try (ResultSet rs = ps.executeQuery()) {
                assertTrue(rs.next(), table + " has the row");
                String text = rs.getString(1);
                assertTrue(text.matches(MICROSECONDS), text);
                return text;
            }
        }
    }
}
