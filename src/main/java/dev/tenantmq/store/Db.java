package dev.tenantmq.store;

import dev.tenantmq.model.StoreUnavailableException;
import io.agroal.api.AgroalDataSource;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientConnectionException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;

/**
 * Runs store work in short JDBC transactions. Deadlocks and lock-wait time-outs (InnoDB
 * rolls the transaction back), and a {@link ConflictRetry} the work throws, are retried a few
 * times with jitter; connection failures
 * become {@link StoreUnavailableException}; everything else becomes {@link StoreException}.
 *
 * <p>A connection failure is any driver error that means the connection went away
 * ({@link #isUnavailable}), wherever it surfaces: also the errors of statements and result sets
 * the driver closed with a dropped connection, which MySQL Connector/J reports with non-connection
 * SQLStates (S1009 "No operations allowed after statement closed", which {@code executeBatch}
 * throws from its clean-up in place of the communications failure; S1000 "Operation not allowed
 * after ResultSet closed"), and any error after which the connection is closed.
 */
@ApplicationScoped
public class Db {
    private static final int MAX_ATTEMPTS = 8;
    private static final int ER_LOCK_DEADLOCK = 1213;
    private static final int ER_LOCK_WAIT_TIMEOUT = 1205;
    private static final int ER_DUP_ENTRY = 1062;

    private final AgroalDataSource dataSource;

    Db(AgroalDataSource dataSource) {
        this.dataSource = dataSource;
    }

    /**
     * Prepares each statement text of the store on the database server after its first
     * {@code runs} runs in this process, and as text with its values inlined until then
     * (docs/architecture.md, "Server-side prepared statements"; {@code StatementTexts}). Until
     * this is called every text is prepared as the pool's connections are configured.
     *
     * @param runs at least 0 ({@code mq.server-prepare-after-runs})
     * @throws IllegalArgumentException when negative
     */
    public void prepareOnServerAfter(int runs) {
        Jdbc.prepareWith(new StatementTexts(runs));
    }

    /** Work on one open transaction. */
    @FunctionalInterface
    public interface Work<T> {
        /** Runs inside the transaction; may be called again after a retryable conflict. */
        T run(Connection connection) throws SQLException;
    }

    /** Transaction isolation levels the store uses. */
    public enum Isolation {
        /**
         * Each statement sees the latest committed rows; no gap locks. The pool's default
         * ({@code quarkus.datasource.jdbc.transaction-isolation-level}), so a transaction at this
         * level sends no SET. Every transaction of the store: appenders need no gap lock either,
         * because the partition head lock is a row of its own (see {@code PublishSql.LOCK_HEADS}).
         */
        READ_COMMITTED(Connection.TRANSACTION_READ_COMMITTED);

        final int level;

        Isolation(int level) {
            this.level = level;
        }
    }

    /**
     * Runs {@code work} in a transaction and commits it, retrying the whole work on deadlock,
     * lock-wait time-out, a duplicate-key race, or a {@link ConflictRetry} (the work re-reads
     * what it needs).
     *
     * @throws StoreUnavailableException when the database cannot be reached, or lock
     *     conflicts outlast the retries
     * @throws StoreException on any other database error
     */
    public <T> T inTransaction(Isolation isolation, Work<T> work) {
        return inTransaction(isolation, work, NOTHING);
    }

    private static final Runnable NOTHING = () -> { };

    /**
     * As {@link #inTransaction(Isolation, Work)}, and runs {@code beforeCommit} each time the work
     * has run without error, just before its {@code COMMIT} is sent: the database releases the
     * transaction's row locks during the commit (InnoDB without a binary log, before its log
     * flush), so whoever waits for them may go then (group commit's head queue,
     * docs/architecture.md "Group commit").
     * {@code beforeCommit} must not throw; it may run more than once when a commit fails and
     * the work is retried.
     */
    public <T> T inTransaction(Isolation isolation, Work<T> work, Runnable beforeCommit) {
        for (int attempt = 1; ; attempt++) {
            try (Connection c = connect()) {
                // READ COMMITTED is the pool's default (application.properties): the common case
                // sends no SET, and the pool resets only a connection whose level was changed.
                if (c.getTransactionIsolation() != isolation.level) {
                    c.setTransactionIsolation(isolation.level);
                }
                // Out of autocommit, the first statement starts the transaction: its work and a
                // COMMIT, no START TRANSACTION. Set on the driver's connection, which the pool
                // does not reset, so it stays until another borrower needs autocommit
                // (PoolAutocommit).
                PoolAutocommit.setAutoCommit(c, false);
                try {
                    T result = work.run(c);
                    beforeCommit.run();
                    execute(c, "COMMIT");
                    return result;
                } catch (SQLException e) {
                    rollbackQuietly(c);
                    throw lostIfClosed(c, e);
                } catch (RuntimeException | Error e) {
                    // Never back to the pool with the transaction open: the next borrower's
                    // statements would join it, and its COMMIT would commit this work's half.
                    rollbackQuietly(c);
                    throw e;
                }
            } catch (SQLException e) {
                if (isUnavailable(e)) {
                    throw new StoreUnavailableException(e);
                }
                if (isRetryable(e)) {
                    if (attempt < MAX_ATTEMPTS) {
                        backoff(attempt);
                        continue;
                    }
                    // Contention that outlasted the retries: the client should retry later (503).
                    throw new StoreUnavailableException(e);
                }
                throw new StoreException("database error (" + e.getErrorCode() + "/" + e.getSQLState() + ")", e);
            } catch (ConflictRetry e) {
                // Rolled back above; the same retries as a deadlock.
                if (attempt < MAX_ATTEMPTS) {
                    backoff(attempt);
                    continue;
                }
                throw new StoreUnavailableException(e);
            }
        }
    }

    /**
     * Runs read-only {@code work}, each statement on its own snapshot (READ COMMITTED, no locks).
     * On a mysqld, a connection a transaction left out of autocommit stays so: the reads start a
     * transaction, which is committed after them (one statement, where switching autocommit on
     * and off again would be two); left open, it would keep its metadata locks while the
     * connection waits in the pool, and a schema change would wait for them. Through vtgate the
     * read runs in autocommit: vtgate would open that transaction on every shard the read
     * reaches (docs/architecture.md, "Transactions without START"). Same error mapping.
     */
    public <T> T read(Work<T> work) {
        try (Connection c = connect()) {
            if (isVtgate(c)) {
                PoolAutocommit.setAutoCommit(c, true);
            }
            boolean implicit = !PoolAutocommit.driverConnection(c).getAutoCommit();
            try {
                T result = work.run(c);
                if (implicit) {
                    execute(c, "COMMIT");
                }
                return result;
            } catch (SQLException e) {
                if (implicit) {
                    rollbackQuietly(c);
                }
                throw lostIfClosed(c, e);
            } catch (RuntimeException | Error e) {
                if (implicit) {
                    rollbackQuietly(c);
                }
                throw e;
            }
        } catch (SQLException e) {
            if (isUnavailable(e)) {
                throw new StoreUnavailableException(e);
            }
            throw new StoreException("database error (" + e.getErrorCode() + "/" + e.getSQLState() + ")", e);
        }
    }

    private Connection connect() {
        try {
            return PoolAutocommit.forStore(dataSource::getConnection);
        } catch (SQLException e) {
            // Pool acquisition time-out or refused connection: the database is unavailable.
            throw new StoreUnavailableException(e);
        }
    }

    /** Sets the parameters of {@code ps} to {@code values}, in order. */
    public static void bind(PreparedStatement ps, Object... values) throws SQLException {
        for (int i = 0; i < values.length; i++) {
            ps.setObject(i + 1, values[i]);
        }
    }

    /** Runs a query and returns its first column as strings, in row order. */
    public static List<String> column(Connection c, String sql, Object... params) throws SQLException {
        List<String> out = new ArrayList<>();
        try (PreparedStatement ps = Jdbc.prepare(c, sql)) {
            bind(ps, params);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getString(1));
                }
            }
        }
        return out;
    }

    /**
     * The parameters of one statement, bound in its placeholder order. Every statement of the
     * store has a {@link Statement} record implementing this next to its SQL, so the order is
     * written once, by name, where the placeholders are.
     */
    @FunctionalInterface
    interface Binds extends Jdbc.Binds {}

    /** Maps the current row of a result set to a value, reading columns by label. */
    @FunctionalInterface
    interface RowMapper<T> {
        /** Maps the row {@code rs} is on; does not move the cursor. */
        T map(ResultSet rs) throws SQLException;
    }

    /** Runs a query with {@code binds} and maps every row, in row order. */
    static <T> List<T> list(Connection c, String sql, Jdbc.Binds binds, RowMapper<T> mapper) throws SQLException {
        List<T> out = new ArrayList<>();
        try (PreparedStatement ps = Jdbc.prepare(c, sql)) {
            binds.bindTo(ps);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(mapper.map(rs));
                }
            }
        }
        return out;
    }

    /** Reads the current row of a result set into the caller's state, reading columns by label. */
    @FunctionalInterface
    interface RowReader extends Jdbc.RowReader {}

    /** Runs a query with {@code binds} and hands every row to {@code reader}, in row order. */
    static void forEach(Connection c, String sql, Jdbc.Binds binds, Jdbc.RowReader reader) throws SQLException {
        Jdbc.forEach(c, sql, binds, reader);
    }

    /** Runs one update with {@code binds}; returns the update count. */
    static int update(Connection c, String sql, Jdbc.Binds binds) throws SQLException {
        return Jdbc.update(c, sql, binds);
    }

    /**
     * Runs one update once per element of {@code rows} as one JDBC batch (the driver may rewrite
     * it into fewer round trips); returns the update count of each, in order.
     */
    static int[] updateEach(Connection c, String sql, List<? extends Jdbc.Binds> rows) throws SQLException {
        if (rows.isEmpty()) {
            return new int[0];
        }
        try (PreparedStatement ps = Jdbc.prepareAsText(c, sql)) {
            for (Jdbc.Binds row : rows) {
                row.bindTo(ps);
                ps.addBatch();
            }
            return ps.executeBatch();
        }
    }

    /** Reads a DATETIME(6) column (database UTC) as an instant; null stays null. */
    static java.time.Instant instant(ResultSet rs, String label) throws SQLException {
        java.time.LocalDateTime t = rs.getObject(label, java.time.LocalDateTime.class);
        return t == null ? null : t.toInstant(java.time.ZoneOffset.UTC);
    }

    /** {@code n} comma-separated placeholders for an IN list, e.g. {@code ?, ?, ?}. */
    public static String placeholders(int n) {
        return Jdbc.placeholders(n);
    }

    /**
     * {@code n} parenthesized copies of {@code branch} joined by UNION ALL (one copy: as is), so
     * that per-partition statements run in one round trip. Each copy has its own binds.
     */
    public static String unionAll(String branch, int n) {
        return unionAll(java.util.Collections.nCopies(n, branch));
    }

    /** {@code branches}, each parenthesized, joined by UNION ALL (one branch: as is). */
    public static String unionAll(List<String> branches) {
        if (branches.size() == 1) {
            return branches.get(0);
        }
        StringBuilder sql = new StringBuilder();
        for (int i = 0; i < branches.size(); i++) {
            sql.append(i == 0 ? "(" : "\nUNION ALL\n(").append(branches.get(i)).append(')');
        }
        return sql.toString();
    }

    /**
     * Whether {@code c} talks to vtgate (Vitess) rather than to a mysqld: vtgate announces a
     * server version ending in {@code -Vitess} (v0.24.4: {@code 8.4.6-Vitess}). The driver keeps
     * the version from the handshake, so this costs no round trip.
     */
    static boolean isVtgate(Connection c) throws SQLException {
        return Jdbc.isVtgate(c);
    }

    /**
     * Driver exceptions (by simple class name, so no driver type leaks in here) that mean the
     * connection went away, whatever SQLState the JDBC exception wrapping them carries. MySQL
     * Connector/J 9 closes every statement of a connection it loses, and an operation on one
     * then fails with {@code StatementIsClosedException} as the cause of an S1009 SQLException.
     */
    private static final Set<String> CONNECTION_GONE = Set.of("StatementIsClosedException",
            "ConnectionIsClosedException", "CJCommunicationsException", "CommunicationsException");

    /**
     * Whether {@code e} means the database cannot be reached or the connection went away (503),
     * rather than a failed statement (500): a connection exception of JDBC's hierarchy
     * (transient, non-transient, or recoverable with a new connection), SQLState class 08
     * (connection exception), or a driver exception of {@link #CONNECTION_GONE} anywhere in the
     * cause chain.
     */
    static boolean isUnavailable(SQLException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLTransientConnectionException || t instanceof SQLNonTransientConnectionException
                    || t instanceof SQLRecoverableException) {
                return true;
            }
            if (t instanceof SQLException s && s.getSQLState() != null && s.getSQLState().startsWith("08")) {
                return true;
            }
            if (CONNECTION_GONE.contains(t.getClass().getSimpleName())) {
                return true;
            }
        }
        return false;
    }

    /**
     * {@code e} itself, or, when it is not recognisably a connection failure but the connection
     * is closed after it, a connection exception with {@code e} as its cause: whatever the driver
     * reported (a result set or statement it closed along with the connection, say), the
     * connection went away, and the client should retry (503), not report a bug (500).
     */
    private static SQLException lostIfClosed(Connection c, SQLException e) {
        if (isUnavailable(e)) {
            return e;
        }
        boolean closed;
        try {
            closed = c.isClosed();
        } catch (SQLException ex) {
            closed = true;
        }
        return closed ? new SQLNonTransientConnectionException("connection closed under the statement", "08003", e) : e;
    }

    static boolean isRetryable(SQLException e) {
        return e.getErrorCode() == ER_LOCK_DEADLOCK || e.getErrorCode() == ER_LOCK_WAIT_TIMEOUT
                || e.getErrorCode() == ER_DUP_ENTRY;
    }

    private static void execute(Connection c, String sql) throws SQLException {
        try (java.sql.Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    private static void rollbackQuietly(Connection c) {
        try {
            execute(c, "ROLLBACK");
        } catch (SQLException ignored) {
            // The connection is broken; the pool discards it and the server rolls back.
        }
    }

    private static void backoff(int attempt) {
        long maxMicros = Math.min(50_000L, 1_000L << attempt);
        LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(maxMicros / 2, maxMicros) * 1_000L);
    }
}
