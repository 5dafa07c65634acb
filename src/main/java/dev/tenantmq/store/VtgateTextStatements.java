package dev.tenantmq.store;

import com.mysql.cj.conf.PropertyKey;
import com.mysql.cj.jdbc.JdbcConnection;
import io.agroal.api.AgroalPoolInterceptor;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.Connection;
import java.sql.SQLException;
import org.jboss.logging.Logger;

/**
 * Turns server-side prepared statements off on every new connection to vtgate, for everyone who
 * borrows it, Flyway included (docs/architecture.md, "Server-side prepared statements").
 *
 * <p>vtgate v0.24 answers the prepare of a statement that returns no rows with no parameters, so
 * Flyway's {@code SET foreign_key_checks = ?, sql_safe_updates = ?} failed at start-up ("No
 * parameters specified during prepareStatement()"); and it plans a prepared statement's
 * placeholders as distinct values, where the single-shard routing is proven on the text
 * (docs/vitess.md, "Routing, proven offline"). Connector/J reads {@code useServerPrepStmts} at
 * each prepare, so setting it on the new connection makes every statement on it go as text.
 */
@ApplicationScoped
public class VtgateTextStatements implements AgroalPoolInterceptor {
    private static final Logger LOG = Logger.getLogger(VtgateTextStatements.class);

    @Override
    public void onConnectionCreate(Connection connection) {
        try {
            if (connection.isWrapperFor(JdbcConnection.class) && Jdbc.isVtgate(connection)) {
                connection.unwrap(JdbcConnection.class).getPropertySet()
                        .getBooleanProperty(PropertyKey.useServerPrepStmts).setValue(false);
            }
        } catch (SQLException e) {
            // A connection that cannot answer this is broken: the pool finds out at its first use.
            LOG.debugf(e, "could not read whether a new connection is to vtgate");
        }
    }
}
