package dev.tenantmq;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import javax.sql.DataSource;
import org.junit.jupiter.api.Assumptions;

/**
 * The rows the storage engine handed to the server, from the handler counters, for the tests that
 * bound what a statement reads (docs/testing.md). One mysqld's counters: through vtgate they are
 * not the shards', so such a test aborts there ({@link #assumeNotVitess}).
 */
final class HandlerReads {
    private HandlerReads() {}

    /**
     * Aborts the calling test (a JUnit assumption) on vtgate; the statement's single-shard routing
     * is {@code VitessRoutingTest}'s.
     */
    static void assumeNotVitess(DataSource dataSource) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            String version = c.getMetaData().getDatabaseProductVersion();
            Assumptions.assumeFalse(version.endsWith("-Vitess"), "the rows-read guard counts one mysqld's reads; this is " + version);
        }
    }

    /**
     * Tries of a read-only measurement a test takes the least of: another session's reads (a
     * registration tick, a waiting poll's re-check) can only raise a try, and on a busy machine
     * one such burst can cover three quick tries.
     */
    static final int TRIES = 5;

    /** What {@link #during} ran, and the rows read meanwhile. */
    record Measured<T>(T result, long rows) {}

    /**
     * Runs {@code work} and counts the rows read meanwhile, by every session, without the rows
     * that reading the counters adds itself (measured by a second reading just before). Another
     * session's reads can only raise the count, so callers take the least of a few tries.
     */
    static <T> Measured<T> during(DataSource dataSource, Callable<T> work) throws Exception {
        long idleStart = rowsRead(dataSource);
        long before = rowsRead(dataSource); // what one SHOW adds by itself: before - idleStart
        T result = work.call();
        return new Measured<>(result, (rowsRead(dataSource) - before) - (before - idleStart));
    }

    /**
     * Rows of {@code table} read so far through each of its indexes, by every session, by index
     * name: MariaDB's {@code information_schema.INDEX_STATISTICS}, which counts only while the
     * global {@code userstat} is on (the caller turns it on and back), or MySQL's
     * {@code performance_schema.table_io_waits_summary_by_index_usage}.
     */
    static Map<String, Long> rowsReadPerIndex(DataSource dataSource, String table) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            String sql = GeneralLogFromStart.isMariaDb(c)
                    ? "SELECT INDEX_NAME, ROWS_READ FROM information_schema.INDEX_STATISTICS"
                            + " WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ?"
                    : "SELECT INDEX_NAME, COUNT_READ FROM performance_schema.table_io_waits_summary_by_index_usage"
                            + " WHERE OBJECT_SCHEMA = DATABASE() AND OBJECT_NAME = ? AND INDEX_NAME IS NOT NULL";
            Map<String, Long> rows = new HashMap<>();
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                ps.setString(1, table);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        rows.put(rs.getString(1), rs.getLong(2));
                    }
                }
            }
            return rows;
        }
    }

    /**
     * Rows read so far, all sessions: the sum of the Handler_read_* counters, index look-ups and
     * steps and table scans alike. The SHOW itself adds its own rows (Handler_read_rnd_next); the
     * caller subtracts that.
     */
    static long rowsRead(DataSource dataSource) throws SQLException {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SHOW GLOBAL STATUS LIKE 'Handler_read%'")) {
            long sum = 0;
            while (rs.next()) {
                sum += rs.getLong(2);
            }
            return sum;
        }
    }
}
