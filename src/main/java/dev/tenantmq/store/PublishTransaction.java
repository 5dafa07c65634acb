package dev.tenantmq.store;

import dev.tenantmq.model.DeliveryDelay;
import dev.tenantmq.model.TopicBeingDeletedException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * The publish protocol on a connection whose transaction the caller owns (docs/architecture.md,
 * "Publish: the partition head lock"): lock the heads of the batch's partitions in key order,
 * look up the caller-chosen ids already stored, insert the rest in request order, move the
 * heads. The head locks are held until the caller commits or rolls back.
 *
 * <p>One home for every appender: the service's publish ({@link MessageStore#publish}) and dead
 * letters run it in transactions of their own, and the JDBC library (clients/jdbc,
 * docs/transactional-publish.md) runs it in the application's transaction; the library compiles
 * this file, {@link PublishSql}, {@link Statement}, {@link Bind} and {@link Jdbc} from the
 * service's source tree. Plain Java (no framework, no logging): {@code ArchitectureTest} holds it.
 *
 * <p>The caller's transaction must run at READ COMMITTED with autocommit off: the look-up after
 * the lock must see what the previous holder committed, and a head row that does not exist yet
 * must not be gap-locked (see {@link PublishSql#LOCK_HEADS}).
 */
public final class PublishTransaction {
    private PublishTransaction() {}

    /**
     * Where the dedup look-up runs. On a mysqld the service sends it in the lock's statement (one
     * round trip less); that statement's snapshot may miss an id that the previous holder of a
     * head committed while it waited, and the insert then fails on {@code uq_message_id}, which
     * the service's {@code Db} answers by running the transaction again. A caller that cannot rerun
     * the transaction (the application's own) looks up after the lock is granted, in a statement
     * of its own, whose READ COMMITTED snapshot sees every earlier holder's commit.
     */
    public enum LookUp {
        /** In the lock's statement: only for a caller that reruns the transaction on a duplicate key. */
        IN_LOCK_STATEMENT,
        /** In a statement after the lock: for a transaction that cannot be rerun. */
        AFTER_LOCK
    }

    /**
     * A message to insert.
     *
     * @param generatedId whether the service generated {@code id} (a random UUID, SPEC section 4
     *     "Publish": {@code id} optional): no stored message can have it, so publish does not look
     *     it up, and a request of such messages only skips the look-up statement
     * @param traceparent the W3C {@code traceparent} the message was published with, already
     *     validated, or null (docs/api.md, "Trace context")
     * @param tracestate its {@code tracestate}, or null; only with a traceparent
     * @param delay when it may be delivered first (docs/api.md, "Delayed delivery"), or null: at once
     */
    public record NewMessage(String partitionKey, String id, String payloadJson, String metadataJson,
                             boolean generatedId, String traceparent, String tracestate, DeliveryDelay delay) {
        /** A message without a delay. */
        public NewMessage(String partitionKey, String id, String payloadJson, String metadataJson, boolean generatedId,
                          String traceparent, String tracestate) {
            this(partitionKey, id, payloadJson, metadataJson, generatedId, traceparent, tracestate, null);
        }

        /** A message without trace context or delay. */
        public NewMessage(String partitionKey, String id, String payloadJson, String metadataJson, boolean generatedId) {
            this(partitionKey, id, payloadJson, metadataJson, generatedId, null, null, null);
        }

        /** A message with a caller-chosen id and no trace context. */
        public NewMessage(String partitionKey, String id, String payloadJson, String metadataJson) {
            this(partitionKey, id, payloadJson, metadataJson, false, null, null, null);
        }

        /**
         * Without trace context and delay: its row can go as {@link PublishSql#PLAIN_MESSAGE_ROW},
         * which leaves those columns NULL.
         */
        boolean plain() {
            return traceparent == null && tracestate == null && delay == null;
        }

        /** Characters of its values, to size insert statements. */
        int chars() {
            return partitionKey.length() + id.length() + payloadJson.length() + metadataJson.length()
                    + (traceparent == null ? 0 : traceparent.length()) + (tracestate == null ? 0 : tracestate.length());
        }
    }

    /** Where one published message ended up. */
    public record Published(long offset, boolean duplicate) {}

    /**
     * Publishes a batch in the caller's transaction: all or none, as that transaction commits
     * (SPEC section 4, "Publish"). Locks the heads of its partitions ({@link PublishSql#LOCK_HEADS})
     * and finds its caller-chosen ids that are already stored, inserts the rest in request order
     * and moves the heads to the new offsets: three statements however many partitions the batch
     * touches (two with {@link LookUp#IN_LOCK_STATEMENT}), one more when a partition is new
     * ({@link PublishSql#CREATE_HEADS}). A message whose (partitionKey, id) is stored already, was
     * published less than the dedup window ago and deleted since, or repeats an earlier one of
     * the same batch, is a duplicate: it gets the first offset and changes nothing. The messages
     * are validated and stamped before ({@code model.PublishRules}).
     *
     * @param c a connection in a transaction at READ COMMITTED, autocommit off; the head locks stay
     *     until it commits or rolls back
     * @param dedupWindowMicros how long a deleted message's identity still makes a duplicate,
     *     counted from its publish, in microseconds ({@code mq.publish.dedup-window})
     * @param mode where the dedup look-up runs ({@link LookUp})
     * @return one result per message, in request order
     * @throws SQLException as the driver reports it; the caller's transaction decides what happens next
     */
    public static List<Published> publish(Connection c, String tenant, String topic, List<NewMessage> messages,
                                          long dedupWindowMicros, LookUp mode) throws SQLException {
        SortedSet<String> partitions = new TreeSet<>();
        messages.forEach(m -> partitions.add(m.partitionKey()));
        List<NewMessage> chosenIds = messages.stream().filter(m -> !m.generatedId()).toList();
        Map<String, Long> stored = lockPartitionsAndFindIds(c, tenant, topic, partitions, chosenIds, dedupWindowMicros,
                mode);
        Map<String, Integer> firstInBatch = new HashMap<>();
        List<NewMessage> fresh = new ArrayList<>();
        int[] freshIndex = new int[messages.size()];
        for (int i = 0; i < messages.size(); i++) {
            NewMessage m = messages.get(i);
            String identity = identity(m.partitionKey(), m.id());
            if (stored.containsKey(identity) || firstInBatch.containsKey(identity)) {
                freshIndex[i] = -1;
            } else {
                firstInBatch.put(identity, i);
                freshIndex[i] = fresh.size();
                fresh.add(m);
            }
        }
        long[] offsets = append(c, tenant, topic, fresh);
        List<Published> result = new ArrayList<>(messages.size());
        for (int i = 0; i < messages.size(); i++) {
            NewMessage m = messages.get(i);
            if (freshIndex[i] >= 0) {
                result.add(new Published(offsets[freshIndex[i]], false));
            } else {
                String identity = identity(m.partitionKey(), m.id());
                Long offset = stored.get(identity);
                result.add(new Published(offset != null ? offset : offsets[freshIndex[firstInBatch.get(identity)]], true));
            }
        }
        return result;
    }

    /**
     * Locks the heads of the given partitions until commit (creating the rows of new partitions)
     * and finds which of {@code lookUp} are stored already: one statement on a mysqld, the UNION
     * ALL of {@link PublishSql#LOCK_HEADS} and {@link PublishSql#SELECT_EXISTING_IDS} (the heads branch first, so
     * the look-up usually reads after the lock is granted; see {@link PublishSql#SELECT_EXISTING_IDS} for
     * why it need not), plus {@link PublishSql#CREATE_HEADS} when a partition has no head yet.
     *
     * <p>Through vtgate the lock and the look-up are statements of their own: vtgate (Vitess
     * v0.24.4) plans a UNION ALL as one route to the tenant's shard and drops the locking clause of
     * its branches (docs/vitess.md, "Findings"), so the heads would not be locked.
     *
     * @param partitionKeys sorted: the lock order every appender shares
     * @param lookUp messages whose ids to look up (no message: no look-up)
     * @param mode whether the look-up may share the lock's statement (see {@link LookUp})
     * @return offset by {@link #identity} of each stored one
     */
    static Map<String, Long> lockPartitionsAndFindIds(Connection c, String tenant, String topic,
                                                     SortedSet<String> partitionKeys, List<NewMessage> lookUp,
                                                     long dedupWindowMicros, LookUp mode) throws SQLException {
        return lockAndFind(c, tenant, topic, partitionKeys, lookUp, dedupWindowMicros, mode, true);
    }

    /**
     * {@link #lockPartitionsAndFindIds}; with {@code refuseDeleting} the head lock also takes the
     * topic's deletion marker ({@link PublishSql#DELETION_MARKER_KEY}), and a topic being deleted
     * is refused with {@link TopicBeingDeletedException}.
     *
     * <p>Locking of the marker (docs/operations.md, "Deleting a topic or a consumer group"): the
     * marker is a {@code queue_partition_heads} row that exists only while the topic is being
     * deleted, so the key rides in the IN list of the head lock the publish takes anyway: no
     * statement more. While it does not exist, READ COMMITTED takes no lock for the missing key (a
     * primary-key look-up, no gap lock), so publishers do not contend on it. The deletion inserts
     * it in a transaction of its own; a publisher whose lock statement runs after that commit reads
     * the row and refuses, one whose lock ran before holds its head rows, which the deletion's
     * delete of the heads waits for, so its messages are committed before the deletion can finish
     * and are deleted with the topic.
     */
    private static Map<String, Long> lockAndFind(Connection c, String tenant, String topic,
                                                 SortedSet<String> partitionKeys, List<NewMessage> lookUp,
                                                 long dedupWindowMicros, LookUp mode, boolean refuseDeleting)
            throws SQLException {
        List<String> lockKeys = new ArrayList<>(partitionKeys.size() + 1);
        if (refuseDeleting) {
            lockKeys.add(PublishSql.DELETION_MARKER_KEY); // "" sorts first: the shared lock order holds
        }
        lockKeys.addAll(partitionKeys);
        PublishSql.LockHeads lock = new PublishSql.LockHeads(tenant, topic, lockKeys);
        Set<String> locked = new HashSet<>();
        Map<String, Long> found = new HashMap<>();
        boolean[] deleting = {false};
        Jdbc.RowReader read = rs -> {
            String id = rs.getString("id");
            if (id == null) {
                String key = rs.getString("partition_key");
                if (key.equals(PublishSql.DELETION_MARKER_KEY)) {
                    deleting[0] = true;
                } else {
                    locked.add(key);
                }
            } else {
                found.putIfAbsent(identity(rs.getString("partition_key"), id), rs.getLong("offset"));
            }
        };
        // One statement for a whole batch (at most mq.publish.max-batch-size pairs, 1000 by
        // default); the chunks only bound the statement for a larger configured maximum.
        final int chunk = 2000;
        if (mode == LookUp.IN_LOCK_STATEMENT && !lookUp.isEmpty() && lookUp.size() <= chunk && !Jdbc.isVtgate(c)) {
            PublishSql.SelectExistingIds ids = new PublishSql.SelectExistingIds(tenant, topic, lookUp, dedupWindowMicros);
            Statement both = Statement.of("(" + lock.sql() + ")\nUNION ALL\n" + ids.sql(),
                    Bind.list(lock.binds(), ids.binds()));
            Jdbc.forEach(c, both.sql(), both, read);
        } else {
            Jdbc.forEach(c, lock.sql(), lock, read);
            for (int from = 0; from < lookUp.size(); from += chunk) {
                PublishSql.SelectExistingIds ids = new PublishSql.SelectExistingIds(tenant, topic,
                        lookUp.subList(from, Math.min(lookUp.size(), from + chunk)), dedupWindowMicros);
                Jdbc.forEach(c, ids.sql(), ids, read);
            }
        }
        if (deleting[0]) {
            throw new TopicBeingDeletedException(tenant, topic);
        }
        if (locked.size() < partitionKeys.size()) {
            createHeads(c, tenant, topic, partitionKeys.stream().filter(k -> !locked.contains(k)).toList());
        }
        return found;
    }

    /**
     * Locks the heads of the given partitions until commit, creating the rows of new partitions.
     * See {@link PublishSql#LOCK_HEADS}.
     *
     * @param partitionKeys sorted: the lock order every appender shares
     */
    static void lockPartitions(Connection c, String tenant, String topic, SortedSet<String> partitionKeys)
            throws SQLException {
        // Dead letters land in a dead-letter topic being deleted, and are deleted with it.
        lockAndFind(c, tenant, topic, partitionKeys, List.of(), 0, LookUp.AFTER_LOCK, false);
    }

    /** Runs {@link PublishSql#CREATE_HEADS} for {@code keys} (sorted), one statement. */
    private static void createHeads(Connection c, String tenant, String topic, List<String> keys) throws SQLException {
        List<Bind> binds = new ArrayList<>(3 * keys.size());
        for (String key : keys) {
            binds.addAll(new PublishSql.CreateHead(tenant, topic, key).binds());
        }
        String sql = PublishSql.CREATE_HEADS.replace("VALUES (?, ?, ?, 0)",
                "VALUES (?, ?, ?, 0)" + (",\n       " + PublishSql.HEAD_ROW).repeat(keys.size() - 1));
        Statement create = Statement.of(sql, binds);
        Jdbc.update(c, create.sql(), create); // 1 per new row, 0 or 1 per row another appender created: no count to check
    }

    /**
     * Inserts {@code messages} under the head locks of their partitions and moves each head to
     * its partition's newest new offset ({@link PublishSql#ADVANCE_HEADS}).
     *
     * @return the offset of each message, in list order
     */
    static long[] append(Connection c, String tenant, String topic, List<NewMessage> messages)
            throws SQLException {
        if (messages.isEmpty()) {
            return new long[0];
        }
        long[] offsets = insert(c, tenant, topic, messages);
        PublishSql.AdvanceHeads heads = advance(tenant, topic, messages, offsets);
        List<String> delayed = new ArrayList<>(new TreeSet<>(messages.stream().filter(m -> m.delay() != null)
                .map(NewMessage::partitionKey).toList()));
        Statement advance = delayed.isEmpty() ? heads : PublishSql.AdvanceHeadsDelayed.of(tenant, topic, heads, delayed, messages);
        int matched = Jdbc.update(c, advance.sql(), advance);
        if (matched != heads.keys().size()) {
            throw new SQLException("advance of " + heads.keys().size() + " locked heads matched " + matched + " rows");
        }
        return offsets;
    }

    /**
     * The heads' move for messages stored at {@code offsets}: per partition, in key order, its
     * newest offset and how many of the messages it received.
     */
    static PublishSql.AdvanceHeads advance(String tenant, String topic, List<NewMessage> messages, long[] offsets) {
        java.util.SortedMap<String, long[]> heads = new java.util.TreeMap<>(); // key -> {newest offset, added}
        for (int i = 0; i < messages.size(); i++) {
            long[] h = heads.computeIfAbsent(messages.get(i).partitionKey(), k -> new long[2]);
            h[0] = Math.max(h[0], offsets[i]);
            h[1]++;
        }
        List<Long> newest = new ArrayList<>(heads.size());
        List<Long> added = new ArrayList<>(heads.size());
        for (long[] h : heads.values()) {
            newest.add(h[0]);
            added.add(h[1]);
        }
        return new PublishSql.AdvanceHeads(tenant, topic, new ArrayList<>(heads.keySet()), newest, added);
    }

    /** Key of the map of {@link #lockPartitionsAndFindIds}. */
    public static String identity(String partitionKey, String id) {
        return partitionKey + '\u0000' + id;
    }

    /**
     * Characters of values per insert statement: keeps a statement of large payloads well under
     * the server's {@code max_allowed_packet} (16 MiB by default on MariaDB), even escaped and in
     * UTF-8 (up to 3 bytes a character). A batch of small messages is one statement.
     */
    private static final int INSERT_CHARS_PER_STATEMENT = 2 << 20;

    /**
     * Inserts messages in list order, as multi-row statements of up to
     * {@link #INSERT_CHARS_PER_STATEMENT} characters (one for a usual batch), so offsets increase
     * in list order. Built here rather than by the driver's batch rewriting, which encodes every
     * value twice (once to size the packet): that costs the service more CPU than the insert
     * costs the database.
     *
     * @return the offset of each message, in list order
     */
    private static long[] insert(Connection c, String tenant, String topic, List<NewMessage> messages) throws SQLException {
        long[] offsets = new long[messages.size()];
        int from = 0;
        for (int rows : statementRows(messages, INSERT_CHARS_PER_STATEMENT)) {
            insertRows(c, tenant, topic, messages.subList(from, from + rows), offsets, from);
            from += rows;
        }
        return offsets;
    }

    /**
     * How many messages each insert statement takes, in order: as many as fit in
     * {@code maxChars} characters of values, and at least one (a message larger than that is a
     * statement of its own).
     */
    static List<Integer> statementRows(List<NewMessage> messages, long maxChars) {
        List<Integer> rows = new ArrayList<>();
        int from = 0;
        while (from < messages.size()) {
            int to = from + 1;
            long chars = messages.get(from).chars();
            while (to < messages.size() && chars + messages.get(to).chars() <= maxChars) {
                chars += messages.get(to++).chars();
            }
            rows.add(to - from);
            from = to;
        }
        return rows;
    }

    /**
     * The multi-row insert of {@code rows}, in list order. When no row has trace context or a
     * delay ({@link NewMessage#plain}), each row is a {@link PublishSql#PLAIN_MESSAGE_ROW} of 6 binds;
     * otherwise each is a {@link PublishSql#MESSAGE_ROW} of 10. A bind is driver work in the service
     * for every message (docs/architecture.md, "Rows into statements").
     */
    static Statement insertStatement(String tenant, String topic, List<NewMessage> rows) {
        boolean plain = rows.stream().allMatch(NewMessage::plain);
        String sql = plain
                ? PublishSql.INSERT_PLAIN_MESSAGE + (",\n" + PublishSql.PLAIN_MESSAGE_ROW).repeat(rows.size() - 1)
                : PublishSql.INSERT_MESSAGE + (",\n" + PublishSql.MESSAGE_ROW).repeat(rows.size() - 1);
        List<Bind> binds = new ArrayList<>(rows.size() * (plain ? 6 : 10));
        for (NewMessage m : rows) { // one InsertPlainMessage or InsertMessage per row
            Statement row = plain
                    ? new PublishSql.InsertPlainMessage(tenant, topic, m.partitionKey(), m.id(), m.payloadJson(),
                            m.metadataJson())
                    : new PublishSql.InsertMessage(tenant, topic, m.partitionKey(), m.id(), m.payloadJson(),
                            m.metadataJson(), m.traceparent(), m.tracestate(),
                            m.delay() == null ? null : m.delay().atText(),
                            m.delay() == null ? null : m.delay().afterMicros());
            binds.addAll(row.binds());
        }
        return Statement.of(sql, binds);
    }

    /** One multi-row insert of {@code rows}; writes their offsets into {@code offsets} from {@code at}. */
    private static void insertRows(Connection c, String tenant, String topic, List<NewMessage> rows, long[] offsets, int at)
            throws SQLException {
        Statement insert = insertStatement(tenant, topic, rows);
        try (PreparedStatement ps = Jdbc.prepare(c, insert.sql(), java.sql.Statement.RETURN_GENERATED_KEYS)) {
            insert.bindTo(ps);
            int inserted = ps.executeUpdate();
            if (inserted != rows.size()) {
                throw new SQLException("insert of " + rows.size() + " messages affected " + inserted + " rows");
            }
            try (ResultSet keys = ps.getGeneratedKeys()) {
                int k = 0;
                while (keys.next() && k < rows.size()) {
                    offsets[at + k++] = keys.getLong(1);
                }
                if (k != rows.size()) {
                    throw new SQLException("expected " + rows.size() + " generated offsets, got " + k);
                }
            }
        }
    }
}
