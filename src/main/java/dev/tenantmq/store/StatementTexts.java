package dev.tenantmq.store;

import com.mysql.cj.conf.PropertyKey;
import com.mysql.cj.jdbc.JdbcConnection;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * How the service prepares each statement text (docs/architecture.md, "Server-side prepared
 * statements"): as a server-side prepared statement after its first {@code hotAfterRuns} runs in this
 * process, and until then as a client-side prepared statement, which the driver sends as text with
 * its values inlined.
 *
 * <p>A server-side prepared statement saves the database its parse on every later run on that
 * connection, and its values travel unescaped; but each of the pool's connections prepares the
 * text once (a round trip, a parse on each side, and a description of every parameter and
 * column), and keeps it in a cache of {@code prepStmtCacheSize} texts (application.properties).
 * The store has a text per count of partitions or rows for its unions, IN lists and multi-row
 * inserts, so a workload of varied requests (the benchmark's replay) runs many texts a few times
 * each: prepared on the server they cost more than as text, and they push the hot texts out of
 * the cache. So a text goes to the server once it has proved frequent here. The counts are kept
 * for the {@value #MAX_TEXTS} most recently run texts; a text that falls out starts again.
 *
 * <p>Through vtgate every statement goes as text, as before: {@link VtgateTextStatements} turns
 * the driver's {@code useServerPrepStmts} off on each new vtgate connection of the pool, and
 * {@link #prepare} reads that setting, so the interceptor is the one place that decides it (a
 * connection from elsewhere would need the same setting). vtgate plans a prepared statement's
 * placeholders as distinct values, where it plans a text's equal literals (the tenant in a
 * subquery too) as one, and the single-shard routing is proven on the text (docs/vitess.md,
 * "Routing, proven offline"). A text longer than {@value #MAX_CACHED_CHARS} characters goes as
 * text too: the driver keeps no such statement, so it would be prepared, run and closed each
 * time. A JDBC batch goes as text ({@link #prepareAsText}): the driver rewrites a batched
 * insert into a multi-row text per batch size, which it would prepare on the server unseen by
 * the counts. On a connection that is not MySQL Connector/J's every statement is prepared as
 * that connection is configured.
 *
 * <p>A statement sent as text is the driver's own, under the pool's connection: the pool does
 * not track it, so the caller closes it (every statement of the store is in a try-with-resources)
 * and a broken connection is noticed by the pool at the transaction's end ({@code Db}).
 */
final class StatementTexts implements Jdbc.Preparer {
    /** Most texts whose runs are counted. */
    static final int MAX_TEXTS = 4_096;
    /** The longest text the driver keeps prepared ({@code prepStmtCacheSqlLimit} is 65,536). */
    static final int MAX_CACHED_CHARS = 65_535;

    private final int hotAfterRuns;
    private final Map<String, int[]> runs = new LinkedHashMap<>(256, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, int[]> eldest) {
            return size() > MAX_TEXTS;
        }
    };

    /**
     * @param hotAfterRuns runs of a text in this process after which it is prepared on the
     *     server ({@code mq.server-prepare-after-runs}); 0 prepares every text on the server
     * @throws IllegalArgumentException when negative
     */
    StatementTexts(int hotAfterRuns) {
        if (hotAfterRuns < 0) {
            throw new IllegalArgumentException("runs before a server-side prepare must be at least 0: " + hotAfterRuns);
        }
        this.hotAfterRuns = hotAfterRuns;
    }

    /** The runs of a text after which it is prepared on the server. */
    int hotAfterRuns() {
        return hotAfterRuns;
    }

    /** Counts a run of {@code sql}; whether this run is prepared on the server. */
    synchronized boolean hot(String sql) {
        if (sql.length() > MAX_CACHED_CHARS) {
            return false;
        }
        if (hotAfterRuns == 0) {
            return true;
        }
        int[] n = runs.computeIfAbsent(sql, k -> new int[1]);
        if (n[0] < hotAfterRuns) {
            n[0]++;
            return false;
        }
        return true;
    }

    /**
     * Prepares {@code sql} on the server when it is frequent ({@link #hot}) and the connection
     * prepares on the server at all: a vtgate connection does not ({@link VtgateTextStatements}
     * turns {@code useServerPrepStmts} off on each, the one place that decides it), so its texts
     * are not counted. The setting is read from the connection's properties: asking the
     * metadata whether the server is vtgate built a new metadata object for every statement.
     */
    @Override
    public PreparedStatement prepare(Connection c, String sql, int autoGeneratedKeys) throws SQLException {
        if (c.isWrapperFor(JdbcConnection.class)) {
            JdbcConnection driver = c.unwrap(JdbcConnection.class);
            if (!driver.getPropertySet().getBooleanProperty(PropertyKey.useServerPrepStmts).getValue() || !hot(sql)) {
                return driver.clientPrepareStatement(sql, autoGeneratedKeys);
            }
        }
        return c.prepareStatement(sql, autoGeneratedKeys);
    }

    @Override
    public PreparedStatement prepareAsText(Connection c, String sql) throws SQLException {
        if (c.isWrapperFor(JdbcConnection.class)) {
            return c.unwrap(JdbcConnection.class).clientPrepareStatement(sql);
        }
        return c.prepareStatement(sql);
    }
}
