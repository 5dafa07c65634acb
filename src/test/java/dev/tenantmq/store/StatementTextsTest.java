package dev.tenantmq.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.mysql.cj.jdbc.ServerPreparedStatement;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.UUID;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * A statement text goes to the database as text with its values inlined until it has run often
 * enough in this process, then as a server-side prepared statement (docs/architecture.md,
 * "Server-side prepared statements"); and a text the server refuses to prepare still runs.
 */
@QuarkusTest
class StatementTextsTest {
    @Inject
    AgroalDataSource dataSource;

    @Test
    void a_text_is_hot_from_the_run_after_its_threshold_and_each_text_counts_alone() {
        StatementTexts texts = new StatementTexts(3);
        assertFalse(texts.hot("SELECT 1"));
        assertFalse(texts.hot("SELECT 1"));
        assertFalse(texts.hot("SELECT 2"), "another text counts its own runs");
        assertFalse(texts.hot("SELECT 1"));
        assertTrue(texts.hot("SELECT 1"), "the fourth run of a text with 3 before it");
        assertTrue(texts.hot("SELECT 1"));
        assertTrue(new StatementTexts(0).hot("SELECT 3"), "0: every text from its first run");
        assertThrows(IllegalArgumentException.class, () -> new StatementTexts(-1));
    }

    @Test
    void a_text_that_falls_out_of_the_counted_ones_starts_again() {
        StatementTexts texts = new StatementTexts(1);
        assertFalse(texts.hot("SELECT 'first'"));
        assertTrue(texts.hot("SELECT 'first'"));
        for (int i = 0; i < StatementTexts.MAX_TEXTS; i++) {
            texts.hot("SELECT " + i);
        }
        assertFalse(texts.hot("SELECT 'first'"), "pushed out by " + StatementTexts.MAX_TEXTS + " newer texts");
    }

    @Test
    void the_pools_statement_is_sent_as_text_first_and_prepared_on_the_server_once_hot() throws Exception {
        StatementTexts texts = new StatementTexts(1);
        String sql = "SELECT ? + 1 AS " + alias();
        try (Connection c = dataSource.getConnection()) {
            boolean vtgate = Jdbc.isVtgate(c);
            try (PreparedStatement cold = texts.prepare(c, sql, Statement.NO_GENERATED_KEYS)) {
                assertEquals(42, plusOne(cold, 41));
                assertFalse(cold.isWrapperFor(ServerPreparedStatement.class), "the first run goes as text");
            }
            try (PreparedStatement hot = texts.prepare(c, sql, Statement.NO_GENERATED_KEYS)) {
                assertEquals(8, plusOne(hot, 7));
                assertEquals(!vtgate, hot.isWrapperFor(ServerPreparedStatement.class), vtgate
                        ? "through vtgate every statement goes as text"
                        : "the second run is prepared on the server (useServerPrepStmts)");
            }
            try (PreparedStatement batch = texts.prepareAsText(c, sql)) {
                assertFalse(batch.isWrapperFor(ServerPreparedStatement.class), "a JDBC batch goes as text");
            }
        }
    }

    /**
     * A text the server refuses to prepare (here for more than 65,535 placeholders, error 1390;
     * also when its {@code max_prepared_stmt_count} is reached) runs as text, not as an error:
     * the driver's {@code emulateUnsupportedPstmts}, on by default, which the service's settings
     * rely on. The statement is prepared on the connection directly, as a hot text would be.
     */
    @Test
    void a_text_the_server_refuses_to_prepare_still_runs_as_text() throws Exception {
        int placeholders = 65_536;
        String sql = "SELECT COUNT(*) FROM (SELECT 1 AS one) o WHERE o.one IN (" + Jdbc.placeholders(placeholders) + ")";
        try (Connection c = dataSource.getConnection()) {
            Assumptions.assumeFalse(Jdbc.isVtgate(c), "through vtgate every statement goes as text");
            long prepares = sessionPrepares(c);
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                for (int i = 1; i <= placeholders; i++) {
                    ps.setLong(i, i);
                }
                try (ResultSet rs = ps.executeQuery()) {
                    assertTrue(rs.next());
                    assertEquals(1, rs.getLong(1));
                }
                assertFalse(ps.isWrapperFor(ServerPreparedStatement.class), "the driver fell back to text");
            }
            assertTrue(sessionPrepares(c) > prepares, "the server was asked to prepare the text first");
        }
    }

    @Test
    void the_service_prepares_its_statements_with_the_configured_threshold() {
        Jdbc.Preparer installed = Jdbc.preparer();
        assertTrue(installed instanceof StatementTexts, "installed at start-up (StatementPreparation): " + installed);
        assertEquals(1, ((StatementTexts) installed).hotAfterRuns(), "mq.server-prepare-after-runs in the test profile");
    }

    @Test
    void a_text_longer_than_the_drivers_cache_takes_is_never_hot() {
        StatementTexts texts = new StatementTexts(0);
        String sql = "SELECT 1 /* " + "x".repeat(StatementTexts.MAX_CACHED_CHARS) + " */";
        assertFalse(texts.hot(sql), "prepared, run and closed on every run: it goes as text");
        assertTrue(texts.hot("SELECT 1"));
    }

    /**
     * A connection that prepares nothing on the server (every vtgate connection,
     * VtgateTextStatements) gets text, and its runs do not count towards a text's server prepare.
     */
    @Test
    void a_connection_with_server_prepares_off_gets_text_and_its_runs_are_not_counted() throws Exception {
        StatementTexts texts = new StatementTexts(1);
        String sql = "SELECT ? + 1 AS " + alias();
        try (Connection c = dataSource.getConnection()) {
            Assumptions.assumeFalse(Jdbc.isVtgate(c), "a connection that prepares on the server is needed");
            var property = c.unwrap(com.mysql.cj.jdbc.JdbcConnection.class).getPropertySet()
                    .getBooleanProperty(com.mysql.cj.conf.PropertyKey.useServerPrepStmts);
            boolean before = property.getValue();
            property.setValue(false);
            try {
                for (int run = 0; run < 2; run++) {
                    try (PreparedStatement ps = texts.prepare(c, sql, Statement.NO_GENERATED_KEYS)) {
                        assertFalse(ps.isWrapperFor(ServerPreparedStatement.class), "as text: " + ps);
                        assertEquals(3, plusOne(ps, 2));
                    }
                }
            } finally {
                property.setValue(before); // the pool's connection goes back as it came
            }
            try (PreparedStatement ps = texts.prepare(c, sql, Statement.NO_GENERATED_KEYS)) {
                assertFalse(ps.isWrapperFor(ServerPreparedStatement.class),
                        "the text's first counted run goes as text: the two before were not counted: " + ps);
            }
            try (PreparedStatement ps = texts.prepare(c, sql, Statement.NO_GENERATED_KEYS)) {
                assertTrue(ps.isWrapperFor(ServerPreparedStatement.class), "and its second is prepared: " + ps);
            }
        }
    }

    private static long sessionPrepares(Connection c) throws Exception {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SHOW SESSION STATUS LIKE 'Com_stmt_prepare'")) {
            assertTrue(rs.next());
            return rs.getLong(2);
        }
    }

    private static long plusOne(PreparedStatement ps, long n) throws Exception {
        ps.setLong(1, n);
        try (ResultSet rs = ps.executeQuery()) {
            assertTrue(rs.next());
            return rs.getLong(1);
        }
    }

    /** A column alias no other statement uses, so the text is new to every connection. */
    private static String alias() {
        return "a" + UUID.randomUUID().toString().replace("-", "");
    }
}
