package dev.tenantmq.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeSet;
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
     * Serializes publishers of one partition: a locking read of the partition's newest row.
     * A second publisher of the same partition scans from the end of the partition, meets
     * the first one's locked (or freshly inserted, uncommitted) row and waits until it commits.
     * AUTO_INCREMENT allocates offsets before commit; without this lock a consumer could read
     * offset 11, advance past it, and never see offset 10 committing later. With it, the
     * offsets of a partition commit in offset order.
     *
     * <p>Run under READ COMMITTED this is a plain record lock: no gap locks, so concurrent
     * publishers queue instead of deadlocking on insert intention. An empty partition has no
     * row to lock; then the batch runs again under REPEATABLE READ, where the same statement
     * locks the gap the first rows will go into (see {@link #publish}).
     *
     * <p>One branch per partition of a batch: {@link #lockPartitions} joins the branches of all
     * the batch's partitions, in sorted key order, into one UNION ALL statement, so a publish
     * takes its locks in two round trips (the second confirms the heads did not move while it
     * waited) however many partitions it touches, and in an order two batches share (they
     * cannot deadlock on each other's heads). Binds: {@link LockPartitionHead}.
     */
    static final String LOCK_PARTITION_HEAD = """
            SELECT partition_key, `offset` FROM queue_messages
            WHERE tenant = ? AND topic = ? AND partition_key = ?
            ORDER BY `offset` DESC
            LIMIT 1
            FOR UPDATE""";

    /** Binds of one {@link #LOCK_PARTITION_HEAD} branch, in placeholder order. */
    record LockPartitionHead(String tenant, String topic, String partitionKey) implements Statement {
        @Override
        public String sql() {
            return LOCK_PARTITION_HEAD;
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.of("tenant", tenant), Bind.of("topic", topic), Bind.of("partition_key", partitionKey));
        }
    }

    /**
     * Stored identities among (partition_key, id) pairs, with their offsets: messages still in
     * the topic, and deleted ones (consumed and purged by retention, or deleted by an operator)
     * published less than {@code ?} microseconds ago (see {@link DedupSql}). Both %s are the same
     * list of {@code (?, ?)}. One statement, so it reads both tables from one snapshot: an
     * identity that retention moves meanwhile is found in one or the other. Runs after the head
     * locks, so a concurrent publisher of the same id has committed (READ COMMITTED: the
     * statement sees it).
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

    /** One row of {@link #INSERT_MESSAGE}. Binds: tenant, topic, partition_key, id, payload, metadata. */
    private static final String MESSAGE_ROW = "(?, ?, ?, ?, ?, ?, UTC_TIMESTAMP(6))";

    /**
     * Inserts one message; {@link #insert} appends a {@link #MESSAGE_ROW} per further message, so
     * a batch is one multi-row statement whose rows take consecutive offsets in row order.
     */
    static final String INSERT_MESSAGE = """
            INSERT INTO queue_messages (tenant, topic, partition_key, id, payload, metadata, created_at)
            VALUES """ + MESSAGE_ROW;

    /**
     * Binds of one {@link #MESSAGE_ROW}; alone, the binds of {@link #INSERT_MESSAGE}.
     * {@link #insertRows} joins one per message into a multi-row statement.
     */
    record InsertMessage(String tenant, String topic, String partitionKey, String id, String payloadJson,
                         String metadataJson) implements Statement {
        @Override
        public String sql() {
            return INSERT_MESSAGE;
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.of("tenant", tenant), Bind.of("topic", topic), Bind.of("partition_key", partitionKey),
                    Bind.of("id", id), Bind.of("payload", payloadJson), Bind.of("metadata", metadataJson));
        }
    }

    /**
     * Tenant-scoped discovery (RFC "Subscriber discovery"): never an unscoped
     * {@code WHERE topic = ?}; %s is the tenant IN list. Selecting the bound {@code topic}
     * too lets MySQL and MariaDB skip through the primary key (a loose index scan: cost follows
     * the number of partitions, not of messages); without it both read every row of the topic.
     */
    static final String DISCOVER_PARTITIONS = """
            SELECT DISTINCT tenant, topic, partition_key FROM queue_messages
            WHERE tenant IN (%s) AND topic = ?
            ORDER BY tenant, topic, partition_key""";

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

    /** A message to insert. */
    public record NewMessage(String partitionKey, String id, String payloadJson, String metadataJson) {
        /** Characters of its values, to size insert statements. */
        int chars() {
            return partitionKey.length() + id.length() + payloadJson.length() + metadataJson.length();
        }
    }

    /** Where one published message ended up. */
    public record Published(long offset, boolean duplicate) {}

    /**
     * Publishes a batch in one transaction: all or none (SPEC section 4, "Publish"). Locks
     * each partition in sorted order, finds ids that are already stored, and inserts the
     * rest in request order. A message whose (partitionKey, id) is stored already, was
     * published less than the dedup window ago and deleted since, or repeats an earlier one of
     * the same batch, is a duplicate: it gets the first offset and changes nothing.
     *
     * @param dedupWindowMicros how long a deleted message's identity still makes a duplicate,
     *     counted from its publish, in microseconds ({@code mq.publish.dedup-window})
     * @return one result per message, in request order
     * @throws dev.tenantmq.model.StoreUnavailableException when the database is unreachable; nothing was written
     */
    public List<Published> publish(String tenant, String topic, List<NewMessage> messages, long dedupWindowMicros) {
        SortedSet<String> partitions = new TreeSet<>();
        messages.forEach(m -> partitions.add(m.partitionKey()));
        return db.inTransactionWithGapLocksIfNeeded((c, gapLocks) -> publishLocked(c, tenant, topic, partitions, messages,
                dedupWindowMicros, gapLocks));
    }

    /**
     * The publish transaction body.
     *
     * @throws Db.GapLockNeeded with {@code gapLocks} false when a partition is new (nothing written)
     */
    private static List<Published> publishLocked(Connection c, String tenant, String topic, SortedSet<String> partitions,
                                                 List<NewMessage> messages, long dedupWindowMicros, boolean gapLocks)
            throws SQLException {
        lockPartitions(c, tenant, topic, partitions, gapLocks, "publish");
        Map<String, Long> stored = existingIds(c, tenant, topic, messages, dedupWindowMicros);
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
        long[] offsets = insert(c, tenant, topic, fresh);
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
     * Locks the newest row of each partition, in sorted order so two batches cannot deadlock
     * on each other's partitions, and holds those locks until commit. See {@link #LOCK_PARTITION_HEAD}.
     *
     * <p>The statement runs again until it locks the rows it locked before. A locking read that
     * waits for a row returns that row once it is granted, even when the holder appended a newer
     * head meanwhile; holding only the old head would let the next publisher lock the new one at
     * once, and two publishers would insert together, their offsets committing out of order.
     * Once a second look finds the same heads, no newer row exists, committed or in flight (a
     * row in flight would make it wait), so every other publisher queues on them.
     *
     * @param gapLocks whether the transaction runs under REPEATABLE READ, where the statement
     *     locks the gap an empty partition's first row goes into
     * @param what what appends, for the log of a gap-lock retry
     * @throws Db.GapLockNeeded with {@code gapLocks} false when a partition has no row yet
     *     (nothing locked worth keeping: the caller runs again with gap locks)
     * @throws ConflictRetry when the heads keep moving (the transaction runs again)
     */
    static void lockPartitions(Connection c, String tenant, String topic, SortedSet<String> partitionKeys,
                               boolean gapLocks, String what) throws SQLException {
        Map<String, Long> heads = lockHeads(c, tenant, topic, partitionKeys);
        for (int look = 1; look < MAX_HEAD_LOOKS; look++) {
            if (heads.size() < partitionKeys.size() && !gapLocks) {
                throw new Db.GapLockNeeded(what);
            }
            Map<String, Long> again = lockHeads(c, tenant, topic, partitionKeys);
            if (again.equals(heads)) {
                return;
            }
            heads = again;
        }
        throw new ConflictRetry("the heads of " + partitionKeys.size() + " partitions kept moving");
    }

    /** Looks at the heads after which {@link #lockPartitions} gives up and runs the transaction again. */
    private static final int MAX_HEAD_LOOKS = 16;

    /**
     * One run of {@link #LOCK_PARTITION_HEAD} over all partitions: the offset of each locked head, by key.
     *
     * <p>Through vtgate each partition gets a statement of its own, in the same sorted order:
     * vtgate (Vitess v0.24.4) plans the UNION ALL of locking branches as one route to the
     * tenant's shard and drops every branch's {@code FOR UPDATE}, so the statement would lock
     * nothing and concurrent publishers would commit their offsets out of order (docs/vitess.md,
     * "Findings").
     */
    private static Map<String, Long> lockHeads(Connection c, String tenant, String topic, SortedSet<String> partitionKeys)
            throws SQLException {
        Map<String, Long> heads = new HashMap<>();
        if (Db.isVtgate(c)) {
            for (String key : partitionKeys) {
                lockHeads(c, new LockPartitionHead(tenant, topic, key), heads);
            }
        } else {
            List<Bind> binds = new ArrayList<>(3 * partitionKeys.size());
            for (String key : partitionKeys) { // sorted: the lock order every publisher shares
                binds.addAll(new LockPartitionHead(tenant, topic, key).binds());
            }
            lockHeads(c, Statement.of(Db.unionAll(LOCK_PARTITION_HEAD, partitionKeys.size()), binds), heads);
        }
        return heads;
    }

    private static void lockHeads(Connection c, Statement lock, Map<String, Long> heads) throws SQLException {
        // one row per non-empty partition
        Db.forEach(c, lock.sql(), lock, rs -> heads.put(rs.getString("partition_key"), rs.getLong("offset")));
    }

    /**
     * Finds which (partitionKey, id) pairs are already stored.
     *
     * @return offset by {@code partitionKey + '\u0000' + id}
     */
    private static Map<String, Long> existingIds(Connection c, String tenant, String topic, List<NewMessage> messages,
                                                 long dedupWindowMicros) throws SQLException {
        Map<String, Long> found = new HashMap<>();
        // One statement for a whole batch (at most mq.publish.max-batch-size pairs, 1000 by
        // default); the chunks only bound the statement for a larger configured maximum.
        final int chunk = 2000;
        for (int from = 0; from < messages.size(); from += chunk) {
            SelectExistingIds select = new SelectExistingIds(tenant, topic,
                    messages.subList(from, Math.min(messages.size(), from + chunk)), dedupWindowMicros);
            Db.forEach(c, select.sql(), select, rs -> found.putIfAbsent(
                    identity(rs.getString("partition_key"), rs.getString("id")), rs.getLong("offset")));
        }
        return found;
    }

    /** Key of {@link #existingIds}'s map. */
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
                for (Bind b : new InsertMessage(tenant, topic, m.partitionKey(), m.id(), m.payloadJson(),
                        m.metadataJson()).binds()) {
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
     * the partition head lock of {@link #publish} so that dead-letter offsets, like published
     * ones, commit in offset order.
     *
     * @param gapLocks whether the transaction runs under REPEATABLE READ
     * @return the offset of the dead letter in the dead-letter topic
     * @throws Db.GapLockNeeded when the partition is empty and {@code gapLocks} is false
     */
    public static long appendDeadLetter(Connection c, DeadLetter d, boolean gapLocks) throws SQLException {
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
        lockPartitions(c, d.tenant(), d.dlqTopic(), new TreeSet<>(List.of(d.partitionKey())), gapLocks, "dead letter");
        String metadata = DeadLetterMetadata.of(d.metadataJson(), d.originalTopic(), d.originalOffset(), d.consumerGroup(),
                d.reason(), d.deliveryAttempts());
        long offset = insert(c, d.tenant(), d.dlqTopic(),
                List.of(new NewMessage(d.partitionKey(), d.id(), d.payloadJson(), metadata)))[0];
        if (existing != null) {
            // Logged once the row is written, not on a pass that gives up for gap locks.
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
