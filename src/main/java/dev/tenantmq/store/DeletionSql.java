package dev.tenantmq.store;

import java.util.List;

/**
 * SQL of deleting a topic or a consumer group (docs/operations.md, "Deleting a topic or a consumer
 * group"). Every statement leads with {@code tenant} (one shard on Vitess) and deletes at most
 * {@code LIMIT ?} rows, in an auto-committed transaction of its own: record locks on those rows
 * only (READ COMMITTED takes no gap locks), held for one short statement, so a topic of millions
 * of rows neither blocks its shard nor outlasts a call.
 *
 * <p>The deletion marker: a {@code queue_partition_heads} row with the partition key
 * {@link #MARKER_KEY}, which no message can have (a partition key is 1-255 code points and does
 * not end with a space, so under the PAD SPACE collation none equals ''). It exists while the topic
 * is being deleted. Publish takes it in the IN list of its head lock and refuses; the fetch scans
 * and the ready-partitions query skip the topic through {@link #topicNotBeingDeleted}.
 */
final class DeletionSql {
    private DeletionSql() {}

    /** The partition key of a topic's deletion marker in {@code queue_partition_heads}. */
    static final String MARKER_KEY = PublishSql.DELETION_MARKER_KEY;

    /**
     * A predicate, true while the topic of the row {@code alias} (with columns {@code tenant} and
     * {@code topic}) has no deletion marker: one primary-key look-up of a row that is almost always
     * absent. Inside an existing statement, so the happy path of fetch gets no statement more. Under
     * READ COMMITTED a statement reads one snapshot: a scan that does not see the marker sees none
     * of the deletion's deletes either (they follow the marker's commit), so a fetch hands out a
     * topic whole, or nothing of it.
     */
    static String topicNotBeingDeleted(String alias) {
        // A method, not a constant: a predicate is no statement for StoreSqlRulesTest to parse;
        // it checks it inside each statement that embeds it.
        // A scalar subquery, not NOT EXISTS: MariaDB turns a correlated NOT EXISTS into an IN
        // subquery and may materialize it, reading every head row of every tenant's topics
        // (partition_key is the third key column) once per scan branch: 1,200 of 1,257 rows read
        // for three branches of 20 messages beside 400 heads (ANALYZE FORMAT=JSON; the benchmark's
        // scans read 16 rows per row they returned). As a scalar subquery it is a look-up of the
        // whole primary key, which MariaDB caches per (tenant, topic) and MySQL repeats per row
        // (docs/architecture.md, "Reads that do not grow with the backlog").
        return """
                (SELECT COUNT(*) FROM queue_partition_heads dm
                 WHERE dm.tenant = %1$s.tenant AND dm.topic = %1$s.topic AND dm.partition_key = '') = 0"""
                .formatted(alias);
    }

    // ---- The marker.

    /**
     * Marks a topic as being deleted: from its commit on, publishes are refused and nothing of the
     * topic is delivered. Idempotent (a repeated call finds the row). Binds: {@link MarkTopic}.
     */
    static final String MARK_TOPIC = """
            INSERT INTO queue_partition_heads (tenant, topic, partition_key, head_offset)
            VALUES (?, ?, ?, 0)
            ON DUPLICATE KEY UPDATE head_offset = head_offset""";

    /** Binds of {@link #MARK_TOPIC}. */
    record MarkTopic(String tenant, String topic) implements Statement {
        @Override
        public String sql() {
            return MARK_TOPIC;
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.of("tenant", tenant), Bind.of("topic", topic), Bind.of("partition_key", MARKER_KEY));
        }
    }

    /**
     * Whether the topic is being deleted (its marker exists). A plain read. Binds: {@link SelectMarker}.
     */
    static final String SELECT_MARKER = """
            SELECT head_offset FROM queue_partition_heads
            WHERE tenant = ? AND topic = ? AND partition_key = ?""";

    /** Binds of {@link #SELECT_MARKER}. */
    record SelectMarker(String tenant, String topic) implements Statement {
        @Override
        public String sql() {
            return SELECT_MARKER;
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.of("tenant", tenant), Bind.of("topic", topic), Bind.of("partition_key", MARKER_KEY));
        }
    }

    /**
     * Ends a deletion: removes the marker, after a pass that found nothing of the topic left.
     * Publishes that were refused meanwhile are accepted again, into a new, empty topic.
     * Binds: {@link SelectMarker} (the same three values).
     */
    static final String UNMARK_TOPIC = """
            DELETE FROM queue_partition_heads
            WHERE tenant = ? AND topic = ? AND partition_key = ?""";

    /** Binds of {@link #UNMARK_TOPIC}. */
    record UnmarkTopic(String tenant, String topic) implements Statement {
        @Override
        public String sql() {
            return UNMARK_TOPIC;
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.of("tenant", tenant), Bind.of("topic", topic), Bind.of("partition_key", MARKER_KEY));
        }
    }

    // ---- Whether there is anything to delete (404 otherwise): one row at most each.

    /** A stored row of a topic's partition heads (every partition ever published to has one). */
    static final String TOPIC_HEAD_EXISTS = """
            SELECT 1 FROM queue_partition_heads WHERE tenant = ? AND topic = ? LIMIT 1""";
    /** A group's committed offsets on the topic (every group that leased a partition has one). */
    static final String TOPIC_OFFSET_EXISTS = """
            SELECT 1 FROM queue_offsets WHERE tenant = ? AND topic = ? LIMIT 1""";
    /** A subscriber that fetched from the topic (even with nothing published). */
    static final String TOPIC_HEARTBEAT_EXISTS = """
            SELECT 1 FROM queue_subscriber_heartbeats WHERE tenant = ? AND topic = ? LIMIT 1""";
    /** An identity of a deleted message still in its dedup window. */
    static final String TOPIC_DEDUP_EXISTS = """
            SELECT 1 FROM queue_dedup_ids WHERE tenant = ? AND topic = ? LIMIT 1""";


    /** Binds of {@link #TOPIC_HEAD_EXISTS}. */
    record TopicHeadExists(String tenant, String topic) implements Statement {
        @Override
        public String sql() {
            return TOPIC_HEAD_EXISTS;
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.of("tenant", tenant), Bind.of("topic", topic));
        }
    }

    /** Binds of {@link #TOPIC_OFFSET_EXISTS}. */
    record TopicOffsetExists(String tenant, String topic) implements Statement {
        @Override
        public String sql() {
            return TOPIC_OFFSET_EXISTS;
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.of("tenant", tenant), Bind.of("topic", topic));
        }
    }

    /** Binds of {@link #TOPIC_HEARTBEAT_EXISTS}. */
    record TopicHeartbeatExists(String tenant, String topic) implements Statement {
        @Override
        public String sql() {
            return TOPIC_HEARTBEAT_EXISTS;
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.of("tenant", tenant), Bind.of("topic", topic));
        }
    }

    /** Binds of {@link #TOPIC_DEDUP_EXISTS}. */
    record TopicDedupExists(String tenant, String topic) implements Statement {
        @Override
        public String sql() {
            return TOPIC_DEDUP_EXISTS;
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.of("tenant", tenant), Bind.of("topic", topic));
        }
    }

    /** The probes whose rows make a topic exist, in the order they are asked. */
    static List<Statement> topicProbes(String tenant, String topic) {
        return List.of(new TopicHeadExists(tenant, topic), new TopicOffsetExists(tenant, topic),
                new TopicHeartbeatExists(tenant, topic), new TopicDedupExists(tenant, topic));
    }

    /** A group's committed offsets (and delivery batches) on the topic. */
    static final String GROUP_OFFSET_EXISTS = """
            SELECT 1 FROM queue_offsets WHERE tenant = ? AND topic = ? AND consumer_group = ? LIMIT 1""";
    /** A group's delivery rows on the topic. */
    static final String GROUP_STATE_EXISTS = """
            SELECT 1 FROM queue_delivery_state WHERE tenant = ? AND consumer_group = ? AND topic = ? LIMIT 1""";
    /** A group's partition leases on the topic. */
    static final String GROUP_LEASE_EXISTS = """
            SELECT 1 FROM queue_partition_leases WHERE tenant = ? AND consumer_group = ? AND topic = ? LIMIT 1""";
    /** A group's subscriber heartbeats on the topic. */
    static final String GROUP_HEARTBEAT_EXISTS = """
            SELECT 1 FROM queue_subscriber_heartbeats WHERE tenant = ? AND consumer_group = ? AND topic = ? LIMIT 1""";


    /** Binds of {@link #GROUP_OFFSET_EXISTS}. */
    record GroupOffsetExists(String tenant, String topic, String consumerGroup) implements Statement {
        @Override
        public String sql() {
            return GROUP_OFFSET_EXISTS;
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.of("tenant", tenant), Bind.of("topic", topic), Bind.of("consumer_group", consumerGroup));
        }
    }

    /** Binds of {@link #GROUP_STATE_EXISTS}. */
    record GroupStateExists(String tenant, String topic, String consumerGroup) implements Statement {
        @Override
        public String sql() {
            return GROUP_STATE_EXISTS;
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.of("tenant", tenant), Bind.of("consumer_group", consumerGroup), Bind.of("topic", topic));
        }
    }

    /** Binds of {@link #GROUP_LEASE_EXISTS}. */
    record GroupLeaseExists(String tenant, String topic, String consumerGroup) implements Statement {
        @Override
        public String sql() {
            return GROUP_LEASE_EXISTS;
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.of("tenant", tenant), Bind.of("consumer_group", consumerGroup), Bind.of("topic", topic));
        }
    }

    /** Binds of {@link #GROUP_HEARTBEAT_EXISTS}. */
    record GroupHeartbeatExists(String tenant, String topic, String consumerGroup) implements Statement {
        @Override
        public String sql() {
            return GROUP_HEARTBEAT_EXISTS;
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.of("tenant", tenant), Bind.of("consumer_group", consumerGroup), Bind.of("topic", topic));
        }
    }

    /** The probes whose rows make a group exist on a topic. */
    static List<Statement> groupProbes(String tenant, String topic, String consumerGroup) {
        return List.of(new GroupOffsetExists(tenant, topic, consumerGroup), new GroupStateExists(tenant, topic, consumerGroup),
                new GroupLeaseExists(tenant, topic, consumerGroup), new GroupHeartbeatExists(tenant, topic, consumerGroup));
    }

    /**
     * Subscribers of the group on the topic, other than {@code ?} (this process, which forgets the
     * group first), whose heartbeat is younger than {@code ?} microseconds (the heartbeat timeout)
     * by the database clock: a group with any is not deleted (Kafka's "the group must be empty").
     * Binds: {@link CountLiveSubscribers}.
     */
    static final String COUNT_LIVE_SUBSCRIBERS = """
            SELECT COUNT(*) AS live FROM queue_subscriber_heartbeats
            WHERE tenant = ? AND consumer_group = ? AND topic = ? AND subscriber_name <> ?
              AND last_seen_at > UTC_TIMESTAMP(6) - INTERVAL ? MICROSECOND""";

    /** Binds of {@link #COUNT_LIVE_SUBSCRIBERS}. */
    record CountLiveSubscribers(String tenant, String topic, String consumerGroup, String self,
                                long heartbeatTimeoutMicros) implements Statement {
        @Override
        public String sql() {
            return COUNT_LIVE_SUBSCRIBERS;
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.of("tenant", tenant), Bind.of("consumer_group", consumerGroup), Bind.of("topic", topic),
                    Bind.of("subscriber_name", self), Bind.of("micros", heartbeatTimeoutMicros));
        }
    }

    // ---- The chunks of a topic, in the order a pass runs them: what fences consumers first
    // (leases), the messages, the state that refers to them, the heads last (a publisher that
    // took its head lock before the marker holds its head row, which the delete of the heads waits
    // for: see MessageStore#lockAndFind).

    static final String DELETE_TOPIC_LEASES = """
            DELETE FROM queue_partition_leases WHERE tenant = ? AND topic = ? LIMIT ?""";
    static final String DELETE_TOPIC_HEARTBEATS = """
            DELETE FROM queue_subscriber_heartbeats WHERE tenant = ? AND topic = ? LIMIT ?""";
    static final String DELETE_TOPIC_MESSAGES = """
            DELETE FROM queue_messages WHERE tenant = ? AND topic = ? LIMIT ?""";
    static final String DELETE_TOPIC_STATES = """
            DELETE FROM queue_delivery_state WHERE tenant = ? AND topic = ? LIMIT ?""";
    static final String DELETE_TOPIC_OFFSETS = """
            DELETE FROM queue_offsets WHERE tenant = ? AND topic = ? LIMIT ?""";
    static final String DELETE_TOPIC_DEDUP_IDS = """
            DELETE FROM queue_dedup_ids WHERE tenant = ? AND topic = ? LIMIT ?""";


    /** Binds of {@link #DELETE_TOPIC_LEASES}. */
    record DeleteTopicLeases(String tenant, String topic, int limit) implements Statement {
        @Override
        public String sql() {
            return DELETE_TOPIC_LEASES;
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.of("tenant", tenant), Bind.of("topic", topic), Bind.of("limit", limit));
        }
    }

    /** Binds of {@link #DELETE_TOPIC_HEARTBEATS}. */
    record DeleteTopicHeartbeats(String tenant, String topic, int limit) implements Statement {
        @Override
        public String sql() {
            return DELETE_TOPIC_HEARTBEATS;
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.of("tenant", tenant), Bind.of("topic", topic), Bind.of("limit", limit));
        }
    }

    /** Binds of {@link #DELETE_TOPIC_MESSAGES}. */
    record DeleteTopicMessages(String tenant, String topic, int limit) implements Statement {
        @Override
        public String sql() {
            return DELETE_TOPIC_MESSAGES;
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.of("tenant", tenant), Bind.of("topic", topic), Bind.of("limit", limit));
        }
    }

    /** Binds of {@link #DELETE_TOPIC_STATES}. */
    record DeleteTopicStates(String tenant, String topic, int limit) implements Statement {
        @Override
        public String sql() {
            return DELETE_TOPIC_STATES;
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.of("tenant", tenant), Bind.of("topic", topic), Bind.of("limit", limit));
        }
    }

    /** Binds of {@link #DELETE_TOPIC_OFFSETS}. */
    record DeleteTopicOffsets(String tenant, String topic, int limit) implements Statement {
        @Override
        public String sql() {
            return DELETE_TOPIC_OFFSETS;
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.of("tenant", tenant), Bind.of("topic", topic), Bind.of("limit", limit));
        }
    }

    /** Binds of {@link #DELETE_TOPIC_DEDUP_IDS}. */
    record DeleteTopicDedupIds(String tenant, String topic, int limit) implements Statement {
        @Override
        public String sql() {
            return DELETE_TOPIC_DEDUP_IDS;
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.of("tenant", tenant), Bind.of("topic", topic), Bind.of("limit", limit));
        }
    }

    /** The partition heads, all but the marker. Binds: {@link DeleteTopicHeads}. */
    static final String DELETE_TOPIC_HEADS = """
            DELETE FROM queue_partition_heads WHERE tenant = ? AND topic = ? AND partition_key <> ? LIMIT ?""";

    /** Binds of {@link #DELETE_TOPIC_HEADS}. */
    record DeleteTopicHeads(String tenant, String topic, int limit) implements Statement {
        @Override
        public String sql() {
            return DELETE_TOPIC_HEADS;
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.of("tenant", tenant), Bind.of("topic", topic), Bind.of("partition_key", MARKER_KEY),
                    Bind.of("limit", limit));
        }
    }

    // ---- The chunks of a consumer group on one topic, in pass order: leases first (the group's
    // subscribers lose their partitions), its delivery rows, its offsets (with the delivery
    // batches they carry) last.

    static final String DELETE_GROUP_LEASES = """
            DELETE FROM queue_partition_leases WHERE tenant = ? AND consumer_group = ? AND topic = ? LIMIT ?""";
    static final String DELETE_GROUP_HEARTBEATS = """
            DELETE FROM queue_subscriber_heartbeats WHERE tenant = ? AND consumer_group = ? AND topic = ? LIMIT ?""";
    static final String DELETE_GROUP_STATES = """
            DELETE FROM queue_delivery_state WHERE tenant = ? AND consumer_group = ? AND topic = ? LIMIT ?""";


    /** Binds of {@link #DELETE_GROUP_LEASES}. */
    record DeleteGroupLeases(String tenant, String topic, String consumerGroup, int limit) implements Statement {
        @Override
        public String sql() {
            return DELETE_GROUP_LEASES;
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.of("tenant", tenant), Bind.of("consumer_group", consumerGroup), Bind.of("topic", topic), Bind.of("limit", limit));
        }
    }

    /** Binds of {@link #DELETE_GROUP_HEARTBEATS}. */
    record DeleteGroupHeartbeats(String tenant, String topic, String consumerGroup, int limit) implements Statement {
        @Override
        public String sql() {
            return DELETE_GROUP_HEARTBEATS;
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.of("tenant", tenant), Bind.of("consumer_group", consumerGroup), Bind.of("topic", topic), Bind.of("limit", limit));
        }
    }

    /** Binds of {@link #DELETE_GROUP_STATES}. */
    record DeleteGroupStates(String tenant, String topic, String consumerGroup, int limit) implements Statement {
        @Override
        public String sql() {
            return DELETE_GROUP_STATES;
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.of("tenant", tenant), Bind.of("consumer_group", consumerGroup), Bind.of("topic", topic), Bind.of("limit", limit));
        }
    }

    /** The group's offset rows, which also hold its delivery batches (migration V3). Binds: {@link DeleteGroupOffsets}. */
    static final String DELETE_GROUP_OFFSETS = """
            DELETE FROM queue_offsets WHERE tenant = ? AND topic = ? AND consumer_group = ? LIMIT ?""";

    /** Binds of {@link #DELETE_GROUP_OFFSETS}. */
    record DeleteGroupOffsets(String tenant, String topic, String consumerGroup, int limit) implements Statement {
        @Override
        public String sql() {
            return DELETE_GROUP_OFFSETS;
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.of("tenant", tenant), Bind.of("topic", topic), Bind.of("consumer_group", consumerGroup),
                    Bind.of("limit", limit));
        }
    }
}
