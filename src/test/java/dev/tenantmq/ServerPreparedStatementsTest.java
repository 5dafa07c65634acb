package dev.tenantmq;

import static dev.tenantmq.Api.msg;
import static dev.tenantmq.Api.publishOk;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The service's frequent statements reach the database as runs of server-side prepared
 * statements (docs/architecture.md, "Server-side prepared statements"): in the tests a text is
 * prepared on the server from its second run in the process ({@code mq.server-prepare-after-runs}
 * is 1 in the test profile), and a single publish to a partition that has messages runs the
 * same texts each time.
 */
@QuarkusTest
class ServerPreparedStatementsTest {
    @Inject
    AgroalDataSource dataSource;

    @Test
    void a_single_publish_whose_texts_ran_before_reaches_the_database_as_runs_of_prepared_statements() throws Exception {
        String tenant = TestIds.tenant();
        String topic = TestIds.topic();
        for (int i = 0; i < 2; i++) { // the partition's first publish creates its head; then each runs the same texts
            publishOk(tenant, topic, List.of(msg("k", "warm-" + i, i)));
        }
        GeneralLog log = GeneralLog.start(dataSource);
        Map<String, Long> commands;
        try {
            publishOk(tenant, topic, List.of(msg("k", "m", 1)));
        } finally {
            commands = log.stopCountingCommands(topic);
        }
        // The head lock (with the id look-up), the insert and the head advance.
        assertTrue(commands.getOrDefault("Execute", 0L) >= 3, "runs of prepared statements: " + commands);
        assertEquals(0L, commands.getOrDefault("Query", 0L), "no statement naming the topic went as text: " + commands);
    }
}
