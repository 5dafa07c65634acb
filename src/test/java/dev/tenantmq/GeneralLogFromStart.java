package dev.tenantmq;

import io.agroal.api.AgroalDataSource;
import io.quarkus.runtime.StartupEvent;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.interceptor.Interceptor;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

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
    void start(@Observes @Priority(Interceptor.Priority.PLATFORM_BEFORE) StartupEvent event, AgroalDataSource dataSource)
            throws SQLException {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            if (isMariaDb(c)) {
                s.execute("SET GLOBAL log_output = 'NONE'");
                s.execute("SET GLOBAL general_log = 'ON'");
            }
        }
    }

    /** Whether {@code c} is to a MariaDB server (not MySQL, not vtgate). */
    static boolean isMariaDb(Connection c) throws SQLException {
        return c.getMetaData().getDatabaseProductVersion().contains("MariaDB");
    }
}
