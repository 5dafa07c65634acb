package dev.tenantmq;

import io.agroal.api.AgroalDataSource;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.interceptor.Interceptor;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import org.jboss.logging.Logger;

/**
 * On MariaDB, turns the general query log on, writing nowhere ({@code log_output} NONE), as the
 * application starts in a test, before the service prepares any statement on the server (a text
 * goes as text on its first run: {@code mq.server-prepare-after-runs} is 1 in the tests). MariaDB
 * logs an {@code Execute} with its values only for a statement prepared while the log was on
 * (MySQL 9.7 decides at each run), and {@link GeneralLog} finds a test's statements by those
 * values; it then only points the log at its table and back to nowhere.
 */
@ApplicationScoped
class GeneralLogFromStart {
    private static final Logger LOG = Logger.getLogger(GeneralLogFromStart.class);

    void start(@Observes @Priority(Interceptor.Priority.PLATFORM_BEFORE) StartupEvent event, AgroalDataSource dataSource) {
        set(dataSource, "SET GLOBAL log_output = 'NONE'", "SET GLOBAL general_log = 'ON'");
    }

    /** Leaves the server's log off again, as a test database outside the tests expects it. */
    void stop(@Observes ShutdownEvent event, AgroalDataSource dataSource) {
        set(dataSource, "SET GLOBAL general_log = 'OFF'");
    }

    /**
     * Runs {@code statements} on MariaDB. A user who may not set global variables gets a WARN,
     * not a failed start: only the tests that read the log ({@link GeneralLog}) need it.
     */
    private static void set(AgroalDataSource dataSource, String... statements) {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            if (isMariaDb(c)) {
                for (String sql : statements) {
                    s.execute(sql);
                }
            }
        } catch (SQLException e) {
            LOG.warnf("the general query log stays as it is (%s): the tests that read it will fail", e.getMessage());
        }
    }

    /** Whether {@code c} is to a MariaDB server (not MySQL, not vtgate). */
    static boolean isMariaDb(Connection c) throws SQLException {
        return c.getMetaData().getDatabaseProductVersion().contains("MariaDB");
    }
}
