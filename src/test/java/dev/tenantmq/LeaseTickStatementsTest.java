package dev.tenantmq;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tenantmq.model.GroupScope;
import dev.tenantmq.store.LeaseStore;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * The scheduler acquires and releases many leases with a bounded number of multi-row
 * statements, not one or three per partition (docs/architecture.md, "The scheduler's tick"): the
 * first tick over a large topic inserts its leases and offsets rows, a takeover after a holder's
 * death updates the expired leases, and an idle release locks, judges and releases its leases,
 * {@value #BATCH} rows per statement at most. Counted as the database received them
 * ({@link GeneralLog}), by the test's own topic; the epoch rules hold as before.
 */
@QuarkusTest
class LeaseTickStatementsTest {
    /** LeaseStore's rows per statement (its ACQUIRE_ROWS_PER_STATEMENT). */
    private static final int BATCH = 500;
    /** More than two statements' worth, so a third, partial statement is needed. */
    private static final int PARTITIONS = 1_201;
    private static final long LEASE_MICROS = 60_000_000L;

    @Inject
    AgroalDataSource dataSource;

    @Inject
    LeaseStore leases;

    @Test
    void fresh_leases_and_takeovers_are_written_in_at_most_one_statement_per_batch_of_rows() throws Exception {
        GroupScope scope = new GroupScope(TestIds.tenant(), TestIds.group(), TestIds.topic());
        written.add(scope);
        List<String> keys = IntStream.range(0, PARTITIONS).mapToObj(i -> "p-" + i).toList();
        int statements = (PARTITIONS + BATCH - 1) / BATCH;

        int[] won = new int[1];
        List<String> first = writesWhile(scope.topic(), () -> won[0] = leases.acquire(scope, "first", keys, List.of(), LEASE_MICROS));
        assertEquals(PARTITIONS, won[0], "a fresh lease for every partition");
        assertTrue(leases.leases(scope).stream().allMatch(l -> l.leasedBy().equals("first") && l.epoch() == 1),
                "a new lease starts at epoch 1");
        assertEquals(statements, count(first, "INSERT INTO queue_partition_leases"), "lease inserts: " + brief(first));
        assertEquals(statements, count(first, "INSERT INTO queue_offsets"), "offsets rows: " + brief(first));
        // Which leases were won is read back by key, as many per statement: never every lease row of
        // the triple, which at 100,000 partitions is most of a tick.
        List<String> reads = first.stream().filter(sql -> sql.strip().startsWith("SELECT")).toList();
        assertEquals(statements, reads.size(), "read-backs: " + brief(first));
        assertTrue(reads.stream().allMatch(sql -> sql.contains("partition_key IN (")), "read back by key: " + brief(reads));

        leases.leave(scope, "first"); // every lease expires now: anyone's to take over, with a new epoch
        List<LeaseStore.Lease> expired = leases.leases(scope);
        assertTrue(expired.stream().allMatch(LeaseStore.Lease::expired));
        List<String> takeover = writesWhile(scope.topic(), () -> won[0] = leases.acquire(scope, "second", List.of(), expired, LEASE_MICROS));
        assertEquals(PARTITIONS, won[0], "every expired lease taken over");
        assertTrue(leases.leases(scope).stream().allMatch(l -> l.leasedBy().equals("second") && l.epoch() == 2 && !l.expired()),
                "a taken-over lease gets the next epoch");
        assertEquals(statements, count(takeover, "UPDATE queue_partition_leases"), "takeovers: " + brief(takeover));

        // The epochs read before the takeover are stale now: compare-and-set fails for each.
        leases.leave(scope, "second");
        assertEquals(0, leases.acquire(scope, "third", List.of(), expired, LEASE_MICROS), "a takeover by stale epochs wins nothing");
        assertTrue(leases.leases(scope).stream().noneMatch(l -> l.leasedBy().equals("third")));
    }

    @Test
    void idle_leases_are_released_in_three_statements_per_batch_of_rows_and_only_where_still_idle() throws Exception {
        GroupScope scope = new GroupScope(TestIds.tenant(), TestIds.group(), TestIds.topic());
        Api.publishOk(scope.tenant(), scope.topic(), List.of(Api.msg("p-7", "m-1", 1))); // p-7 has work
        // p-9 was judged idle under an epoch it no longer has: taken again since, so not idle.
        List<LeaseStore.Lease> judged = leasedByFirstWithP9ReadUnderAnotherEpoch(scope);

        int[] released = new int[1];
        List<String> sent = writesWhile(scope.topic(), () -> released[0] = leases.releaseIdle(scope, "first", judged));

        assertEquals(PARTITIONS - 2, released[0], "every lease but the one with work and the one re-leased");
        List<String> live = leases.leases(scope).stream().filter(l -> !l.expired()).map(LeaseStore.Lease::partitionKey)
                .sorted().toList();
        assertEquals(List.of("p-7", "p-9"), live, "only the leases that were not idle are still held");
        int statements = (PARTITIONS + BATCH - 1) / BATCH;
        List<String> locks = sent.stream().filter(sql -> sql.strip().startsWith("SELECT") && sql.contains("FOR UPDATE")).toList();
        assertEquals(statements, locks.size(), "lease locks: " + brief(sent));
        assertEquals(statements, count(sent, "SELECT o.partition_key FROM queue_offsets"), "work looks: " + brief(sent));
        assertEquals(statements, count(sent, "UPDATE queue_partition_leases"), "releases: " + brief(sent));
    }

    @Test
    void a_surplus_release_of_many_leases_runs_four_statements_per_batch_of_rows_and_spares_a_lease_taken_again()
            throws Exception {
        GroupScope scope = new GroupScope(TestIds.tenant(), TestIds.group(), TestIds.topic());
        // p-9 is asked for under an epoch it no longer has: a lease taken again since, not this one.
        List<LeaseStore.Lease> surplus = leasedByFirstWithP9ReadUnderAnotherEpoch(scope);

        int[] released = new int[1];
        List<String> sent = writesWhile(scope.topic(), () -> released[0] = leases.release(scope, "first", surplus));

        assertEquals(PARTITIONS - 1, released[0]);
        assertEquals(List.of("p-9"), leases.leases(scope).stream().filter(l -> !l.expired())
                .map(LeaseStore.Lease::partitionKey).toList(), "only the lease asked for under another epoch is held");
        int statements = (PARTITIONS + BATCH - 1) / BATCH;
        // Per batch: lock the leases, release them, read their cursors, hand their deliveries back.
        assertEquals(4 * statements, sent.size(), "statements: " + brief(sent));
        assertEquals(statements, count(sent, "UPDATE queue_delivery_state"), "hand-backs: " + brief(sent));
    }

    /**
     * Leases all {@value #PARTITIONS} partitions of {@code scope} to subscriber "first" and returns
     * its leases as a tick would read them, but with p-9's epoch one ahead of the stored one: a
     * lease read before it was taken again.
     */
    private List<LeaseStore.Lease> leasedByFirstWithP9ReadUnderAnotherEpoch(GroupScope scope) {
        written.add(scope);
        List<String> keys = IntStream.range(0, PARTITIONS).mapToObj(i -> "p-" + i).toList();
        assertEquals(PARTITIONS, leases.acquire(scope, "first", keys, List.of(), LEASE_MICROS));
        return leases.leases(scope).stream()
                .map(l -> l.partitionKey().equals("p-9") ? new LeaseStore.Lease("p-9", "first", l.epoch() + 1, false) : l)
                .toList();
    }

    /** The scopes this test wrote lease and offsets rows for, removed after it. */
    private final List<GroupScope> written = new java.util.ArrayList<>();

    /**
     * Removes the test's 1,201 lease and offsets rows: they would fill the first page of the
     * admin listings of a tenant other tests share (they are ordered by group and topic).
     */
    @org.junit.jupiter.api.AfterEach
    void removeRows() throws Exception {
        try (java.sql.Connection c = dataSource.getConnection()) {
            for (GroupScope s : written) {
                for (String table : List.of("queue_partition_leases", "queue_offsets")) {
                    try (java.sql.PreparedStatement ps = c.prepareStatement("DELETE FROM " + table
                            + " WHERE tenant = ? AND topic = ? AND consumer_group = ?")) {
                        ps.setString(1, s.tenant());
                        ps.setString(2, s.topic());
                        ps.setString(3, s.consumerGroup());
                        ps.executeUpdate();
                    }
                }
            }
        }
    }

    /** The statements of {@code topic} the database received while {@code action} ran. */
    private List<String> writesWhile(String topic, Runnable action) throws Exception {
        try (GeneralLog log = GeneralLog.start(dataSource)) {
            action.run();
            return log.stop(topic);
        }
    }

    private static long count(List<String> statements, String prefix) {
        return statements.stream().filter(sql -> sql.strip().startsWith(prefix)).count();
    }

    private static String brief(List<String> statements) {
        return statements.stream().map(s -> s.strip().substring(0, Math.min(60, s.strip().length())).replaceAll("\\s+", " "))
                .distinct().toList() + " (" + statements.size() + " in all)";
    }
}
