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

    @Inject
    AgroalDataSource dataSource;

    private final String tenant = TestIds.tenant();
    private final String topic = TestIds.topic();
    private final String group = TestIds.group();

    @Test
    void a_partition_leased_by_a_tick_after_a_complete_look_is_fetched_without_a_look() throws Exception {
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < PARTITIONS; i++) {
            keys.add("k" + i);
        }
        Api.seedAndDrain(tenant, topic, group, keys);
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
        assertEquals(0, GeneralLog.readyLooks(sent), "ready looks");
    }
}
