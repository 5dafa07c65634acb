package dev.tenantmq;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
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
        leaveARestOfK02ToK10();

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

    /**
     * The group's fetches here lease from the same rest at once: while one of them waits for a
     * lease row lock inside its lease transaction (here held by the test), another claims the
     * next partition of the rest and leases from it, with no look of its own. When the rest was
     * taken out for the length of a fetch, the other fetch found none and looked.
     */
    @Test
    void a_fetch_leases_from_the_rest_that_another_fetch_of_the_group_is_leasing_from() throws Exception {
        leaveARestOfK02ToK10();

        ExecutorService pool = Executors.newSingleThreadExecutor();
        List<String> sent;
        try (Connection holder = dataSource.getConnection(); GeneralLog log = GeneralLog.start(dataSource)) {
            holder.setAutoCommit(false);
            try (PreparedStatement lock = holder.prepareStatement(LOCK_LEASE)) {
                lock.setString(1, tenant);
                lock.setString(2, group);
                lock.setString(3, topic);
                lock.setString(4, key(2));
                try (ResultSet rs = lock.executeQuery()) {
                    assertTrue(rs.next(), "k02 is leased");
                }
            }
            // This fetch claims k02, the rest's first partition, and waits for its lease row.
            Future<List<Delivered>> waiting = pool.submit(
                    () -> Api.fetchOk(tenant, topic, group, Fetch.upTo(DEPTH).waitSeconds(0)));
            await().atMost(Duration.ofSeconds(30)).until(() -> lockWaits() > 0);
            List<Delivered> meanwhile = Api.fetchOk(tenant, topic, group, Fetch.upTo(DEPTH).waitSeconds(0));
            // k02 is claimed, and the waiting fetch may have claimed k03 with it (a partition's
            // depth is learnt with slack, PartitionDepth): a partition of the rest after them.
            List<String> rest = java.util.stream.IntStream.range(3, 11).mapToObj(ReadyLookRestTest::key).toList();
            assertEquals(1, partitions(meanwhile).size(), "one partition of " + DEPTH + " messages");
            assertTrue(rest.contains(partitions(meanwhile).get(0)), "from the rest: " + partitions(meanwhile));
            holder.commit();
            List<Delivered> waited = waiting.get(60, TimeUnit.SECONDS);
            assertEquals(List.of(key(2)), partitions(waited));
            holder.setAutoCommit(true);
            // Both kept what they left of the rest: the next fetch leases from it, after both.
            List<Delivered> next = Api.fetchOk(tenant, topic, group, Fetch.upTo(DEPTH).waitSeconds(0));
            assertEquals(1, partitions(next).size(), "one partition of " + DEPTH + " messages");
            assertTrue(rest.contains(partitions(next).get(0)) && !partitions(next).equals(partitions(meanwhile)),
                    "from the rest, after the fetches before: " + partitions(next));
            sent = log.stopUnitsOf(topic);
        } finally {
            pool.shutdownNow();
        }
        assertEquals(0, GeneralLog.readyLooks(sent), "ready looks of the three fetches");
    }

    /** Locks one lease row, as a fetch's lease transaction does (ConsumerSql's lease lock). */
    private static final String LOCK_LEASE = """
            SELECT partition_key FROM queue_partition_leases
            WHERE tenant = ? AND consumer_group = ? AND topic = ? AND partition_key = ?
            FOR UPDATE""";

    /** Transactions of the test database waiting for a lease row lock now (a fetch's lease transaction). */
    private long lockWaits() throws SQLException {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("""
                     SELECT COUNT(*) FROM information_schema.innodb_trx
                     WHERE trx_state = 'LOCK WAIT' AND trx_query LIKE '%queue_partition_leases%FOR UPDATE%'""")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /**
     * Publishes {@value #DEPTH} messages to each of {@value #PARTITIONS} partitions, then runs the
     * group's first two fetches (each acked): the second looks, its look names k01..k10 and stops
     * at its limit, it takes k01, and k02..k10 are the rest of that look.
     */
    private void leaveARestOfK02ToK10() {
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
    }

    private static String key(int i) {
        return "k%02d".formatted(i);
    }

    private static List<String> partitions(List<Delivered> got) {
        return got.stream().map(Delivered::partitionKey).distinct().toList();
    }
}
