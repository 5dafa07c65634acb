package dev.tenantmq;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.MatchResult;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * No read of the message rows inside a group's open batch can read the partition's backlog
 * instead (docs/architecture.md, "Reads that do not grow with the backlog"). A subquery or join
 * that bounds {@code queue_messages} offsets by {@code o.committed_offset} and
 * {@code o.delivered_offset} gets no range from those outer columns: MariaDB and MySQL probe the
 * primary key by (tenant, topic, partition_key) and filter every stored row of the partition.
 * For a closed batch the range is empty and the probe reads the whole backlog for nothing (the
 * benchmark measured 55,000 rows per fetch at 500,000 messages waiting, and a single instance
 * lost its leases behind it at 5,000,000). So each such read must be guarded by the batch being
 * open, {@code o.delivered_offset > o.committed_offset}, which the server checks before it reads
 * the inner table. A rule on the statements' text, as {@link StoreSqlRulesTest} is: the plan that
 * reads the backlog depends on the table's statistics, so a count of rows in a test would not
 * show it reliably.
 */
class BacklogReadRulesTest {
    /** A message alias bounded below by the committed and above by the delivered offset. */
    private static final Pattern BATCH_RANGE = Pattern.compile(
            "(\\w+)\\.`offset` > o\\.committed_offset AND \\1\\.`offset` <= o\\.delivered_offset");
    private static final String OPEN_BATCH = "o.delivered_offset > o.committed_offset";
    /** How far before the range its guard may stand: the predicate or join that holds it. */
    private static final int GUARD_WINDOW = 400;

    @Test
    void every_read_of_an_open_batchs_messages_is_guarded_by_the_batch_being_open() {
        List<String> unguarded = new ArrayList<>();
        List<Found> ranges = find(BATCH_RANGE);
        for (Found f : ranges) {
            String before = f.sql().substring(Math.max(0, f.match().start() - GUARD_WINDOW), f.match().start());
            if (!before.contains(OPEN_BATCH)) {
                unguarded.add(f.statement() + ": ..."
                        + f.sql().substring(Math.max(0, f.match().start() - 160), f.match().end()));
            }
        }
        assertTrue(ranges.size() >= 3, "found the reads of open batches' messages (" + ranges.size() + ")");
        assertEquals(List.of(), unguarded);
    }

    /**
     * A correlated look at one partition's first or newest message ({@code (SELECT ... FROM
     * queue_messages x ... ORDER BY ... LIMIT 1)}, its partition given by an outer row) names the
     * primary key and orders by the whole key prefix in one direction: MySQL 9.7 plans
     * {@code ORDER BY x.offset LIMIT 1} as a walk of the global {@code idx_offset} or as a read and
     * sort of the whole partition, and without the hint may take {@code uq_message_id} and sort,
     * as its statistics decide (docs/architecture.md, "Reads that do not grow with the backlog").
     */
    @Test
    void every_look_at_a_partitions_first_or_newest_message_steps_the_primary_key() {
        Pattern look = Pattern.compile("\\( ?SELECT (?:(?!SELECT ).)*? FROM queue_messages (\\w+)( FORCE INDEX \\(PRIMARY\\))?"
                + " WHERE (?:(?!SELECT ).)*? ORDER BY ((?:(?!SELECT ).)*?) LIMIT 1\\)");
        List<String> wrong = new ArrayList<>();
        List<Found> looks = find(look);
        for (Found f : looks) {
            MatchResult m = f.match();
            String a = m.group(1);
            String ascending = "%1$s.tenant, %1$s.topic, %1$s.partition_key, %1$s.`offset`".formatted(a);
            String descending = "%1$s.tenant DESC, %1$s.topic DESC, %1$s.partition_key DESC, %1$s.`offset` DESC".formatted(a);
            String order = m.group(3).trim();
            if (m.group(2) == null || !(order.equals(ascending) || order.equals(descending))) {
                wrong.add(f.statement() + ": " + m.group());
            }
        }
        assertTrue(looks.size() >= 5, "found the heads, the newest-message probes, the delayed gate and the gauge ("
                + looks.size() + ")");
        assertEquals(List.of(), wrong);
    }

    /**
     * A head that must be absent is looked up on its whole primary key, as a scalar subquery. As a
     * correlated {@code NOT EXISTS}, MariaDB turned the check into a NOT IN subquery and
     * materialized it from every head row of every tenant's topics, once per statement: the
     * deletion marker made the benchmark's scans read 16 rows for each row they returned, and the
     * delayed-delivery gate made the ready look read 34,751 head rows to find a wake row's 10
     * partitions (docs/architecture.md, "Reads that do not grow with the backlog"). The ready look
     * checks the marker per partition as a scalar subquery (DeletionSql.topicNotBeingDeleted); a
     * fetch's scan checks it once, in its own last branch (ConsumerSql.SCAN_DELETION_MARKER, or
     * FIRST_SCAN_DELETION_MARKER where the scan is read with the cursors; a scalar COUNT on its whole
     * key in the one-partition read, SELECT_CURSOR_AND_SCAN_ONE), and no scan branch looks at the
     * heads.
     */
    @Test
    void a_head_that_must_be_absent_is_looked_up_by_its_key_not_in_a_not_exists_over_all_heads() {
        Pattern existsOverHeads = Pattern.compile("(?:NOT EXISTS \\( ?SELECT (?:(?!SELECT ).)*? FROM queue_partition_heads"
                + "|EXISTS \\( ?SELECT (?:(?!SELECT ).)*? FROM queue_partition_heads (?:AS )?dm)\\b");
        Pattern scalarLookUp = Pattern.compile("\\(SELECT COUNT\\(\\*\\) FROM queue_partition_heads dm WHERE dm\\.tenant = \\w+\\.tenant"
                + " AND dm\\.topic = \\w+\\.topic AND dm\\.partition_key = ''\\) = 0");
        Pattern byKey = Pattern.compile("FROM queue_partition_heads dm WHERE dm\\.tenant = \\? AND dm\\.topic = \\?"
                + " AND dm\\.partition_key = \\?$");
        List<String> wrong = find(existsOverHeads).stream().map(Found::statement).distinct().toList();
        assertEquals(List.of(), wrong);
        int checks = find(scalarLookUp).size();
        assertTrue(checks >= 1, "found the marker check of the ready look (" + checks + ")");
        Pattern delayGate = Pattern.compile("\\(SELECT COUNT\\(\\*\\) FROM queue_partition_heads dh WHERE dh\\.tenant = o\\.tenant"
                + " AND dh\\.topic = o\\.topic AND dh\\.partition_key = o\\.partition_key AND dh\\.delayed_until > UTC_TIMESTAMP\\(6\\)\\) = 0");
        assertTrue(find(delayGate).size() >= 1, "found the delayed-delivery gate's look-up of the head");
        assertEquals(List.of("ConsumerSql.SCAN_DELETION_MARKER", "ConsumerSql.FIRST_SCAN_DELETION_MARKER"),
                find(byKey).stream().map(Found::statement).distinct().toList());
        for (String scan : List.of("ConsumerSql.SCAN_PARTITION", "ConsumerSql.SCAN_UNDELIVERED", "ConsumerSql.SCAN_REQUEUED",
                "ConsumerSql.FIRST_SCAN_PARTITION")) {
            assertFalse(StoreStatements.all().get(scan).contains("queue_partition_heads"), scan + " looks at no head");
        }
    }

    /**
     * The topics of a tenant that have stored messages are listed from the partition heads, one
     * step into the messages per topic (TopicListSql), not by grouping {@code queue_messages} by
     * (tenant, topic): that is a loose index scan only while the table's statistics say a tenant
     * has many rows per topic, and in the benchmark MariaDB read every message of the tenant
     * instead, 1,274,700 rows in one gauge refresh (docs/architecture.md, "Reads that do not grow
     * with the backlog"). Only the topic listing, which counts the messages anyway, groups them.
     */
    @Test
    void topics_with_stored_messages_are_listed_from_the_heads_not_by_grouping_the_messages() {
        Pattern grouped = Pattern.compile("FROM queue_messages(?: \\w+)?(?: FORCE INDEX \\(\\w+\\))?"
                + " WHERE (?:(?!SELECT ).)*? GROUP BY (?:\\w+\\.)?tenant, (?:\\w+\\.)?topic\\b(?!,)");
        assertEquals(List.of("AdminStore.LIST_TOPICS", "AdminStore.LIST_TOPICS_ALL_TENANTS", "AdminStore.TOPICS"),
                find(grouped).stream().map(Found::statement).distinct().sorted().toList());
        Pattern fromHeads = Pattern.compile("FROM queue_partition_heads h WHERE h\\.tenant = \\? GROUP BY h\\.tenant, h\\.topic"
                + " HAVING \\(SELECT t\\.partition_key FROM queue_messages t FORCE INDEX \\(PRIMARY\\)"
                + " WHERE t\\.tenant = h\\.tenant AND t\\.topic = h\\.topic LIMIT 1\\) IS NOT NULL");
        assertEquals(List.of("QueueStatsStore.QUEUE_STATS", "RetentionStore.SELECT_TOPICS"),
                find(fromHeads).stream().map(Found::statement).distinct().sorted().toList());
    }

    /**
     * Whether a partition still stores a message is one step into its primary key, a scalar
     * subquery with {@code LIMIT 1}, not a correlated {@code EXISTS} over the partition's key:
     * MariaDB turned discovery's {@code EXISTS} into a semi-join materialized from every stored
     * message of the topic (100,000 rows read to discover 100 partitions in the benchmark;
     * docs/architecture.md, "Reads that do not grow with the backlog").
     */
    @Test
    void no_exists_over_a_partitions_messages_that_the_server_could_materialize() {
        Pattern keyOnlyExists = Pattern.compile("EXISTS \\( ?SELECT 1 FROM queue_messages (\\w+) WHERE \\1\\.tenant = (\\w+)\\.tenant"
                + " AND \\1\\.topic = \\2\\.topic AND \\1\\.partition_key = \\2\\.partition_key ?\\)");
        assertEquals(List.of(), find(keyOnlyExists).stream().map(Found::statement).distinct().toList());
        Pattern step = Pattern.compile("\\(SELECT m\\.`offset` FROM queue_messages m FORCE INDEX \\(PRIMARY\\) WHERE m\\.tenant = h\\.tenant"
                + " AND m\\.topic = h\\.topic AND m\\.partition_key = h\\.partition_key LIMIT 1\\) IS NOT NULL");
        assertEquals(List.of("MessageStore.DISCOVER_PARTITIONS"), find(step).stream().map(Found::statement).distinct().toList());
    }

    /** A match of a rule's pattern in one store statement, its whitespace folded to single spaces. */
    private record Found(String statement, String sql, MatchResult match) {}

    /** Every match of {@code pattern} in every store statement ({@link StoreStatements#all}). */
    private static List<Found> find(Pattern pattern) {
        List<Found> found = new ArrayList<>();
        for (Map.Entry<String, String> e : StoreStatements.all().entrySet()) {
            String sql = e.getValue().replaceAll("\\s+", " ");
            Matcher m = pattern.matcher(sql);
            while (m.find()) {
                found.add(new Found(e.getKey(), sql, m.toMatchResult()));
            }
        }
        return found;
    }
}
