package dev.tenantmq;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.agroal.api.AgroalDataSource;
import jakarta.inject.Inject;
import java.net.URL;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Several publishers write to the same partition keys while a consumer reads and acks. An
 * AUTO_INCREMENT offset is allocated before its transaction commits, so a naive
 * {@code offset > cursor} read can pass over a row that commits late. This proves none is
 * skipped and each partition is delivered in offset order.
 */
@QuarkusTest
class ConcurrentPublishTest {
    private static final int PUBLISHERS = 4;
    private static final int BATCHES = 60;
    private static final int BATCH_SIZE = 5;
    private static final List<String> KEYS = List.of("hot", "hot-2");

    @TestHTTPResource("/")
    URL base;

    @Inject
    AgroalDataSource dataSource;

    /**
     * The mechanism, made deterministic: a publisher whose offset is allocated but not yet
     * committed (an open transaction) holds back every later publish to the same partition,
     * so a later offset can never become visible before an earlier one.
     */
    @Test
    void a_publish_waits_for_an_uncommitted_earlier_publish_of_the_same_partition() throws Exception {
        String tenant = TestIds.tenant();
        String topic = TestIds.topic();
        String group = TestIds.group();
        HttpJson http = new HttpJson(base.toString());
        String messages = "/tenants/" + tenant + "/topics/" + topic + "/messages";
        http.post(messages, Map.of("messages", List.of(Map.of("partitionKey", "p", "id", "first", "payload", 1))));
        long slowOffset;
        CompletableFuture<JsonNode> fast;
        try (Connection slow = dataSource.getConnection()) {
            slow.setAutoCommit(false);
            slow.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
            // What every appender does first: lock the partition's head (docs/architecture.md,
            // "Publish: the partition head lock").
            try (PreparedStatement ps = slow.prepareStatement("""
                    SELECT head_offset FROM queue_partition_heads
                    WHERE tenant = ? AND topic = ? AND partition_key = 'p'
                    FOR UPDATE""")) {
                ps.setString(1, tenant);
                ps.setString(2, topic);
                try (ResultSet rs = ps.executeQuery()) {
                    assertTrue(rs.next(), "the first publish created the head");
                }
            }
            try (PreparedStatement ps = slow.prepareStatement("""
                    INSERT INTO queue_messages (tenant, topic, partition_key, id, payload, metadata, created_at)
                    VALUES (?, ?, 'p', 'slow', '2', '{}', UTC_TIMESTAMP(6))""", Statement.RETURN_GENERATED_KEYS)) {
                ps.setString(1, tenant);
                ps.setString(2, topic);
                ps.executeUpdate();
                try (ResultSet keys = ps.getGeneratedKeys()) {
                    keys.next();
                    slowOffset = keys.getLong(1);
                }
            }
            try (PreparedStatement ps = slow.prepareStatement("""
                    UPDATE queue_partition_heads SET head_offset = ?, message_count = message_count + 1
                    WHERE tenant = ? AND topic = ? AND partition_key = 'p'""")) {
                ps.setLong(1, slowOffset);
                ps.setString(2, tenant);
                ps.setString(3, topic);
                ps.executeUpdate();
            }
            fast = http.postAsync(messages, Map.of("messages", List.of(Map.of("partitionKey", "p", "id", "fast", "payload", 3))));
            CompletableFuture<JsonNode> pending = fast;
            await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(3)).until(() -> !pending.isDone());
            slow.commit();
        }
        long fastOffset = fast.get(10, TimeUnit.SECONDS).get("messages").get(0).get("offset").asLong();
        assertTrue(fastOffset > slowOffset, "offsets commit in order: " + slowOffset + " then " + fastOffset);
        JsonNode got = http.post("/tenants/" + tenant + "/topics/" + topic + "/consumer-groups/" + group + "/fetch",
                Map.of("maxMessages", 10, "waitSeconds", 5));
        List<String> ids = new ArrayList<>();
        got.get("messages").forEach(m -> ids.add(m.get("id").asText()));
        assertEquals(List.of("first", "slow", "fast"), ids);
    }

    @Test
    void concurrent_publishers_on_one_partition_lose_nothing_and_keep_offset_order() throws Exception {
        String tenant = TestIds.tenant();
        String topic = TestIds.topic();
        String group = TestIds.group();
        HttpJson http = new HttpJson(base.toString());
        String messages = "/tenants/" + tenant + "/topics/" + topic + "/messages";
        String consumer = "/tenants/" + tenant + "/topics/" + topic + "/consumer-groups/" + group;

        Set<String> expected = ConcurrentHashMap.newKeySet();
        ExecutorService pool = Executors.newFixedThreadPool(PUBLISHERS);
        List<Future<?>> publishers = new ArrayList<>();
        for (int w = 0; w < PUBLISHERS; w++) {
            int writer = w;
            publishers.add(pool.submit(() -> {
                for (int b = 0; b < BATCHES; b++) {
                    List<Map<String, Object>> batch = new ArrayList<>();
                    for (int i = 0; i < BATCH_SIZE; i++) {
                        String id = "w" + writer + "-" + (b * BATCH_SIZE + i);
                        batch.add(Map.of("partitionKey", KEYS.get(i % KEYS.size()), "id", id, "payload", b));
                    }
                    http.post(messages, Map.of("messages", batch));
                    batch.forEach(m -> expected.add((String) m.get("id")));
                }
                return null;
            }));
        }

        int total = PUBLISHERS * BATCHES * BATCH_SIZE;
        OrderedDrain drained = OrderedDrain.drain(http, consumer, total, OrderedDrain.AckCheck.EACH_ACKED);
        for (Future<?> f : publishers) {
            f.get(); // surfaces a publisher failure
        }
        pool.shutdown();
        drained.assertAllDeliveredInOrder(expected, total);
        StoredCounts.assertMatchStored(dataSource, tenant);
    }
}
