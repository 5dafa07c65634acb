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
            try (PreparedStatement cold = texts.prepare(c, sql, Statement.NO_GENERATED_KEYS)) {
                assertEquals(42, plusOne(cold, 41));
                assertFalse(cold.isWrapperFor(ServerPreparedStatement.class), "the first run goes as text");
            }
            try (PreparedStatement hot = texts.prepare(c, sql, Statement.NO_GENERATED_KEYS)) {
                assertEquals(8, plusOne(hot, 7));
                assertTrue(hot.isWrapperFor(ServerPreparedStatement.class),
                        "the second run is prepared on the server (useServerPrepStmts)");
            }
        }
    }

    /**
     * With the server's {@code max_prepared_stmt_count} reached (here 0), a hot text the
     * connection has not prepared yet runs as text, not as an error: the driver's
     * {@code emulateUnsupportedPstmts}, on by default, which the service's settings rely on.
     */
    @Test
    void a_text_the_server_refuses_to_prepare_still_runs() throws Exception {
        try (Connection admin = dataSource.getConnection(); Statement s = admin.createStatement()) {
            Assumptions.assumeFalse(Jdbc.isVtgate(admin), "vtgate sets no global server variable");
            long before;
            try (ResultSet rs = s.executeQuery("SELECT @@GLOBAL.max_prepared_stmt_count")) {
                rs.next();
                before = rs.getLong(1);
            }
            s.execute("SET GLOBAL max_prepared_stmt_count = 0");
            try (Connection c = dataSource.getConnection();
                 PreparedStatement ps = new StatementTexts(0).prepare(c, "SELECT ? + 1 AS " + alias(),
                         Statement.NO_GENERATED_KEYS)) {
                assertEquals(42, plusOne(ps, 41));
                assertFalse(ps.isWrapperFor(ServerPreparedStatement.class), "the driver fell back to text");
            } finally {
                s.execute("SET GLOBAL max_prepared_stmt_count = " + before);
            }
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
