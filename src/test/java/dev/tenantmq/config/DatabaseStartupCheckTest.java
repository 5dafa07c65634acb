package dev.tenantmq.config;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Start-up without a database URL stops with one line saying what to set (docs/deployment.md). */
class DatabaseStartupCheckTest {
    @Test
    void no_database_url_refuses_start_naming_the_setting_and_the_docs() {
        String expected = "no database: set QUARKUS_DATASOURCE_JDBC_URL (or quarkus.datasource.jdbc.url) to the MySQL"
                + " database, e.g. jdbc:mysql://db:3306/tenant_mq; see docs/deployment.md";
        assertEquals(Optional.of(expected), DatabaseStartupCheck.problem(Optional.empty()));
        assertEquals(Optional.of(expected), DatabaseStartupCheck.problem(Optional.of(" ")));
    }

    @Test
    void a_database_url_starts() {
        assertEquals(Optional.empty(), DatabaseStartupCheck.problem(Optional.of("jdbc:mysql://db:3306/tenant_mq")));
    }
}
