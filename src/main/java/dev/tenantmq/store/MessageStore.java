package dev.tenantmq.store;

import dev.tenantmq.model.GroupCommit;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import dev.tenantmq.model.TraceContext;
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
     * Tenant-scoped discovery (RFC "Subscriber discovery"): never an unscoped
     * {@code WHERE topic = ?}; %s is the tenant IN list. Reads the partition heads (migration V5),
     * one row per partition in key order, and keeps those that still store a message (one step
     * into the primary key each): a partition whose messages were all deleted is not offered for
     * leasing, as before heads existed, though its head stays. The step is a scalar subquery with
     * {@code LIMIT 1}, not an {@code EXISTS}: MariaDB turned that into a semi-join and
     * materialized it from every stored message of the topic (100,000 rows read to discover 100
     * partitions in the benchmark; docs/architecture.md, "Reads that do not grow with the backlog").
     */
    static final String DISCOVER_PARTITIONS = """
            SELECT h.tenant, h.topic, h.partition_key FROM queue_partition_heads h
            WHERE h.tenant IN (%s) AND h.topic = ?
              AND (SELECT m.`offset` FROM queue_messages m FORCE INDEX (PRIMARY)
                   WHERE m.tenant = h.tenant AND m.topic = h.topic AND m.partition_key = h.partition_key
                   LIMIT 1) IS NOT NULL
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
     * Publishes a batch in one transaction: all or none (SPEC section 4, "Publish"), by the
     * protocol of {@link PublishTransaction#publish}. Locks the heads of its partitions
     * ({@link PublishSql#LOCK_HEADS}) and finds its caller-chosen ids that are already stored in
     * one statement, inserts the rest in request order and moves the heads to the new offsets:
     * three statements and a commit however many partitions the batch touches, one more when a
     * partition is new ({@link PublishSql#CREATE_HEADS}). A message whose (partitionKey, id)
     * is stored already, was published less than the dedup window ago and deleted since, or
     * repeats an earlier one of the same batch, is a duplicate: it gets the first offset and
     * changes nothing.
     *
     * @param dedupWindowMicros how long a deleted message's identity still makes a duplicate,
     *     counted from its publish, in microseconds ({@code mq.publish.dedup-window})
     * @return one result per message, in request order
     * @throws dev.tenantmq.model.StoreUnavailableException when the database is unreachable; nothing was written
     */
    public List<PublishTransaction.Published> publish(String tenant, String topic,
                                                      List<PublishTransaction.NewMessage> messages, long dedupWindowMicros) {
        return publish(tenant, topic, messages, dedupWindowMicros, () -> { });
    }

    /**
     * As {@link #publish(String, String, List, long)}, running {@code beforeCommit} when the
     * statements are done, just before the {@code COMMIT} ({@link Db#inTransaction(Db.Isolation,
     * Db.Work, Runnable)}): from then on the heads' locks are about to be released.
     */
    public List<PublishTransaction.Published> publish(String tenant, String topic,
                                                      List<PublishTransaction.NewMessage> messages, long dedupWindowMicros,
                                                      Runnable beforeCommit) {
        return db.inTransaction(Db.Isolation.READ_COMMITTED, c -> PublishTransaction.publish(c, tenant, topic, messages,
                dedupWindowMicros, PublishTransaction.LookUp.IN_LOCK_STATEMENT), beforeCommit);
    }

    /**
     * Publishes the messages of several requests in one transaction (group commit,
     * docs/architecture.md "Group commit"): exactly as {@link #publish} of their messages
     * concatenated in request order, so a request's duplicate of an earlier request's message is
     * answered as if the requests had run one after the other. All or none: when it fails, no
     * request's messages were stored.
     *
     * @param requests each request's messages, in request order
     * @param beforeCommit as {@link #publish(String, String, List, long, Runnable)}
     * @return one result list per request, in request order, each in its request's message order
     * @throws dev.tenantmq.model.StoreUnavailableException when the database is unreachable; nothing was written
     */
    public List<List<PublishTransaction.Published>> publishAll(String tenant, String topic,
                                                                List<List<PublishTransaction.NewMessage>> requests,
                                                                long dedupWindowMicros, Runnable beforeCommit) {
        List<PublishTransaction.NewMessage> all = GroupCommit.concat(requests);
        List<PublishTransaction.Published> stored = publish(tenant, topic, all, dedupWindowMicros, beforeCommit);
        return GroupCommit.split(stored, requests.stream().map(List::size).toList());
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
     * It keeps the original's trace context, so its consumers continue the publisher's trace too.
     *
     * @param deliveryAttempts failed delivery attempts of the message in {@code consumerGroup}
     */
    public record DeadLetter(String tenant, String dlqTopic, String partitionKey, String id, String payloadJson,
                             String metadataJson, String originalTopic, long originalOffset, String consumerGroup,
                             String reason, int deliveryAttempts, TraceContext trace) {}

    /**
     * Writes a dead letter inside the caller's transaction, with the same tenant, partition key
     * and id as the original. When the dead-letter topic already holds that id (another group
     * dead-lettered the same message) its metadata gains this group in {@code consumer_group}
     * and nothing else changes, so several groups never fail on the unique key. A row with that
     * id that is not a dead letter of this message is replaced. It takes the partition head lock
     * of {@link #publish} ({@link PublishTransaction#lockPartitions}) first, as every writer of a
     * partition does, and a new row moves the head, so that dead-letter offsets, like published
     * ones, commit in offset order.
     *
     * @return the offset of the dead letter in the dead-letter topic
     */
    public static long appendDeadLetter(Connection c, DeadLetter d) throws SQLException {
        // The head first, as every writer of a partition takes it (docs/architecture.md, "Lag from
        // the partition heads"): then the row with the id, which a delete takes after the head too.
        PublishTransaction.lockPartitions(c, d.tenant(), d.dlqTopic(), new TreeSet<>(List.of(d.partitionKey())));
        Long existing = null;
        String existingMetadata = null;
        LockMessageById lock = new LockMessageById(d.tenant(), d.dlqTopic(), d.partitionKey(), d.id());
        try (PreparedStatement ps = Jdbc.prepare(c, lock.sql())) {
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
            // topic see it; the old row goes as an admin delete removes it, with its delivery state,
            // and the dead-letter topic's groups walk past it (a receipt of it is then INVALID).
            AdminStore.deleteLockedMessage(c, d.tenant(), d.dlqTopic(), d.partitionKey(), existing);
        }
        String metadata = DeadLetterMetadata.of(d.metadataJson(), d.originalTopic(), d.originalOffset(), d.consumerGroup(),
                d.reason(), d.deliveryAttempts());
        long offset = PublishTransaction.append(c, d.tenant(), d.dlqTopic(),
                List.of(new PublishTransaction.NewMessage(d.partitionKey(), d.id(), d.payloadJson(), metadata, false,
                        d.trace() == null ? null : d.trace().traceparent(),
                        d.trace() == null ? null : d.trace().tracestate())))[0];
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
        try (PreparedStatement ps = Jdbc.prepare(c, discover.sql())) {
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
