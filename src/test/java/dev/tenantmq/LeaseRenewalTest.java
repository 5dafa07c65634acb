package dev.tenantmq;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tenantmq.model.GroupScope;
import dev.tenantmq.store.LeaseStore;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Timestamp;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * A tick renews only the leases past their renewal age, and sends the orphan sweep only when a
 * lease is held by a subscriber that is not live (docs/architecture.md, "The scheduler's tick"),
 * which re-checks the holder's heartbeat when it runs:
 * both statements read every lease row of the triple, and the renewal rewrote every one of them
 * on every tick. The profile makes the renewal age half an hour (heartbeat timeout and lease an
 * hour, tick 1 s), so no lease of the test comes of age while it watches the ticks.
 */
@QuarkusTest
@TestProfile(LeaseRenewalTest.LongLeases.class)
class LeaseRenewalTest {
    private static final long LEASE_MICROS = 3_600_000_000L;

    /** An hour's heartbeat timeout and lease, with the test profile's 1 s tick. */
    public static class LongLeases implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("mq.heartbeat-timeout", "1h", "mq.lease-duration", "1h");
        }
    }

    @Inject
    AgroalDataSource dataSource;

    @Inject
    LeaseStore leases;

    @Test
    void a_renewal_rewrites_only_the_leases_last_renewed_at_least_the_renewal_age_ago() throws Exception {
        GroupScope scope = new GroupScope(TestIds.tenant(), TestIds.group(), TestIds.topic());
        List<String> keys = IntStream.range(0, 4).mapToObj(i -> "p-" + i).toList();
        assertEquals(4, leases.acquire(scope, "me", keys, List.of(), LEASE_MICROS));
        ageRenewal(scope, List.of("p-0", "p-1"), 10);
        Map<String, Timestamp> before = renewedAt(scope);

        assertEquals(2, leases.renew(scope, "me", LEASE_MICROS, 5_000_000L), "the two leases renewed 10 s ago");

        Map<String, Timestamp> after = renewedAt(scope);
        assertTrue(after.get("p-0").after(before.get("p-0")) && after.get("p-1").after(before.get("p-1")),
                "renewed: " + before + " -> " + after);
        assertEquals(before.get("p-2"), after.get("p-2"));
        assertEquals(before.get("p-3"), after.get("p-3"));
        assertEquals(4, leases.renew(scope, "me", LEASE_MICROS, 0), "a renewal age of 0 renews every lease");
        assertEquals(0, leases.renew(scope, "someone-else", LEASE_MICROS, 0), "only the holder's own leases");
    }

    @Test
    void ticks_leave_young_leases_as_they_are_and_send_no_orphan_sweep_while_every_holder_is_live() throws Exception {
        String tenant = TestIds.tenant();
        String topic = TestIds.topic();
        String group = TestIds.group();
        GroupScope scope = new GroupScope(tenant, group, topic);
        Api.publishOk(tenant, topic, IntStream.range(0, 3).mapToObj(i -> Api.msg("k-" + i, "m-" + i, i)).toList());
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            Api.fetchOk(tenant, topic, group, Fetch.upTo(1).waitSeconds(0)); // registers the group: its ticks begin
            return renewedAt(scope).size() == 3;
        });
        Map<String, Timestamp> leased = renewedAt(scope);

        List<String> sent;
        try (GeneralLog log = GeneralLog.start(dataSource)) {
            Timestamp start = lastHeartbeat(scope);
            List<Timestamp> beats = new ArrayList<>();
            await().atMost(Duration.ofSeconds(60)).until(() -> {
                Timestamp now = lastHeartbeat(scope);
                if (now.after(start) && !beats.contains(now)) {
                    beats.add(now);
                }
                return beats.size() >= 3; // three more ticks; the last may still be running
            });
            sent = log.stop(topic);
        }

        assertEquals(leased, renewedAt(scope), "no lease of the triple is anywhere near its renewal age");
        assertTrue(sent.stream().anyMatch(sql -> sql.contains("renewed_at <= UTC_TIMESTAMP(6) - INTERVAL")),
                "the ticks ran their renewal: " + sent.size() + " statements");
        assertTrue(sent.stream().noneMatch(sql -> sql.contains("leased_by NOT IN")),
                "no orphan sweep while the only holder is live: " + sent.stream().filter(sql -> sql.contains("NOT IN")).toList());
    }

    @Test
    void the_orphan_sweep_ends_a_lease_of_a_holder_without_a_live_heartbeat_but_not_one_whose_heartbeat_is_live_now()
            throws Exception {
        GroupScope scope = new GroupScope(TestIds.tenant(), TestIds.group(), TestIds.topic());
        assertEquals(1, leases.acquire(scope, "gone", List.of("p-gone"), List.of(), LEASE_MICROS));
        assertEquals(1, leases.acquire(scope, "late", List.of("p-late"), List.of(), LEASE_MICROS));
        ageRenewal(scope, List.of("p-gone", "p-late"), 7_200); // neither renewed for two hours, both unexpired
        // "late" heartbeats now, after the sweeper read its live list: a holder whose ticks run late,
        // or one the sweeper's paused process has not seen yet.
        leases.heartbeat(scope, "late", LEASE_MICROS);

        int swept = leases.sweepOrphans(scope, List.of("sweeper"), LEASE_MICROS);

        assertEquals(1, swept, "only the lease of the holder with no heartbeat");
        Map<String, Boolean> expired = new TreeMap<>();
        leases.leases(scope).forEach(l -> expired.put(l.partitionKey(), l.expired()));
        assertEquals(Map.of("p-gone", true, "p-late", false), expired);
    }

    /** Moves the given leases' last renewal {@code seconds} into the past, their expiry left as it is. */
    private void ageRenewal(GroupScope scope, List<String> keys, int seconds) throws Exception {
        String sql = """
                UPDATE queue_partition_leases SET renewed_at = renewed_at - INTERVAL ? SECOND
                WHERE tenant = ? AND consumer_group = ? AND topic = ? AND partition_key = ?""";
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            for (String key : keys) {
                ps.setInt(1, seconds);
                ps.setString(2, scope.tenant());
                ps.setString(3, scope.consumerGroup());
                ps.setString(4, scope.topic());
                ps.setString(5, key);
                assertEquals(1, ps.executeUpdate(), key);
            }
        }
    }

    /** Each lease row's {@code renewed_at}, by partition key. */
    private Map<String, Timestamp> renewedAt(GroupScope scope) throws Exception {
        String sql = """
                SELECT partition_key, renewed_at FROM queue_partition_leases
                WHERE tenant = ? AND consumer_group = ? AND topic = ?""";
        Map<String, Timestamp> out = new TreeMap<>();
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, scope.tenant());
            ps.setString(2, scope.consumerGroup());
            ps.setString(3, scope.topic());
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.put(rs.getString(1), rs.getTimestamp(2));
                }
            }
        }
        return out;
    }

    /** The newest heartbeat of the triple: each tick moves it. */
    private Timestamp lastHeartbeat(GroupScope scope) throws Exception {
        String sql = """
                SELECT MAX(last_seen_at) FROM queue_subscriber_heartbeats
                WHERE tenant = ? AND consumer_group = ? AND topic = ?""";
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, scope.tenant());
            ps.setString(2, scope.consumerGroup());
            ps.setString(3, scope.topic());
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                Timestamp t = rs.getTimestamp(1);
                return t == null ? new Timestamp(0) : t;
            }
        }
    }
}
