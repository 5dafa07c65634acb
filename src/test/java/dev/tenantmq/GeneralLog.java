package dev.tenantmq;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.api.Assumptions;

/**
 * The database's own record of the statements it received (the general query log, written to
 * the table {@code mysql.general_log}), so a test can count what a request costs. The store's
 * statements are server-side prepared: each run is logged as an {@code Execute} with its values
 * in the text (a text the server refused to prepare, as a {@code Query}), so a test finds its own
 * statements by its unique topic name. A text's {@code Prepare}, once per pooled connection, names
 * no value and is not counted. Needs a user that may set global variables (the test databases'
 * root).
 */
public final class GeneralLog implements AutoCloseable {
    /** The SELECT list of the ready-partition query (ConsumerSql.SELECT_READY_PARTITIONS), and of no other statement. */
    static final String READY_LOOK = "SELECT l.partition_key";

    /** How many of {@code sent} are ready-partition looks. */
    static long readyLooks(List<String> sent) {
        return sent.stream().filter(sql -> sql.contains(READY_LOOK)).count();
    }

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
    public static GeneralLog start(DataSource dataSource) throws SQLException {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            Assumptions.assumeFalse(c.getMetaData().getDatabaseProductVersion().endsWith("-Vitess"),
                    "the general query log is mysqld's; through vtgate mysql.general_log is unknown (VT05003)");
            String output;
            try (ResultSet rs = s.executeQuery("SELECT @@GLOBAL.log_output")) {
                rs.next();
                output = rs.getString(1);
            }
            pause(s);
            s.execute("SET GLOBAL log_output = 'TABLE'");
            s.execute("TRUNCATE TABLE mysql.general_log");
            s.execute("SET GLOBAL general_log = 'ON'");
            return new GeneralLog(dataSource, output);
        }
    }

    /**
     * Stops the log's writes to its table. On MariaDB the log stays on, writing nowhere
     * ({@code log_output} NONE), as {@link GeneralLogFromStart} set it: MariaDB logs an {@code Execute}
     * with its values only for a statement prepared while the log was on (MySQL 9.7 decides at
     * each run), and the pool's connections keep their prepared statements from test to test.
     */
    private static void pause(Statement s) throws SQLException {
        if (GeneralLogFromStart.isMariaDb(s.getConnection())) {
            s.execute("SET GLOBAL log_output = 'NONE'");
        } else {
            s.execute("SET GLOBAL general_log = 'OFF'");
        }
    }

    /** Stops logging and returns the logged statements that contain {@code marker}, in order. */
    public List<String> stop(String marker) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            try (Statement s = c.createStatement()) {
                pause(s);
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
     * Stops logging and counts, by the server's command ({@code Query}, {@code Execute},
     * {@code Prepare}, ...), the logged commands whose text contains {@code marker}.
     */
    public Map<String, Long> stopCountingCommands(String marker) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            try (Statement s = c.createStatement()) {
                pause(s);
            }
            Map<String, Long> out = new LinkedHashMap<>();
            try (PreparedStatement ps = c.prepareStatement("""
                    SELECT command_type, COUNT(*) FROM mysql.general_log
                    WHERE argument LIKE ?
                    GROUP BY command_type""")) {
                ps.setString(1, "%" + marker + "%");
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        out.put(rs.getString(1), rs.getLong(2));
                    }
                }
            }
            return out;
        }
    }

    /**
     * Stops logging and returns every statement of the units of work that name {@code marker}:
     * per connection, a transaction from its session {@code SET}s through its {@code COMMIT} or
     * {@code ROLLBACK} and the pool's session resets right after it, or a single auto-commit
     * statement with the {@code SET}s before it. A connection out of autocommit (the store's,
     * docs/architecture.md, "Transactions without START") starts a transaction with any statement;
     * its switch out of autocommit, once per pooled connection, and back (for another borrower),
     * belongs to no unit. Unlike {@link #stop}, this also counts the statements that name nothing
     * ({@code SET}, {@code COMMIT}), which cost a round trip and a server command each all the
     * same. Multi-statement packets count one per statement.
     */
    public List<String> stopUnitsOf(String marker) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            try (Statement s = c.createStatement()) {
                pause(s);
            }
            // The CSV log table returns its rows in the order they were written.
            Map<Long, Units> byThread = new LinkedHashMap<>();
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("""
                    SELECT thread_id, argument FROM mysql.general_log
                    WHERE command_type IN ('Query', 'Execute')""")) {
                while (rs.next()) {
                    String sql = new String(rs.getBytes(2), StandardCharsets.UTF_8);
                    Units units = byThread.computeIfAbsent(rs.getLong(1), k -> new Units());
                    for (String one : splitStatements(sql)) {
                        units.add(one);
                    }
                }
            }
            List<String> out = new ArrayList<>();
            for (Units units : byThread.values()) {
                units.close();
                for (List<String> unit : units.done) {
                    if (unit.stream().anyMatch(sql -> sql.contains(marker))) {
                        out.addAll(unit);
                    }
                }
            }
            return out;
        }
    }

    /** One connection's statements cut into units of work (see {@link #stopUnitsOf}). */
    static final class Units {
        final List<List<String>> done = new ArrayList<>();
        List<String> open = new ArrayList<>();
        /** In an explicit transaction (START TRANSACTION or BEGIN). */
        boolean inTransaction;
        /**
         * Whether the connection is out of autocommit, so that any statement starts a transaction
         * that runs to its COMMIT or ROLLBACK; null until the log shows it (a switch, or a
         * COMMIT without a START).
         */
        Boolean implicit;
        /** Whether the last statement ended a unit: session SETs right after it are its pool reset. */
        boolean justEnded;

        void add(String sql) {
            String s = sql.strip().toUpperCase(java.util.Locale.ROOT);
            if (s.startsWith("SET GLOBAL")) {
                // The log's own switch ({@link GeneralLog#start}): on MariaDB the log is on when it
                // runs, and the pooled connection that ran it may carry the next unit of work.
                return;
            }
            boolean set = s.startsWith("SET ");
            String compact = s.replace(" ", "");
            if (set && compact.contains("AUTOCOMMIT=0")) {
                implicit = Boolean.TRUE;
                return;
            }
            if (set && compact.contains("AUTOCOMMIT=1")) {
                implicit = Boolean.FALSE;
                return;
            }
            if (set && justEnded) {
                done.get(done.size() - 1).add(sql);
                return;
            }
            justEnded = false;
            if (s.startsWith("START TRANSACTION") || s.equals("BEGIN")) {
                if (implicit == null) {
                    implicit = Boolean.FALSE;
                    singles(); // what came before on this connection was auto-commit statements
                }
                open.add(sql);
                inTransaction = true;
                return;
            }
            open.add(sql);
            if (set) {
                return;
            }
            if (s.startsWith("COMMIT") || s.startsWith("ROLLBACK")) {
                if (implicit == null && !inTransaction) {
                    implicit = Boolean.TRUE;
                }
                end();
            } else if (implicit == Boolean.FALSE && !inTransaction) {
                end();
            }
        }

        /** Cuts the open statements, seen before the connection's mode was known, into one unit each. */
        private void singles() {
            for (String one : open) {
                done.add(new ArrayList<>(List.of(one)));
            }
            open = new ArrayList<>();
        }

        private void end() {
            done.add(open);
            open = new ArrayList<>();
            inTransaction = false;
            justEnded = true;
        }

        void close() {
            if (!open.isEmpty()) {
                if (implicit == null) {
                    singles();
                } else {
                    done.add(open);
                    open = new ArrayList<>();
                }
            }
        }
    }

    /**
     * The statements of one logged packet: the driver sends a rewritten JDBC batch of updates as
     * one packet of statements separated by {@code ;}. Splits outside quotes only.
     */
    static List<String> splitStatements(String packet) {
        List<String> out = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        char quote = 0;
        for (int i = 0; i < packet.length(); i++) {
            char ch = packet.charAt(i);
            if (quote != 0) {
                cur.append(ch);
                if (ch == '\\' && i + 1 < packet.length()) {
                    cur.append(packet.charAt(++i));
                } else if (ch == quote) {
                    quote = 0;
                }
            } else if (ch == '\'' || ch == '"' || ch == '`') {
                quote = ch;
                cur.append(ch);
            } else if (ch == ';') {
                if (!cur.toString().isBlank()) {
                    out.add(cur.toString().strip());
                }
                cur.setLength(0);
            } else {
                cur.append(ch);
            }
        }
        if (!cur.toString().isBlank()) {
            out.add(cur.toString().strip());
        }
        return out;
    }

    /** Turns logging off (if still on), empties the table and restores the log output setting. */
    @Override
    public void close() throws SQLException {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            pause(s);
            s.execute("TRUNCATE TABLE mysql.general_log");
            try (PreparedStatement ps = c.prepareStatement("SET GLOBAL log_output = ?")) {
                ps.setString(1, previousOutput);
                ps.execute();
            }
        }
    }
}
