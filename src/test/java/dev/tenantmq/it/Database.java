package dev.tenantmq.it;

import dev.tenantmq.config.EmbeddedDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.Map;

/**
 * The database the multi-process tests share with the processes they start: the one named by
 * {@code QUARKUS_DATASOURCE_JDBC_URL} (with {@code _USERNAME} and {@code _PASSWORD}) when set,
 * else the embedded MariaDB.
 */
public record Database(String url, String user, String password) {

    /** Resolves the database, starting the embedded one if no URL is configured. */
    public static Database resolve() {
        String url = System.getenv("QUARKUS_DATASOURCE_JDBC_URL");
        if (url != null && !url.isBlank()) {
            return new Database(url, env("QUARKUS_DATASOURCE_USERNAME", "root"), env("QUARKUS_DATASOURCE_PASSWORD", ""));
        }
        return new Database(EmbeddedDatabase.start(), "root", "");
    }

    private static String env(String name, String fallback) {
        String v = System.getenv(name);
        return v == null ? fallback : v;
    }

    /** Unexpired leases of a (tenant, group, topic), counted per holder (database clock). */
    public Map<String, Integer> liveLeases(String tenant, String group, String topic) throws SQLException {
        Map<String, Integer> out = new HashMap<>();
        try (Connection c = DriverManager.getConnection(url, user, password);
             PreparedStatement ps = c.prepareStatement("""
                     SELECT leased_by, COUNT(*) FROM queue_partition_leases
                     WHERE tenant = ? AND consumer_group = ? AND topic = ? AND expires_at > UTC_TIMESTAMP(6)
                     GROUP BY leased_by""")) {
            ps.setString(1, tenant);
            ps.setString(2, group);
            ps.setString(3, topic);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.put(rs.getString(1), rs.getInt(2));
                }
            }
        }
        return out;
    }

    /** Committed offsets of a group's partitions. */
    public Map<String, Long> committedOffsets(String tenant, String group, String topic) throws SQLException {
        Map<String, Long> out = new HashMap<>();
        try (Connection c = DriverManager.getConnection(url, user, password);
             PreparedStatement ps = c.prepareStatement("""
                     SELECT partition_key, committed_offset FROM queue_offsets
                     WHERE tenant = ? AND topic = ? AND consumer_group = ?""")) {
            ps.setString(1, tenant);
            ps.setString(2, topic);
            ps.setString(3, group);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.put(rs.getString(1), rs.getLong(2));
                }
            }
        }
        return out;
    }
}
