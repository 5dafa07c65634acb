package dev.tenantmq.store;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tenantmq.TestIds;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.sql.PreparedStatement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * {@link Db#inTransaction(Db.Isolation, Db.Work, Runnable)} runs its hook once the work has run
 * without error, before the {@code COMMIT}: group commit frees a group's partitions then, as
 * InnoDB releases the locks (docs/architecture.md, "Group commit").
 */
@QuarkusTest
class DbBeforeCommitTest {
    private final String tenant = TestIds.tenant();
    private final String topic = TestIds.topic();
    private final String group = TestIds.group();

    @Inject
    Db db;

    private List<String> committedSubscribers() {
        return db.read(c -> Db.column(c, """
                SELECT subscriber_name FROM queue_subscriber_heartbeats
                WHERE tenant = ? AND consumer_group = ? AND topic = ?""", tenant, group, topic));
    }

    @Test
    void the_hook_runs_after_the_work_of_the_attempt_that_commits_and_before_its_commit() {
        AtomicInteger attempts = new AtomicInteger();
        List<String> seenByTheHook = new ArrayList<>();
        List<Integer> hookAttempts = new ArrayList<>();

        db.inTransaction(Db.Isolation.READ_COMMITTED, c -> {
            int attempt = attempts.incrementAndGet();
            try (PreparedStatement ps = c.prepareStatement(LeaseStore.UPSERT_HEARTBEAT)) {
                Db.bind(ps, tenant, group, topic, "attempt-" + attempt);
                ps.executeUpdate();
            }
            if (attempt == 1) {
                throw new ConflictRetry("the first attempt is rolled back");
            }
            return null;
        }, () -> {
            hookAttempts.add(attempts.get());
            seenByTheHook.addAll(committedSubscribers()); // another session: the work is not committed yet
        });

        assertEquals(List.of(2), hookAttempts, "once, for the attempt whose work ran without error");
        assertEquals(List.of(), seenByTheHook, "before the COMMIT");
        assertEquals(List.of("attempt-2"), committedSubscribers(), "and the work committed after it");
    }
}
