package dev.tenantmq.store;

import io.agroal.api.AgroalPoolInterceptor;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * Keeps the pool's promise of autocommit to every borrower but the store's {@link Db}.
 *
 * <p>{@link Db} turns autocommit off on the driver's connection itself, once per pooled
 * connection, and leaves it off when the connection goes back: a transaction then starts with its
 * first statement and costs its work and a {@code COMMIT}, with no {@code START TRANSACTION}
 * (docs/architecture.md, "Transactions without START"). Through the pool's wrapper the pool would
 * turn it back on at every return, one more statement per transaction. Anyone else who borrows
 * from the pool (Flyway, the datasource health check, tests) expects autocommit as JDBC
 * promises: this interceptor turns it back on for them when they get such a connection, one
 * statement for that borrowing. {@link Db} borrows inside {@link #forStore}, which this interceptor
 * leaves alone.
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

    @Override
    public void onConnectionAcquire(Connection connection) {
        if (STORE.get() != null) {
            return;
        }
        try {
            Connection driver = driverConnection(connection);
            if (!driver.getAutoCommit()) {
                driver.setAutoCommit(true); // the store left no transaction open: it commits or rolls back
            }
        } catch (SQLException e) {
            // The borrower's first statement meets the same broken connection and reports it.
        }
    }
}
