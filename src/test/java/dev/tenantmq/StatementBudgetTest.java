package dev.tenantmq;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The database work of the happy path of publish, fetch and ack, counted as the statements the
 * database received ({@link GeneralLog#stopUnitsOf}): every statement of every transaction or
 * auto-commit statement that names the test's topic, with its session {@code SET}s, its
 * {@code START TRANSACTION} if any, and its {@code COMMIT} (a connection's switch out of
 * autocommit, once per pooled connection, belongs to no transaction). A deterministic guard for what the benchmark
 * measures (bench/README.md, "Statements and CPU per message"): a publish of 100 messages over
 * 50 partitions, a single publish, a fetch of 100 messages over 50 partitions and the ack of that
 * batch each run a constant number of statements, however many partitions they touch
 * (docs/architecture.md, "Publish: the partition head lock").
 */
@QuarkusTest
@TestProfile(StatementBudgetTest.NoTicks.class)
class StatementBudgetTest {
    private static final int PARTITIONS = 50;
    private static final int MESSAGES = 100;
    /**
     * The ready partitions (a read and its commit: the store's connections are out of autocommit,
     * docs/architecture.md, "Transactions without START"), then one transaction: lock the leases,
     * read the cursors and scan every partition in one statement (docs/architecture.md, "The
     * cursors and the first scan in one read"), open every batch, commit. Main before this budget:
     * 78 statements (6 ready-partition looks and 4 lease transactions, with a SET of autocommit and
     * of the isolation level on both sides of each, and one UPDATE per partition); then 7, the look
     * in autocommit and the transaction with its START; then 7, the look's COMMIT in place of the
     * START, with the cursors and the scan two statements.
     */
    private static final int FETCH_BUDGET = 6;
    /**
     * One transaction: lock the leases, read the cursors, move every committed offset, commit (no
     * START: docs/architecture.md, "Transactions without START"; 5 with it). The ack names every message of each batch, whose size the cursor read gives, so it
     * reads no message (docs/architecture.md, "Delivery batches"). Main before this budget: 60
     * statements (one UPDATE per partition, the batch rows, the finished rows and the prefix
     * read, and four SETs); then 6, with a read of the acked messages from each committed offset.
     * For a time the cursor read joined the batch's messages instead (5): that join read the
     * partition's whole backlog (docs/architecture.md, "Reads that do not grow with the backlog").
     */
    private static final int ACK_BUDGET = 4;
    /**
     * A fetch of 100 over 50 partitions that carries the ack of the previous 100 (docs/api.md,
     * "Fetch and ack in one call"), soon after a look: it skips the ready partitions, and runs one
     * transaction: lock the leases of the acked partitions, read the cursors and scan from the
     * ends of the acked batches in one statement, move every committed offset and open every batch
     * in one statement, commit. Before the fetch carried acks the same work was a fetch and an
     * ack: 12; before the moves rode with the batches, 9 (7 while the cursor read joined the
     * batch's messages); before the ack of whole batches read no message, 8; before such a fetch
     * skipped the look, 7; before transactions lost their START (docs/architecture.md,
     * "Transactions without START"), 6; before the cursors and the scan were one statement, 5.
     */
    private static final int FETCH_ACKING_BUDGET = 4;
    /**
     * Statements of work of a publish request, however many partitions it touches: lock the heads
     * (with the id look-up), insert the messages, move the heads. Main before this budget: 4 (lock,
     * confirming re-lock, look-up, insert), and a REPEATABLE READ retry for a new partition.
     */
    private static final int PUBLISH_WORK_BUDGET = 3;
    /**
     * Besides its work, a publish sends exactly its {@code COMMIT}: no session {@code SET}, as
     * READ COMMITTED is the pool's default, and no {@code START TRANSACTION}, as the store's
     * connections are out of autocommit (docs/architecture.md, "Transactions without START"). Main
     * before this budget sent four SETs (isolation and autocommit, each set and reset) around
     * every transaction; then a START and the COMMIT.
     */
    private static final int PUBLISH_CONTROL_BUDGET = 1;

    /**
     * No periodic scheduler tick while the test counts: the tick's statements name the topic too.
     * The first fetch of a group still leases its partitions at once (the registration tick).
     */
    public static class NoTicks implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("mq.tick-interval", "30m", "mq.heartbeat-timeout", "1h", "mq.lease-duration", "1h",
                    // A fetch acking a full batch skips the ready look whatever the machine's speed.
                    "mq.fetch.ready-look-interval", "1h");
        }
    }

    @Inject
    AgroalDataSource dataSource;

    @Test
    void a_fetch_of_100_messages_over_50_partitions_runs_a_constant_number_of_statements() throws Exception {
        Consumed consumed = publishAndLease();
        List<Delivered> got = new ArrayList<>();
        List<String> fetch = statementsOf(consumed.topic(), () -> got.addAll(Api.fetchOk(consumed.tenant(),
                consumed.topic(), consumed.group(), Fetch.upTo(MESSAGES).waitSeconds(0))));

        assertEquals(MESSAGES, got.size(), "one fetch takes every message of the 50 leased partitions");
        assertTrue(fetch.size() <= FETCH_BUDGET, "fetch of 100 over 50 partitions: " + brief(fetch));
    }

    @Test
    void the_ack_of_a_fetch_of_100_messages_over_50_partitions_runs_a_constant_number_of_statements() throws Exception {
        Consumed consumed = publishAndLease();
        List<Delivered> got = Api.fetchOk(consumed.tenant(), consumed.topic(), consumed.group(),
                Fetch.upTo(MESSAGES).waitSeconds(0));
        assertEquals(MESSAGES, got.size(), "one fetch takes every message of the 50 leased partitions");

        List<String> acked = new ArrayList<>();
        List<String> ack = statementsOf(consumed.topic(), () -> acked.addAll(Api.ack(consumed.tenant(),
                consumed.topic(), consumed.group(), Delivered.receipts(got))));

        assertEquals(Set.of("ACKED"), new HashSet<>(acked));
        assertTrue(ack.size() <= ACK_BUDGET, "ack of 100 over 50 partitions: " + brief(ack));
    }

    @Test
    void a_fetch_of_100_over_50_partitions_that_acks_the_last_100_runs_a_constant_number_of_statements()
            throws Exception {
        Consumed consumed = publishAndLease();
        List<Delivered> got = Api.fetchOk(consumed.tenant(), consumed.topic(), consumed.group(),
                Fetch.upTo(MESSAGES).waitSeconds(0));
        assertEquals(MESSAGES, got.size(), "one fetch takes every message of the 50 leased partitions");
        List<Map<String, Object>> more = new ArrayList<>();
        for (int i = 0; i < MESSAGES; i++) {
            more.add(Api.msg("k" + (i % PARTITIONS), "more-" + i, Map.of("n", i)));
        }
        Api.publishOk(consumed.tenant(), consumed.topic(), more);

        Map<String, Object> body = new java.util.HashMap<>(Fetch.upTo(MESSAGES).waitSeconds(0).body());
        body.put("ack", Delivered.receipts(got));
        List<Object> statuses = new ArrayList<>();
        List<Object> next = new ArrayList<>();
        List<String> sent = statementsOf(consumed.topic(), () -> {
            var answer = Api.fetch(consumed.tenant(), consumed.topic(), consumed.group(), body)
                    .then().statusCode(200).extract().jsonPath();
            statuses.addAll(answer.getList("ackResults.status"));
            next.addAll(answer.getList("messages"));
        });

        assertEquals(Set.of("ACKED"), new HashSet<>(statuses));
        assertEquals(MESSAGES, statuses.size());
        assertEquals(MESSAGES, next.size(), "the acked partitions give their next 100 in the same call");
        assertTrue(sent.size() <= FETCH_ACKING_BUDGET, "fetch of 100 acking 100 over 50 partitions: " + brief(sent));
    }

    /**
     * The usual fetch of a deep partition (the benchmark's consume loop): it acks the partition's
     * last batch and takes its next. Its cursor read and first scan are one join, not the union of
     * the fetch over several partitions, which costs MariaDB about 1.5 times as much for the same rows
     * (docs/architecture.md, "The cursors and the first scan in one read"); still 4 statements.
     */
    @Test
    void a_fetch_of_one_partition_that_acks_its_last_batch_reads_its_cursor_and_scan_without_a_union()
            throws Exception {
        String tenant = TestIds.tenant();
        String topic = TestIds.topic();
        String group = TestIds.group();
        List<Map<String, Object>> batch = new ArrayList<>();
        for (int i = 0; i < 2 * MESSAGES; i++) {
            batch.add(Api.msg("deep", "m-" + i, Map.of("n", i)));
        }
        Api.publishOk(tenant, topic, batch);
        List<Delivered> got = Api.fetchOk(tenant, topic, group, Fetch.upTo(MESSAGES).waitSeconds(5));
        assertEquals(MESSAGES, got.size(), "the first fetch takes the partition's first 100");

        List<Delivered> next = new ArrayList<>();
        List<String> sent = statementsOf(topic, () -> next.addAll(Api.fetchAcking(tenant, topic, group,
                Fetch.upTo(MESSAGES).waitSeconds(0), Delivered.receipts(got)).messages()));

        assertEquals(MESSAGES, next.size(), "the acked partition gives its next 100 in the same call");
        assertEquals("m-" + MESSAGES, next.get(0).id(), "the next batch starts after the acked one");
        assertTrue(sent.size() <= FETCH_ACKING_BUDGET, "fetch of 100 acking 100 in one partition: " + brief(sent));
        assertEquals(List.of(), unions(sent), "statements with a UNION: " + brief(sent));
    }

    /**
     * Two deep partitions: the first fetch, after a look, splits its budget between them (their
     * shares and slack, 66 rows each). The fetch that acks that batch continues in those two
     * partitions alone and lets the first fill the budget (model.PartitionWalk#continuationLimits),
     * so the fetch after it acks and reads one partition, without a union.
     */
    @Test
    void a_fetch_that_acks_two_deep_partitions_takes_its_next_batch_from_the_first_alone() throws Exception {
        String tenant = TestIds.tenant();
        String topic = TestIds.topic();
        String group = TestIds.group();
        List<Map<String, Object>> batch = new ArrayList<>();
        for (int i = 0; i < 3 * MESSAGES; i++) {
            batch.add(Api.msg("a", "a-" + i, Map.of("n", i)));
            batch.add(Api.msg("b", "b-" + i, Map.of("n", i)));
        }
        Api.publishOk(tenant, topic, batch);
        List<Delivered> first = Api.fetchOk(tenant, topic, group, Fetch.upTo(MESSAGES).waitSeconds(5));
        assertEquals(Map.of("a", 66L, "b", 34L), byPartition(first), "the look's fetch shares the budget");

        List<Delivered> second = Api.fetchAcking(tenant, topic, group, Fetch.upTo(MESSAGES).waitSeconds(0),
                Delivered.receipts(first)).messages();
        assertEquals(Map.of("a", 100L), byPartition(second), "the fetch acking both takes its next 100 from the first");
        assertEquals("a-66", second.get(0).id());

        List<String> sent = statementsOf(topic, () -> Api.fetchAcking(tenant, topic, group,
                Fetch.upTo(MESSAGES).waitSeconds(0), Delivered.receipts(second)));
        assertEquals(List.of(), unions(sent), "the next fetch acks and reads one partition: " + brief(sent));
    }

    private static Map<String, Long> byPartition(List<Delivered> messages) {
        return messages.stream().collect(java.util.stream.Collectors.groupingBy(Delivered::partitionKey,
                java.util.TreeMap::new, java.util.stream.Collectors.counting()));
    }

    @Test
    void a_publish_of_100_messages_over_50_partitions_runs_a_constant_number_of_statements() throws Exception {
        String tenant = TestIds.tenant();
        String topic = TestIds.topic();
        Api.publishOk(tenant, topic, publishBatch("warm", 100, 50)); // the partitions exist: the steady state

        List<String> sent = statementsOf(topic, () -> Api.publishOk(tenant, topic, publishBatch("measured", 100, 50)));

        assertPublishWithinBudget("a publish of 100 messages over 50 partitions", sent);
    }

    @Test
    void a_single_publish_runs_a_constant_number_of_statements() throws Exception {
        String tenant = TestIds.tenant();
        String topic = TestIds.topic();
        Api.publishOk(tenant, topic, publishBatch("warm", 1, 1));

        List<String> sent = statementsOf(topic, () -> Api.publishOk(tenant, topic, publishBatch("measured", 1, 1)));

        assertPublishWithinBudget("a single publish", sent);
    }

    /** {@code n} messages with caller-chosen ids, spread round-robin over {@code partitions} keys. */
    private static List<Map<String, Object>> publishBatch(String idPrefix, int n, int partitions) {
        List<Map<String, Object>> messages = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            messages.add(Api.msg("k" + (i % partitions), idPrefix + "-" + i, Map.of("n", i)));
        }
        return messages;
    }

    /**
     * Fails unless {@code sent} is one transaction: exactly one COMMIT, at most
     * {@link #PUBLISH_CONTROL_BUDGET} statements of transaction control and session (START, COMMIT,
     * SET), and at most {@link #PUBLISH_WORK_BUDGET} statements of work.
     */
    private static void assertPublishWithinBudget(String what, List<String> sent) {
        long commits = sent.stream().filter(sql -> sql.strip().equalsIgnoreCase("COMMIT")).count();
        long control = sent.stream().filter(StatementBudgetTest::isControl).count();
        long work = sent.size() - control;
        assertEquals(1, commits, what + ": one transaction; " + brief(sent));
        assertTrue(control <= PUBLISH_CONTROL_BUDGET, what + ": " + control + " statements of transaction control and"
                + " session, budget " + PUBLISH_CONTROL_BUDGET + "; " + brief(sent));
        assertTrue(work <= PUBLISH_WORK_BUDGET, what + ": " + work + " statements of work, budget " + PUBLISH_WORK_BUDGET
                + "; " + brief(sent));
    }

    /** Transaction control or a session statement: neither reads nor writes a table. */
    private static boolean isControl(String sql) {
        String s = sql.strip().toUpperCase(java.util.Locale.ROOT);
        return s.startsWith("SET ") || s.startsWith("START TRANSACTION") || s.equals("BEGIN") || s.equals("COMMIT")
                || s.equals("ROLLBACK");
    }

    /** A topic whose 50 partitions this process leases, with 100 messages waiting, 2 in each. */
    private record Consumed(String tenant, String topic, String group) {}

    private static Consumed publishAndLease() {
        String tenant = TestIds.tenant();
        String topic = TestIds.topic();
        String group = TestIds.group();
        leaseEveryPartition(tenant, topic, group);
        List<Map<String, Object>> batch = new ArrayList<>();
        for (int i = 0; i < MESSAGES; i++) {
            batch.add(Api.msg("k" + (i % PARTITIONS), "m-" + i, Map.of("n", i)));
        }
        Api.publishOk(tenant, topic, batch);
        return new Consumed(tenant, topic, group);
    }

    /**
     * Publishes one message to each of the partitions and fetches and acks until all are
     * consumed: then this process leases every partition, and the next fetch finds them ready.
     */
    private static void leaseEveryPartition(String tenant, String topic, String group) {
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < PARTITIONS; i++) {
            keys.add("k" + i);
        }
        Api.seedAndDrain(tenant, topic, group, keys);
    }

    private List<String> statementsOf(String topic, Runnable request) throws Exception {
        try (GeneralLog log = GeneralLog.start(dataSource)) {
            request.run();
            return log.stopUnitsOf(topic);
        }
    }

    /** The start of each statement, one per line: enough to tell them apart in a failure. */
    /** The statements of {@code sent} that hold a UNION, their whitespace collapsed. */
    private static List<String> unions(List<String> sent) {
        return sent.stream().filter(sql -> sql.toUpperCase(java.util.Locale.ROOT).contains("UNION"))
                .map(sql -> sql.replaceAll("\\s+", " ")).toList();
    }

    private static String brief(List<String> statements) {
        return statements.size() + " statements:\n  " + String.join("\n  ", statements.stream()
                .map(sql -> sql.replaceAll("\\s+", " "))
                .map(line -> line.substring(0, Math.min(90, line.length())))
                .toList());
    }
}
