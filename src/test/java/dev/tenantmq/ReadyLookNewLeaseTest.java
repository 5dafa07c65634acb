package dev.tenantmq;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The scheduler signals the partitions it newly leases by name, as a publish does, so a busy
 * group's news keeps them and its next fetch leases from them without a look
 * (docs/architecture.md, "News between looks"). The test profile's ticks run (1 s); a look
 * interval of an hour keeps the news trusted whatever the machine's speed.
 */
@QuarkusTest
@TestProfile(ReadyLookNewLeaseTest.LongLookInterval.class)
class ReadyLookNewLeaseTest {
    /** The test profile, with news trusted for ten hours. */
    public static class LongLookInterval implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("mq.fetch.ready-look-interval", "1h");
        }
    }

    private static final int PARTITIONS = 5;
    /** The SELECT list of the ready-partition query, and of no other statement. */
    private static final String READY_LOOK = "SELECT l.partition_key";

    @Inject
    AgroalDataSource dataSource;

    private final String tenant = TestIds.tenant();
    private final String topic = TestIds.topic();
    private final String group = TestIds.group();

    @Test
    void a_partition_leased_by_a_tick_after_a_complete_look_is_fetched_without_a_look() throws Exception {
        List<Map<String, Object>> backlog = new ArrayList<>();
        for (int i = 0; i < PARTITIONS; i++) {
            backlog.add(Api.msg("k" + i, "first-" + i, i));
        }
        Api.publishOk(tenant, topic, backlog);
        Set<String> drained = new TreeSet<>();
        await().atMost(Duration.ofSeconds(60)).until(() -> {
            List<Delivered> got = Api.fetchOk(tenant, topic, group, Fetch.upTo(100).waitSeconds(1));
            if (!got.isEmpty()) {
                Api.ack(tenant, topic, group, Delivered.receipts(got));
            }
            drained.addAll(Delivered.ids(got));
            return drained.size() == PARTITIONS;
        });
        assertEquals(List.of(), Api.fetchOk(tenant, topic, group, Fetch.upTo(100).waitSeconds(0)),
                "an empty fetch: its look saw every ready partition");

        Api.publishOk(tenant, topic, List.of(Api.msg("new-key", "on-a-new-partition", 1)));
        await().atMost(Duration.ofSeconds(60)).until(() -> RowCount.of(dataSource,
                "SELECT COUNT(*) FROM queue_partition_leases WHERE tenant = ? AND consumer_group = ? AND topic = ?"
                        + " AND partition_key = ?", tenant, group, topic, "new-key") == 1);

        List<Delivered> got;
        List<String> sent;
        try (GeneralLog log = GeneralLog.start(dataSource)) {
            got = Api.fetchOk(tenant, topic, group, Fetch.upTo(100).waitSeconds(0));
            sent = log.stopUnitsOf(topic);
        }
        assertEquals(List.of("on-a-new-partition"), Delivered.ids(got));
        // Had the tick's signal of the lease made the news unknown, this fetch would look, once.
        // (The publish named new-key first; FetchSignalsTest shows the lease's own name is kept.)
        assertEquals(0, sent.stream().filter(sql -> sql.contains(READY_LOOK)).count(), "ready looks");
    }
}
