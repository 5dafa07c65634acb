package dev.tenantmq.domain;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tenantmq.GeneralLog;
import dev.tenantmq.TestIds;
import dev.tenantmq.model.GroupCommit;
import dev.tenantmq.store.MessageStore;
import dev.tenantmq.store.PublishTransaction.NewMessage;
import dev.tenantmq.store.PublishTransaction.Published;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Group commit against the database (docs/architecture.md, "Group commit"): concurrent publishes
 * to one topic share a transaction, each still gets its own offsets and duplicate flags, and a
 * request whose messages the database refuses fails alone.
 *
 * <p>Groups form deterministically: the test holds the head lock of the partition, so the first
 * publish waits inside its transaction; the next {@link #FOLLOWERS} requests, arriving while it
 * runs, wait for each other and, as they write its partition, for it: they run as one group once
 * its statements are done (the test's lock released).
 */
@QuarkusTest
class PublishGroupsTest {
    private static final int FOLLOWERS = 8;
    private static final long WINDOW = TimeUnit.HOURS.toMicros(1);

    @Inject
    MessageStore store;

    @Inject
    AgroalDataSource dataSource;

    private final String tenant = TestIds.tenant();
    private final String topic = TestIds.topic();
    private ExecutorService pool;

    @BeforeEach
    void pool() {
        pool = Executors.newFixedThreadPool(FOLLOWERS + 1);
    }

    @AfterEach
    void stop() {
        pool.shutdownNow();
    }

    /**
     * Long linger, groups of exactly the followers' messages: a group is ready when full, and
     * runs once the first request's transaction, which writes its partition, has ended.
     */
    private PublishGroups groups(int messagesPerFollower) {
        return new PublishGroups(store, new GroupCommit(TimeUnit.SECONDS.toNanos(60), FOLLOWERS * messagesPerFollower));
    }

    @Test
    void concurrent_publishes_to_one_topic_share_a_transaction_and_each_gets_its_own_offsets_and_duplicates()
            throws Exception {
        store.publish(tenant, topic, List.of(message("seed")), WINDOW); // the head row exists
        PublishGroups groups = groups(2);
        List<CompletableFuture<List<Published>>> followers = new ArrayList<>();
        CompletableFuture<List<Published>> first;
        List<String> inserts;
        try (GeneralLog log = GeneralLog.start(dataSource)) {
            try (Connection holder = holdHead()) {
                first = publishAsync(groups, List.of(message("first")));
                awaitWaitingOnHead(1);
                for (int i = 0; i < FOLLOWERS; i++) {
                    followers.add(publishAsync(groups, List.of(message("own-" + i), message("shared"))));
                }
                // The full group waits in the process for the first request, which writes its partition.
                awaitWaitingInPublishGroups(FOLLOWERS);
                holder.commit();
            }
            first.get(60, TimeUnit.SECONDS);
            for (CompletableFuture<List<Published>> f : followers) {
                f.get(60, TimeUnit.SECONDS);
            }
            inserts = log.stop(topic).stream().filter(sql -> sql.startsWith("INSERT INTO queue_messages")).toList();
        }
        assertEquals(2, inserts.size(), "one transaction for the first request and one for the other "
                + FOLLOWERS + ": " + inserts);

        Set<Long> offsets = new HashSet<>();
        offsets.add(first.get().get(0).offset());
        Long shared = null;
        int freshShared = 0;
        for (CompletableFuture<List<Published>> f : followers) {
            List<Published> results = f.get();
            assertEquals(2, results.size());
            assertFalse(results.get(0).duplicate(), "a request's own message is new");
            assertTrue(offsets.add(results.get(0).offset()), "offsets are unique: " + offsets);
            if (!results.get(1).duplicate()) {
                freshShared++;
                assertTrue(offsets.add(results.get(1).offset()));
            }
            shared = shared == null ? results.get(1).offset() : shared;
            assertEquals(shared, results.get(1).offset(), "every duplicate of 'shared' names its stored offset");
        }
        assertEquals(1, freshShared, "'shared' is new in exactly one request, as if they had run one after another");
        assertEquals(FOLLOWERS + 3, storedIds().size(), "seed, first, " + FOLLOWERS + " own messages and 'shared' once");
        assertEquals(newestOffset(), headOffset(), "the head is the newest offset of the partition");
    }

    /**
     * The linger is short (1 ms), far shorter than the first transaction, which waits for the
     * test's head lock. Requests for its partition that arrive meanwhile wait in the process, not
     * in the database, past the linger, and run as one group once it ended. Before, each group
     * ran when its linger was over and waited for the head lock inside its own transaction, a
     * pooled connection each.
     */
    @Test
    void publishes_to_a_partition_a_running_transaction_writes_wait_in_the_process_past_the_linger_and_run_as_one_group()
            throws Exception {
        store.publish(tenant, topic, List.of(message("seed")), WINDOW);
        PublishGroups groups = new PublishGroups(store, new GroupCommit(TimeUnit.MILLISECONDS.toNanos(1), 1000));
        List<CompletableFuture<List<Published>>> followers = new ArrayList<>();
        CompletableFuture<List<Published>> first;
        List<String> inserts;
        try (GeneralLog log = GeneralLog.start(dataSource)) {
            try (Connection holder = holdHead()) {
                first = publishAsync(groups, List.of(message("first")));
                awaitWaitingOnHead(1);
                for (int i = 0; i < FOLLOWERS; i++) {
                    followers.add(publishAsync(groups, List.of(message("own-" + i))));
                }
                awaitWaitingInPublishGroups(FOLLOWERS);
                awaitWaitingOnHead(1); // still only the first request waits in the database
                holder.commit();
            }
            first.get(60, TimeUnit.SECONDS);
            for (CompletableFuture<List<Published>> f : followers) {
                assertFalse(f.get(60, TimeUnit.SECONDS).get(0).duplicate());
            }
            inserts = log.stop(topic).stream().filter(sql -> sql.startsWith("INSERT INTO queue_messages")).toList();
        }
        assertEquals(2, inserts.size(), "one transaction for the first request and one for the " + FOLLOWERS
                + " that waited for it: " + inserts);
        assertEquals(FOLLOWERS + 2, storedIds().size());
        assertEquals(newestOffset(), headOffset());
    }

    /**
     * Waits until {@code n} requests wait inside {@link PublishGroups}: threads parked there, for
     * their group's turn or for its leader (a request in its transaction is running, not parked).
     */
    private static void awaitWaitingInPublishGroups(int n) {
        await(n + " requests waiting in the process").atMost(Duration.ofSeconds(60)).until(() -> Thread.getAllStackTraces()
                .entrySet().stream()
                .filter(e -> e.getKey().getState() == Thread.State.WAITING || e.getKey().getState() == Thread.State.TIMED_WAITING)
                .filter(e -> java.util.Arrays.stream(e.getValue())
                        .anyMatch(frame -> frame.getClassName().equals(PublishGroups.class.getName())
                                || frame.getClassName().startsWith(PublishGroups.class.getName() + "$")))
                .count() == n);
    }

    @Test
    void a_request_the_database_refuses_fails_alone_and_its_neighbours_are_stored() throws Exception {
        try (Connection c = dataSource.getConnection()) {
            // The refusal is a trigger, and vtgate refuses CREATE TRIGGER: this case runs on the mysqld runs.
            org.junit.jupiter.api.Assumptions.assumeFalse(
                    c.getMetaData().getDatabaseProductVersion().endsWith("-Vitess"), "vtgate refuses CREATE TRIGGER");
        }
        store.publish(tenant, topic, List.of(message("seed")), WINDOW);
        String poison = "poison-" + UUID.randomUUID();
        String trigger = "refuse_" + UUID.randomUUID().toString().replace("-", "");
        // A real database error for one message: the shared transaction fails as a whole.
        execute("CREATE TRIGGER " + trigger + " BEFORE INSERT ON queue_messages FOR EACH ROW BEGIN"
                + " IF NEW.id = '" + poison + "' THEN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'refused by the test';"
                + " END IF; END");
        try {
            PublishGroups groups = groups(1);
            List<CompletableFuture<List<Published>>> followers = new ArrayList<>();
            CompletableFuture<List<Published>> first;
            try (Connection holder = holdHead()) {
                first = publishAsync(groups, List.of(message("first")));
                awaitWaitingOnHead(1);
                for (int i = 0; i < FOLLOWERS; i++) {
                    followers.add(publishAsync(groups, List.of(message(i == 3 ? poison : "own-" + i))));
                }
                awaitWaitingInPublishGroups(FOLLOWERS);
                holder.commit();
            }
            first.get(60, TimeUnit.SECONDS);
            for (int i = 0; i < FOLLOWERS; i++) {
                CompletableFuture<List<Published>> f = followers.get(i);
                if (i == 3) {
                    ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(60, TimeUnit.SECONDS));
                    assertInstanceOf(dev.tenantmq.store.StoreException.class, e.getCause());
                } else {
                    assertFalse(f.get(60, TimeUnit.SECONDS).get(0).duplicate());
                }
            }
            Set<String> stored = storedIds();
            assertFalse(stored.contains(poison), "the refused request stored nothing");
            assertEquals(FOLLOWERS + 1, stored.size(), "seed, first and the " + (FOLLOWERS - 1) + " neighbours: " + stored);
            assertEquals(newestOffset(), headOffset());
        } finally {
            execute("DROP TRIGGER IF EXISTS " + trigger);
        }
    }

    private static NewMessage message(String id) {
        return new NewMessage("hot", id, "{\"n\":1}", "{}");
    }

    private CompletableFuture<List<Published>> publishAsync(PublishGroups groups, List<NewMessage> messages) {
        return CompletableFuture.supplyAsync(() -> groups.publish(tenant, topic, messages, WINDOW), pool);
    }

    /** Locks the head of partition "hot" until the returned connection commits. */
    private Connection holdHead() throws SQLException {
        Connection c = dataSource.getConnection();
        c.setAutoCommit(false);
        try (PreparedStatement ps = c.prepareStatement("""
                SELECT head_offset FROM queue_partition_heads
                WHERE tenant = ? AND topic = ? AND partition_key = 'hot' FOR UPDATE""")) {
            ps.setString(1, tenant);
            ps.setString(2, topic);
            try (ResultSet rs = ps.executeQuery()) {
                assertTrue(rs.next(), "the head exists");
            }
        }
        return c;
    }

    /** Waits until {@code n} statements of other sessions that lock this topic's heads are running (waiting for the lock). */
    private void awaitWaitingOnHead(int n) {
        await().atMost(Duration.ofSeconds(60)).until(() -> {
            try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement("""
                    SELECT COUNT(*) FROM information_schema.PROCESSLIST
                    WHERE ID <> CONNECTION_ID() AND INFO LIKE ? AND INFO LIKE '%FOR UPDATE%'""")) {
                ps.setString(1, "%" + topic + "%");
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    return rs.getInt(1) == n;
                }
            } catch (SQLException e) {
                if (dev.tenantmq.ServerViews.textNotReadable(e)) {
                    return false; // MySQL 9.7 refused the view this time: read again
                }
                throw e;
            }
        });
    }

    private Set<String> storedIds() throws SQLException {
        Set<String> ids = new HashSet<>();
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(
                "SELECT id FROM queue_messages WHERE tenant = ? AND topic = ?")) {
            ps.setString(1, tenant);
            ps.setString(2, topic);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    assertTrue(ids.add(rs.getString(1)), "each id stored once");
                }
            }
        }
        return ids;
    }

    private long newestOffset() throws SQLException {
        return single("SELECT MAX(`offset`) FROM queue_messages WHERE tenant = ? AND topic = ?");
    }

    private long headOffset() throws SQLException {
        return single("SELECT head_offset FROM queue_partition_heads WHERE tenant = ? AND topic = ? AND partition_key = 'hot'");
    }

    private long single(String sql) throws SQLException {
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, tenant);
            ps.setString(2, topic);
            try (ResultSet rs = ps.executeQuery()) {
                assertTrue(rs.next());
                return rs.getLong(1);
            }
        }
    }

    private void execute(String sql) throws SQLException {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }
}
