package dev.tenantmq;

import static dev.tenantmq.Api.fetchOk;
import static dev.tenantmq.Api.msg;
import static dev.tenantmq.Api.nack;
import static dev.tenantmq.Api.publishOk;
import static dev.tenantmq.Delivered.attempts;
import static dev.tenantmq.Delivered.receipts;
import static dev.tenantmq.Fetch.upTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tenantmq.domain.ConsumeService;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * Redelivery delay of a nack (SPEC "Ack, nack, extend"): an explicit {@code delaySeconds}, else
 * exponential backoff from {@code mq.nack.backoff-base} (1 s) doubling per failed attempt up to
 * {@code mq.nack.backoff-cap} (5 min), the test profile's defaults. The delay a nack wrote is
 * read from the database: {@code visible_at - updated_at}, both set from one
 * {@code UTC_TIMESTAMP(6)} by the nack's update.
 */
@QuarkusTest
class NackBackoffTest {
    private final String tenant = TestIds.tenant();
    private final String topic = TestIds.topic();
    private final String group = TestIds.group();

    @Inject
    ConsumeService consumer;

    @Inject
    AgroalDataSource dataSource;

    @Test
    void backoff_doubles_with_each_failed_attempt_from_the_base_up_to_the_cap() {
        List<Duration> expected = List.of(1, 2, 4, 8, 16, 32, 64, 128, 256, 300, 300).stream()
                .map(Duration::ofSeconds).toList();
        assertEquals(expected, IntStream.rangeClosed(1, 11).mapToObj(consumer::backoff).toList());
        assertEquals(Duration.ofMinutes(5), consumer.backoff(1_000), "a huge attempt number stays at the cap");
    }

    @Test
    void a_nack_without_delay_makes_the_message_visible_after_the_backoff_of_its_attempt() throws Exception {
        long offset = publishOk(tenant, topic, List.of(msg("k", "m", 1))).offset(0);
        List<Delivered> first = fetchOk(tenant, topic, group, upTo(10));
        assertEquals(List.of("NACKED"), nack(tenant, topic, group, receipts(first), null, null));
        assertEquals(Duration.ofSeconds(1), writtenDelay(offset), "attempt 1: the base");

        List<Delivered> second = fetchOk(tenant, topic, group, upTo(10));
        assertEquals(List.of(2), attempts(second));
        assertEquals(List.of("NACKED"), nack(tenant, topic, group, receipts(second), null, null));
        assertEquals(Duration.ofSeconds(2), writtenDelay(offset), "attempt 2: twice the base");
    }

    @Test
    void a_nack_with_delay_seconds_makes_the_message_visible_after_exactly_that_delay() throws Exception {
        long offset = publishOk(tenant, topic, List.of(msg("k", "m", 1))).offset(0);
        List<Delivered> first = fetchOk(tenant, topic, group, upTo(10));
        assertEquals(List.of("NACKED"), nack(tenant, topic, group, receipts(first), 7, null));
        assertEquals(Duration.ofSeconds(7), writtenDelay(offset), "the explicit delay, not the 1 s backoff");
        assertEquals(0, fetchOk(tenant, topic, group, upTo(10).waitSeconds(0)).size(), "the partition holds a lease and waits");
    }

    /** The redelivery delay the last nack wrote for the message, by the database clock. */
    private Duration writtenDelay(long offset) throws SQLException {
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement("""
                SELECT state, TIMESTAMPDIFF(MICROSECOND, updated_at, visible_at)
                FROM queue_delivery_state
                WHERE tenant = ? AND consumer_group = ? AND topic = ? AND partition_key = 'k' AND message_offset = ?""")) {
            ps.setString(1, tenant);
            ps.setString(2, group);
            ps.setString(3, topic);
            ps.setLong(4, offset);
            try (ResultSet rs = ps.executeQuery()) {
                assertTrue(rs.next(), "message " + offset + " has a delivery state row");
                assertEquals("RETRY", rs.getString(1));
                return Duration.ofNanos(rs.getLong(2) * 1_000);
            }
        }
    }
}
