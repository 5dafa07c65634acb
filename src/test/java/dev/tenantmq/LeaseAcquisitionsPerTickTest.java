package dev.tenantmq;

import static dev.tenantmq.Api.fetchOk;
import static dev.tenantmq.Api.msg;
import static dev.tenantmq.Api.publishOk;
import static dev.tenantmq.Fetch.upTo;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * A scheduler tick acquires at most {@code mq.max-lease-acquisitions-per-tick} leases of a
 * (tenant, consumer group, topic): a topic with more partitions is leased over several ticks,
 * and every partition is leased and delivered in the end (docs/architecture.md, "The scheduler's
 * tick"). Each tick's acquisition is one transaction whose insert stamps {@code acquired_at}
 * with the statement's time, so the lease rows' distinct {@code acquired_at} values tell the
 * ticks apart.
 */
@QuarkusTest
@TestProfile(LeaseAcquisitionsPerTickTest.FourPerTick.class)
class LeaseAcquisitionsPerTickTest {
    private static final int PER_TICK = 4;
    private static final int PARTITIONS = 10;

    /** At most four acquisitions per tick. */
    public static class FourPerTick implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("mq.max-lease-acquisitions-per-tick", Integer.toString(PER_TICK));
        }
    }

    @Inject
    AgroalDataSource dataSource;

    @Test
    void a_topic_with_more_partitions_than_the_bound_is_leased_over_several_ticks_and_delivered_whole() throws Exception {
        String tenant = TestIds.tenant();
        String topic = TestIds.topic();
        String group = TestIds.group();
        publishOk(tenant, topic, IntStream.range(0, PARTITIONS).mapToObj(i -> msg("p-" + i, "m-" + i, i)).toList());

        Set<String> delivered = new HashSet<>();
        await().atMost(Duration.ofSeconds(60)).until(() -> {
            fetchOk(tenant, topic, group, upTo(PARTITIONS).waitSeconds(0)).forEach(d -> delivered.add(d.id()));
            return delivered.size() == PARTITIONS;
        });

        Map<String, Integer> perAcquisition = leasesByAcquisitionTime(tenant, group, topic);
        assertEquals(PARTITIONS, perAcquisition.values().stream().mapToInt(Integer::intValue).sum(),
                "one lease per partition: " + perAcquisition);
        assertTrue(perAcquisition.values().stream().allMatch(n -> n <= PER_TICK),
                "no tick acquired more than " + PER_TICK + ": " + perAcquisition);
        assertTrue(perAcquisition.size() >= (PARTITIONS + PER_TICK - 1) / PER_TICK,
                "the leases came in at least three ticks: " + perAcquisition);
    }

    /** Lease rows of the triple per {@code acquired_at}, oldest first. */
    private Map<String, Integer> leasesByAcquisitionTime(String tenant, String group, String topic) throws Exception {
        String sql = "SELECT acquired_at FROM queue_partition_leases WHERE tenant = ? AND consumer_group = ? AND topic = ?";
        Map<String, Integer> counts = new TreeMap<>();
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, tenant);
            ps.setString(2, group);
            ps.setString(3, topic);
            List<String> times = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    times.add(rs.getString(1));
                }
            }
            times.forEach(t -> counts.merge(t, 1, Integer::sum));
        }
        return counts;
    }
}
