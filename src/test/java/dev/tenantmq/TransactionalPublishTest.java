package dev.tenantmq;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tenantmq.jdbc.CommitNotifier;
import dev.tenantmq.jdbc.TransactionalPublisher;
import dev.tenantmq.jdbc.TransactionalPublisher.Message;
import dev.tenantmq.jdbc.TransactionalPublisher.Result;
import dev.tenantmq.model.InvalidRequestException;
import dev.tenantmq.model.PayloadTooLargeException;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.net.URI;
import java.net.URL;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Publishing in the application's own transaction through the JDBC library
 * (docs/transactional-publish.md): the library's {@link TransactionalPublisher} on a connection of
 * the test database, next to an application table written in the same transaction, and the
 * service delivering what committed.
 */
@QuarkusTest
class TransactionalPublishTest {
    private static final TransactionalPublisher PUBLISHER = TransactionalPublisher.withDefaults();

    @TestHTTPResource("/")
    URL base;

    @Inject
    AgroalDataSource dataSource;

    @Inject
    TransactionalOrders orders;

    private String tenant;
    private String topic;
    private HttpJson http;

    @BeforeEach
    void setUp() throws SQLException {
        tenant = TestIds.tenant();
        topic = TestIds.topic();
        http = new HttpJson(base.toString());
        try (Connection c = dataSource.getConnection(); var s = c.createStatement()) {
            // The application's own table, sharded (on Vitess) by the same tenant value.
            s.execute("""
                    CREATE TABLE IF NOT EXISTS app_orders (
                      tenant VARCHAR(255) NOT NULL, order_id VARCHAR(255) NOT NULL,
                      PRIMARY KEY (tenant, order_id))""");
        }
    }

    /** A connection as the application would open it: autocommit off, READ COMMITTED. */
    private Connection transaction() throws SQLException {
        Connection c = dataSource.getConnection();
        c.setAutoCommit(false);
        c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
        return c;
    }

    /** An application row; its id is made unique with the test's topic (the table outlives a run). */
    private void insertOrder(Connection c, String orderId) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO app_orders (tenant, order_id) VALUES (?, ?)")) {
            ps.setString(1, tenant);
            ps.setString(2, orderId + "@" + topic);
            ps.executeUpdate();
        }
    }

    private long count(String sql) throws SQLException {
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, tenant);
            ps.setString(2, topic);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    private String consumer(String group) {
        return "/tenants/" + tenant + "/topics/" + topic + "/consumer-groups/" + group;
    }

    private CompletableFuture<JsonNode> longPoll(String group, int waitSeconds) {
        return http.postAsync(consumer(group) + "/fetch", Map.of("maxMessages", 100, "waitSeconds", waitSeconds,
                "visibilitySeconds", 120));
    }

    private static List<String> ids(JsonNode fetched) {
        List<String> ids = new ArrayList<>();
        fetched.get("messages").forEach(m -> ids.add(m.get("id").asText()));
        return ids;
    }

    @Test
    void a_rollback_stores_nothing_and_wakes_nothing() throws Exception {
        String group = TestIds.group();
        // A first fetch makes the group known; the lease of a partition comes with its first message.
        CompletableFuture<JsonNode> poll = longPoll(group, 2);
        try (Connection c = transaction()) {
            insertOrder(c, "o-1");
            List<Result> results = PUBLISHER.publish(c, tenant, topic, List.of(Message.of("p", "m-1", "{\"n\":1}")));
            assertEquals(1, results.size());
            c.rollback();
        }
        assertEquals(List.of(), ids(poll.get(30, TimeUnit.SECONDS)), "the poll found nothing to deliver");
        assertEquals(0, count("SELECT COUNT(*) FROM queue_messages WHERE tenant = ? AND topic = ?"));
        assertEquals(0, count("SELECT COUNT(*) FROM queue_partition_heads WHERE tenant = ? AND topic = ?"));
        assertEquals(List.of(), ids(http.post(consumer(group) + "/fetch", Map.of("maxMessages", 10, "waitSeconds", 1))));
    }

    @Test
    void a_commit_delivers_in_order_with_the_domain_row() throws Exception {
        String group = TestIds.group();
        List<Result> results;
        try (Connection c = transaction()) {
            insertOrder(c, "o-2");
            results = PUBLISHER.publish(c, tenant, topic, List.of(
                    Message.of("order-2", "created", "{\"amount\":12.50}"),
                    new Message("order-2", "paid", "\"paid\"", Map.of("source", "web")),
                    Message.of("order-3", "created", "null")));
            c.commit();
        }
        assertTrue(results.get(0).offset() < results.get(1).offset(), "request order is offset order");
        assertFalse(results.stream().anyMatch(Result::duplicate));
        JsonNode got = http.post(consumer(group) + "/fetch", Map.of("maxMessages", 10, "waitSeconds", 10));
        Map<String, List<String>> byKey = new HashMap<>();
        for (JsonNode m : got.get("messages")) {
            byKey.computeIfAbsent(m.get("partitionKey").asText(), k -> new ArrayList<>()).add(m.get("id").asText());
            assertEquals(tenant, m.get("metadata").get("queue_name").asText(), "stamped as an HTTP publish is");
        }
        assertEquals(Map.of("order-2", List.of("created", "paid"), "order-3", List.of("created")), byKey);
        JsonNode paid = got.get("messages").get(1);
        assertEquals("paid", paid.get("payload").asText());
        assertEquals("web", paid.get("metadata").get("source").asText());
        assertEquals(results.get(1).offset(), paid.get("offset").asLong());
    }

    /**
     * The process that committed dies before its notice: the waiting poll finds the messages by
     * its periodic re-check (mq.fetch.recheck-interval), long before its wait ends.
     */
    @Test
    void a_commit_without_a_notice_reaches_a_waiting_poll_by_its_recheck() throws Exception {
        String group = TestIds.group();
        http.post("/tenants/" + tenant + "/topics/" + topic + "/messages",
                Map.of("messages", List.of(Map.of("partitionKey", "p", "id", "before", "payload", 0))));
        JsonNode first = http.post(consumer(group) + "/fetch", Map.of("maxMessages", 10, "waitSeconds", 10));
        assertEquals(List.of("before"), ids(first), "the group holds the partition's lease");
        http.post(consumer(group) + "/ack", Map.of("receipts", List.of(first.get("messages").get(0).get("receipt").asText())));
        CompletableFuture<JsonNode> poll = longPoll(group, 20);
        await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(5)).until(() -> !poll.isDone());
        try (Connection c = transaction()) {
            PUBLISHER.publish(c, tenant, topic, List.of(Message.of("p", "after", "1")));
            c.commit();
        } // no notice
        assertEquals(List.of("after"), ids(poll.get(30, TimeUnit.SECONDS)));
    }

    @Test
    void the_committed_notice_wakes_a_waiting_poll_and_is_validated() throws Exception {
        String group = TestIds.group();
        CommitNotifier notifier = new CommitNotifier(URI.create(base.toString()), null, Duration.ofSeconds(30));
        List<Result> results;
        try (Connection c = transaction()) {
            results = PUBLISHER.publish(c, tenant, topic, List.of(Message.of("p", "n-1", "1")));
            c.commit();
        }
        assertEquals(200, notifier.committed(tenant, topic, results).get(30, TimeUnit.SECONDS));
        assertEquals(List.of("n-1"), ids(http.post(consumer(group) + "/fetch", Map.of("maxMessages", 10, "waitSeconds", 10))));
        CompletableFuture<JsonNode> bad = http.postAsync("/tenants/" + tenant + "/topics/" + topic + "/messages/committed",
                Map.of("partitionKeys", List.of()));
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> {
            try {
                bad.join();
            } catch (java.util.concurrent.CompletionException ce) {
                throw ce.getCause();
            }
        });
        assertTrue(e.getMessage().contains("-> 400") && e.getMessage().contains("partitionKeys"), e.getMessage());
    }

    @Test
    void a_duplicate_inside_and_across_transactions_is_answered_as_the_http_publish_answers_it() throws Exception {
        String messages = "/tenants/" + tenant + "/topics/" + topic + "/messages";
        long httpOffset = http.post(messages, Map.of("messages", List.of(Map.of("partitionKey", "p", "id", "a", "payload", 1))))
                .get("messages").get(0).get("offset").asLong();
        List<Result> results;
        try (Connection c = transaction()) {
            results = PUBLISHER.publish(c, tenant, topic, List.of(Message.of("p", "a", "2"), Message.of("p", "b", "3"),
                    Message.of("p", "b", "4")));
            c.commit();
        }
        assertEquals(new Result("a", "p", httpOffset, true), results.get(0), "stored by HTTP before");
        assertFalse(results.get(1).duplicate());
        assertEquals(new Result("b", "p", results.get(1).offset(), true), results.get(2), "earlier in the batch");
        // The HTTP publish of the same batch now answers exactly as the library did.
        JsonNode again = http.post(messages, Map.of("messages", List.of(Map.of("partitionKey", "p", "id", "a", "payload", 2),
                Map.of("partitionKey", "p", "id", "b", "payload", 3), Map.of("partitionKey", "p", "id", "b", "payload", 4))));
        for (int i = 0; i < 3; i++) {
            assertEquals(results.get(i).offset(), again.get("messages").get(i).get("offset").asLong());
            assertTrue(again.get("messages").get(i).get("duplicate").asBoolean());
        }
        try (Connection c = transaction()) {
            assertEquals(List.of(new Result("b", "p", results.get(1).offset(), true)),
                    PUBLISHER.publish(c, tenant, topic, List.of(Message.of("p", "b", "5"))), "a later transaction");
            c.commit();
        }
        assertEquals(2, count("SELECT COUNT(*) FROM queue_messages WHERE tenant = ? AND topic = ?"));
    }

    /**
     * Two transactions publish the same id to the same partition: the second waits for the first's
     * head lock, then finds the committed id and answers duplicate, instead of failing on the
     * unique key (the look-up runs after the lock; docs/transactional-publish.md).
     */
    @Test
    void a_transaction_waiting_for_the_head_lock_finds_the_id_the_holder_committed() throws Exception {
        long firstOffset;
        CompletableFuture<List<Result>> second;
        CompletableFuture<JsonNode> viaHttp;
        try (Connection first = transaction()) {
            firstOffset = PUBLISHER.publish(first, tenant, topic, List.of(Message.of("p", "same", "1"))).get(0).offset();
            second = CompletableFuture.supplyAsync(() -> {
                try (Connection c = transaction()) {
                    List<Result> r = PUBLISHER.publish(c, tenant, topic, List.of(Message.of("p", "same", "2")));
                    c.commit();
                    return r;
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
            viaHttp = http.postAsync("/tenants/" + tenant + "/topics/" + topic + "/messages",
                    Map.of("messages", List.of(Map.of("partitionKey", "p", "id", "same", "payload", 3))));
            await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(5))
                    .until(() -> !second.isDone() && !viaHttp.isDone());
            first.commit();
        }
        assertEquals(List.of(new Result("same", "p", firstOffset, true)), second.get(30, TimeUnit.SECONDS));
        JsonNode answer = viaHttp.get(30, TimeUnit.SECONDS).get("messages").get(0);
        assertEquals(firstOffset, answer.get("offset").asLong());
        assertTrue(answer.get("duplicate").asBoolean());
    }

    @Test
    void http_and_transactional_publishers_on_one_partition_lose_nothing_and_keep_offset_order() throws Exception {
        int writers = 4;
        int batches = 30;
        int batchSize = 4;
        List<String> keys = List.of("hot", "hot-2");
        String group = TestIds.group();
        String messages = "/tenants/" + tenant + "/topics/" + topic + "/messages";
        Set<String> expected = ConcurrentHashMap.newKeySet();
        ExecutorService pool = Executors.newFixedThreadPool(writers);
        List<Future<?>> publishers = new ArrayList<>();
        for (int w = 0; w < writers; w++) {
            int writer = w;
            boolean library = w % 2 == 0; // two of each kind
            publishers.add(pool.submit(() -> {
                for (int b = 0; b < batches; b++) {
                    List<Message> batch = new ArrayList<>();
                    for (int i = 0; i < batchSize; i++) {
                        batch.add(Message.of(keys.get(i % keys.size()), "w" + writer + "-" + (b * batchSize + i), "" + b));
                    }
                    if (library) {
                        try (Connection c = transaction()) {
                            insertOrder(c, "w" + writer + "-" + b);
                            PUBLISHER.publish(c, tenant, topic, batch);
                            c.commit();
                        }
                    } else {
                        List<Map<String, Object>> body = new ArrayList<>();
                        batch.forEach(m -> body.add(Map.of("partitionKey", m.partitionKey(), "id", m.id(),
                                "payload", Integer.parseInt(m.payloadJson()))));
                        http.post(messages, Map.of("messages", body));
                    }
                    batch.forEach(m -> expected.add(m.id()));
                }
                return null;
            }));
        }
        int total = writers * batches * batchSize;
        OrderedDrain drained = OrderedDrain.drain(http, consumer(group), total, OrderedDrain.AckCheck.NONE);
        for (Future<?> f : publishers) {
            f.get(); // surfaces a publisher failure
        }
        pool.shutdown();
        drained.assertAllDeliveredInOrder(expected, total);
        StoredCounts.assertMatchStored(dataSource, tenant);
    }

    @Test
    void a_quarkus_transactional_method_publishes_with_its_row_and_notifies_only_after_a_commit() throws Exception {
        String group = TestIds.group();
        CommitNotifier notifier = new CommitNotifier(URI.create(base.toString()), null, Duration.ofSeconds(30));
        String refused = "o-refused@" + topic;
        String placedId = "o-placed@" + topic;
        IllegalStateException refusal = assertThrows(IllegalStateException.class,
                () -> orders.placeOrder(notifier, tenant, topic, refused, true));
        assertEquals("the order is refused after the publish", refusal.getMessage());
        assertEquals(-2, orders.notice().get(30, TimeUnit.SECONDS), "no notice after a rollback");
        assertEquals(0, count("SELECT COUNT(*) FROM queue_messages WHERE tenant = ? AND topic = ?"));
        List<Result> placed = orders.placeOrder(notifier, tenant, topic, placedId, false);
        assertEquals(200, orders.notice().get(30, TimeUnit.SECONDS), "the notice after the commit");
        assertFalse(placed.get(0).duplicate());
        assertEquals(List.of("created"), ids(http.post(consumer(group) + "/fetch", Map.of("maxMessages", 10, "waitSeconds", 10))));
        try (Connection c = dataSource.getConnection();
             PreparedStatement ps = c.prepareStatement(
                     "SELECT order_id FROM app_orders WHERE tenant = ? AND order_id IN (?, ?)")) {
            ps.setString(1, tenant);
            ps.setString(2, refused);
            ps.setString(3, placedId);
            List<String> stored = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    stored.add(rs.getString(1));
                }
            }
            assertEquals(List.of(placedId), stored, "the row of the committed order only");
        }
    }

    @Test
    void settings_that_would_break_ordering_are_refused_before_anything_is_sent() throws Exception {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            IllegalStateException e = assertThrows(IllegalStateException.class,
                    () -> PUBLISHER.publish(c, tenant, topic, List.of(Message.of("p", "x", "1"))));
            assertTrue(e.getMessage().contains("autocommit is on"), e.getMessage());
        }
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
            IllegalStateException e = assertThrows(IllegalStateException.class,
                    () -> PUBLISHER.publish(c, tenant, topic, List.of(Message.of("p", "x", "1"))));
            assertTrue(e.getMessage().contains("READ COMMITTED") && e.getMessage().contains("REPEATABLE READ"),
                    e.getMessage());
            c.rollback();
            c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
            c.setAutoCommit(true);
        }
        assertEquals(0, count("SELECT COUNT(*) FROM queue_messages WHERE tenant = ? AND topic = ?"));
    }

    @Test
    void the_limits_of_the_http_publish_hold_naming_the_field() throws Exception {
        try (Connection c = transaction()) {
            assertEquals("messages", field(() -> PUBLISHER.publish(c, tenant, topic, List.of())));
            assertEquals("messages[1].payload", field(() -> PUBLISHER.publish(c, tenant, topic,
                    List.of(Message.of("p", "a", "1"), Message.of("p", "b", "{\"open\":")))));
            assertEquals("messages[0].partitionKey", field(() -> PUBLISHER.publish(c, tenant, topic,
                    List.of(Message.of("k ", "a", "1")))));
            assertEquals("messages[0].metadata.queue_name", field(() -> PUBLISHER.publish(c, tenant, topic,
                    List.of(new Message("p", "a", "1", Map.of("queue_name", "someone-else"))))));
            assertEquals("topic", field(() -> PUBLISHER.publish(c, tenant, topic + ".dlq",
                    List.of(Message.of("p", "a", "1")))));
            PayloadTooLargeException big = assertThrows(PayloadTooLargeException.class, () -> PUBLISHER.publish(c, tenant,
                    topic, List.of(Message.of("p", "a", "\"" + "x".repeat(1_048_576) + "\""))));
            assertEquals("messages[0].payload", big.field());
            TransactionalPublisher small = TransactionalPublisher.builder().maxMetadataBytes(64).build();
            assertEquals("messages[0].metadata", field(() -> small.publish(c, tenant, topic,
                    List.of(new Message("p", "a", "1", Map.of("note", "y".repeat(64)))))));
            c.rollback();
        }
        assertEquals(0, count("SELECT COUNT(*) FROM queue_messages WHERE tenant = ? AND topic = ?"));
    }

    private interface Call {
        void run() throws Exception;
    }

    private static String field(Call call) {
        InvalidRequestException e = assertThrows(InvalidRequestException.class, call::run);
        return e.errors().get(0).field();
    }
}
