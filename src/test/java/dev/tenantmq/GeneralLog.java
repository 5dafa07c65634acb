package dev.tenantmq;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.Assumptions;

/**
 * The database's own record of the statements it received (the general query log, written to
 * the table {@code mysql.general_log}), so a test can count what a request costs. Client-side
 * prepared statements arrive with their values in the text, so a test finds its own statements
 * by its unique topic name. Needs a user that may set global variables (the test databases' root).
 */
final class GeneralLog implements AutoCloseable {
    private final DataSource dataSource;
    private final String previousOutput;

    private GeneralLog(DataSource dataSource, String previousOutput) {
        this.dataSource = dataSource;
        this.previousOutput = previousOutput;
    }

    /**
     * Empties the log table and starts logging every statement the server receives.
     *
     * <p>Aborts the calling test (a JUnit assumption) on vtgate: the general log is a mysqld's,
     * vtgate answers {@code mysql.general_log} with "VT05003: unknown database 'mysql' in vschema",
     * and each shard's mysqld would log only its own part of a request (docs/vitess.md, "Findings").
     */
    static GeneralLog start(DataSource dataSource) throws SQLException {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            Assumptions.assumeFalse(c.getMetaData().getDatabaseProductVersion().endsWith("-Vitess"),
                    "the general query log is mysqld's; through vtgate mysql.general_log is unknown (VT05003)");
            String output;
            try (ResultSet rs = s.executeQuery("SELECT @@GLOBAL.log_output")) {
                rs.next();
                output = rs.getString(1);
            }
            s.execute("SET GLOBAL general_log = 'OFF'");
            s.execute("SET GLOBAL log_output = 'TABLE'");
            s.execute("TRUNCATE TABLE mysql.general_log");
            s.execute("SET GLOBAL general_log = 'ON'");
            return new GeneralLog(dataSource, output);
        }
    }

    /** Stops logging and returns the logged statements that contain {@code marker}, in order. */
    List<String> stop(String marker) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            try (Statement s = c.createStatement()) {
                s.execute("SET GLOBAL general_log = 'OFF'");
            }
            List<String> out = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement("""
                    SELECT argument FROM mysql.general_log
                    WHERE command_type IN ('Query', 'Execute') AND argument LIKE ?
                    ORDER BY event_time""")) {
                ps.setString(1, "%" + marker + "%");
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        out.add(new String(rs.getBytes(1), StandardCharsets.UTF_8));
                    }
                }
            }
            return out;
        }
    }

    /**
     * Stops logging and returns, per database connection that sent a statement containing
     * {@code marker}, everything that connection sent for that work, in order: from the session
     * statements ({@code SET ...}) just before its first statement with the marker, through the
     * {@code COMMIT} or {@code ROLLBACK} and session statements just after its last one. So the
     * count includes what the driver and the pool send around a transaction (autocommit,
     * isolation), not only the statements that name the marker. Statements of other work on the
     * same connection before or after are not included; a connection is the work's alone while it
     * runs.
     */
    List<String> connectionStatements(String marker) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            try (Statement s = c.createStatement()) {
                s.execute("SET GLOBAL general_log = 'OFF'");
            }
            // The log table is in insertion order (CSV engine); event_time can tie.
            java.util.Map<Long, List<String>> byThread = new java.util.LinkedHashMap<>();
            try (PreparedStatement ps = c.prepareStatement("""
                    SELECT thread_id, argument FROM mysql.general_log
                    WHERE command_type IN ('Query', 'Execute')""");
                 ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    byThread.computeIfAbsent(rs.getLong(1), t -> new ArrayList<>())
                            .add(new String(rs.getBytes(2), StandardCharsets.UTF_8));
                }
            }
            List<String> out = new ArrayList<>();
            for (List<String> sent : byThread.values()) {
                int first = -1;
                int last = -1;
                for (int i = 0; i < sent.size(); i++) {
                    if (sent.get(i).contains(marker)) {
                        first = first < 0 ? i : first;
                        last = i;
                    }
                }
                if (first < 0) {
                    continue;
                }
                while (first > 0 && isSession(sent.get(first - 1))) {
                    first--;
                }
                while (last + 1 < sent.size() && (isSession(sent.get(last + 1)) || isEnd(sent.get(last + 1)))) {
                    last++;
                    if (isEnd(sent.get(last))) { // what follows the end, up to the next work, is the pool's reset
                        while (last + 1 < sent.size() && isSession(sent.get(last + 1))) {
                            last++;
                        }
                        break;
                    }
                }
                out.addAll(sent.subList(first, last + 1));
            }
            return out;
        }
    }

    /** A session statement the driver or the pool sends around work: {@code SET autocommit=0}, isolation ... */
    static boolean isSession(String sql) {
        return sql.strip().regionMatches(true, 0, "SET ", 0, 4);
    }

    /** The end of a transaction. */
    static boolean isEnd(String sql) {
        String s = sql.strip();
        return s.equalsIgnoreCase("COMMIT") || s.equalsIgnoreCase("ROLLBACK");
    }

    /** Turns logging off (if still on), empties the table and restores the log output setting. */
    @Override
    public void close() throws SQLException {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            s.execute("SET GLOBAL general_log = 'OFF'");
            s.execute("TRUNCATE TABLE mysql.general_log");
            try (PreparedStatement ps = c.prepareStatement("SET GLOBAL log_output = ?")) {
                ps.setString(1, previousOutput);
                ps.execute();
            }
        }
    }
}
