package dev.tenantmq.store;

import dev.tenantmq.model.DeliveryDelay;
import java.util.ArrayList;
import java.util.List;

/**
 * The statements of the publish protocol (docs/architecture.md, "Publish: the partition head
 * lock"): lock the partition heads, look up ids already stored, insert, move the heads.
 * {@link PublishTransaction} runs them in this order. The service and the JDBC library
 * (clients/jdbc, docs/transactional-publish.md) compile this one file, so every publisher of a
 * partition takes the same lock with the same statement. Plain Java: no framework, no logging.
 */
final class PublishSql {
    private PublishSql() {}

    /**
     * The partition key of a topic's deletion marker in {@code queue_partition_heads}
     * (docs/operations.md, "Deleting a topic or a consumer group"): no message can have it (a
     * partition key is 1 to 255 code points), and it sorts before every key.
     */
    static final String DELETION_MARKER_KEY = "";

    /**
     * The partition head lock (docs/architecture.md, "Publish: the partition head lock"): locks
     * the {@code queue_partition_heads} rows of the partitions a request appends to (%s is their
     * IN list), in key order, until commit. Returns each locked head's partition key and offset
     * ({@code id} is NULL, to tell these rows from those of {@link #SELECT_EXISTING_IDS} where
     * {@link PublishTransaction#lockPartitionsAndFindIds} runs both as one statement). A partition without a head
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
            return LOCK_HEADS.formatted(Jdbc.placeholders(partitionKeys.size()));
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.of("tenant", tenant), Bind.of("topic", topic), Bind.each("partition_key", partitionKeys));
        }
    }

    /**
     * Creates the head rows of partitions that {@link #LOCK_HEADS} did not find (the first append
     * to a partition) and locks them until commit; {@link PublishTransaction#lockPartitions} appends one
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
    static final String HEAD_ROW = "(?, ?, ?, 0)";

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
     * Moves the heads a request appended to up to its newest offset in each partition and adds the
     * messages it stored there to their {@code message_count} (migration V10), under the head lock
     * ({@link #LOCK_HEADS}): the first and third %s are the partition keys, the second their newest
     * offsets in the same order and the fourth how many messages each received (FIELD finds a row's
     * key among them, ELT picks its value), the fifth the keys again. Offsets grow in a partition
     * while the lock is held, so the new value is always the larger one. Binds: {@link AdvanceHeads}.
     */
    static final String ADVANCE_HEADS = """
            UPDATE queue_partition_heads
            SET head_offset = ELT(FIELD(partition_key, %s), %s),
                message_count = message_count + CAST(ELT(FIELD(partition_key, %s), %s) AS SIGNED)
            WHERE tenant = ? AND topic = ? AND partition_key IN (%s)""";

    /**
     * Binds of {@link #ADVANCE_HEADS}: each partition's newest offset and the number of messages
     * the request stored in it ({@code offsets[i]} and {@code added[i]} are {@code keys[i]}'s).
     */
    record AdvanceHeads(String tenant, String topic, List<String> keys, List<?> offsets, List<?> added)
            implements Statement {
        @Override
        public String sql() {
            String list = Jdbc.placeholders(keys.size());
            return ADVANCE_HEADS.formatted(list, list, list, list, list);
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.each("partition_key", keys), Bind.each("head_offset", offsets),
                    Bind.each("partition_key", keys), Bind.each("message_count", added),
                    Bind.of("tenant", tenant), Bind.of("topic", topic), Bind.each("partition_key", keys));
        }
    }

    /**
     * {@link #ADVANCE_HEADS} for a request with delayed messages (docs/api.md, "Delayed
     * delivery"): also moves the {@code delayed_until} of the partitions given a delayed message
     * (the fifth %s; the sixth is every partition's key again) to at least the latest due time
     * of the request: the later of the latest {@code deliverAt} (the first ?, DATETIME(6) text)
     * and the database clock plus the longest {@code deliverAfterSeconds} (the second ?,
     * microseconds). One value for the request is later than some of its messages' due times: the
     * gate of the ready-partitions query stays open a little longer for them, which costs a look,
     * never a delivery (ConsumerSql.partitionHasWork). Binds: {@link AdvanceHeadsDelayed}.
     */
    static final String ADVANCE_HEADS_DELAYED = """
            UPDATE queue_partition_heads
            SET head_offset = ELT(FIELD(partition_key, %s), %s),
                message_count = message_count + CAST(ELT(FIELD(partition_key, %s), %s) AS SIGNED),
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
    record AdvanceHeadsDelayed(String tenant, String topic, List<String> keys, List<?> offsets, List<?> added,
                               List<String> delayed, String latestAt, long longestAfterMicros) implements Statement {
        static AdvanceHeadsDelayed of(String tenant, String topic, AdvanceHeads heads, List<String> delayed,
                                      List<PublishTransaction.NewMessage> messages) {
            String latestAt = NO_DUE_TIME;
            long longest = 0;
            for (PublishTransaction.NewMessage m : messages) {
                DeliveryDelay d = m.delay();
                if (d != null && d.atText() != null && d.atText().compareTo(latestAt) > 0) {
                    latestAt = d.atText(); // fixed-width text: its order is time order
                } else if (d != null && d.afterMicros() != null) {
                    longest = Math.max(longest, d.afterMicros());
                }
            }
            return new AdvanceHeadsDelayed(tenant, topic, heads.keys(), heads.offsets(), heads.added(), delayed,
                    latestAt, longest);
        }

        @Override
        public String sql() {
            String list = Jdbc.placeholders(keys.size());
            return ADVANCE_HEADS_DELAYED.formatted(list, list, list, list, Jdbc.placeholders(delayed.size()), list);
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.each("partition_key", keys), Bind.each("head_offset", offsets),
                    Bind.each("partition_key", keys), Bind.each("message_count", added),
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
     * the head lock, {@link PublishTransaction#lockPartitionsAndFindIds}): then the insert meets that row in
     * {@code uq_message_id}, fails with a duplicate key, and the service's {@code Db} runs the transaction again,
     * which finds it.
     *
     * <p>Both tables are read by the index that holds the pair, named: left to its statistics,
     * MariaDB 10.11 read a look-up of 200 ids as every stored row of the topic (a scan of the
     * primary key's {@code (tenant, topic)} prefix, 20,404 rows for a topic of 20,000 messages in
     * {@code PublishIdLookupReadTest}; 26,000 per request in the benchmark's replay), where the
     * named index reads one entry per id.
     */
    static final String SELECT_EXISTING_IDS = """
            SELECT partition_key, id, `offset` FROM queue_messages FORCE INDEX (uq_message_id)
            WHERE tenant = ? AND topic = ? AND (partition_key, id) IN (%s)
            UNION ALL
            SELECT partition_key, id, `offset` FROM queue_dedup_ids FORCE INDEX (PRIMARY)
            WHERE tenant = ? AND topic = ? AND (partition_key, id) IN (%s)
              AND created_at > UTC_TIMESTAMP(6) - INTERVAL ? MICROSECOND""";

    /** Binds of {@link #SELECT_EXISTING_IDS}, in placeholder order ({@code pairs} fills each IN list). */
    record SelectExistingIds(String tenant, String topic, List<PublishTransaction.NewMessage> pairs, long dedupWindowMicros)
            implements Statement {
        @Override
        public String sql() {
            String pairList = String.join(", ", java.util.Collections.nCopies(pairs.size(), "(?, ?)"));
            return SELECT_EXISTING_IDS.formatted(pairList, pairList);
        }

        @Override
        public List<Bind> binds() {
            List<Bind> pairBinds = new ArrayList<>(2 * pairs.size());
            for (PublishTransaction.NewMessage m : pairs) { // the (partition_key, id) pairs of the IN list
                pairBinds.add(Bind.of("partition_key", m.partitionKey()));
                pairBinds.add(Bind.of("id", m.id()));
            }
            return Bind.list(Bind.of("tenant", tenant), Bind.of("topic", topic), pairBinds, // queue_messages
                    Bind.of("tenant", tenant), Bind.of("topic", topic), pairBinds, // queue_dedup_ids
                    Bind.of("micros", dedupWindowMicros)); // the window of deleted identities
        }
    }

    /**
     * One row of {@link #INSERT_MESSAGE}. Binds: tenant, topic, partition_key, id, payload, metadata,
     * traceparent, tracestate (both NULL for a message without trace context), then the delay
     * (docs/api.md, "Delayed delivery"): the due time as DATETIME(6) text, or else microseconds
     * from the database clock; both NULL (no delay) make {@code deliver_at} NULL, so a message
     * without a delay is written as before.
     */
    static final String MESSAGE_ROW = "(?, ?, ?, ?, ?, ?, ?, ?, UTC_TIMESTAMP(6),"
            + " COALESCE(?, UTC_TIMESTAMP(6) + INTERVAL ? MICROSECOND))";

    /**
     * Inserts one message; {@link PublishTransaction#insertStatement} appends a {@link #MESSAGE_ROW} per further message, so
     * a batch is one multi-row statement whose rows take consecutive offsets in row order.
     */
    static final String INSERT_MESSAGE = """
            INSERT INTO queue_messages (tenant, topic, partition_key, id, payload, metadata, traceparent, tracestate,
                                        created_at, deliver_at)
            VALUES """ + MESSAGE_ROW;

    /**
     * One row of {@link #INSERT_PLAIN_MESSAGE}: a message without trace context or delay, the
     * usual one. Binds: tenant, topic, partition_key, id, payload, metadata; its traceparent,
     * tracestate and deliver_at are NULL in the text, which {@link #MESSAGE_ROW} binds. Each bind
     * is driver work in the service for every message (docs/architecture.md, "Rows into
     * statements"), and these four are NULL for nearly every message.
     */
    static final String PLAIN_MESSAGE_ROW = "(?, ?, ?, ?, ?, ?, NULL, NULL, UTC_TIMESTAMP(6), NULL)";

    /**
     * Inserts one message without trace context or delay; {@link PublishTransaction#insertStatement} appends a
     * {@link #PLAIN_MESSAGE_ROW} per further message when no message of the statement has either.
     */
    static final String INSERT_PLAIN_MESSAGE = """
            INSERT INTO queue_messages (tenant, topic, partition_key, id, payload, metadata, traceparent, tracestate,
                                        created_at, deliver_at)
            VALUES """ + PLAIN_MESSAGE_ROW;

    /** Binds of one {@link #PLAIN_MESSAGE_ROW}; alone, the binds of {@link #INSERT_PLAIN_MESSAGE}. */
    record InsertPlainMessage(String tenant, String topic, String partitionKey, String id, String payloadJson,
                              String metadataJson) implements Statement {
        @Override
        public String sql() {
            return INSERT_PLAIN_MESSAGE;
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.of("tenant", tenant), Bind.of("topic", topic), Bind.of("partition_key", partitionKey),
                    Bind.of("id", id), Bind.of("payload", payloadJson), Bind.of("metadata", metadataJson));
        }
    }

    /**
     * Binds of one {@link #MESSAGE_ROW}; alone, the binds of {@link #INSERT_MESSAGE}.
     * {@link PublishTransaction#insertStatement} joins one per message into a multi-row statement.
     */
    record InsertMessage(String tenant, String topic, String partitionKey, String id, String payloadJson,
                         String metadataJson, String traceparent, String tracestate, String deliverAt,
                         Long delayMicros) implements Statement {
        @Override
        public String sql() {
            return INSERT_MESSAGE;
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.of("tenant", tenant), Bind.of("topic", topic), Bind.of("partition_key", partitionKey),
                    Bind.of("id", id), Bind.of("payload", payloadJson), Bind.of("metadata", metadataJson),
                    Bind.of("traceparent", traceparent), Bind.of("tracestate", tracestate),
                    Bind.of("deliver_at", deliverAt), Bind.of("micros", delayMicros)); // deliver_at: one or neither
        }
    }
}
