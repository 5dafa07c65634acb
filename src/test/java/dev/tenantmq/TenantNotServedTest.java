package dev.tenantmq;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tenantmq.domain.Receipt;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/**
 * A tenant not in MQ_TENANTS gets 403 on ack, nack and extend too (SPEC section 4: every
 * tenant-scoped endpoint), decided in the process before any database access. The database
 * holds a real in-flight delivery of that tenant (another deployment serves it), named by a
 * well-formed receipt: a check that came after the store's work would settle it.
 */
@QuarkusTest
class TenantNotServedTest {
    /** Not in the test profile's mq.tenants. */
    private static final String NOT_SERVED = "not-served";

    private final String topic = TestIds.topic();
    private final String group = TestIds.group();

    @Inject
    AgroalDataSource dataSource;

    @Inject
    dev.tenantmq.domain.ReceiptSigning signing;

    @ParameterizedTest
    @ValueSource(strings = {"ack", "nack", "extend"})
    void a_settle_call_for_a_tenant_not_served_gets_403_without_touching_the_database(String call) throws Exception {
        long offset = seedInFlightDelivery();
        String receipt = signing.encode(new Receipt(NOT_SERVED, group, topic, "p", offset, 1, 1));
        Map<String, Object> body = switch (call) {
            case "nack" -> Map.of("receipts", List.of(receipt), "delaySeconds", 0);
            case "extend" -> Map.of("receipts", List.of(receipt), "visibilitySeconds", 60);
            default -> Map.of("receipts", List.of(receipt));
        };
        String before = deliveryRow(offset);
        // Every settle call locks the partition's lease row first. Hold that lock: a call that
        // reached the database before refusing would wait on it instead of answering.
        try (Connection blocker = dataSource.getConnection()) {
            blocker.setAutoCommit(false);
            try (PreparedStatement ps = blocker.prepareStatement("""
                    SELECT epoch FROM queue_partition_leases
                    WHERE tenant = ? AND consumer_group = ? AND topic = ? AND partition_key = 'p' FOR UPDATE""")) {
                bind(ps, NOT_SERVED, group, topic);
                try (ResultSet rs = ps.executeQuery()) {
                    assertTrue(rs.next(), "the lease row exists and is now locked");
                }
            }
            CompletableFuture<Response> answer = CompletableFuture.supplyAsync(() -> given().contentType(ContentType.JSON)
                    .body(body).post("/tenants/{t}/topics/{topic}/consumer-groups/{g}/" + call, NOT_SERVED, topic, group));
            Response response;
            try {
                response = answer.get(10, TimeUnit.SECONDS);
            } catch (TimeoutException e) {
                throw new AssertionError(call + " of a tenant not served waited on the database's lease row lock", e);
            } finally {
                blocker.rollback();
            }
            response.then().statusCode(403).contentType("application/problem+json").body("status", equalTo(403));
        }
        assertEquals(before, deliveryRow(offset), "the delivery of the tenant not served is unchanged");
    }

    /**
     * The 403 has the shape of every answer about a request field (docs/api.md, "Errors"): an
     * errors entry naming the field, here the path's tenant.
     */
    @ParameterizedTest
    @ValueSource(strings = {"messages", "consumer-groups/g/fetch"})
    void a_tenant_not_served_gets_a_403_whose_errors_name_the_tenant(String call) {
        String body = call.equals("messages") ? "{\"messages\":[{\"partitionKey\":\"k\",\"payload\":1}]}" : "{}";
        given().contentType(ContentType.JSON).body(body).post("/tenants/{t}/topics/{topic}/" + call, NOT_SERVED, topic)
                .then().statusCode(403).contentType("application/problem+json")
                .body("type", equalTo("urn:tenant-mq:problem:tenant-not-served"))
                .body("detail", equalTo("tenant 'not-served' is not served by this process (see MQ_TENANTS)"))
                .body("errors.field", equalTo(List.of("tenant")))
                .body("errors[0].message", equalTo("is not served by this process (see MQ_TENANTS) (got 'not-served')"));
    }

    @Test
    void admin_listings_are_not_limited_to_served_tenants() {
        // SPEC section 4: "Tenant not in MQ_TENANTS -> 403 (on every tenant-scoped endpoint; admin aside)".
        for (String path : List.of("/admin/topics", "/admin/offsets", "/admin/leases", "/admin/subscribers")) {
            given().header("Authorization", "Bearer " + AdminTest.TOKEN).queryParam("tenant", NOT_SERVED)
                    .get(path).then().statusCode(200);
        }
    }

    /**
     * Writes, as a process serving {@link #NOT_SERVED} would, one message of partition p with
     * its lease (epoch 1), committed offset 0 and an in-flight first delivery; returns its offset.
     */
    private long seedInFlightDelivery() throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            long offset;
            try (PreparedStatement ps = c.prepareStatement("""
                    INSERT INTO queue_messages (tenant, topic, partition_key, id, payload, metadata, created_at)
                    VALUES (?, ?, 'p', 'm', '1', '{"queue_name":"not-served"}', UTC_TIMESTAMP(6))""",
                    Statement.RETURN_GENERATED_KEYS)) {
                bind(ps, NOT_SERVED, topic);
                assertEquals(1, ps.executeUpdate());
                try (ResultSet keys = ps.getGeneratedKeys()) {
                    assertTrue(keys.next());
                    offset = keys.getLong(1);
                }
            }
            execute(c, """
                    INSERT INTO queue_partition_leases
                      (tenant, consumer_group, topic, partition_key, leased_by, epoch, expires_at, acquired_at, renewed_at)
                    VALUES (?, ?, ?, 'p', 'other-deployment', 1, UTC_TIMESTAMP(6) + INTERVAL 1 HOUR,
                            UTC_TIMESTAMP(6), UTC_TIMESTAMP(6))""", NOT_SERVED, group, topic);
            execute(c, """
                    INSERT INTO queue_offsets (tenant, topic, partition_key, consumer_group, committed_offset, updated_at)
                    VALUES (?, ?, 'p', ?, 0, UTC_TIMESTAMP(6))""", NOT_SERVED, topic, group);
            execute(c, """
                    INSERT INTO queue_delivery_state
                      (tenant, consumer_group, topic, partition_key, message_offset,
                       state, delivery_attempt, delivery_count, lease_epoch, visible_at, updated_at)
                    VALUES (?, ?, ?, 'p', ?, 'INFLIGHT', 1, 1, 1, UTC_TIMESTAMP(6) + INTERVAL 1 HOUR, UTC_TIMESTAMP(6))""",
                    NOT_SERVED, group, topic, offset);
            return offset;
        }
    }

    /** The delivery state row and committed offset of the seeded message, as text. */
    private String deliveryRow(long offset) throws SQLException {
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement("""
                SELECT d.state, d.delivery_attempt, d.delivery_count, d.lease_epoch, d.visible_at, o.committed_offset
                FROM queue_offsets o
                LEFT JOIN queue_delivery_state d
                  ON d.tenant = o.tenant AND d.consumer_group = o.consumer_group AND d.topic = o.topic
                 AND d.partition_key = o.partition_key AND d.message_offset = ?
                WHERE o.tenant = ? AND o.topic = ? AND o.partition_key = 'p' AND o.consumer_group = ?""")) {
            bind(ps, offset, NOT_SERVED, topic, group);
            try (ResultSet rs = ps.executeQuery()) {
                assertTrue(rs.next(), "the seeded offsets row exists");
                return rs.getString(1) + "/" + rs.getInt(2) + "/" + rs.getInt(3) + "/" + rs.getLong(4) + "/"
                        + rs.getString(5) + "/" + rs.getLong(6);
            }
        }
    }

    private static void execute(Connection c, String sql, Object... params) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            bind(ps, params);
            assertEquals(1, ps.executeUpdate(), sql);
        }
    }

    private static void bind(PreparedStatement ps, Object... params) throws SQLException {
        for (int i = 0; i < params.length; i++) {
            ps.setObject(i + 1, params[i]);
        }
    }
}
