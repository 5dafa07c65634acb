package dev.tenantmq;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What a request costs the database, counted deterministically: every statement the service
 * sends for it, as the database's general query log received it ({@link GeneralLog}), against a
 * budget (docs/architecture.md, "Publish: the partition head lock"). Counts do not depend on a
 * busy machine, unlike the throughput the benchmark measures (bench/README.md). What the driver
 * and the pool send around a transaction ({@code SET autocommit}, {@code SET SESSION TRANSACTION
 * ISOLATION LEVEL}) is counted too, against a budget of its own, and the commit apart: the
 * statements of the work are the store's to keep down, the session statements the pool's
 * defaults'.
 */
@QuarkusTest
class StatementBudgetTest {
    /** Statements of a publish request, commit not counted, however many partitions it touches. */
    static final int PUBLISH_STATEMENTS = 3;
    /** Commits of a publish request. */
    static final int PUBLISH_COMMITS = 1;
    /**
     * Session statements around any transaction today: the isolation level set and reset
     * (READ COMMITTED for the work, the pool's REPEATABLE READ default back) and autocommit off
     * and on. A pool whose default is READ COMMITTED drops the first two; lower this then.
     */
    static final int SESSION_STATEMENTS = 4;

    @Inject
    AgroalDataSource dataSource;

    @Test
    void a_publish_of_100_messages_over_50_partitions_stays_within_the_publish_budget() throws Exception {
        String tenant = TestIds.tenant();
        String topic = TestIds.topic();
        Api.publishOk(tenant, topic, batch("warm", 100, 50)); // the partitions exist: the steady state

        List<String> sent = sentFor(topic, () -> Api.publishOk(tenant, topic, batch("measured", 100, 50)));

        assertWithinBudget("a publish of 100 messages over 50 partitions", sent, PUBLISH_STATEMENTS, PUBLISH_COMMITS,
                SESSION_STATEMENTS);
    }

    @Test
    void a_single_publish_stays_within_the_publish_budget() throws Exception {
        String tenant = TestIds.tenant();
        String topic = TestIds.topic();
        Api.publishOk(tenant, topic, batch("warm", 1, 1));

        List<String> sent = sentFor(topic, () -> Api.publishOk(tenant, topic, batch("measured", 1, 1)));

        assertWithinBudget("a single publish", sent, PUBLISH_STATEMENTS, PUBLISH_COMMITS, SESSION_STATEMENTS);
    }

    /** {@code n} messages with caller-chosen ids, spread round-robin over {@code partitions} keys. */
    private static List<Map<String, Object>> batch(String idPrefix, int n, int partitions) {
        List<Map<String, Object>> messages = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            messages.add(Api.msg("k" + (i % partitions), idPrefix + "-" + i, Map.of("n", i)));
        }
        return messages;
    }

    private List<String> sentFor(String marker, Runnable request) throws Exception {
        try (GeneralLog log = GeneralLog.start(dataSource)) {
            request.run();
            return log.connectionStatements(marker);
        }
    }

    /**
     * Fails unless {@code sent} holds at most {@code statements} statements of work (neither a
     * session statement nor the end), between 1 and {@code commits} ends, and at most
     * {@code session} session statements.
     */
    static void assertWithinBudget(String what, List<String> sent, int statements, int commits, int session) {
        long commitCount = sent.stream().filter(GeneralLog::isEnd).count();
        long sessionCount = sent.stream().filter(GeneralLog::isSession).count();
        long statementCount = sent.size() - commitCount - sessionCount;
        String listing = sent.size() + " sent:\n  " + String.join("\n  ", sent.stream()
                .map(sql -> sql.replaceAll("\\s+", " "))
                .map(line -> line.substring(0, Math.min(90, line.length())))
                .toList());
        assertTrue(commitCount >= 1, what + ": found its transaction in the log; " + listing);
        assertTrue(statementCount <= statements, what + ": " + statementCount + " statements, budget " + statements
                + "; " + listing);
        assertTrue(commitCount <= commits, what + ": " + commitCount + " commits, budget " + commits + "; " + listing);
        assertTrue(sessionCount <= session, what + ": " + sessionCount + " session statements, budget " + session
                + "; " + listing);
    }
}
