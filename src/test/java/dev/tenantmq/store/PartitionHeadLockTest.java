package dev.tenantmq.store;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.tenantmq.TestIds;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The publisher lock of a partition ({@link PublishTransaction#lockPartitions}, the row of
 * {@code queue_partition_heads}) excludes every other publisher of it until commit, also right
 * after a wait: a publisher that waited while the holder appended must still hold the lock, because
 * a third publisher would otherwise lock at once, and two publishers would insert at the same
 * time, their AUTO_INCREMENT offsets committing out of order (a consumer reading the later one
 * first moves past the earlier one and never delivers it). Run under READ COMMITTED, as publish
 * runs, including for a partition that has no row yet.
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
            lock(first);
            append(first, "m0");
            first.commit();

            lock(first); // holds the head of p
            CompletableFuture<Void> secondLocked = CompletableFuture.runAsync(() -> lockUnchecked(second));
            await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(3)).until(() -> !secondLocked.isDone());
            append(first, "m1"); // a new newest message, while the second publisher waits
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
            assertEquals(newestOffset("p"), headOffset("p"), "the head is the newest offset of the partition");
        }
    }

    /** The first publisher of a partition locks a row it creates: a second one waits for it. */
    @Test
    void the_first_publisher_of_a_new_partition_excludes_a_second_one() throws Exception {
        try (Connection first = open(); Connection second = open()) {
            lock(first); // no message and no head yet: the statement inserts the head row
            CompletableFuture<Void> secondLocked = CompletableFuture.runAsync(() -> lockUnchecked(second));
            try {
                await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(3)).until(() -> !secondLocked.isDone());
                append(first, "m0");
            } finally {
                first.commit();
                secondLocked.get(10, TimeUnit.SECONDS);
                second.commit();
            }
            assertFalse(secondLocked.isCompletedExceptionally());
            assertEquals(newestOffset("p"), headOffset("p"));
        }
    }

    /** A batch locks the heads of all its partitions with one statement; each head must stay locked. */
    @Test
    void a_publisher_of_several_partitions_excludes_a_publisher_of_any_of_them() throws Exception {
        try (Connection first = open(); Connection second = open()) {
            PublishTransaction.lockPartitions(first, tenant, topic, new TreeSet<>(List.of("p", "q")));
            append(first, "p", "p0");
            first.commit();

            PublishTransaction.lockPartitions(first, tenant, topic, new TreeSet<>(List.of("p", "q")));
            CompletableFuture<Void> secondLocked = CompletableFuture.runAsync(() -> {
                try {
                    PublishTransaction.lockPartitions(second, tenant, topic, new TreeSet<>(List.of("q")));
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
        PublishTransaction.lockPartitions(c, tenant, topic, new TreeSet<>(List.of("p")));
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

    /** Appends one message as publish does once it holds the lock: insert, then move the head. */
    private void append(Connection c, String partitionKey, String id) throws SQLException {
        PublishTransaction.append(c, tenant, topic, List.of(new PublishTransaction.NewMessage(partitionKey, id, "1", "{}")));
    }

    private long headOffset(String partitionKey) throws SQLException {
        return single("SELECT head_offset FROM queue_partition_heads WHERE tenant = ? AND topic = ? AND partition_key = ?",
                partitionKey);
    }

    private long newestOffset(String partitionKey) throws SQLException {
        return single("SELECT MAX(`offset`) FROM queue_messages WHERE tenant = ? AND topic = ? AND partition_key = ?",
                partitionKey);
    }

    private long single(String sql, String partitionKey) throws SQLException {
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, tenant);
            ps.setString(2, topic);
            ps.setString(3, partitionKey);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }
}
