package dev.tenantmq;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * After a look that saw every ready partition, a busy consumer's fetches lease from the partitions
 * this process signalled since (publishes, acks) instead of looking again; a change whose
 * partitions are unknown sends the next fetch to look (docs/architecture.md, "News between looks").
 * No periodic tick and a look interval of an hour ({@link StatementBudgetTest.NoTicks}), so the
 * news is trusted whatever the machine's speed.
 */
@QuarkusTest
@TestProfile(StatementBudgetTest.NoTicks.class)
class ReadyLookNewsTest {
    private static final int PARTITIONS = 20;

    @Inject
    AgroalDataSource dataSource;

    private final String tenant = TestIds.tenant();
    private final String topic = TestIds.topic();
    private final String group = TestIds.group();

    @Test
    void a_busy_consumer_leases_what_was_published_since_a_complete_look_without_looking_again() throws Exception {
        drainAndLookOnce();
        int rounds = 10;
        List<String> sent;
        try (GeneralLog log = GeneralLog.start(dataSource)) {
            for (int r = 0; r < rounds; r++) {
                List<Map<String, Object>> batch = List.of(Api.msg(key(r), "r" + r + "-a", r),
                        Api.msg(key(r + 5), "r" + r + "-b", r), Api.msg(key(r + 10), "r" + r + "-c", r));
                Api.publishOk(tenant, topic, batch);
                List<Delivered> got = Api.fetchOk(tenant, topic, group, Fetch.upTo(100).waitSeconds(0));
                assertEquals(Set.of("r" + r + "-a", "r" + r + "-b", "r" + r + "-c"), new TreeSet<>(Delivered.ids(got)),
                        "round " + r + ": what was just published, whole");
                Api.ack(tenant, topic, group, Delivered.receipts(got));
            }
            sent = log.stopUnitsOf(topic);
        }
        assertEquals(0, GeneralLog.readyLooks(sent), "ready looks in " + rounds + " fetches of what was just published (one each before)");
    }

    @Test
    void a_change_without_partition_names_sends_the_next_fetch_to_look() {
        drainAndLookOnce();
        Api.publishOk(tenant, topic, List.of(Api.msg(key(2), "nacked", 1)));
        List<Delivered> first = Api.fetchOk(tenant, topic, group, Fetch.upTo(100).waitSeconds(0));
        assertEquals(List.of("nacked"), Delivered.ids(first));
        Api.publishOk(tenant, topic, List.of(Api.msg(key(1), "published", 2))); // signals k01 by name
        Api.nack(tenant, topic, group, Delivered.receipts(first), 0, "retry"); // signals without names
        List<Delivered> next = Api.fetchOk(tenant, topic, group, Fetch.upTo(100).waitSeconds(0));
        // Leasing from the named k01 alone would leave the nacked message for the next look.
        assertEquals(Set.of("nacked", "published"), new TreeSet<>(Delivered.ids(next)));
    }

    /**
     * Drains one message from each partition (the first fetches register the group and lease
     * them), and ends with an empty fetch: its look saw every ready partition.
     */
    private void drainAndLookOnce() {
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < PARTITIONS; i++) {
            keys.add(key(i));
        }
        Api.seedAndDrain(tenant, topic, group, keys);
        assertEquals(List.of(), Api.fetchOk(tenant, topic, group, Fetch.upTo(100).waitSeconds(0)));
    }

    private static String key(int i) {
        return "k%02d".formatted(i);
    }
}
