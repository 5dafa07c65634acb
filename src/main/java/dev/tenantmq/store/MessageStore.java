package dev.tenantmq.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Set;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeSet;
import dev.tenantmq.model.DeliveryDelay;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * SQL of {@code queue_messages}: publishing and partition discovery. Every statement leads
 * with {@code tenant}, so on Vitess it routes to the one shard that owns the tenant.
 */
@ApplicationScoped
public class MessageStore {
    private static final org.jboss.logging.Logger LOG = org.jboss.logging.Logger.getLogger(MessageStore.class);
    private final Db db;

    MessageStore(Db db) {
        this.db = db;
    }

    /**
     * The partition head lock (docs/architecture.md, "Publish: the partition head lock"): locks
     * the {@code queue_partition_heads} rows of the partitions a request appends to (%s is their
     * IN list), in key order, until commit. Returns each locked head's partition key and offset
     * ({@code id} is NULL, to tell these rows from those of {@link #SELECT_EXISTING_IDS} where
     * {@link #lockPartitionsAndFindIds} runs both as one statement). A partition without a head
     * row yet gets one from {@link #CREATE_HEADS}.
     *
     * <p>Why it orders offsets: AUTO_INCREMENT allocates offsets before commit; without a lock a
     * consumer could read offset 11, advance past it, and never see offset 10 committing later.
     * Every appender of a partition (publish, dead letters) holds its head lock while it inserts
     * and moves the head, so the offsets of a partition commit in offset order.
     *
     * <p>Locks, on MariaDB 10.11 and MySQL 9.7 under READ COMMITTED: an exclusive record lock per
     * existing row (a primary-key look-up: no gap lock), taken in key order, so two requests take
     * their common heads in the same order and cannot deadlock on each other's heads. The row
     * never moves (unlike the newest message row, which the holder replaces), so a publisher that
     * waited holds what it waited for: no confirming second look, and no REPEATABLE READ for an
     * empty partition. Binds: {@link LockHeads}.
     */
    static final String LOCK_HEADS = """
            SELECT partition_key, NULL AS id, head_offset AS `offset` FROM queue_partition_heads
            WHERE tenant = ? AND topic = ? AND partition_key IN (%s)
            ORDER BY partition_key
            FOR UPDATE""";

    /** Binds of {@link #LOCK_HEADS}; {@code partitionKeys} (sorted) fills the IN list. */
    record LockHeads(String tenant, String topic, List<String> partitionKeys) implements Statement {
        @Override
        public String sql() {
            return LOCK_HEADS.formatted(Db.placeholders(partitionKeys.size()));
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.of("tenant", tenant), Bind.of("topic", topic), Bind.each("partition_key", partitionKeys));
        }
    }

    /**
     * Creates the head rows of partitions that {@link #LOCK_HEADS} did not find (the first append
     * to a partition) and locks them until commit; {@link #lockPartitions} appends one
     * {@link #HEAD_ROW} per further partition, in key order. A new row takes an insert-intention
     * lock, which waits only for gap locks, and nobody takes gap locks on this table (no
     * REPEATABLE READ, no secondary index whose duplicate check would lock gaps). A second first
     * appender finds the first one's uncommitted row as a duplicate of the clustered index, which
     * INSERT ... ON DUPLICATE KEY UPDATE locks with an exclusive record lock and waits for; it keeps
     * that lock until commit although the update changes nothing. Binds: {@link CreateHead} per row.
     */
    static final String CREATE_HEADS = """
            INSERT INTO queue_partition_heads (tenant, topic, partition_key, head_offset)
            VALUES (?, ?, ?, 0)
            ON DUPLICATE KEY UPDATE head_offset = head_offset""";

    /** A further row of {@link #CREATE_HEADS}: tenant, topic, partition_key. */
    private static final String HEAD_ROW = "(?, ?, ?, 0)";

    /** Binds of one row of {@link #CREATE_HEADS}; alone, the binds of the statement for one partition. */
    record CreateHead(String tenant, String topic, String partitionKey) implements Statement {
        @Override
        public String sql() {
            return CREATE_HEADS;
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.of("tenant", tenant), Bind.of("topic", topic), Bind.of("partition_key", partitionKey));
        }
    }

    /**
     * Moves the heads a request appended to up to its newest offset in each partition, under the
     * head lock ({@link #LOCK_HEADS}): the first %s is the partition keys, the second their newest
     * offsets in the same order (FIELD finds a row's key among them, ELT picks its offset), the
     * third the keys again. Offsets grow in a partition while the lock is held, so the new value
     * is always the larger one. Binds: {@link AdvanceHeads}.
     */
    static final String ADVANCE_HEADS = """
            UPDATE queue_partition_heads
            SET head_offset = ELT(FIELD(partition_key, %s), %s)
            WHERE tenant = ? AND topic = ? AND partition_key IN (%s)""";

    /** Binds of {@link #ADVANCE_HEADS}: each partition's newest offset ({@code offsets[i]} is {@code keys[i]}'s). */
    record AdvanceHeads(String tenant, String topic, List<String> keys, List<?> offsets) implements Statement {
        @Override
        public String sql() {
            String list = Db.placeholders(keys.size());
            return ADVANCE_HEADS.formatted(list, list, list);
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.each("partition_key", keys), Bind.each("head_offset", offsets),
                    Bind.of("tenant", tenant), Bind.of("topic", topic), Bind.each("partition_key", keys));
        }
    }

    /**
     * {@link #ADVANCE_HEADS} for a request with delayed messages (docs/api.md, "Delayed
     * delivery"): also moves the {@code delayed_until} of the partitions given a delayed message
     * (the third %s; the fourth is every partition's key again) to at least the latest due time
     * of the request: the later of the latest {@code deliverAt} (the first ?, DATETIME(6) text)
     * and the database clock plus the longest {@code deliverAfterSeconds} (the second ?,
     * microseconds). One value for the request is later than some of its messages' due times: the
     * gate of the ready-partitions query stays open a little longer for them, which costs a look,
     * never a delivery ({@link ConsumerSql#partitionHasWork}). Binds: {@link AdvanceHeadsDelayed}.
     */
    static final String ADVANCE_HEADS_DELAYED = """
            UPDATE queue_partition_heads
            SET head_offset = ELT(FIELD(partition_key, %s), %s),
                delayed_until = IF(FIELD(partition_key, %s) > 0,
                                   GREATEST(COALESCE(delayed_until, UTC_TIMESTAMP(6)), CAST(? AS DATETIME(6)),
                                            UTC_TIMESTAMP(6) + INTERVAL ? MICROSECOND),
                                   delayed_until)
            WHERE tenant = ? AND topic = ? AND partition_key IN (%s)""";

    /** No {@code deliverAt} in the request: a due time that never raises the gate. */
    private static final String NO_DUE_TIME = "1970-01-01 00:00:00.000000";

    /**
     * Binds of {@link #ADVANCE_HEADS_DELAYED}: as {@link AdvanceHeads}, plus the partitions
     * given a delayed message ({@code delayed}) and the request's latest due time in its two forms.
     */
    record AdvanceHeadsDelayed(String tenant, String topic, List<String> keys, List<?> offsets, List<String> delayed,
                               String latestAt, long longestAfterMicros) implements Statement {
        static AdvanceHeadsDelayed of(String tenant, String topic, java.util.SortedMap<String, Long> newest,
                                      List<String> delayed, List<NewMessage> messages) {
            String latestAt = NO_DUE_TIME;
            long longest = 0;
            for (NewMessage m : messages) {
                DeliveryDelay d = m.delay();
                if (d != null && d.atText() != null && d.atText().compareTo(latestAt) > 0) {
                    latestAt = d.atText(); // fixed-width text: its order is time order
                } else if (d != null && d.afterMicros() != null) {
                    longest = Math.max(longest, d.afterMicros());
                }
            }
            return new AdvanceHeadsDelayed(tenant, topic, new ArrayList<>(newest.keySet()),
                    new ArrayList<>(newest.values()), delayed, latestAt, longest);
        }

        @Override
        public String sql() {
            String list = Db.placeholders(keys.size());
            return ADVANCE_HEADS_DELAYED.formatted(list, list, Db.placeholders(delayed.size()), list);
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.each("partition_key", keys), Bind.each("head_offset", offsets),
                    Bind.each("partition_key", delayed), Bind.of("deliver_at", latestAt), Bind.of("micros", longestAfterMicros),
                    Bind.of("tenant", tenant), Bind.of("topic", topic), Bind.each("partition_key", keys));
        }
    }

    /**
     * Stored identities among (partition_key, id) pairs, with their offsets: messages still in
     * the topic, and deleted ones (consumed and purged by retention, or deleted by an operator)
     * published less than {@code ?} microseconds ago (see {@link DedupSql}). Both %s are the same
     * list of {@code (?, ?)}. One statement, so it reads both tables from one snapshot: an
     * identity that retention moves meanwhile is found in one or the other. It may miss an id that
     * a concurrent publisher of the same partition commits meanwhile (it runs in the statement of
     * the head lock, {@link #lockPartitionsAndFindIds}): then the insert meets that row in
     * {@code uq_message_id}, fails with a duplicate key, and {@link Db} runs the transaction again,
     * which finds it.
     */
    static final String SELECT_EXISTING_IDS = """
            SELECT partition_key, id, `offset` FROM queue_messages
            WHERE tenant = ? AND topic = ? AND (partition_key, id) IN (%s)
            UNION ALL
            SELECT partition_key, id, `offset` FROM queue_dedup_ids
            WHERE tenant = ? AND topic = ? AND (partition_key, id) IN (%s)
              AND created_at > UTC_TIMESTAMP(6) - INTERVAL ? MICROSECOND""";

    /** Binds of {@link #SELECT_EXISTING_IDS}, in placeholder order ({@code pairs} fills each IN list). */
    record SelectExistingIds(String tenant, String topic, List<NewMessage> pairs, long dedupWindowMicros)
            implements Statement {
        @Override
        public String sql() {
            String pairList = String.join(", ", java.util.Collections.nCopies(pairs.size(), "(?, ?)"));
            return SELECT_EXISTING_IDS.formatted(pairList, pairList);
        }

        @Override
        public List<Bind> binds() {
            List<Bind> pairBinds = new ArrayList<>(2 * pairs.size());
            for (NewMessage m : pairs) { // the (partition_key, id) pairs of the IN list
                pairBinds.add(Bind.of("partition_key", m.partitionKey()));
                pairBinds.add(Bind.of("id", m.id()));
            }
            return Bind.list(Bind.of("tenant", tenant), Bind.of("topic", topic), pairBinds, // queue_messages
                    Bind.of("tenant", tenant), Bind.of("topic", topic), pairBinds, // queue_dedup_ids
                    Bind.of("micros", dedupWindowMicros)); // the window of deleted identities
        }
    }

    /**
     * One row of {@link #INSERT_MESSAGE}. Binds: tenant, topic, partition_key, id, payload,
     * metadata, then the delay (docs/api.md, "Delayed delivery"): the due time as DATETIME(6)
     * text, or else microseconds from the database clock; both NULL (no delay) make
     * {@code deliver_at} NULL, so a message without a delay is written as before.
     */
    private static final String MESSAGE_ROW =
            "(?, ?, ?, ?, ?, ?, UTC_TIMESTAMP(6), COALESCE(?, UTC_TIMESTAMP(6) + INTERVAL ? MICROSECOND))";

    /**
     * Inserts one message; {@link #insert} appends a {@link #MESSAGE_ROW} per further message, so
     * a batch is one multi-row statement whose rows take consecutive offsets in row order.
     */
    static final String INSERT_MESSAGE = """
            INSERT INTO queue_messages (tenant, topic, partition_key, id, payload, metadata, created_at, deliver_at)
            VALUES """ + MESSAGE_ROW;

    /**
     * Binds of one {@link #MESSAGE_ROW}; alone, the binds of {@link #INSERT_MESSAGE}.
     * {@link #insertRows} joins one per message into a multi-row statement.
     */
    record InsertMessage(String tenant, String topic, String partitionKey, String id, String payloadJson,
                         String metadataJson, String deliverAt, Long delayMicros) implements Statement {
        /** A message without a delay. */
        InsertMessage(String tenant, String topic, String partitionKey, String id, String payloadJson,
                      String metadataJson) {
            this(tenant, topic, partitionKey, id, payloadJson, metadataJson, null, null);
        }

        @Override
        public String sql() {
            return INSERT_MESSAGE;
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.of("tenant", tenant), Bind.of("topic", topic), Bind.of("partition_key", partitionKey),
                    Bind.of("id", id), Bind.of("payload", payloadJson), Bind.of("metadata", metadataJson),
                    Bind.of("deliver_at", deliverAt), Bind.of("micros", delayMicros)); // deliver_at: one or neither
        }
    }

    /**
     * Tenant-scoped discovery (RFC "Subscriber discovery"): never an unscoped
     * {@code WHERE topic = ?}; %s is the tenant IN list. Reads the partition heads (migration V5),
     * one row per partition in key order, and keeps those that still store a message (one step
     * into the primary key each): a partition whose messages were all deleted is not offered for
     * leasing, as before heads existed, though its head stays.
     */
    static final String DISCOVER_PARTITIONS = """
            SELECT h.tenant, h.topic, h.partition_key FROM queue_partition_heads h
            WHERE h.tenant IN (%s) AND h.topic = ?
              AND EXISTS (SELECT 1 FROM queue_messages m
                          WHERE m.tenant = h.tenant AND m.topic = h.topic AND m.partition_key = h.partition_key)
            ORDER BY h.tenant, h.topic, h.partition_key""";

    /** Binds of {@link #DISCOVER_PARTITIONS}, in placeholder order ({@code tenants} fills the IN list). */
    record DiscoverPartitions(List<String> tenants, String topic) implements Statement {
        @Override
        public String sql() {
            return DISCOVER_PARTITIONS.formatted(Db.placeholders(tenants.size()));
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.each("tenant", tenants), Bind.of("topic", topic));
        }
    }

    /** A hung shard fails discovery after this long instead of stalling the scheduler. */
    static final int DISCOVERY_TIMEOUT_SECONDS = 5;

    /**
     * A message to insert.
     *
     * @param generatedId whether the service generated {@code id} (a random UUID, SPEC section 4
     *     "Publish": {@code id} optional): no stored message can have it, so publish does not look
     *     it up, and a request of such messages only skips the look-up statement
     * @param delay when it may be delivered first (docs/api.md, "Delayed delivery"), or null: at once
     */
    public record NewMessage(String partitionKey, String id, String payloadJson, String metadataJson,
                             boolean generatedId, DeliveryDelay delay) {
        /** A message with a caller-chosen id and no delay. */
        public NewMessage(String partitionKey, String id, String payloadJson, String metadataJson) {
            this(partitionKey, id, payloadJson, metadataJson, false);
        }

        /** A message without a delay. */
        public NewMessage(String partitionKey, String id, String payloadJson, String metadataJson,
                          boolean generatedId) {
            this(partitionKey, id, payloadJson, metadataJson, generatedId, null);
        }

        /** Characters of its values, to size insert statements. */
        int chars() {
            return partitionKey.length() + id.length() + payloadJson.length() + metadataJson.length();
        }
    }

    /** Where one published message ended up. */
    public record Published(long offset, boolean duplicate) {}

    /**
     * Publishes a batch in one transaction: all or none (SPEC section 4, "Publish"). Locks the
     * heads of its partitions ({@link #LOCK_HEADS}) and finds its caller-chosen ids that are
     * already stored in one statement, inserts the rest in request order and moves the heads to
     * the new offsets: three statements and a commit however many partitions the batch touches,
     * one more when a partition is new ({@link #CREATE_HEADS}). A message whose (partitionKey, id)
     * is stored already, was published less than the dedup window ago and deleted since, or
     * repeats an earlier one of the same batch, is a duplicate: it gets the first offset and
     * changes nothing.
     *
     * @param dedupWindowMicros how long a deleted message's identity still makes a duplicate,
     *     counted from its publish, in microseconds ({@code mq.publish.dedup-window})
     * @return one result per message, in request order
     * @throws dev.tenantmq.model.StoreUnavailableException when the database is unreachable; nothing was written
     */
    public List<Published> publish(String tenant, String topic, List<NewMessage> messages, long dedupWindowMicros) {
        SortedSet<String> partitions = new TreeSet<>();
        messages.forEach(m -> partitions.add(m.partitionKey()));
        return db.inTransaction(Db.Isolation.READ_COMMITTED, c -> publishLocked(c, tenant, topic, partitions, messages,
                dedupWindowMicros));
    }

    /** The publish transaction body. */
    private static List<Published> publishLocked(Connection c, String tenant, String topic, SortedSet<String> partitions,
                                                 List<NewMessage> messages, long dedupWindowMicros)
            throws SQLException {
        List<NewMessage> chosenIds = messages.stream().filter(m -> !m.generatedId()).toList();
        Map<String, Long> stored = lockPartitionsAndFindIds(c, tenant, topic, partitions, chosenIds, dedupWindowMicros);
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
     * ALL of {@link #LOCK_HEADS} and {@link #SELECT_EXISTING_IDS} (the heads branch first, so
     * the look-up usually reads after the lock is granted; see {@link #SELECT_EXISTING_IDS} for
     * why it need not), plus {@link #CREATE_HEADS} when a partition has no head yet.
     *
     * <p>Through vtgate the lock and the look-up are statements of their own: vtgate (Vitess
     * v0.24.4) plans a UNION ALL as one route to the tenant's shard and drops the locking clause of
     * its branches (docs/vitess.md, "Findings"), so the heads would not be locked.
     *
     * @param partitionKeys sorted: the lock order every appender shares
     * @param lookUp messages whose ids to look up (no message: no look-up)
     * @return offset by {@link #identity} of each stored one
     */
    static Map<String, Long> lockPartitionsAndFindIds(Connection c, String tenant, String topic,
                                                     SortedSet<String> partitionKeys, List<NewMessage> lookUp,
                                                     long dedupWindowMicros) throws SQLException {
        LockHeads lock = new LockHeads(tenant, topic, new ArrayList<>(partitionKeys));
        Set<String> locked = new HashSet<>();
        Map<String, Long> found = new HashMap<>();
        Db.RowReader read = rs -> {
            String id = rs.getString("id");
            if (id == null) {
                locked.add(rs.getString("partition_key"));
            } else {
                found.putIfAbsent(identity(rs.getString("partition_key"), id), rs.getLong("offset"));
            }
        };
        // One statement for a whole batch (at most mq.publish.max-batch-size pairs, 1000 by
        // default); the chunks only bound the statement for a larger configured maximum.
        final int chunk = 2000;
        if (!lookUp.isEmpty() && lookUp.size() <= chunk && !Db.isVtgate(c)) {
            SelectExistingIds ids = new SelectExistingIds(tenant, topic, lookUp, dedupWindowMicros);
            Statement both = Statement.of("(" + lock.sql() + ")\nUNION ALL\n" + ids.sql(),
                    Bind.list(lock.binds(), ids.binds()));
            Db.forEach(c, both.sql(), both, read);
        } else {
            Db.forEach(c, lock.sql(), lock, read);
            for (int from = 0; from < lookUp.size(); from += chunk) {
                SelectExistingIds ids = new SelectExistingIds(tenant, topic,
                        lookUp.subList(from, Math.min(lookUp.size(), from + chunk)), dedupWindowMicros);
                Db.forEach(c, ids.sql(), ids, read);
            }
        }
        if (locked.size() < partitionKeys.size()) {
            createHeads(c, tenant, topic, partitionKeys.stream().filter(k -> !locked.contains(k)).toList());
        }
        return found;
    }

    /**
     * Locks the heads of the given partitions until commit, creating the rows of new partitions.
     * See {@link #LOCK_HEADS}.
     *
     * @param partitionKeys sorted: the lock order every appender shares
     */
    static void lockPartitions(Connection c, String tenant, String topic, SortedSet<String> partitionKeys)
            throws SQLException {
        lockPartitionsAndFindIds(c, tenant, topic, partitionKeys, List.of(), 0);
    }

    /** Runs {@link #CREATE_HEADS} for {@code keys} (sorted), one statement. */
    private static void createHeads(Connection c, String tenant, String topic, List<String> keys) throws SQLException {
        List<Bind> binds = new ArrayList<>(3 * keys.size());
        for (String key : keys) {
            binds.addAll(new CreateHead(tenant, topic, key).binds());
        }
        String sql = CREATE_HEADS.replace("VALUES (?, ?, ?, 0)",
                "VALUES (?, ?, ?, 0)" + (",\n       " + HEAD_ROW).repeat(keys.size() - 1));
        Statement create = Statement.of(sql, binds);
        Db.update(c, create.sql(), create); // 1 per new row, 0 or 1 per row another appender created: no count to check
    }

    /**
     * Inserts {@code messages} under the head locks of their partitions and moves each head to
     * its partition's newest new offset ({@link #ADVANCE_HEADS}).
     *
     * @return the offset of each message, in list order
     */
    static long[] append(Connection c, String tenant, String topic, List<NewMessage> messages)
            throws SQLException {
        if (messages.isEmpty()) {
            return new long[0];
        }
        long[] offsets = insert(c, tenant, topic, messages);
        java.util.SortedMap<String, Long> newest = new java.util.TreeMap<>();
        for (int i = 0; i < messages.size(); i++) {
            newest.merge(messages.get(i).partitionKey(), offsets[i], Math::max);
        }
        List<String> delayed = new ArrayList<>(new TreeSet<>(messages.stream().filter(m -> m.delay() != null)
                .map(NewMessage::partitionKey).toList()));
        Statement advance = delayed.isEmpty()
                ? new AdvanceHeads(tenant, topic, new ArrayList<>(newest.keySet()), new ArrayList<>(newest.values()))
                : AdvanceHeadsDelayed.of(tenant, topic, newest, delayed, messages);
        int matched = Db.update(c, advance.sql(), advance);
        if (matched != newest.size()) {
            throw new SQLException("advance of " + newest.size() + " locked heads matched " + matched + " rows");
        }
        return offsets;
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

    /** One multi-row insert of {@code rows}; writes their offsets into {@code offsets} from {@code at}. */
    private static void insertRows(Connection c, String tenant, String topic, List<NewMessage> rows, long[] offsets, int at)
            throws SQLException {
        String sql = INSERT_MESSAGE + (",\n" + MESSAGE_ROW).repeat(rows.size() - 1);
        try (PreparedStatement ps = c.prepareStatement(sql, java.sql.Statement.RETURN_GENERATED_KEYS)) {
            int i = 1;
            for (NewMessage m : rows) { // one InsertMessage per MESSAGE_ROW
                DeliveryDelay d = m.delay();
                for (Bind b : new InsertMessage(tenant, topic, m.partitionKey(), m.id(), m.payloadJson(),
                        m.metadataJson(), d == null ? null : d.atText(), d == null ? null : d.afterMicros()).binds()) {
                    ps.setObject(i++, b.value());
                }
            }
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

    /**
     * The message of a partition with a given id, locked: a dead letter already written by
     * another consumer group is merged into, not written twice (SPEC "Dead letters").
     * Binds: {@link LockMessageById}.
     */
    static final String LOCK_MESSAGE_BY_ID = """
            SELECT `offset`, metadata FROM queue_messages
            WHERE tenant = ? AND topic = ? AND partition_key = ? AND id = ?
            FOR UPDATE""";

    /** Binds of {@link #LOCK_MESSAGE_BY_ID}: one message by its complete identity ({@code topic} may be a dead-letter topic). */
    record LockMessageById(String tenant, String topic, String partitionKey, String id) implements Statement {
        @Override
        public String sql() {
            return LOCK_MESSAGE_BY_ID;
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.of("tenant", tenant), Bind.of("topic", topic), Bind.of("partition_key", partitionKey),
                    Bind.of("id", id));
        }
    }

    /** Binds: {@link DeleteMessageAt}. */
    static final String DELETE_MESSAGE_AT = """
            DELETE FROM queue_messages
            WHERE tenant = ? AND topic = ? AND partition_key = ? AND `offset` = ?""";

    /** Binds of {@link #DELETE_MESSAGE_AT}: one message by its offset. */
    record DeleteMessageAt(String tenant, String topic, String partitionKey, long offset)
            implements Statement {
        @Override
        public String sql() {
            return DELETE_MESSAGE_AT;
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.of("tenant", tenant), Bind.of("topic", topic), Bind.of("partition_key", partitionKey),
                    Bind.of("offset", offset));
        }
    }

    /** Binds: {@link UpdateMetadata}. */
    static final String UPDATE_METADATA = """
            UPDATE queue_messages SET metadata = ?
            WHERE tenant = ? AND topic = ? AND partition_key = ? AND `offset` = ?""";

    /** Binds of {@link #UPDATE_METADATA}: the new JSON text, then the message. */
    record UpdateMetadata(String metadataJson, String tenant, String topic, String partitionKey, long offset)
            implements Statement {
        @Override
        public String sql() {
            return UPDATE_METADATA;
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.of("metadata", metadataJson), // SET
                    Bind.of("tenant", tenant), Bind.of("topic", topic), Bind.of("partition_key", partitionKey),
                    Bind.of("offset", offset));
        }
    }

    /**
     * One dead letter (SPEC "Dead letters"): the original message, where it came from, and why.
     *
     * @param deliveryAttempts failed delivery attempts of the message in {@code consumerGroup}
     */
    public record DeadLetter(String tenant, String dlqTopic, String partitionKey, String id, String payloadJson,
                             String metadataJson, String originalTopic, long originalOffset, String consumerGroup,
                             String reason, int deliveryAttempts) {}

    /**
     * Writes a dead letter inside the caller's transaction, with the same tenant, partition key
     * and id as the original. When the dead-letter topic already holds that id (another group
     * dead-lettered the same message) its metadata gains this group in {@code consumer_group}
     * and nothing else changes, so several groups never fail on the unique key. A row with that
     * id that is not a dead letter of this message is replaced. A new row takes
     * the partition head lock of {@link #publish} ({@link #lockPartitions}) and moves the head, so
     * that dead-letter offsets, like published ones, commit in offset order.
     *
     * @return the offset of the dead letter in the dead-letter topic
     */
    public static long appendDeadLetter(Connection c, DeadLetter d) throws SQLException {
        Long existing = null;
        String existingMetadata = null;
        LockMessageById lock = new LockMessageById(d.tenant(), d.dlqTopic(), d.partitionKey(), d.id());
        try (PreparedStatement ps = c.prepareStatement(lock.sql())) {
            lock.bindTo(ps);
            try (ResultSet rs = ps.executeQuery()) {
                if (rs.next()) {
                    existing = rs.getLong("offset");
                    existingMetadata = rs.getString("metadata");
                }
            }
        }
        if (existing != null && DeadLetterMetadata.isDeadLetterOf(existingMetadata, d.originalTopic(), d.originalOffset())) {
            // Another group dead-lettered this very message: name this group too.
            UpdateMetadata update = new UpdateMetadata(DeadLetterMetadata.addGroup(existingMetadata, d.consumerGroup()),
                    d.tenant(), d.dlqTopic(), d.partitionKey(), existing);
            int n = Db.update(c, update.sql(), update);
            if (n != 1) {
                throw new SQLException("dead-letter metadata update changed " + n + " rows, expected 1");
            }
            return existing;
        }
        if (existing != null) {
            // The id is taken by a row that is not a dead letter of this message: published there
            // directly, or the dead letter of an earlier message with this id that was deleted. The
            // new dead letter supersedes it, at a new offset so that consumers of the dead-letter
            // topic see it; the old row goes, as an admin delete would remove it.
            DeleteMessageAt delete = new DeleteMessageAt(d.tenant(), d.dlqTopic(), d.partitionKey(), existing);
            if (Db.update(c, delete.sql(), delete) != 1) {
                throw new SQLException("delete of a locked dead-letter row changed no row");
            }
        }
        lockPartitions(c, d.tenant(), d.dlqTopic(), new TreeSet<>(List.of(d.partitionKey())));
        String metadata = DeadLetterMetadata.of(d.metadataJson(), d.originalTopic(), d.originalOffset(), d.consumerGroup(),
                d.reason(), d.deliveryAttempts());
        long offset = append(c, d.tenant(), d.dlqTopic(),
                List.of(new NewMessage(d.partitionKey(), d.id(), d.payloadJson(), metadata)))[0];
        if (existing != null) {
            LOG.warnf("dead letter of tenant=%s topic=%s offset=%d replaced row %d of %s with the same partition key"
                    + " and id, which was not a dead letter of that message", d.tenant(), d.originalTopic(),
                    d.originalOffset(), existing, d.dlqTopic());
        }
        return offset;
    }

    /** A discovered partition. */
    public record DiscoveredPartition(String tenant, String partitionKey) {}

    /**
     * Runs tenant-scoped discovery for one topic (see {@link #DISCOVER_PARTITIONS}).
     *
     * @param tenants served tenants to look in; never empty
     * @throws dev.tenantmq.model.StoreUnavailableException when a shard of these tenants is unreachable
     */
    public List<DiscoveredPartition> discover(List<String> tenants, String topic) {
        return db.read(c -> discover(c, tenants, topic));
    }

    private static List<DiscoveredPartition> discover(Connection c, List<String> tenants, String topic) throws SQLException {
        List<DiscoveredPartition> result = new ArrayList<>();
        DiscoverPartitions discover = new DiscoverPartitions(tenants, topic);
        try (PreparedStatement ps = c.prepareStatement(discover.sql())) {
            ps.setQueryTimeout(DISCOVERY_TIMEOUT_SECONDS);
            discover.bindTo(ps);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    result.add(new DiscoveredPartition(rs.getString("tenant"), rs.getString("partition_key")));
                }
            }
        }
        return result;
    }
}
