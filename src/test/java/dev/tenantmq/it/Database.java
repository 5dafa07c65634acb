package dev.tenantmq.it;

import dev.tenantmq.config.EmbeddedDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.LocalDateTime;
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

    /** One lease row: holder, epoch (fencing token) and whether it is unexpired (database clock). */
    public record Lease(String leasedBy, long epoch, boolean live) {}

    /** Every lease row of a (tenant, group, topic) by partition key, expired ones included. */
    public Map<String, Lease> leases(String tenant, String group, String topic) throws SQLException {
        Map<String, Lease> out = new HashMap<>();
        try (Connection c = DriverManager.getConnection(url, user, password);
             PreparedStatement ps = c.prepareStatement("""
                     SELECT partition_key, leased_by, epoch, expires_at > UTC_TIMESTAMP(6) FROM queue_partition_leases
                     WHERE tenant = ? AND consumer_group = ? AND topic = ?""")) {
            ps.setString(1, tenant);
            ps.setString(2, group);
            ps.setString(3, topic);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.put(rs.getString(1), new Lease(rs.getString(2), rs.getLong(3), rs.getBoolean(4)));
                }
            }
        }
        return out;
    }

    /**
     * When a subscriber last heart-beat for a (tenant, group, topic), or null when it has no
     * heartbeat row. Each scheduler tick of that subscriber moves it forward.
     */
    public LocalDateTime lastHeartbeat(String tenant, String group, String topic, String subscriber) throws SQLException {
        try (Connection c = DriverManager.getConnection(url, user, password);
             PreparedStatement ps = c.prepareStatement("""
                     SELECT last_seen_at FROM queue_subscriber_heartbeats
                     WHERE tenant = ? AND consumer_group = ? AND topic = ? AND subscriber_name = ?""")) {
            ps.setString(1, tenant);
            ps.setString(2, group);
            ps.setString(3, topic);
            ps.setString(4, subscriber);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getObject(1, LocalDateTime.class) : null;
            }
        }
    }

    /** The database clock (UTC), which judges every expiry and stamps every heartbeat. */
    public LocalDateTime now() throws SQLException {
        try (Connection c = DriverManager.getConnection(url, user, password);
             PreparedStatement ps = c.prepareStatement("SELECT UTC_TIMESTAMP(6)");
             ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getObject(1, LocalDateTime.class);
        }
    }
}
