package dev.tenantmq.store;

import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import com.mysql.cj.jdbc.ClientPreparedStatement;
import com.mysql.cj.jdbc.JdbcConnection;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The pool's connections share one cache of parsed statements ({@link SharedQueryInfoCache}): a
 * text parsed on one connection is not parsed again on another (docs/architecture.md, "Rows into
 * responses"). The cache serves the statements sent as text with their values inlined, which
 * the service prepares that way until a text is frequent ({@link StatementTexts}).
 */
@QuarkusTest
class SharedQueryInfoCacheTest {
    @Inject
    AgroalDataSource dataSource;

    @Test
    void a_statement_parsed_on_one_connection_is_not_parsed_again_on_another() throws SQLException {
        String sql = "SELECT ? AS a /* " + UUID.randomUUID() + " */";
        try (Connection first = dataSource.getConnection(); Connection second = dataSource.getConnection();
             PreparedStatement one = asText(first, sql); PreparedStatement other = asText(second, sql)) {
            assertNotSame(first.unwrap(Connection.class), second.unwrap(Connection.class), "two connections");
            assertSame(one.unwrap(ClientPreparedStatement.class).getQueryInfo(),
                    other.unwrap(ClientPreparedStatement.class).getQueryInfo(), "one parse for both connections");
        }
    }

    @Test
    void a_text_longer_than_the_driver_s_prepared_statement_limit_is_parsed_once() throws SQLException {
        // A retention read of 100 partitions is about this long (docs/architecture.md,
        // "Server-side prepared statements"); prepStmtCacheSqlLimit is 65,536.
        String sql = "SELECT ? AS a /* " + UUID.randomUUID() + "x".repeat(130_000) + " */";
        try (Connection first = dataSource.getConnection(); Connection second = dataSource.getConnection();
             PreparedStatement one = asText(first, sql); PreparedStatement other = asText(second, sql)) {
            assertSame(one.unwrap(ClientPreparedStatement.class).getQueryInfo(),
                    other.unwrap(ClientPreparedStatement.class).getQueryInfo(), "one parse for both connections");
        }
    }

    @Test
    void long_texts_are_kept_apart_so_they_never_push_out_a_short_one() throws SQLException {
        String shortText = "SELECT ? AS a /* " + UUID.randomUUID() + " */";
        try (Connection first = dataSource.getConnection(); Connection second = dataSource.getConnection();
             PreparedStatement one = asText(first, shortText)) {
            // More long texts than their part keeps, and more characters than the short part holds.
            for (int i = 0; i < SharedQueryInfoCache.MAX_LONG_ENTRIES + 4; i++) {
                String longText = "SELECT ? AS a /* " + UUID.randomUUID() + "x".repeat(600_000) + " */";
                asText(first, longText).close();
            }
            try (PreparedStatement other = asText(second, shortText)) {
                assertSame(one.unwrap(ClientPreparedStatement.class).getQueryInfo(),
                        other.unwrap(ClientPreparedStatement.class).getQueryInfo(), "the short text is still kept");
            }
        }
    }

    @Test
    void a_text_longer_than_the_cache_s_own_limit_is_parsed_each_time() throws SQLException {
        String sql = "SELECT ? AS a /* " + "x".repeat(SharedQueryInfoCache.MAX_TEXT_CHARS) + " */";
        try (Connection c = dataSource.getConnection(); PreparedStatement one = asText(c, sql);
             PreparedStatement other = asText(c, sql)) {
            assertNotSame(one.unwrap(ClientPreparedStatement.class).getQueryInfo(),
                    other.unwrap(ClientPreparedStatement.class).getQueryInfo(), "not kept: longer than MAX_TEXT_CHARS");
        }
    }

    /** A client-side prepared statement, as {@link StatementTexts} prepares a text that is not frequent yet. */
    private static PreparedStatement asText(Connection c, String sql) throws SQLException {
        return c.unwrap(JdbcConnection.class).clientPrepareStatement(sql);
    }
}
