package dev.tenantmq;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import javax.sql.DataSource;

/**
 * A consumer group's committed offset of one partition, read straight from {@code queue_offsets}
 * (migration V3): everything at or below it is settled for the group.
 */
final class CommittedOffsets {
    private static final String COMMITTED_OFFSET = """
            SELECT committed_offset FROM queue_offsets
            WHERE tenant = ? AND topic = ? AND partition_key = ? AND consumer_group = ?""";

    private CommittedOffsets() {}

    /** The committed offset; fails the test when the group has no offsets row for the partition. */
    static long of(DataSource ds, String tenant, String group, String topic, String partitionKey) {
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(COMMITTED_OFFSET)) {
            ps.setString(1, tenant);
            ps.setString(2, topic);
            ps.setString(3, partitionKey);
            ps.setString(4, group);
            try (ResultSet rs = ps.executeQuery()) {
                assertTrue(rs.next(), group + " has an offsets row for partition " + partitionKey + " of " + topic);
                return rs.getLong(1);
            }
        } catch (SQLException e) {
            throw new AssertionError(e);
        }
    }
}
