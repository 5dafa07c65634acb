package dev.tenantmq.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.tenantmq.TestIds;
import dev.tenantmq.model.StoreUnavailableException;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.sql.PreparedStatement;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A {@link ConflictRetry} (a row read in the transaction vanished under it) makes
 * {@link Db#inTransaction} roll back and run the work again with fresh reads, as after a
 * deadlock, up to the same eight attempts; then the caller gets 503's exception.
 */
@QuarkusTest
class DbConflictRetryTest {
    /** Db's retry limit: attempts in all, the first one included. */
    private static final int MAX_ATTEMPTS = 8;

    private final String tenant = TestIds.tenant();
    private final String topic = TestIds.topic();
    private final String group = TestIds.group();

    @Inject
    Db db;

    @Test
    void a_conflict_rolls_the_attempt_back_and_runs_the_work_again() {
        AtomicInteger attempts = new AtomicInteger();

        String result = db.inTransaction(Db.Isolation.READ_COMMITTED, c -> {
            int attempt = attempts.incrementAndGet();
            try (PreparedStatement ps = c.prepareStatement(LeaseStore.UPSERT_HEARTBEAT)) {
                Db.bind(ps, tenant, group, topic, "attempt-" + attempt);
                ps.executeUpdate();
            }
            if (attempt < 3) {
                throw new ConflictRetry("row vanished in attempt " + attempt);
            }
            return "committed";
        });

        assertEquals("committed", result);
        assertEquals(3, attempts.get());
        List<String> written = db.read(c -> Db.column(c, """
                SELECT subscriber_name FROM queue_subscriber_heartbeats
                WHERE tenant = ? AND consumer_group = ? AND topic = ?""", tenant, group, topic));
        assertEquals(List.of("attempt-3"), written, "the conflicting attempts were rolled back");
    }

    @Test
    void conflicts_that_outlast_the_retries_are_unavailability() {
        AtomicInteger attempts = new AtomicInteger();

        StoreUnavailableException e = assertThrows(StoreUnavailableException.class,
                () -> db.inTransaction(Db.Isolation.READ_COMMITTED, c -> {
                    attempts.incrementAndGet();
                    throw new ConflictRetry("always");
                }));

        assertEquals(MAX_ATTEMPTS, attempts.get());
        assertInstanceOf(ConflictRetry.class, e.getCause());
    }
}
