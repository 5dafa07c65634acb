package dev.tenantmq.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tenantmq.jdbc.TransactionalPublisher.Message;
import dev.tenantmq.jdbc.TransactionalPublisher.Result;
import dev.tenantmq.testsupport.ServiceUnderTest;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The library as an application uses it, built as its own artifact: its own MySQL driver, a
 * transaction on the packaged service's database, the service delivering what committed
 * (docs/transactional-publish.md). The service's own test suite holds the finer proofs
 * (TransactionalPublishTest: concurrency with HTTP publishers, duplicates, the re-check).
 */
class TransactionalPublishIT {
    private static ServiceUnderTest service;
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final Pattern ID = Pattern.compile("\"id\":\"([^\"]+)\"");

    @BeforeAll
    static void start() throws Exception {
        service = ServiceUnderTest.start("jdbc-it", Map.of());
        try (Connection c = service.openDatabaseConnection(); var s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS app_orders (tenant VARCHAR(255) NOT NULL,"
                    + " order_id VARCHAR(255) NOT NULL, PRIMARY KEY (tenant, order_id))");
        }
    }

    @AfterAll
    static void stop() throws Exception {
        if (service != null) {
            service.close();
        }
    }

    private static Connection transaction() throws SQLException {
        Connection c = service.openDatabaseConnection();
        c.setAutoCommit(false);
        c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
        return c;
    }

    private static void insertOrder(Connection c, String orderId) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO app_orders (tenant, order_id) VALUES (?, ?)")) {
            ps.setString(1, service.tenant);
            ps.setString(2, orderId);
            ps.executeUpdate();
        }
    }

    private static List<String> fetchIds(String topic, String group, int waitSeconds) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create(service.baseUrl() + "/tenants/" + service.tenant
                        + "/topics/" + topic + "/consumer-groups/" + group + "/fetch"))
                .timeout(Duration.ofSeconds(waitSeconds + 30))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"maxMessages\":10,\"waitSeconds\":" + waitSeconds + "}"))
                .build();
        HttpResponse<String> response = HTTP.send(request, HttpResponse.BodyHandlers.ofString());
        assertEquals(200, response.statusCode(), response.body());
        Matcher m = ID.matcher(response.body());
        List<String> ids = new java.util.ArrayList<>();
        while (m.find()) {
            ids.add(m.group(1));
        }
        return ids;
    }

    @Test
    void a_committed_transaction_is_delivered_in_order_and_its_notice_is_accepted() throws Exception {
        String topic = "orders-" + UUID.randomUUID();
        TransactionalPublisher publisher = TransactionalPublisher.withDefaults();
        List<Result> results;
        try (Connection c = transaction()) {
            insertOrder(c, topic + "-1");
            results = publisher.publish(c, service.tenant, topic, List.of(Message.of("order-1", "created", "{\"n\":1}"),
                    Message.of("order-1", "paid", "{\"n\":2}")));
            c.commit();
        }
        assertTrue(results.get(0).offset() < results.get(1).offset());
        int status = new CommitNotifier(URI.create(service.baseUrl()), null, Duration.ofSeconds(30)).committed(service.tenant, topic, results)
                .get(30, TimeUnit.SECONDS);
        assertEquals(200, status);
        assertEquals(List.of("created", "paid"), fetchIds(topic, "billing", 20));
        // The partition head counts what the library stored, as the service's publish does.
        try (Connection c = service.openDatabaseConnection(); PreparedStatement ps = c.prepareStatement("""
                SELECT message_count FROM queue_partition_heads WHERE tenant = ? AND topic = ? AND partition_key = ?""")) {
            ps.setString(1, service.tenant);
            ps.setString(2, topic);
            ps.setString(3, "order-1");
            try (ResultSet rs = ps.executeQuery()) {
                assertTrue(rs.next(), "the partition has a head");
                assertEquals(2, rs.getLong(1));
            }
        }
    }

    @Test
    void a_rolled_back_transaction_stores_nothing() throws Exception {
        String topic = "orders-" + UUID.randomUUID();
        try (Connection c = transaction()) {
            insertOrder(c, topic + "-1");
            TransactionalPublisher.withDefaults().publish(c, service.tenant, topic, List.of(Message.of("order-1", "x", "1")));
            c.rollback();
        }
        try (Connection c = service.openDatabaseConnection();
             PreparedStatement ps = c.prepareStatement("SELECT COUNT(*) FROM queue_messages WHERE tenant = ? AND topic = ?")) {
            ps.setString(1, service.tenant);
            ps.setString(2, topic);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                assertEquals(0, rs.getLong(1));
            }
        }
        assertEquals(List.of(), fetchIds(topic, "billing", 1));
    }

    @Test
    void autocommit_is_refused_with_a_clear_error() throws Exception {
        try (Connection c = service.openDatabaseConnection()) {
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> TransactionalPublisher.withDefaults()
                    .publish(c, service.tenant, "orders", List.of(Message.of("k", "id", "1"))));
            assertTrue(e.getMessage().contains("autocommit is on"), e.getMessage());
        }
    }
}
