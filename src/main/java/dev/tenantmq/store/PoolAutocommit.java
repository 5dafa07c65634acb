package dev.tenantmq.store;

import io.agroal.api.AgroalPoolInterceptor;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * Keeps the pool's promise of autocommit to every borrower but the store's {@link Db}.
 *
 * <p>{@link Db} turns autocommit off on the driver's connection itself and leaves it off when
 * the connection goes back: a transaction then starts with its first statement and costs its
 * work and a {@code COMMIT}, with no {@code START TRANSACTION} (docs/architecture.md,
 * "Transactions without START"). Through the pool's wrapper the pool would turn it back on at
 * every return, one more statement per transaction. Anyone else who borrows from the pool
 * (Flyway, tests) expects autocommit as JDBC promises: this interceptor turns it back on for
 * them when they get such a connection, and the store's next transaction on it turns it off
 * again, two statements for that borrowing. {@link Db} borrows inside {@link #forStore}, which
 * this interceptor leaves alone.
 */
@ApplicationScoped
public class PoolAutocommit implements AgroalPoolInterceptor {
    /** Set while {@link Db} borrows on this thread. */
    private static final ThreadLocal<Boolean> STORE = new ThreadLocal<>();

    /** A borrowing of the pool. */
    @FunctionalInterface
    interface Borrow {
        Connection get() throws SQLException;
    }

    /** Runs {@code borrow} as the store's: the connection comes as the store last left it. */
    static Connection forStore(Borrow borrow) throws SQLException {
        STORE.set(Boolean.TRUE);
        try {
            return borrow.get();
        } finally {
            STORE.remove();
        }
    }

    /**
     * The driver's own connection under the pool's wrapper: its autocommit changes are the
     * store's, which the pool does not see or reset.
     */
    static Connection driverConnection(Connection pooled) throws SQLException {
        return pooled.unwrap(Connection.class);
    }

    /**
     * Sets autocommit on the driver's connection under {@code pooled}, when it differs (the
     * driver knows its state: no round trip then).
     *
     * @throws SQLException as the driver reports it, after a statement through the pool's
     *     wrapper: the pool learns of a broken connection only from errors that pass through its
     *     wrapper, and would otherwise hand it out again
     */
    static void setAutoCommit(Connection pooled, boolean on) throws SQLException {
        Connection driver = driverConnection(pooled);
        if (driver.getAutoCommit() == on) {
            return;
        }
        try {
            driver.setAutoCommit(on);
        } catch (SQLException e) {
            try (java.sql.Statement s = pooled.createStatement()) {
                s.execute("SELECT 1"); // fails too on a broken connection, which the pool then discards
            } catch (SQLException alsoBroken) {
                e.addSuppressed(alsoBroken);
            }
            throw e;
        }
    }

    /**
     * Turns autocommit back on for a borrower other than the store. The store leaves no
     * transaction open (it commits or rolls back), so this commits nothing.
     *
     * @throws IllegalStateException when the driver refuses: the borrower gets the error, never
     *     a connection silently out of autocommit
     */
    @Override
    public void onConnectionAcquire(Connection connection) {
        if (STORE.get() != null) {
            return;
        }
        try {
            setAutoCommit(connection, true);
        } catch (SQLException e) {
            throw new IllegalStateException("could not turn autocommit back on for a borrower of the pool", e);
        }
    }
}
