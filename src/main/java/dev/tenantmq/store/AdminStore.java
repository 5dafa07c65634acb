package dev.tenantmq.store;

import dev.tenantmq.model.TraceContext;
import dev.tenantmq.model.DeadLetterPolicy;
import dev.tenantmq.model.DeliveryState;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * SQL of the admin API (SPEC section 4, "Admin"; RFC "Operational tooling"). Listings take a
 * tenant scope: one tenant ({@code tenant = ?}, one shard) or, only when the caller asked for
 * all tenants, none. The all-tenants variants are the RFC's explicit fleet-wide reads: on
 * Vitess they scatter to every shard, by design. Inspect, delete and requeue name one message
 * by its complete identity (tenant, topic, partition_key, id).
 */
@ApplicationScoped
public class AdminStore {
    /** Replaces {@code %s} in the listing templates below: one tenant. */
    private static final String ONE_TENANT = "tenant = ?";
    /** Replaces {@code %s}: every tenant (explicit fleet-wide read; scatters on Vitess). */
    private static final String ALL_TENANTS = "TRUE";

    /**
     * Topics with partition and message counts. %s is the tenant predicate. The counts need the
     * key columns only, so they read {@code uq_message_id}, whose entries hold them without the
     * payload, where the optimizer reads the primary key and every message's page
     * (docs/operations.md, "Counting messages"). Binds: see {@link ListTopics}.
     */
    private static final String TOPICS = """
            SELECT tenant, topic, COUNT(DISTINCT partition_key) AS partition_count, COUNT(*) AS message_count
            FROM queue_messages FORCE INDEX (uq_message_id)
            WHERE %s
            GROUP BY tenant, topic
            ORDER BY tenant, topic
            LIMIT ?""";
    static final String LIST_TOPICS = TOPICS.formatted(ONE_TENANT);
    static final String LIST_TOPICS_ALL_TENANTS = TOPICS.formatted(ALL_TENANTS);

    /** Binds of {@link #LIST_TOPICS} (with a tenant) or {@link #LIST_TOPICS_ALL_TENANTS}, in placeholder order. */
    record ListTopics(Optional<String> tenant, int limit) implements Statement {
        @Override
        public String sql() {
            return tenant.isPresent() ? LIST_TOPICS : LIST_TOPICS_ALL_TENANTS;
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(tenantBinds(tenant), Bind.of("limit", limit));
        }
    }

    /** Maps a row of {@link #TOPICS}. */
    private static final Db.RowMapper<TopicRow> TOPIC_ROW = rs -> new TopicRow(rs.getString("tenant"),
            rs.getString("topic"), rs.getLong("partition_count"), rs.getLong("message_count"));

    /**
     * Committed offset per (partition, group), with the partition's newest offset (at least the
     * committed one: retention may have deleted every consumed row) and the lag: the messages
     * above the committed offset. Optional topic and group filters (null = any).
     * Correlated subqueries, not a join with GROUP BY: they stop at LIMIT, where a join groups
     * every row of every partition first. The newest offset is one backward step of the primary
     * key (a correlated {@code MAX} read the whole partition; docs/architecture.md, "Reads that do
     * not grow with the backlog"). A correlated {@code offset > o.committed_offset} gives the count
     * no range, so it reads every stored message of the partition: from {@code uq_message_id},
     * whose entries hold the keys without the payload (docs/operations.md, "Counting messages").
     * They correlate on tenant, so vtgate pushes the statement down whole. The
     * COALESCE around each subquery changes no value; it lets vtexplain's fake tablets type the
     * column, without which its scatter merge fails (see VitessRoutingTest).
     */
    private static final String OFFSETS = """
            SELECT o.tenant, o.topic, o.partition_key, o.consumer_group, o.committed_offset,
                   GREATEST(o.committed_offset, COALESCE((
                       SELECT m.`offset` FROM queue_messages m FORCE INDEX (PRIMARY)
                       WHERE m.tenant = o.tenant AND m.topic = o.topic AND m.partition_key = o.partition_key
                       ORDER BY m.tenant DESC, m.topic DESC, m.partition_key DESC, m.`offset` DESC
                       LIMIT 1), 0))
                     AS latest_offset,
                   COALESCE((
                       SELECT COUNT(*) FROM queue_messages m FORCE INDEX (uq_message_id)
                       WHERE m.tenant = o.tenant AND m.topic = o.topic AND m.partition_key = o.partition_key
                         AND m.`offset` > o.committed_offset), 0)
                     AS lag_messages
            FROM queue_offsets o
            WHERE %s AND (? IS NULL OR o.topic = ?) AND (? IS NULL OR o.consumer_group = ?)
            ORDER BY o.tenant, o.topic, o.partition_key, o.consumer_group
            LIMIT ?""";
    static final String LIST_OFFSETS = OFFSETS.formatted("o." + ONE_TENANT);
    static final String LIST_OFFSETS_ALL_TENANTS = OFFSETS.formatted(ALL_TENANTS);

    /** Binds of {@link #LIST_OFFSETS} (with a tenant) or {@link #LIST_OFFSETS_ALL_TENANTS}, in placeholder order. */
    record ListOffsets(Optional<String> tenant, String topic, String consumerGroup, int limit) implements Statement {
        @Override
        public String sql() {
            return tenant.isPresent() ? LIST_OFFSETS : LIST_OFFSETS_ALL_TENANTS;
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(tenantBinds(tenant),
                    Bind.of("topic", topic), Bind.of("topic", topic), // (? IS NULL OR o.topic = ?)
                    Bind.of("consumer_group", consumerGroup), Bind.of("consumer_group", consumerGroup), // (? IS NULL OR ...)
                    Bind.of("limit", limit));
        }
    }

    /** Maps a row of {@link #OFFSETS}. */
    private static final Db.RowMapper<OffsetRow> OFFSET_ROW = rs -> new OffsetRow(rs.getString("tenant"),
            rs.getString("topic"), rs.getString("partition_key"), rs.getString("consumer_group"),
            rs.getLong("committed_offset"), rs.getLong("latest_offset"), rs.getLong("lag_messages"));

    /**
     * Leases. Active: not expired and held by a subscriber with a live heartbeat (younger than
     * the heartbeat timeout, in microseconds); anything else is stale (what the orphan sweep or
     * expiry frees). Optional state filter: null any, true active, false stale.
     * The heartbeat is a LEFT JOIN on its primary key (at most one row per lease), not an EXISTS
     * subquery in the select list: vtgate 24's planner (run by vtexplain) splits that off and
     * then runs it without the outer row's tenant ("query arguments missing for l_tenant").
     * {@code active} is a CASE rather than a bare boolean expression because vtexplain's fake
     * tablets cannot type AND or IS in a select list, and its scatter merge then fails.
     */
    private static final String LEASES = """
            SELECT l.tenant, l.consumer_group, l.topic, l.partition_key, l.leased_by, l.epoch,
                   l.expires_at, l.acquired_at, l.renewed_at,
                   CASE WHEN l.expires_at > UTC_TIMESTAMP(6) AND h.subscriber_name IS NOT NULL THEN 1 ELSE 0 END
                     AS active
            FROM queue_partition_leases l
            LEFT JOIN queue_subscriber_heartbeats h
              ON h.tenant = l.tenant AND h.consumer_group = l.consumer_group AND h.topic = l.topic
             AND h.subscriber_name = l.leased_by AND h.last_seen_at > UTC_TIMESTAMP(6) - INTERVAL ? MICROSECOND
            WHERE %s
            HAVING (? IS NULL OR active = ?)
            ORDER BY l.tenant, l.consumer_group, l.topic, l.partition_key
            LIMIT ?""";
    static final String LIST_LEASES = LEASES.formatted("l." + ONE_TENANT);
    static final String LIST_LEASES_ALL_TENANTS = LEASES.formatted(ALL_TENANTS);

    /** Binds of {@link #LIST_LEASES} (with a tenant) or {@link #LIST_LEASES_ALL_TENANTS}, in placeholder order. */
    record ListLeases(long heartbeatTimeoutMicros, Optional<String> tenant, Boolean active, int limit) implements Statement {
        @Override
        public String sql() {
            return tenant.isPresent() ? LIST_LEASES : LIST_LEASES_ALL_TENANTS;
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.of("micros", heartbeatTimeoutMicros), // join h: live heartbeat
                    tenantBinds(tenant),
                    Bind.of("active", active), Bind.of("active", active), // HAVING (? IS NULL OR active = ?)
                    Bind.of("limit", limit));
        }
    }

    /** Maps a row of {@link #LEASES}. */
    private static final Db.RowMapper<LeaseRow> LEASE_ROW = rs -> new LeaseRow(rs.getString("tenant"),
            rs.getString("consumer_group"), rs.getString("topic"), rs.getString("partition_key"),
            rs.getString("leased_by"), rs.getLong("epoch"), Db.instant(rs, "expires_at"), Db.instant(rs, "acquired_at"),
            Db.instant(rs, "renewed_at"), rs.getBoolean("active"));

    /** Subscriber heartbeats; live when younger than the heartbeat timeout (microseconds). */
    private static final String SUBSCRIBERS = """
            SELECT tenant, consumer_group, topic, subscriber_name, started_at, last_seen_at,
                   last_seen_at > UTC_TIMESTAMP(6) - INTERVAL ? MICROSECOND AS live
            FROM queue_subscriber_heartbeats
            WHERE %s
            ORDER BY tenant, consumer_group, topic, subscriber_name
            LIMIT ?""";
    static final String LIST_SUBSCRIBERS = SUBSCRIBERS.formatted(ONE_TENANT);
    static final String LIST_SUBSCRIBERS_ALL_TENANTS = SUBSCRIBERS.formatted(ALL_TENANTS);

    /** Binds of {@link #LIST_SUBSCRIBERS} (with a tenant) or {@link #LIST_SUBSCRIBERS_ALL_TENANTS}, in placeholder order. */
    record ListSubscribers(long heartbeatTimeoutMicros, Optional<String> tenant, int limit) implements Statement {
        @Override
        public String sql() {
            return tenant.isPresent() ? LIST_SUBSCRIBERS : LIST_SUBSCRIBERS_ALL_TENANTS;
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.of("micros", heartbeatTimeoutMicros), // live
                    tenantBinds(tenant), Bind.of("limit", limit));
        }
    }

    /** Maps a row of {@link #SUBSCRIBERS}. */
    private static final Db.RowMapper<SubscriberRow> SUBSCRIBER_ROW = rs -> new SubscriberRow(rs.getString("tenant"),
            rs.getString("consumer_group"), rs.getString("topic"), rs.getString("subscriber_name"),
            Db.instant(rs, "started_at"), Db.instant(rs, "last_seen_at"), rs.getBoolean("live"));

    /**
     * The tenants with consumer groups (a {@code queue_offsets} row), optionally only those with a
     * group on one topic, in tenant order: the fleet-wide scope of
     * {@code GET /admin/consumer-groups?allTenants=true}, whose figures then come from one
     * tenant-scoped {@link QueueStatsStore#stats} read per tenant. Binds: {@link ListGroupTenants}.
     */
    static final String LIST_GROUP_TENANTS_ALL_TENANTS = """
            SELECT DISTINCT tenant FROM queue_offsets
            WHERE TRUE AND (? IS NULL OR topic = ?)
            ORDER BY tenant
            LIMIT ?""";

    /** Binds of {@link #LIST_GROUP_TENANTS_ALL_TENANTS}, in placeholder order; {@code topic} null means any. */
    record ListGroupTenants(String topic, int limit) implements Statement {
        @Override
        public String sql() {
            return LIST_GROUP_TENANTS_ALL_TENANTS;
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.of("topic", topic), Bind.of("topic", topic), // (? IS NULL OR topic = ?)
                    Bind.of("limit", limit));
        }
    }

    /** Binds: {@link SelectMessageById}. Columns: those {@link #MESSAGE_ROW} reads. */
    static final String SELECT_MESSAGE_BY_ID = """
            SELECT partition_key, id, `offset`, payload, metadata, traceparent, tracestate, created_at, deliver_at FROM queue_messages
            WHERE tenant = ? AND topic = ? AND partition_key = ? AND id = ?""";

    /** Binds of {@link #SELECT_MESSAGE_BY_ID}: one message by its complete identity. */
    record SelectMessageById(String tenant, String topic, String partitionKey, String id) implements Statement {
        @Override
        public String sql() {
            return SELECT_MESSAGE_BY_ID;
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.of("tenant", tenant), Bind.of("topic", topic), Bind.of("partition_key", partitionKey),
                    Bind.of("id", id));
        }
    }

    /**
     * A page of a topic's stored messages in offset order (keyset pagination: the rows above
     * {@code afterOffset}), optionally of one partition. Read-only: no consumer state is read or
     * written. Offsets come from one AUTO_INCREMENT column, so they are unique across the
     * partitions of a topic and a page boundary is a single offset. Uses the PRIMARY KEY
     * (tenant, topic, partition_key, `offset`). MariaDB 10.11 EXPLAIN (2,000 rows over 5 tenants
     * and 4 topics): without a partition key type ref, key PRIMARY on (tenant, topic), "Using
     * where; Using filesort" (the topic's rows are filtered on `offset` and the first LIMIT
     * sorted, so a page costs a read of the topic's index range, as /admin/topics does); with one,
     * type range, key PRIMARY on all four columns, no filesort. Binds: see {@link BrowseMessages}.
     */
    static final String BROWSE_MESSAGES = """
            SELECT partition_key, id, `offset`, payload, metadata, traceparent, tracestate, created_at, deliver_at FROM queue_messages
            WHERE tenant = ? AND topic = ? AND (? IS NULL OR partition_key = ?) AND `offset` > ?
            ORDER BY `offset`
            LIMIT ?""";

    /** Binds of {@link #BROWSE_MESSAGES}, in placeholder order; {@code partitionKey} null means every partition. */
    record BrowseMessages(String tenant, String topic, String partitionKey, long afterOffset, int limit)
            implements Statement {
        @Override
        public String sql() {
            return BROWSE_MESSAGES;
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.of("tenant", tenant), Bind.of("topic", topic),
                    Bind.of("partition_key", partitionKey), Bind.of("partition_key", partitionKey), // (? IS NULL OR ...)
                    Bind.of("offset", afterOffset), Bind.of("limit", limit));
        }
    }

    /** Maps a row of {@link #SELECT_MESSAGE_BY_ID} or {@link #BROWSE_MESSAGES}: the one reading of a stored message. */
    private static final Db.RowMapper<MessageRow> MESSAGE_ROW = rs -> new MessageRow(rs.getString("partition_key"),
            rs.getString("id"), rs.getLong("offset"), rs.getString("payload"), rs.getString("metadata"),
            Db.instant(rs, "created_at"), Db.instant(rs, "deliver_at"),
            TraceContext.stored(rs.getString("traceparent"), rs.getString("tracestate")));

    /**
     * Each group that has consumed the partition, with its delivery row of one message, the
     * group's open delivery batch (migration V3), and the message's offset (the first ?) again so
     * that the caller can tell whether the batch holds it. Binds: {@link SelectGroupStates}.
     */
    static final String SELECT_GROUP_STATES = """
            SELECT o.consumer_group, o.committed_offset, d.state, d.delivery_attempt, d.visible_at AS row_visible_at,
                   o.delivered_offset, o.visible_at AS batch_visible_at, d.message_offset
            FROM queue_offsets o
            LEFT JOIN queue_delivery_state d
              ON d.tenant = o.tenant AND d.consumer_group = o.consumer_group AND d.topic = o.topic
             AND d.partition_key = o.partition_key AND d.message_offset = ?
            WHERE o.tenant = ? AND o.topic = ? AND o.partition_key = ?
            ORDER BY o.consumer_group""";

    /** Binds of {@link #SELECT_GROUP_STATES}, in placeholder order. */
    record SelectGroupStates(long offset, String tenant, String topic, String partitionKey) implements Statement {
        @Override
        public String sql() {
            return SELECT_GROUP_STATES;
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.of("message_offset", offset), // join d: the message's delivery row
                    Bind.of("tenant", tenant), Bind.of("topic", topic), Bind.of("partition_key", partitionKey)); // groups
        }
    }

    /** Binds: {@link SelectPartitionGroups}. */
    static final String SELECT_PARTITION_GROUPS = """
            SELECT consumer_group FROM queue_offsets
            WHERE tenant = ? AND topic = ? AND partition_key = ?
            ORDER BY consumer_group""";

    /** Binds of {@link #SELECT_PARTITION_GROUPS}, in placeholder order. */
    record SelectPartitionGroups(String tenant, String topic, String partitionKey) implements Statement {
        @Override
        public String sql() {
            return SELECT_PARTITION_GROUPS;
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.of("tenant", tenant), Bind.of("topic", topic), Bind.of("partition_key", partitionKey));
        }
    }

    /**
     * Locks the lease rows of one partition for the given groups (%s is the IN list), so no
     * fetch or ack of the partition runs while its delivery state changes here. Same lock
     * order as {@link ConsumerStore}: lease rows first, in primary-key order.
     */
    static final String LOCK_PARTITION_LEASES = """
            SELECT consumer_group FROM queue_partition_leases
            WHERE tenant = ? AND consumer_group IN (%s) AND topic = ? AND partition_key = ?
            ORDER BY consumer_group
            FOR UPDATE""";

    /** Binds of {@link #LOCK_PARTITION_LEASES}, in placeholder order ({@code groups} fills the IN list). */
    record LockPartitionLeases(String tenant, List<String> groups, String topic, String partitionKey)
            implements Statement {
        @Override
        public String sql() {
            return LOCK_PARTITION_LEASES.formatted(Db.placeholders(groups.size()));
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.of("tenant", tenant), Bind.each("consumer_group", groups), Bind.of("topic", topic),
                    Bind.of("partition_key", partitionKey));
        }
    }

    /**
     * Requeue of one group's dead letter: the message is handed back (PENDING, attempt 1,
     * visible now). It may lie at or below the committed offset; fetch delivers such messages
     * before anything above it. Binds: {@link RequeueDelivery}.
     */
    static final String REQUEUE_DELIVERY = StateSql.render("""
            UPDATE queue_delivery_state
            SET state = {PENDING}, delivery_attempt = 1, visible_at = UTC_TIMESTAMP(6), updated_at = UTC_TIMESTAMP(6)
            WHERE tenant = ? AND consumer_group = ? AND topic = ? AND partition_key = ? AND message_offset = ?
              AND state = {DEAD}""");

    /** Binds of {@link #REQUEUE_DELIVERY}: one group's delivery row of the original message. */
    record RequeueDelivery(String tenant, String consumerGroup, String topic, String partitionKey, long offset)
            implements Statement {
        @Override
        public String sql() {
            return REQUEUE_DELIVERY;
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.of("tenant", tenant), Bind.of("consumer_group", consumerGroup), Bind.of("topic", topic),
                    Bind.of("partition_key", partitionKey), Bind.of("message_offset", offset));
        }
    }

    /** Binds of {@code ConsumerSql.SELECT_MESSAGE} without a group: the original message of a dead letter. */
    record SelectOriginal(String tenant, String topic, String partitionKey, long offset) implements Statement {
        @Override
        public String sql() {
            return ConsumerSql.SELECT_MESSAGE;
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.of("tenant", tenant), Bind.of("topic", topic), Bind.of("partition_key", partitionKey),
                    Bind.of("offset", offset));
        }
    }

    private final Db db;

    AdminStore(Db db) {
        this.db = db;
    }

    /** A topic of a tenant. */
    public record TopicRow(String tenant, String topic, long partitions, long messages) {}

    /** Committed offset and lag of one group in one partition; {@code latestOffset} 0 when the partition is empty. */
    public record OffsetRow(String tenant, String topic, String partitionKey, String consumerGroup, long committedOffset,
                            long latestOffset, long lag) {}

    /** A partition lease; times are the database's UTC. */
    public record LeaseRow(String tenant, String consumerGroup, String topic, String partitionKey, String leasedBy,
                           long epoch, Instant expiresAt, Instant acquiredAt, Instant renewedAt, boolean active) {}

    /** A subscriber heartbeat. */
    public record SubscriberRow(String tenant, String consumerGroup, String topic, String subscriberName,
                                Instant startedAt, Instant lastSeenAt, boolean live) {}

    /**
     * Topics with partition and message counts.
     *
     * @param tenant one tenant, or empty for all tenants (fleet-wide: scatters on Vitess)
     * @param limit most rows
     */
    public List<TopicRow> topics(Optional<String> tenant, int limit) {
        ListTopics list = new ListTopics(tenant, limit);
        return db.read(c -> Db.list(c, list.sql(), list, TOPIC_ROW));
    }

    /**
     * Committed offsets and lag per (partition, consumer group).
     *
     * @param topic only this topic, or null
     * @param consumerGroup only this group, or null
     */
    public List<OffsetRow> offsets(Optional<String> tenant, String topic, String consumerGroup, int limit) {
        ListOffsets list = new ListOffsets(tenant, topic, consumerGroup, limit);
        return db.read(c -> Db.list(c, list.sql(), list, OFFSET_ROW));
    }

    /**
     * Partition leases.
     *
     * @param active true only active leases, false only stale ones, null both
     * @param heartbeatTimeoutMicros a heartbeat older than this (microseconds) is dead
     */
    public List<LeaseRow> leases(Optional<String> tenant, Boolean active, long heartbeatTimeoutMicros, int limit) {
        ListLeases list = new ListLeases(heartbeatTimeoutMicros, tenant, active, limit);
        return db.read(c -> Db.list(c, list.sql(), list, LEASE_ROW));
    }

    /** Subscriber heartbeats; {@code heartbeatTimeoutMicros} decides which are live. */
    public List<SubscriberRow> subscribers(Optional<String> tenant, long heartbeatTimeoutMicros, int limit) {
        ListSubscribers list = new ListSubscribers(heartbeatTimeoutMicros, tenant, limit);
        return db.read(c -> Db.list(c, list.sql(), list, SUBSCRIBER_ROW));
    }

    /**
     * A stored message as written: payload and metadata are JSON text (a dead letter's metadata
     * holds the dead-letter keys, see {@link DeadLetterMetadata}); times are the database's UTC;
     * {@code trace} is the W3C trace context it was published with, or null.
     *
     * @param deliverAt when it may be delivered first (docs/api.md, "Delayed delivery"), null
     *     when it was published without a delay
     */
    public record MessageRow(String partitionKey, String id, long offset, String payloadJson, String metadataJson,
                             Instant createdAt, Instant deliverAt, TraceContext trace) {}

    /**
     * Up to {@code limit} stored messages of a topic above {@code afterOffset}, in offset order.
     * Reads only queue_messages: no offset, lease, delivery state or heartbeat is touched.
     *
     * @param partitionKey only this partition, or null for all
     */
    public List<MessageRow> browse(String tenant, String topic, String partitionKey, long afterOffset, int limit) {
        BrowseMessages page = new BrowseMessages(tenant, topic, partitionKey, afterOffset, limit);
        return db.read(c -> Db.list(c, page.sql(), page, MESSAGE_ROW));
    }

    /**
     * Tenants that have consumer groups, at most {@code limit}, in tenant order (fleet-wide:
     * scatters on Vitess).
     *
     * @param topic only tenants with a group on this topic, or null
     */
    public List<String> groupTenants(String topic, int limit) {
        ListGroupTenants list = new ListGroupTenants(topic, limit);
        return db.read(c -> Db.list(c, list.sql(), list, rs -> rs.getString("tenant")));
    }

    /** One consumer group's view of a message. {@code state} null: not delivered to the group since its offset. */
    public record GroupState(String consumerGroup, long committedOffset, String state, Integer deliveryAttempt,
                             Instant visibleAt) {}

    /** A stored message with every group's state of it; {@code deliverAt} and {@code trace} as in {@link MessageRow}. */
    public record StoredMessage(long offset, String payloadJson, String metadataJson, Instant createdAt,
                                Instant deliverAt, List<GroupState> groups, TraceContext trace) {}

    /** Reads one message by its complete identity; empty when there is none. */
    public Optional<StoredMessage> message(String tenant, String topic, String partitionKey, String id) {
        return db.read(c -> {
            SelectMessageById select = new SelectMessageById(tenant, topic, partitionKey, id);
            Optional<MessageRow> row = Db.list(c, select.sql(), select, MESSAGE_ROW).stream().findFirst();
            if (row.isEmpty()) {
                return Optional.empty();
            }
            long offset = row.get().offset();
            long messageOffset = offset;
            SelectGroupStates selectStates = new SelectGroupStates(offset, tenant, topic, partitionKey);
            List<GroupState> groups = Db.list(c, selectStates.sql(), selectStates, rs -> {
                        long committed = rs.getLong("committed_offset");
                        boolean hasRow = rs.getObject("message_offset") != null;
                        if (!hasRow && messageOffset > committed && messageOffset <= rs.getLong("delivered_offset")) {
                            // In flight in the group's open batch: attempt 1, the batch's deadline.
                            return new GroupState(rs.getString("consumer_group"), committed,
                                    DeliveryState.INFLIGHT.name(), 1, Db.instant(rs, "batch_visible_at"));
                        }
                        return new GroupState(rs.getString("consumer_group"), committed, rs.getString("state"),
                                rs.getObject("delivery_attempt") == null ? null : rs.getInt("delivery_attempt"),
                                Db.instant(rs, "row_visible_at"));
                    });
            return Optional.of(new StoredMessage(offset, row.get().payloadJson(), row.get().metadataJson(),
                    row.get().createdAt(), row.get().deliverAt(), groups, row.get().trace()));
        });
    }

    /**
     * Deletes one message by its complete identity, with every group's delivery state of it,
     * in one transaction. When it was published less than {@code dedupWindowMicros} ago its
     * identity is remembered, so publishing it again stays a duplicate until then.
     *
     * @return the offset it had, or empty when there was none
     */
    public Optional<Long> delete(String tenant, String topic, String partitionKey, String id, long dedupWindowMicros) {
        return db.inTransaction(Db.Isolation.READ_COMMITTED, c -> {
            RetentionStore.lockHeadsForDelete(c, tenant, topic, new java.util.TreeSet<>(List.of(partitionKey)));
            List<String> groups = partitionGroups(c, tenant, topic, partitionKey);
            lockLeases(c, tenant, topic, partitionKey, groups);
            Optional<LockedMessage> found = lockMessage(c, tenant, topic, partitionKey, id);
            if (found.isEmpty()) {
                return Optional.empty();
            }
            // A producer's retry within the window stays a duplicate (see DedupSql).
            DedupSql.remember(c, tenant, topic, partitionKey, List.of(found.get().offset()), dedupWindowMicros);
            deleteMessage(c, tenant, topic, partitionKey, found.get().offset(), groups);
            CommittedOffsets.walkAfterDelete(c, tenant, topic, groups, Set.of(partitionKey));
            return Optional.of(found.get().offset());
        });
    }

    /** Outcome of {@link #requeue}. */
    public sealed interface Requeue {
        /** Handed back to these groups; the dead letter is deleted. */
        record Done(String originalTopic, long originalOffset, List<String> consumerGroups) implements Requeue {}

        /** No message with that identity in the topic. */
        record NotFound() implements Requeue {}

        /** The message cannot be requeued (nothing changed); {@code why} says what is wrong. */
        record Refused(String why) implements Requeue {}
    }

    /**
     * Requeues one dead letter (SPEC "Dead letters"): each group its metadata names that holds
     * the original message as DEAD gets it back (PENDING, attempt 1, before any later message
     * of the partition), and the dead letter leaves the dead-letter topic, as a delete takes it
     * ({@link #delete}: a group consuming the dead-letter topic commits over it,
     * {@link CommittedOffsets#walkAfterDelete}). One transaction.
     *
     * @param dlqTopic the dead-letter topic, {@code <originalTopic><suffix>}
     * @param suffix the dead-letter suffix
     */
    public Requeue requeue(String tenant, String dlqTopic, String suffix, String partitionKey, String id) {
        return db.inTransaction(Db.Isolation.READ_COMMITTED, c -> {
            // The dead letter leaves its topic as a delete does: the partition's head, the lease rows
            // of the groups that consume the dead-letter partition, then the message (the order of delete).
            RetentionStore.lockHeadsForDelete(c, tenant, dlqTopic, new java.util.TreeSet<>(List.of(partitionKey)));
            List<String> dlqGroups = partitionGroups(c, tenant, dlqTopic, partitionKey);
            lockLeases(c, tenant, dlqTopic, partitionKey, dlqGroups);
            Optional<LockedMessage> found = lockMessage(c, tenant, dlqTopic, partitionKey, id);
            if (found.isEmpty()) {
                return new Requeue.NotFound();
            }
            Map<String, String> m = DeadLetterMetadata.parse(found.get().metadata());
            String originalTopic = m.get(DeadLetterMetadata.ORIGINAL_TOPIC);
            if (!DeadLetterPolicy.isDeadLetterTopic(dlqTopic, suffix)) {
                return new Requeue.Refused("topic '" + dlqTopic + "' is not a dead-letter topic (its name does not end"
                        + " with the dead-letter suffix '" + suffix + "')");
            }
            String expected = dlqTopic.substring(0, dlqTopic.length() - suffix.length());
            if (!expected.equals(originalTopic)) {
                return new Requeue.Refused("the message is not a dead letter of topic '" + expected + "' (metadata "
                        + DeadLetterMetadata.ORIGINAL_TOPIC + " is "
                        + (originalTopic == null ? "absent" : "'" + originalTopic + "'") + ")");
            }
            long originalOffset;
            try {
                originalOffset = Long.parseLong(m.getOrDefault(DeadLetterMetadata.ORIGINAL_OFFSET, ""));
            } catch (NumberFormatException e) {
                return new Requeue.Refused("metadata " + DeadLetterMetadata.ORIGINAL_OFFSET + " is not an offset");
            }
            // The message at that offset, first column its id.
            SelectOriginal original = new SelectOriginal(tenant, originalTopic, partitionKey, originalOffset);
            List<String> originalId = Db.list(c, original.sql(), original, rs -> rs.getString(1));
            if (originalId.isEmpty() || !originalId.get(0).equals(id)) {
                return new Requeue.Refused("the original message (offset " + originalOffset + " of topic '" + originalTopic
                        + "') no longer exists");
            }
            // No lease row locks needed: each update below is conditioned on state DEAD under the
            // delivery row's lock, and nothing but a requeue moves a row out of DEAD.
            List<String> groups = new ArrayList<>(new java.util.TreeSet<>(DeadLetterMetadata.groups(m)));
            List<String> requeued = new ArrayList<>();
            try (PreparedStatement ps = Jdbc.prepare(c, REQUEUE_DELIVERY)) {
                for (String g : groups) {
                    new RequeueDelivery(tenant, g, originalTopic, partitionKey, originalOffset).bindTo(ps);
                    int n = ps.executeUpdate();
                    if (n > 1) {
                        throw new SQLException("requeue changed " + n + " delivery rows");
                    }
                    if (n == 1) {
                        requeued.add(g);
                    }
                }
            }
            if (requeued.isEmpty()) {
                return new Requeue.Refused("no consumer group named in its metadata (" + groups
                        + ") holds the original message as dead-lettered");
            }
            deleteMessage(c, tenant, dlqTopic, partitionKey, found.get().offset(), dlqGroups);
            CommittedOffsets.walkAfterDelete(c, tenant, dlqTopic, dlqGroups, Set.of(partitionKey));
            return new Requeue.Done(originalTopic, originalOffset, requeued);
        });
    }

    /** A message locked by {@link MessageStore#LOCK_MESSAGE_BY_ID}: its offset and metadata. */
    private record LockedMessage(long offset, String metadata) {}

    private static Optional<LockedMessage> lockMessage(Connection c, String tenant, String topic, String partitionKey,
                                                       String id) throws SQLException {
        // Locks the message: concurrent admin calls (and dead-lettering into it) on it queue.
        MessageStore.LockMessageById lock = new MessageStore.LockMessageById(tenant, topic, partitionKey, id);
        return Db.list(c, lock.sql(), lock, rs -> new LockedMessage(rs.getLong("offset"), rs.getString("metadata"))).stream().findFirst();
    }

    private static void lockLeases(Connection c, String tenant, String topic, String partitionKey, List<String> groups)
            throws SQLException {
        if (groups.isEmpty()) {
            return;
        }
        LockPartitionLeases lock = new LockPartitionLeases(tenant, groups, topic, partitionKey);
        Db.list(c, lock.sql(), lock, rs -> rs.getString("consumer_group"));
    }

    /**
     * Deletes one message whose row and partition head the caller's transaction holds locked, as
     * an admin delete does: under the lease rows of the partition's consumer groups, with every group's delivery
     * state of it, and then walks their committed offsets over what follows it, forgetting the size
     * of their open batches ({@link CommittedOffsets#walkAfterDelete}). For a dead letter that
     * replaces a row of the dead-letter topic ({@link MessageStore#appendDeadLetter}). The lease
     * rows are locked after the message row here, the other way round from an admin delete of the
     * same row; both took the partition's head first, so they queue there and do not deadlock.
     */
    static void deleteLockedMessage(Connection c, String tenant, String topic, String partitionKey, long offset)
            throws SQLException {
        List<String> groups = partitionGroups(c, tenant, topic, partitionKey);
        lockLeases(c, tenant, topic, partitionKey, groups);
        deleteMessage(c, tenant, topic, partitionKey, offset, groups);
        CommittedOffsets.walkAfterDelete(c, tenant, topic, groups, Set.of(partitionKey));
    }

    private static void deleteMessage(Connection c, String tenant, String topic, String partitionKey, long offset,
                                      List<String> groups) throws SQLException {
        if (!groups.isEmpty()) {
            RetentionStore.DeleteDeliveryStateRange delete = new RetentionStore.DeleteDeliveryStateRange(tenant, groups,
                    topic, partitionKey, offset, offset);
            Db.update(c, delete.sql(), delete); // zero or one row per group
        }
        MessageStore.DeleteMessageAt delete = new MessageStore.DeleteMessageAt(tenant, topic, partitionKey, offset);
        int n = Db.update(c, delete.sql(), delete);
        if (n != 1) {
            throw new SQLException("delete of a locked message changed " + n + " rows, expected 1");
        }
        new RetentionStore.LowerMessageCounts(tenant, topic, List.of(partitionKey), List.of(1L)).run(c);
    }

    private static List<String> partitionGroups(Connection c, String tenant, String topic, String partitionKey)
            throws SQLException {
        SelectPartitionGroups select = new SelectPartitionGroups(tenant, topic, partitionKey);
        return Db.list(c, select.sql(), select, rs -> rs.getString(1));
    }

    /** The tenant bind of a listing's tenant scope: none for all tenants ({@link #ALL_TENANTS} has no placeholder). */
    private static List<Bind> tenantBinds(Optional<String> tenant) {
        return Bind.each("tenant", tenant.stream().toList());
    }
}
