package dev.tenantmq.bench;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Database-side counters around a measurement: statements and InnoDB row operations per message
 * (SHOW GLOBAL STATUS deltas, which include the scheduler's own statements), and, with
 * performance_schema on ({@code --profile}), the statement digests that took the most time.
 */
final class Db {
    static final List<String> COUNTERS = List.of("Questions", "Com_select", "Com_insert", "Com_update", "Com_delete",
            "Com_commit", "Innodb_rows_read", "Innodb_rows_inserted", "Innodb_rows_updated", "Innodb_rows_deleted",
            "Innodb_data_fsyncs", "Innodb_row_lock_waits", "Bytes_sent", "Com_stmt_prepare", "Com_stmt_execute");
    private final String url, user, password;

    Db(String serverUrl, String user, String password) {
        this.url = serverUrl + "/?sslMode=DISABLED&allowPublicKeyRetrieval=true";
        this.user = user;
        this.password = password;
    }

    Connection connect() throws Exception {
        return DriverManager.getConnection(url, user, password);
    }

    Map<String, Long> status() throws Exception {
        Map<String, Long> m = new LinkedHashMap<>();
        try (Connection c = connect(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SHOW GLOBAL STATUS")) {
            while (rs.next()) {
                if (COUNTERS.contains(rs.getString(1))) {
                    m.put(rs.getString(1), Long.parseLong(rs.getString(2)));
                }
            }
        }
        return m;
    }

    /** Counter deltas divided by {@code msgs}. */
    static Map<String, Object> perMessage(Map<String, Long> before, Map<String, Long> after, long msgs) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (String k : COUNTERS) {
            if (before.containsKey(k) && after.containsKey(k)) {
                m.put(k, Stats.round((after.get(k) - before.get(k)) / (double) Math.max(1, msgs)));
            }
        }
        return m;
    }

    /** Messages stored in one topic of the service's schema (a read-only look at its table). */
    long topicRows(String schema, String tenant, String topic) throws Exception {
        try (Connection c = connect(); java.sql.PreparedStatement ps = c.prepareStatement(
                "SELECT COUNT(*) FROM `" + schema + "`.queue_messages WHERE tenant = ? AND topic = ?")) {
            ps.setString(1, tenant);
            ps.setString(2, topic);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    String version() throws Exception {
        try (Connection c = connect(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT VERSION()")) {
            rs.next();
            return rs.getString(1);
        }
    }

    String variable(String name) throws Exception {
        try (Connection c = connect(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SHOW GLOBAL VARIABLES LIKE '" + name + "'")) {
            return rs.next() ? rs.getString(2) : null;
        }
    }

    boolean performanceSchema() throws Exception {
        return "ON".equalsIgnoreCase(variable("performance_schema"));
    }

    /**
     * Empties the statement digests, and turns on the consumer without which MariaDB 10.11 keeps
     * a server-prepared statement's row in {@code prepared_statements_instances} with no
     * executions counted ({@link #preparedCounters}; checked with Connector/J's binary protocol).
     */
    void resetDigests() throws Exception {
        try (Connection c = connect(); Statement s = c.createStatement()) {
            s.execute("TRUNCATE TABLE performance_schema.events_statements_summary_by_digest");
            s.execute("UPDATE performance_schema.setup_consumers SET ENABLED = 'YES' WHERE NAME = 'events_statements_current'");
        }
    }

    /**
     * The counters of every statement prepared on the server now, by instance: a statement the
     * service prepares on the server is executed without a digest row
     * ({@code events_statements_summary_by_digest} counts only its text runs before), so its
     * executions are read here, before and after, and {@link #topPrepared} takes the difference.
     * Empty where the table is not there.
     */
    Map<Long, Object[]> preparedCounters() throws Exception {
        Map<Long, Object[]> out = new LinkedHashMap<>();
        try (Connection c = connect(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("""
                     SELECT OBJECT_INSTANCE_BEGIN, SQL_TEXT, COUNT_EXECUTE, SUM_TIMER_EXECUTE / 1e12,
                            SUM_ROWS_AFFECTED, SUM_ROWS_EXAMINED, SUM_ROWS_SENT, SUM_LOCK_TIME / 1e12
                     FROM performance_schema.prepared_statements_instances""")) {
            while (rs.next()) {
                out.put(rs.getLong(1), new Object[] {rs.getString(2), rs.getLong(3), rs.getDouble(4), rs.getLong(5),
                        rs.getLong(6), rs.getLong(7), rs.getDouble(8)});
            }
        } catch (java.sql.SQLException e) {
            return Map.of(); // no such table on this server
        }
        return out;
    }

    /**
     * The server-prepared statements that took the most server time between two
     * {@link #preparedCounters} readings, summed over the connections by their first 300
     * characters, in the shape of {@link #topDigests}.
     */
    static List<Map<String, Object>> topPrepared(Map<Long, Object[]> before, Map<Long, Object[]> after, int top) {
        Map<String, double[]> sums = new LinkedHashMap<>();
        after.forEach((instance, now) -> {
            Object[] then = before.get(instance);
            String text = (String) now[0];
            String key = text == null ? "" : text.length() > 300 ? text.substring(0, 300) + "..." : text;
            double[] sum = sums.computeIfAbsent(key, k -> new double[6]);
            for (int i = 0; i < 6; i++) {
                double a = ((Number) now[i + 1]).doubleValue();
                double b = then == null ? 0 : ((Number) then[i + 1]).doubleValue(); // prepared since: all of it
                sum[i] += a - b;
            }
        });
        List<Map<String, Object>> out = new ArrayList<>();
        sums.entrySet().stream().filter(e -> e.getValue()[0] > 0)
                .sorted((x, y) -> Double.compare(y.getValue()[1], x.getValue()[1])).limit(top).forEach(e -> {
                    double[] v = e.getValue();
                    Map<String, Object> m = new LinkedHashMap<>();
                    m.put("statement", e.getKey());
                    m.put("count", (long) v[0]);
                    m.put("total_s", Stats.round(v[1]));
                    m.put("rows_affected", (long) v[2]);
                    m.put("rows_examined", (long) v[3]);
                    m.put("rows_sent", (long) v[4]);
                    m.put("lock_s", Stats.round(v[5]));
                    out.add(m);
                });
        return out;
    }

    /** The statements of the service's schema that took the most server time since the reset. */
    List<Map<String, Object>> topDigests(String schema, int top) throws Exception {
        List<Map<String, Object>> out = new ArrayList<>();
        try (Connection c = connect(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("""
                     SELECT DIGEST_TEXT, COUNT_STAR, SUM_TIMER_WAIT / 1e12, SUM_ROWS_AFFECTED, SUM_ROWS_EXAMINED,
                            SUM_ROWS_SENT, SUM_LOCK_TIME / 1e12
                     FROM performance_schema.events_statements_summary_by_digest
                     WHERE SCHEMA_NAME = '%s' ORDER BY SUM_TIMER_WAIT DESC LIMIT %d""".formatted(schema, top))) {
            while (rs.next()) {
                Map<String, Object> m = new LinkedHashMap<>();
                String text = rs.getString(1);
                m.put("statement", text == null ? null : text.length() > 300 ? text.substring(0, 300) + "..." : text);
                m.put("count", rs.getLong(2));
                m.put("total_s", Stats.round(rs.getDouble(3)));
                m.put("rows_affected", rs.getLong(4));
                m.put("rows_examined", rs.getLong(5));
                m.put("rows_sent", rs.getLong(6));
                m.put("lock_s", Stats.round(rs.getDouble(7)));
                out.add(m);
            }
        }
        return out;
    }
}
