package dev.tenantmq;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Map;
import java.util.TreeMap;
import javax.sql.DataSource;

/**
 * The partition heads' {@code message_count} (migration V10) against the messages stored: every
 * writer of {@code queue_messages} keeps it in the transaction that writes them
 * (docs/architecture.md, "Lag from the partition heads"). Tests of a writer call
 * {@link #assertMatchStored} after it wrote.
 */
final class StoredCounts {
    private StoredCounts() {}

    /** Per head of the tenant (topic deletion markers aside): its count, then the stored messages, by the whole key. */
    private static final String COUNTS = """
            SELECT h.topic, h.partition_key, h.message_count,
                   COALESCE((SELECT COUNT(*) FROM queue_messages m
                             WHERE m.tenant = h.tenant AND m.topic = h.topic AND m.partition_key = h.partition_key), 0)
                     AS stored_messages
            FROM queue_partition_heads h
            WHERE h.tenant = ? AND h.partition_key <> ''
            ORDER BY h.topic, h.partition_key""";

    /**
     * Asserts that every partition head of {@code tenant} counts the messages its partition
     * stores, and returns the counts.
     *
     * @return "topic/partition_key" to the stored count, in key order
     */
    static Map<String, Long> assertMatchStored(DataSource dataSource, String tenant) throws SQLException {
        Map<String, Long> counted = new TreeMap<>();
        Map<String, Long> stored = new TreeMap<>();
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(COUNTS)) {
            ps.setString(1, tenant);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    String key = rs.getString("topic") + "/" + rs.getString("partition_key");
                    counted.put(key, rs.getLong("message_count"));
                    stored.put(key, rs.getLong("stored_messages"));
                }
            }
        }
        Map<String, String> wrong = new TreeMap<>();
        stored.forEach((key, n) -> {
            if (!n.equals(counted.get(key))) {
                wrong.put(key, "count " + counted.get(key) + ", stored " + n);
            }
        });
        assertEquals(Map.of(), wrong, "partition heads of tenant " + tenant + " whose message_count is not what they store");
        return stored;
    }
}
