package dev.tenantmq;

import static dev.tenantmq.Api.ack;
import static dev.tenantmq.Api.fetchOk;
import static dev.tenantmq.Api.msg;
import static dev.tenantmq.Api.nack;
import static dev.tenantmq.Api.publishOk;
import static dev.tenantmq.Delivered.attempts;
import static dev.tenantmq.Delivered.ids;
import static dev.tenantmq.Delivered.offsets;
import static dev.tenantmq.Delivered.receipts;
import static dev.tenantmq.Fetch.upTo;
import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Fencing by the lease epoch alone (SPEC "Ack, nack, extend": every ack, nack and extend is
 * conditioned on the lease epoch). The receipt is used while its delivery is still current in
 * every other respect: same delivery number, still in flight, visibility timeout still running.
 * Only the lease has changed hands, so only the epoch can make the receipt STALE.
 */
@QuarkusTest
class LeaseFencingTest {
    /** The test profile's mq.subscriber-name: this process. */
    private static final String ME = "test-subscriber";
    /** Long enough that no delivery of these tests becomes visible again while they run. */
    private static final int VISIBILITY_SECONDS = 600;

    /** The three calls that settle a receipt. */
    enum Settle { ACK, NACK, EXTEND }

    private final String tenant = TestIds.tenant();
    private final String topic = TestIds.topic();
    private final String group = TestIds.group();

    @Inject
    dev.tenantmq.domain.ReceiptSigning signing;

    @Inject
    AgroalDataSource dataSource;

    @ParameterizedTest
    @EnumSource(Settle.class)
    void a_receipt_of_a_lease_another_subscriber_took_over_is_stale_and_changes_nothing(Settle call) throws Exception {
        Delivered delivered = deliverOne();
        long offset = delivered.offset();
        long epoch = lease().epoch();
        // Another instance is alive (it heartbeats) and took the lease over after ours expired
        // unrenewed, as LeaseStore.TAKE_OVER_LEASE writes it: new holder, epoch + 1.
        heartbeat("other-subscriber");
        takeOver(epoch, "other-subscriber");
        assertEquals(new Lease("other-subscriber", epoch + 1, true), lease());

        DeliveryRow before = deliveryRow(offset);
        assertEquals(new DeliveryRow("INFLIGHT", 1, deliveryNumber(delivered), epoch, before.visibleAt(), true), before,
                "the delivery is in flight, first attempt, visibility still running: only the lease moved");
        assertEquals(List.of("STALE"), settle(call, delivered.receipt()));
        assertEquals(before.withVisibilityRunning(), deliveryRow(offset).withVisibilityRunning(),
                call + " of a receipt of the old lease changed the delivery state");
        assertEquals(0L, committedOffset(), call + " of a receipt of the old lease moved the committed offset");
    }

    @ParameterizedTest
    @EnumSource(Settle.class)
    void a_receipt_of_a_lease_that_expired_and_was_acquired_again_is_stale_and_changes_nothing(Settle call)
            throws Exception {
        Delivered delivered = deliverOne();
        long offset = delivered.offset();
        long epoch = lease().epoch();
        // The lease ran out unrenewed (a frozen or partitioned process); this process's scheduler
        // acquires it again on its next tick, with a new epoch.
        expireLease(epoch);
        await("the scheduler acquires the expired lease again").atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(100)).until(() -> new Lease(ME, epoch + 1, true).equals(lease()));

        DeliveryRow before = deliveryRow(offset);
        assertEquals(new DeliveryRow("INFLIGHT", 1, deliveryNumber(delivered), epoch, before.visibleAt(), true), before,
                "the delivery is in flight, first attempt, visibility still running: only the lease epoch changed");
        assertEquals(List.of("STALE"), settle(call, delivered.receipt()));
        assertEquals(before.withVisibilityRunning(), deliveryRow(offset).withVisibilityRunning(),
                call + " of a receipt of the old lease changed the delivery state");
        assertEquals(0L, committedOffset(), call + " of a receipt of the old lease moved the committed offset");

        // The new lease delivers it again: losing the lease was a failed attempt.
        List<Delivered> again = fetchOk(tenant, topic, group, upTo(10));
        assertEquals(List.of(delivered.offset()), offsets(again));
        assertEquals(List.of(2), attempts(again));
        assertEquals(List.of("ACKED"), ack(tenant, topic, group, receipts(again)));
    }

    /** Publishes one message to partition p and fetches it with a long visibility timeout. */
    private Delivered deliverOne() {
        publishOk(tenant, topic, List.of(msg("p", "1", 1)));
        List<Delivered> got = fetchOk(tenant, topic, group, upTo(10).visibilitySeconds(VISIBILITY_SECONDS));
        assertEquals(List.of("1"), ids(got));
        return got.get(0);
    }

    private List<String> settle(Settle call, String receipt) {
        return switch (call) {
            case ACK -> ack(tenant, topic, group, List.of(receipt));
            case NACK -> nack(tenant, topic, group, List.of(receipt), 0, "fenced?");
            case EXTEND -> given().contentType(ContentType.JSON)
                    .body(Map.of("receipts", List.of(receipt), "visibilitySeconds", 2 * VISIBILITY_SECONDS))
                    .post("/tenants/{t}/topics/{topic}/consumer-groups/{g}/extend", tenant, topic, group)
                    .then().statusCode(200).extract().jsonPath().getList("results.status");
        };
    }

    /** A lease row: holder, epoch, and whether it is unexpired by the database clock. */
    private record Lease(String leasedBy, long epoch, boolean live) {}

    /**
     * A delivery state row; {@code visibilityRunning} is {@code visible_at > UTC_TIMESTAMP(6)}
     * at the time of reading.
     */
    private record DeliveryRow(String state, int attempt, long deliveryCount, long leaseEpoch, String visibleAt,
                               boolean visibilityRunning) {
        DeliveryRow withVisibilityRunning() {
            assertTrue(visibilityRunning, "the visibility timeout of " + this + " is still running");
            return this;
        }
    }

    private Lease lease() throws SQLException {
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement("""
                SELECT leased_by, epoch, expires_at > UTC_TIMESTAMP(6) FROM queue_partition_leases
                WHERE tenant = ? AND consumer_group = ? AND topic = ? AND partition_key = 'p'""")) {
            bind(ps, tenant, group, topic);
            try (ResultSet rs = ps.executeQuery()) {
                assertTrue(rs.next(), "partition p has a lease row");
                return new Lease(rs.getString(1), rs.getLong(2), rs.getBoolean(3));
            }
        }
    }

    /** The delivery number a receipt carries: the partition's hand-out that delivered it. */
    private long deliveryNumber(Delivered delivered) {
        return signing.decode(delivered.receipt()).orElseThrow().delivery();
    }

    private DeliveryRow deliveryRow(long offset) throws SQLException {
        DeliveryStates.State st = DeliveryStates.of(dataSource, tenant, group, topic, "p", offset)
                .orElseThrow(() -> new AssertionError("message " + offset + " has a delivery state"));
        assertNotNull(st.visibleAt());
        return new DeliveryRow(st.state(), st.attempt(), st.delivery(), st.leaseEpoch(), st.visibleAt(),
                st.visibilityRunning());
    }

    private long committedOffset() {
        return CommittedOffsets.of(dataSource, tenant, group, topic, "p");
    }

    /** A live heartbeat of {@code subscriber} in the triple, as its scheduler tick writes it. */
    private void heartbeat(String subscriber) throws SQLException {
        update("""
                INSERT INTO queue_subscriber_heartbeats
                  (tenant, consumer_group, topic, subscriber_name, started_at, last_seen_at)
                VALUES (?, ?, ?, ?, UTC_TIMESTAMP(6), UTC_TIMESTAMP(6))""", tenant, group, topic, subscriber);
    }

    /** Our lease of p ran out and {@code subscriber} took it over (LeaseStore.TAKE_OVER_LEASE, one step). */
    private void takeOver(long epoch, String subscriber) throws SQLException {
        update("""
                UPDATE queue_partition_leases
                SET leased_by = ?, epoch = epoch + 1, expires_at = UTC_TIMESTAMP(6) + INTERVAL 30 SECOND,
                    acquired_at = UTC_TIMESTAMP(6), renewed_at = UTC_TIMESTAMP(6)
                WHERE tenant = ? AND consumer_group = ? AND topic = ? AND partition_key = 'p' AND epoch = ?""",
                subscriber, tenant, group, topic, epoch);
    }

    /** Our lease of p ran out without renewal. */
    private void expireLease(long epoch) throws SQLException {
        update("""
                UPDATE queue_partition_leases SET expires_at = UTC_TIMESTAMP(6)
                WHERE tenant = ? AND consumer_group = ? AND topic = ? AND partition_key = 'p' AND epoch = ?""",
                tenant, group, topic, epoch);
    }

    private void update(String sql, Object... params) throws SQLException {
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
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
