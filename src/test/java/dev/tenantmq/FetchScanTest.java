package dev.tenantmq;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The fetch's scan statement (docs/architecture.md, "The fetch's scan"): a partition without
 * delivery rows above its committed offset is read without a join to them, the topic's deletion
 * marker is looked up once per statement rather than once per partition, the cursor read scans
 * the partitions whose batch is closed (docs/architecture.md, "The cursors and the first scan in
 * one read"), and a scan that finds the marker hands out nothing, even on the path that skips the
 * ready-partition query. No periodic tick and no ready look within the hour
 * ({@link StatementBudgetTest.NoTicks}), so which path a fetch takes does not depend on the
 * machine's speed.
 */
@QuarkusTest
@TestProfile(StatementBudgetTest.NoTicks.class)
class FetchScanTest {
    private static final int PARTITIONS = 20;
    private static final Pattern DELIVERY_JOIN = Pattern.compile("JOIN queue_delivery_state");
    /** The deletion marker's look-up; the cursor read also reads each partition's head, as {@code h}. */
    private static final Pattern MARKER_LOOK = Pattern.compile("FROM queue_partition_heads dm");
    /** A column of every scan branch: one per partition scanned (the cursor branch's is NULL). */
    private static final Pattern NOT_DUE = Pattern.compile("m\\.deliver_at > UTC_TIMESTAMP\\(6\\) AS not_due");
    private static final int DEEP_PARTITIONS = 40;

    @Inject
    AgroalDataSource dataSource;

    private final String tenant = TestIds.tenant();
    private final String topic = TestIds.topic();
    private final String group = TestIds.group();

    @Test
    void undelivered_partitions_are_scanned_without_a_join_and_the_deletion_marker_is_looked_up_once() throws Exception {
        List<Delivered> first = leaseEveryPartition();
        Api.ack(tenant, topic, group, Delivered.receipts(first));
        Api.publishOk(tenant, topic, oneEach("second"));
        // One partition with a delivery row above its committed offset: its message was nacked.
        Api.publishOk(tenant, topic, List.of(Api.msg("k0", "nacked", 0)));
        List<Delivered> got = Api.fetchOk(tenant, topic, group, Fetch.upTo(100).waitSeconds(0));
        Delivered k0 = got.stream().filter(d -> d.partitionKey().equals("k0")).findFirst().orElseThrow();
        Api.nack(tenant, topic, group, List.of(k0.receipt()), 0, null);
        Api.ack(tenant, topic, group, Delivered.receipts(got.stream().filter(d -> d != k0).toList()));
        Api.publishOk(tenant, topic, oneEach("third"));

        List<Delivered> third = new ArrayList<>();
        List<String> sent;
        try (GeneralLog log = GeneralLog.start(dataSource)) {
            third.addAll(Api.fetchOk(tenant, topic, group, Fetch.upTo(100).waitSeconds(0)));
            sent = log.stopUnitsOf(topic);
        }

        assertEquals(PARTITIONS + 2, third.size(), "k0's nacked and unacked messages, and one third message each");
        Delivered again = third.stream().filter(d -> d.id().equals("second-0")).findFirst().orElseThrow();
        assertEquals(2, again.deliveryAttempt(), "the joined delivery row still counts k0's attempts");
        // The cursor read scans every partition from the end of its batch, without the join (docs/
        // architecture.md, "The cursors and the first scan in one read"); k0, with a delivery row
        // above its committed offset, is scanned again with it.
        List<String> scans = sent.stream().filter(sql -> sql.contains("AS not_due"))
                .toList();
        assertEquals(2, scans.size(), "the cursor read's scan, and k0's: " + sent);
        assertTrue(scans.get(0).contains("row_kind"), "the first is the cursor read's: " + scans.get(0));
        assertEquals(0, count(DELIVERY_JOIN, scans.get(0)), "the first scan joins no delivery row");
        assertEquals(PARTITIONS, count(NOT_DUE, scans.get(0)), "the first scan reads every partition");
        assertEquals(1, count(NOT_DUE, scans.get(1)), "only k0 is scanned again");
        assertEquals(1, count(DELIVERY_JOIN, scans.get(1)), "k0's branch joins its delivery rows");
        for (String scan : scans) {
            assertEquals(1, count(MARKER_LOOK, scan), "one look at the deletion marker per statement: " + scan);
        }
    }

    @Test
    void a_scan_that_finds_the_deletion_marker_hands_out_nothing_even_when_the_ready_look_is_skipped() throws Exception {
        List<Delivered> first = leaseEveryPartition();
        Api.publishOk(tenant, topic, oneEach("next"));
        mark(true);

        // Acking a full batch within the look interval skips the ready look: the scan alone decides.
        Map<String, Object> body = new java.util.HashMap<>(Fetch.upTo(PARTITIONS).waitSeconds(0).body());
        body.put("ack", Delivered.receipts(first));
        List<Object> delivered = Api.fetch(tenant, topic, group, body).then().statusCode(200).extract().jsonPath()
                .getList("messages");
        assertEquals(List.of(), delivered, "nothing of a topic being deleted goes out");

        mark(false);
        assertEquals(PARTITIONS, Api.fetchOk(tenant, topic, group, Fetch.upTo(100).waitSeconds(0)).size(),
                "without the marker the same fetch hands the messages out");
    }

    /**
     * The same with one partition, whose fetch that acks its batch reads the cursor and scan as a
     * join (docs/architecture.md, "The cursors and the first scan in one read"): the marker rides
     * in the cursor's row there, and a scan that sees it hands out nothing either.
     */
    @Test
    void a_one_partition_fetch_that_finds_the_deletion_marker_hands_out_nothing() throws Exception {
        List<Map<String, Object>> messages = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            messages.add(Api.msg("only", "only-" + i, i));
        }
        Api.publishOk(tenant, topic, messages);
        List<Delivered> first = new ArrayList<>();
        await().atMost(Duration.ofSeconds(60))
                .until(() -> first.addAll(Api.fetchOk(tenant, topic, group, Fetch.upTo(10).waitSeconds(1))));
        assertEquals(10, first.size(), "the first fetch takes the partition's first 10");
        mark(true);

        List<Object> delivered = new ArrayList<>();
        List<String> sent;
        try (GeneralLog log = GeneralLog.start(dataSource)) {
            delivered.addAll(Api.fetchAcking(tenant, topic, group, Fetch.upTo(10).waitSeconds(0),
                    Delivered.receipts(first)).messages());
            sent = log.stopUnitsOf(topic);
        }
        assertEquals(List.of(), delivered, "nothing of a topic being deleted goes out");
        assertTrue(sent.stream().anyMatch(sql -> sql.contains("AS not_due") && sql.contains("topic_deleting")
                && !sql.contains("UNION")), "the fetch read its cursor and scan as the join: " + sent);

        mark(false);
        List<Delivered> after = Api.fetchOk(tenant, topic, group, Fetch.upTo(10).waitSeconds(0));
        assertEquals(List.of("only-10", "only-11", "only-12", "only-13", "only-14", "only-15", "only-16", "only-17",
                "only-18", "only-19"), Delivered.ids(after), "without the marker the partition goes on after the ack");
    }

    @Test
    void a_fetch_over_deep_partitions_claims_and_scans_as_many_partitions_as_their_last_depth_needs() throws Exception {
        int depth = 25;
        List<Map<String, Object>> backlog = new ArrayList<>();
        for (int n = 0; n < depth; n++) {
            for (int i = 0; i < DEEP_PARTITIONS; i++) {
                backlog.add(Api.msg("d" + i, "d" + i + "-" + n, n));
            }
        }
        Api.publishOk(tenant, topic, backlog);
        List<Delivered> first = new ArrayList<>();
        await().atMost(Duration.ofSeconds(60))
                .until(() -> first.addAll(Api.fetchOk(tenant, topic, group, Fetch.upTo(100).waitSeconds(1))));
        assertEquals(100, first.size(), "the first partitions fill the first fetch");
        Api.ack(tenant, topic, group, Delivered.receipts(first));

        List<Delivered> second = new ArrayList<>();
        List<String> sent;
        try (GeneralLog log = GeneralLog.start(dataSource)) {
            second.addAll(Api.fetchOk(tenant, topic, group, Fetch.upTo(100).waitSeconds(0)));
            sent = log.stopUnitsOf(topic);
        }

        assertEquals(100, second.size());
        // The first fetch walked about 6 partitions of the 40 to fill 100, so about 17 messages
        // each: 100 x 1.5 / 17 is 9 partitions; claiming one per message scanned all 40. Those
        // first partitions have fewer left, so a second scan may take more from the others.
        List<Integer> branches = sent.stream().filter(sql -> sql.contains("AS not_due"))
                .map(sql -> count(NOT_DUE, sql)).toList();
        assertTrue(branches.size() <= 2, "scan statements, partitions in each: " + branches);
        assertTrue(branches.stream().mapToInt(Integer::intValue).sum() <= 16, "partitions scanned: " + branches);
        Map<String, List<Integer>> order = new java.util.TreeMap<>();
        for (Delivered d : concat(first, second)) {
            String[] keyAndN = d.id().split("-");
            order.computeIfAbsent(keyAndN[0], k -> new ArrayList<>()).add(Integer.parseInt(keyAndN[1]));
        }
        order.forEach((key, ns) -> {
            for (int n = 0; n < ns.size(); n++) {
                assertEquals(n, ns.get(n), key + " is delivered from its first message, in order, none skipped: " + ns);
            }
        });
    }

    private static List<Delivered> concat(List<Delivered> a, List<Delivered> b) {
        List<Delivered> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }

    /** One message per partition, ids {@code prefix-i}. */
    private static List<Map<String, Object>> oneEach(String prefix) {
        List<Map<String, Object>> batch = new ArrayList<>();
        for (int i = 0; i < PARTITIONS; i++) {
            batch.add(Api.msg("k" + i, prefix + "-" + i, i));
        }
        return batch;
    }

    /** Publishes one message per partition and fetches until all are delivered: every partition is leased here. */
    private List<Delivered> leaseEveryPartition() {
        Api.publishOk(tenant, topic, oneEach("first"));
        List<Delivered> got = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        await().atMost(Duration.ofSeconds(60)).until(() -> {
            List<Delivered> some = Api.fetchOk(tenant, topic, group, Fetch.upTo(100).waitSeconds(1));
            got.addAll(some);
            seen.addAll(Delivered.ids(some));
            return seen.size() == PARTITIONS;
        });
        return got;
    }

    /** Writes or removes the topic's deletion marker (its head row with the empty key), as a deletion's first step does. */
    private void mark(boolean on) throws Exception {
        String sql = on ? "INSERT INTO queue_partition_heads (tenant, topic, partition_key, head_offset) VALUES (?, ?, '', 0)"
                : "DELETE FROM queue_partition_heads WHERE tenant = ? AND topic = ? AND partition_key = ''";
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, tenant);
            ps.setString(2, topic);
            assertEquals(1, ps.executeUpdate());
        }
    }

    private static int count(Pattern p, String sql) {
        Matcher m = p.matcher(sql);
        int n = 0;
        while (m.find()) {
            n++;
        }
        return n;
    }
}
