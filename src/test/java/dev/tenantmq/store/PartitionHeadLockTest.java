package dev.tenantmq.store;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.tenantmq.TestIds;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The publisher lock of a partition ({@link MessageStore#lockPartitions}) excludes every other
 * publisher of it until commit, also right after a wait: a publisher that waited for the head
 * row while the holder appended a newer one must not end up holding only the old head, because
 * a third publisher would then lock the new head at once, and two publishers would insert at the
 * same time, their AUTO_INCREMENT offsets committing out of order (a consumer reading the later
 * one first moves past the earlier one and never delivers it).
 */
@QuarkusTest
class PartitionHeadLockTest {
    @Inject
    AgroalDataSource dataSource;

    private final String tenant = TestIds.tenant();
    private final String topic = TestIds.topic();

    @Test
    void a_publisher_that_waited_for_the_head_still_excludes_the_next_one() throws Exception {
        try (Connection first = open(); Connection second = open(); Connection third = open()) {
            append(first, "m0");
            first.commit();

            lock(first); // holds the head m0
            CompletableFuture<Void> secondLocked = CompletableFuture.runAsync(() -> lockUnchecked(second));
            await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(3)).until(() -> !secondLocked.isDone());
            append(first, "m1"); // a new head, while the second publisher waits for the old one
            first.commit();
            secondLocked.get(10, TimeUnit.SECONDS);

            CompletableFuture<Void> thirdLocked = CompletableFuture.runAsync(() -> lockUnchecked(third));
            try {
                await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(3)).until(() -> !thirdLocked.isDone());
            } finally {
                second.commit();
                thirdLocked.get(10, TimeUnit.SECONDS);
                third.commit();
            }
            assertFalse(thirdLocked.isCompletedExceptionally());
        }
    }

    /**
     * A batch locks the heads of all its partitions with one statement (a UNION ALL of locking
     * branches); each head must stay locked. Through vtgate that statement loses its FOR UPDATE,
     * so there the store locks each head with a statement of its own.
     */
    @Test
    void a_publisher_of_several_partitions_excludes_a_publisher_of_any_of_them() throws Exception {
        try (Connection first = open(); Connection second = open()) {
            append(first, "p", "p0");
            append(first, "q", "q0");
            first.commit();

            MessageStore.lockPartitions(first, tenant, topic, new TreeSet<>(List.of("p", "q")), false, "test");
            CompletableFuture<Void> secondLocked = CompletableFuture.runAsync(() -> {
                try {
                    MessageStore.lockPartitions(second, tenant, topic, new TreeSet<>(List.of("q")), false, "test");
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
            try {
                await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(3)).until(() -> !secondLocked.isDone());
            } finally {
                first.commit();
                secondLocked.get(10, TimeUnit.SECONDS);
                second.commit();
            }
        }
    }

    private Connection open() throws SQLException {
        Connection c = dataSource.getConnection();
        c.setAutoCommit(false);
        c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED); // as publish runs
        return c;
    }

    private void lock(Connection c) throws SQLException {
        MessageStore.lockPartitions(c, tenant, topic, new TreeSet<>(List.of("p")), false, "test");
    }

    private void lockUnchecked(Connection c) {
        try {
            lock(c);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private void append(Connection c, String id) throws SQLException {
        append(c, "p", id);
    }

    private void append(Connection c, String partitionKey, String id) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("""
                INSERT INTO queue_messages (tenant, topic, partition_key, id, payload, metadata, created_at)
                VALUES (?, ?, ?, ?, '1', '{}', UTC_TIMESTAMP(6))""")) {
            ps.setString(1, tenant);
            ps.setString(2, topic);
            ps.setString(3, partitionKey);
            ps.setString(4, id);
            ps.executeUpdate();
        }
    }
}
