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
