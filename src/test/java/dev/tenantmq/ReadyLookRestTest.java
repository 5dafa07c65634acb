package dev.tenantmq;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A look that names more ready partitions than its fetch reaches leaves the rest to the group's
 * next fetches in this process (docs/architecture.md, "The rest of a look"): they lease from it
 * without a ready-partition query, in the same order the fairness cursor would take. No periodic
 * tick and a look interval of an hour ({@link StatementBudgetTest.NoTicks}), so the rest is
 * trusted whatever the machine's speed.
 */
@QuarkusTest
@TestProfile(StatementBudgetTest.NoTicks.class)
class ReadyLookRestTest {
    private static final int PARTITIONS = 40;
    private static final int DEPTH = 10;

    @Inject
    AgroalDataSource dataSource;

    private final String tenant = TestIds.tenant();
    private final String topic = TestIds.topic();
    private final String group = TestIds.group();

    @Test
    void fetches_lease_from_the_rest_of_a_look_that_left_ready_partitions_out_and_go_round_in_key_order()
            throws Exception {
        List<Map<String, Object>> backlog = new ArrayList<>();
        for (int n = 0; n < DEPTH; n++) {
            for (int i = 0; i < PARTITIONS; i++) {
                backlog.add(Api.msg(key(i), key(i) + "-" + n, n));
            }
        }
        Api.publishOk(tenant, topic, backlog);
        // The first fetch registers the group, leases every partition, and fills from the first.
        List<Delivered> first = new ArrayList<>();
        await().atMost(Duration.ofSeconds(60))
                .until(() -> first.addAll(Api.fetchOk(tenant, topic, group, Fetch.upTo(DEPTH).waitSeconds(1))));
        assertEquals(List.of(key(0)), partitions(first));
        Api.ack(tenant, topic, group, Delivered.receipts(first));
        // The group's first look may run before its leases and see every ready partition (none):
        // then the partitions leased since are its news ("News between looks"), which would serve
        // these fetches without a look. A change without partition names ends that: an admin delete.
        given().header("Authorization", "Bearer " + AdminTest.TOKEN).queryParam("tenant", tenant)
                .queryParam("topic", topic).queryParam("partitionKey", key(PARTITIONS - 1))
                .queryParam("id", key(PARTITIONS - 1) + "-" + (DEPTH - 1)).delete("/admin/messages")
                .then().statusCode(200);
        // This fetch looks: the look names k01..k10 and stops at its limit; the fetch takes k01.
        List<Delivered> second = Api.fetchOk(tenant, topic, group, Fetch.upTo(DEPTH).waitSeconds(0));
        assertEquals(List.of(key(1)), partitions(second));
        Api.ack(tenant, topic, group, Delivered.receipts(second));

        int fetches = 12;
        List<String> served = new ArrayList<>();
        List<String> sent;
        try (GeneralLog log = GeneralLog.start(dataSource)) {
            for (int f = 0; f < fetches; f++) {
                List<Delivered> got = Api.fetchOk(tenant, topic, group, Fetch.upTo(DEPTH).waitSeconds(0));
                assertEquals(DEPTH, got.size(), "fetch " + f);
                served.addAll(partitions(got));
                for (int n = 0; n < got.size(); n++) {
                    assertEquals(got.get(0).partitionKey() + "-" + n, got.get(n).id(), "a whole partition, in order");
                }
                Api.ack(tenant, topic, group, Delivered.receipts(got));
            }
            sent = log.stopUnitsOf(topic);
        }

        List<String> inOrder = new ArrayList<>();
        for (int i = 2; i < 2 + fetches; i++) {
            inOrder.add(key(i));
        }
        assertEquals(inOrder, served, "each fetch takes the next ready partition after the last, as the cursor would");
        long looks = GeneralLog.readyLooks(sent);
        // The second fetch's look named k01..k10 and it took k01: the first nine of these fetches
        // lease from the rest, k02..k10; the tenth looks at the 10 after k10 and takes k11; the
        // last two lease from that look's rest. One look per fetch without the rest: 12.
        assertEquals(1, looks, "ready looks in " + fetches + " fetches");
    }

    private static String key(int i) {
        return "k%02d".formatted(i);
    }

    private static List<String> partitions(List<Delivered> got) {
        return got.stream().map(Delivered::partitionKey).distinct().toList();
    }
}
