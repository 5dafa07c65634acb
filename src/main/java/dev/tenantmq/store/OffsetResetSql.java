package dev.tenantmq.store;

import dev.tenantmq.model.GroupScope;
import java.util.List;

/**
 * The statements of a consumer group's offset reset (docs/operations.md, "Replay: resetting a
 * group's offsets"), run only by {@link OffsetResetTransaction}. Every statement names one
 * tenant first and touches one (tenant, topic, group): one shard on Vitess. Each reads or writes
 * a bounded number of rows: a page of partitions, one primary-key seek, one partition's row, or a
 * chunk of delivery rows.
 */
final class OffsetResetSql {
    private OffsetResetSql() {}

    /**
     * A page of the group's partitions on the topic (those it has a committed offset in), after
     * {@code partition_key} in key order, optionally only one partition, with the committed
     * offset and the partition's head. Non-locking: a dry run answers from it, a reset reads the
     * positions again under the lease row locks ({@link #SELECT_POSITIONS}).
     */
    static final String SELECT_GROUP_PAGE = """
            SELECT o.partition_key, o.committed_offset, COALESCE(h.head_offset, 0) AS head_offset
            FROM queue_offsets o
            LEFT JOIN queue_partition_heads h
              ON h.tenant = o.tenant AND h.topic = o.topic AND h.partition_key = o.partition_key
            WHERE o.tenant = ? AND o.topic = ? AND o.consumer_group = ?
              AND (? IS NULL OR o.partition_key = ?) AND o.partition_key > ?
            ORDER BY o.partition_key
            LIMIT ?""";

    /** Binds of {@link #SELECT_GROUP_PAGE}; {@code only} null means every partition. */
    record SelectGroupPage(GroupScope scope, String only, String after, int limit) implements Statement {
        @Override
        public String sql() {
            return SELECT_GROUP_PAGE;
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.tenant(scope), Bind.topic(scope), Bind.group(scope),
                    Bind.of("partition_key", only), Bind.of("partition_key", only), // (? IS NULL OR ...)
                    Bind.of("partition_key", after), Bind.of("limit", limit));
        }
    }

    /**
     * The committed offset and head of the given partitions (%s is the IN list), read after their
     * lease row locks: every writer of a committed offset takes the lease row lock first
     * ({@link ConsumerStore}), so the value read is the one the reset replaces.
     */
    static final String SELECT_POSITIONS = """
            SELECT o.partition_key, o.committed_offset, COALESCE(h.head_offset, 0) AS head_offset
            FROM queue_offsets o
            LEFT JOIN queue_partition_heads h
              ON h.tenant = o.tenant AND h.topic = o.topic AND h.partition_key = o.partition_key
            WHERE o.tenant = ? AND o.topic = ? AND o.consumer_group = ? AND o.partition_key IN (%s)
            ORDER BY o.partition_key""";

    /** Binds of {@link #SELECT_POSITIONS}; {@code partitions} fills the IN list. */
    record SelectPositions(GroupScope scope, List<String> partitions) implements Statement {
        @Override
        public String sql() {
            return SELECT_POSITIONS.formatted(Db.placeholders(partitions.size()));
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.tenant(scope), Bind.topic(scope), Bind.group(scope),
                    Bind.each("partition_key", partitions));
        }
    }

    /**
     * The first stored message of a partition at or above an offset: one seek of the primary key
     * (tenant, topic, partition_key, `offset`). With offset 0 it is the earliest stored message;
     * the time target's binary search probes with it ({@code model.OffsetReset#firstAtOrAfter}).
     */
    static final String SELECT_FIRST_FROM = """
            SELECT `offset`, created_at FROM queue_messages
            WHERE tenant = ? AND topic = ? AND partition_key = ? AND `offset` >= ?
            ORDER BY `offset`
            LIMIT 1""";

    /** Binds of {@link #SELECT_FIRST_FROM}. */
    record SelectFirstFrom(GroupScope scope, String partitionKey, long offset) implements Statement {
        @Override
        public String sql() {
            return SELECT_FIRST_FROM;
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.tenant(scope), Bind.topic(scope), Bind.of("partition_key", partitionKey),
                    Bind.of("offset", offset));
        }
    }

    /**
     * Moves the committed offset and closes the open delivery batch (delivered_offset equal to
     * committed_offset is a closed batch, migration V3). Exactly one row: the row was read under
     * its lease row lock in this transaction.
     */
    static final String MOVE_OFFSET = """
            UPDATE queue_offsets
            SET committed_offset = ?, delivered_offset = ?, batch_messages = 0, updated_at = UTC_TIMESTAMP(6)
            WHERE tenant = ? AND topic = ? AND partition_key = ? AND consumer_group = ?""";

    /** Binds of {@link #MOVE_OFFSET}. */
    record MoveOffset(GroupScope scope, String partitionKey, long committed) implements Statement {
        @Override
        public String sql() {
            return MOVE_OFFSET;
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.of("committed_offset", committed), Bind.of("delivered_offset", committed),
                    Bind.tenant(scope), Bind.topic(scope), Bind.of("partition_key", partitionKey), Bind.group(scope));
        }
    }

    /**
     * Deletes a chunk of the group's delivery rows in one partition: every row except the DEAD
     * rows at or below the new committed offset (those stay as the record that requeue hands a dead
     * letter back to; migration V2). In-flight, retried, handed-back, requeued and acknowledged
     * rows go: above the new offset their messages are simply not delivered yet, at or below it
     * they are done. Repeated until a chunk deletes fewer than {@code limit} rows; every run is a
     * range of the primary key (tenant, consumer_group, topic, partition_key, message_offset).
     */
    static final String CLEAR_DELIVERY_STATE = StateSql.render("""
            DELETE FROM queue_delivery_state
            WHERE tenant = ? AND consumer_group = ? AND topic = ? AND partition_key = ?
              AND (state <> {DEAD} OR message_offset > ?)
            LIMIT ?""");

    /** Binds of {@link #CLEAR_DELIVERY_STATE}; {@code committed} is the new committed offset. */
    record ClearDeliveryState(GroupScope scope, String partitionKey, long committed, int limit) implements Statement {
        @Override
        public String sql() {
            return CLEAR_DELIVERY_STATE;
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.tenant(scope), Bind.group(scope), Bind.topic(scope),
                    Bind.of("partition_key", partitionKey), Bind.of("message_offset", committed),
                    Bind.of("limit", limit));
        }
    }

    /**
     * Bumps the epoch of the given leases (%s is the IN list) without changing their holder or
     * expiry: every receipt issued under the old epoch is STALE from now on (the ack, nack and
     * extend compare the receipt's epoch with the lease row's), and the holder's next fetch,
     * which reads the epoch from the row it locks, delivers under the new one. The rows are
     * locked by this transaction ({@link ConsumerSql#LOCK_LEASES}): one change per row locked.
     */
    static final String BUMP_EPOCHS = """
            UPDATE queue_partition_leases
            SET epoch = epoch + 1
            WHERE tenant = ? AND consumer_group = ? AND topic = ? AND partition_key IN (%s)""";

    /** Binds of {@link #BUMP_EPOCHS}; {@code partitions} fills the IN list. */
    record BumpEpochs(GroupScope scope, List<String> partitions) implements Statement {
        @Override
        public String sql() {
            return BUMP_EPOCHS.formatted(Db.placeholders(partitions.size()));
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.tenant(scope), Bind.group(scope), Bind.topic(scope),
                    Bind.each("partition_key", partitions));
        }
    }
}
