package dev.tenantmq;

import static dev.tenantmq.Api.ack;
import static dev.tenantmq.Api.fetchOk;
import static dev.tenantmq.Api.msg;
import static dev.tenantmq.Api.publishOk;
import static dev.tenantmq.Delivered.receipts;
import static dev.tenantmq.Fetch.upTo;
import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tenantmq.scheduler.RetentionJob;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The dedup window counts from the exact instant of the first publish (docs/api.md, "Duplicate detection": a
 * duplicate "since its first publish"): the identity a delete leaves in {@code queue_dedup_ids}
 * keeps the message's {@code created_at} to the microsecond, whether an operator or retention
 * deleted it. A truncated copy would end the window up to a second early.
 */
@QuarkusTest
class DedupInstantTest {
    /** A publish time with a fraction no truncation or rounding keeps: 10 s ago, at .987654. */
    private static final String WITH_MICROS = """
            UPDATE queue_messages
            SET created_at = CAST(DATE_FORMAT(UTC_TIMESTAMP(6) - INTERVAL 10 SECOND, '%Y-%m-%d %H:%i:%s.987654')
                                  AS DATETIME(6))
            WHERE tenant = ? AND topic = ? AND partition_key = 'k' AND id = ?""";

    private final String tenant = TestIds.tenant();
    private final String topic = TestIds.topic();

    @Inject
    RetentionJob retention;

    @Inject
    AgroalDataSource dataSource;

    @Test
    void an_admin_delete_remembers_the_publish_instant_to_the_microsecond() throws Exception {
        publishOk(tenant, topic, List.of(msg("k", "evt", 1)));
        LocalDateTime published = stampWithMicros("evt");

        given().header("Authorization", "Bearer " + AdminTest.TOKEN).queryParam("tenant", tenant)
                .queryParam("topic", topic).queryParam("partitionKey", "k").queryParam("id", "evt")
                .delete("/admin/messages").then().statusCode(200);

        assertEquals(List.of(published), remembered("evt"));
    }

    @Test
    void retention_remembers_the_publish_instant_to_the_microsecond() throws Exception {
        String group = TestIds.group();
        publishOk(tenant, topic, List.of(msg("k", "evt", 1)));
        List<Delivered> got = fetchOk(tenant, topic, group, upTo(1).waitSeconds(5).visibilitySeconds(30));
        assertEquals(List.of("ACKED"), ack(tenant, topic, group, receipts(got)));
        LocalDateTime published = stampWithMicros("evt");

        assertEquals(1, retention.purgeTopic(tenant, topic, Duration.ofDays(7), 100), "consumed: retention deletes it");

        assertEquals(List.of(published), remembered("evt"));
    }

    /** Gives message {@code id} a publish time with microseconds; returns it as stored. */
    private LocalDateTime stampWithMicros(String id) throws Exception {
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(WITH_MICROS)) {
            ps.setString(1, tenant);
            ps.setString(2, topic);
            ps.setString(3, id);
            assertEquals(1, ps.executeUpdate());
        }
        List<LocalDateTime> stored = times("""
                SELECT created_at FROM queue_messages WHERE tenant = ? AND topic = ? AND partition_key = 'k' AND id = ?""",
                id);
        assertEquals(1, stored.size());
        assertEquals(987_654_000, stored.get(0).getNano(), "the fixture keeps microseconds");
        return stored.get(0);
    }

    private List<LocalDateTime> remembered(String id) throws Exception {
        return times("""
                SELECT created_at FROM queue_dedup_ids WHERE tenant = ? AND topic = ? AND partition_key = 'k' AND id = ?""",
                id);
    }

    /** The DATETIME(6) values of a query's first column, read as text so that no driver conversion hides a fraction. */
    private List<LocalDateTime> times(String sql, String id) throws Exception {
        List<LocalDateTime> out = new ArrayList<>();
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, tenant);
            ps.setString(2, topic);
            ps.setString(3, id);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(LocalDateTime.parse(rs.getString(1).replace(' ', 'T')));
                }
            }
        }
        return out;
    }
}
