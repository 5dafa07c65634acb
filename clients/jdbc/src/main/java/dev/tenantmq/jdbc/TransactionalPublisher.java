package dev.tenantmq.jdbc;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import dev.tenantmq.model.Identifiers;
import dev.tenantmq.model.InvalidRequestException;
import dev.tenantmq.model.MessageId;
import dev.tenantmq.model.PartitionKey;
import dev.tenantmq.model.PayloadTooLargeException;
import dev.tenantmq.model.PublishRules;
import dev.tenantmq.model.Tenant;
import dev.tenantmq.store.PublishTransaction;
import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Publishes to tenant-mq inside the application's own database transaction
 * (docs/transactional-publish.md): the messages are stored if and only if that transaction
 * commits, and once it commits the service delivers them in order to every consumer group, as if
 * they had come through {@code POST /tenants/{tenant}/topics/{topic}/messages}.
 *
 * <p>It runs the service's own publish protocol ({@code dev.tenantmq.store.PublishTransaction},
 * compiled from the service's source tree) with the service's rules ({@code PublishRules}): the
 * same partition head lock, the same dedup look-up, the same insert, the same limits. What it does
 * not apply is the service's per-tenant publish-rate quota: it has database credentials, so it is
 * trusted as the service is.
 *
 * <p>The connection must have autocommit off and isolation READ COMMITTED; the head locks of the
 * published partitions are held until the caller commits or rolls back, so other publishers of
 * those partitions (HTTP or library) wait for that. Thread-safe; one instance per application.
 */
public final class TransactionalPublisher {
    private static final JsonFactory JSON = new JsonFactory();

    private final PublishRules.Limits limits;
    private final long dedupWindowMicros;
    private final String dlqSuffix;

    private TransactionalPublisher(Builder b) {
        this.limits = new PublishRules.Limits(b.maxBatchSize, b.maxPayloadBytes, b.maxMetadataBytes);
        this.dedupWindowMicros = b.dedupWindow.toNanos() / 1000;
        this.dlqSuffix = b.dlqSuffix;
    }

    /** A publisher with the service's default settings; {@link #builder()} to match other ones. */
    public static TransactionalPublisher withDefaults() {
        return builder().build();
    }

    /** Settings that must match the service's ({@code mq.publish.*}, {@code mq.dlq-suffix}; docs/settings.md). */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * One message to publish.
     *
     * @param partitionKey ordering key inside (tenant, topic)
     * @param id caller-chosen id, unique per (tenant, topic, partitionKey); null to have one generated
     * @param payloadJson the payload: one JSON value as text, stored and delivered byte-exactly
     * @param metadata string metadata, possibly empty ({@code queue_name} is stamped with the tenant)
     */
    public record Message(String partitionKey, String id, String payloadJson, Map<String, String> metadata) {
        /** A message without metadata. */
        public static Message of(String partitionKey, String id, String payloadJson) {
            return new Message(partitionKey, id, payloadJson, Map.of());
        }
    }

    /**
     * Where one message ended up: what the HTTP publish answers for it.
     *
     * @param offset its offset (unique in the topic, increasing in the partition)
     * @param duplicate true when (partitionKey, id) was stored already (or earlier in the batch):
     *     offset is then the stored one, and nothing was written for it
     */
    public record Result(String id, String partitionKey, long offset, boolean duplicate) {}

    /**
     * Publishes a batch in the caller's transaction: all or none, as that transaction commits.
     * Call {@link CommitNotifier#committed} after the commit to wake waiting consumers at once.
     *
     * @param connection the caller's connection, autocommit off, READ COMMITTED; not committed here
     * @param tenant the tenant (the shard key on Vitess: write domain rows of this tenant in the same transaction)
     * @param topic the topic, not a dead-letter topic
     * @return one result per message, in request order
     * @throws IllegalStateException when autocommit is on or the isolation is not READ COMMITTED;
     *     nothing was sent to the database
     * @throws InvalidRequestException a rule broken (batch size, identifiers, payload not one
     *     JSON value, metadata), naming the field as the HTTP publish's 400 does; nothing was sent
     * @throws PayloadTooLargeException a payload over the limit; nothing was sent
     * @throws SQLException from the driver: the caller's transaction should roll back (a lock
     *     wait time-out or deadlock may be retried by running the whole transaction again)
     */
    public List<Result> publish(Connection connection, String tenant, String topic, List<Message> messages)
            throws SQLException {
        requireOrderingSettings(connection);
        Tenant t = new Tenant(tenant);
        String topicProblem = Identifiers.publishTopicProblem(topic, dlqSuffix);
        if (topicProblem != null) {
            throw InvalidRequestException.of("topic", topicProblem);
        }
        if (topic.endsWith(dlqSuffix)) {
            throw InvalidRequestException.of("topic", "is a dead-letter topic (ends with '" + dlqSuffix
                    + "'): publish to it through the HTTP API, which needs the admin permission");
        }
        PublishRules.requireBatchSize(messages.size(), limits.maxBatchSize());
        List<PublishTransaction.NewMessage> rows = new ArrayList<>(messages.size());
        for (int i = 0; i < messages.size(); i++) {
            Message m = Objects.requireNonNull(messages.get(i), "messages[" + i + "]");
            String at = "messages[" + i + "]";
            PartitionKey key = field(at + ".partitionKey", () -> new PartitionKey(m.partitionKey()));
            MessageId id = m.id() == null ? null : field(at + ".id", () -> new MessageId(m.id()));
            requireOneJsonValue(at + ".payload", m.payloadJson());
            PublishRules.Stamped s = PublishRules.stamp(i, t, key, id, m.payloadJson(),
                    m.metadata() == null ? Map.of() : m.metadata(), limits);
            rows.add(new PublishTransaction.NewMessage(s.partitionKey(), s.id(), s.payloadJson(), s.metadataJson(),
                    s.generatedId()));
        }
        List<PublishTransaction.Published> stored = PublishTransaction.publish(connection, tenant, topic, rows,
                dedupWindowMicros, PublishTransaction.LookUp.AFTER_LOCK);
        List<Result> results = new ArrayList<>(rows.size());
        for (int i = 0; i < rows.size(); i++) {
            results.add(new Result(rows.get(i).id(), rows.get(i).partitionKey(), stored.get(i).offset(),
                    stored.get(i).duplicate()));
        }
        return results;
    }

    /**
     * The settings under which the head lock orders offsets (docs/transactional-publish.md,
     * "Transaction settings"): a transaction (autocommit off, so the lock is held until the
     * inserts commit together) at READ COMMITTED (the dedup look-up after the lock sees what the
     * previous holder committed; no gap locks on a partition's missing head row).
     */
    static void requireOrderingSettings(Connection c) throws SQLException {
        if (c.getAutoCommit()) {
            throw new IllegalStateException("tenant-mq transactional publish needs a transaction: autocommit is on."
                    + " Call connection.setAutoCommit(false) (or run inside a @Transactional method) and commit after"
                    + " publishing; under autocommit each statement would commit alone, releasing the partition head"
                    + " lock before the messages are stored, and consumers could skip offsets");
        }
        int isolation = c.getTransactionIsolation();
        if (isolation != Connection.TRANSACTION_READ_COMMITTED) {
            throw new IllegalStateException("tenant-mq transactional publish needs isolation READ COMMITTED, the"
                    + " connection has " + isolationName(isolation) + ". Call"
                    + " connection.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED) before the"
                    + " transaction starts (or set the pool's default): under REPEATABLE READ or SERIALIZABLE the"
                    + " duplicate look-up reads an old snapshot and the head lock takes gap locks that deadlock"
                    + " first publishers of a partition; READ UNCOMMITTED reads uncommitted ids");
        }
    }

    private static String isolationName(int level) {
        return switch (level) {
            case Connection.TRANSACTION_NONE -> "NONE";
            case Connection.TRANSACTION_READ_UNCOMMITTED -> "READ UNCOMMITTED";
            case Connection.TRANSACTION_REPEATABLE_READ -> "REPEATABLE READ";
            case Connection.TRANSACTION_SERIALIZABLE -> "SERIALIZABLE";
            default -> "level " + level;
        };
    }

    /** Rejects anything but one JSON value (as the HTTP body's payload is one), naming the field. */
    private static void requireOneJsonValue(String field, String json) {
        if (json == null) {
            throw InvalidRequestException.of(field, "is required (any JSON value as text; \"null\" for none)");
        }
        try (JsonParser p = JSON.createParser(json)) {
            if (p.nextToken() == null) {
                throw InvalidRequestException.of(field, "must be one JSON value (got no value)");
            }
            p.skipChildren();
            if (p.nextToken() != null) {
                throw InvalidRequestException.of(field, "must be one JSON value (got more after it)");
            }
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw InvalidRequestException.of(field, "must be one JSON value: " + e.getOriginalMessage());
        } catch (IOException e) {
            throw new IllegalStateException("reading a string cannot fail", e);
        }
    }

    /** A value type built, its error renamed to the field of the batch (as the HTTP publish names it). */
    private static <T> T field(String field, java.util.function.Supplier<T> build) {
        try {
            return build.get();
        } catch (InvalidRequestException e) {
            throw InvalidRequestException.of(field, e.errors().get(0).message());
        }
    }

    /** The settings of a {@link TransactionalPublisher}; each must match the service's. */
    public static final class Builder {
        private int maxBatchSize = PublishRules.Limits.DEFAULTS.maxBatchSize();
        private int maxPayloadBytes = PublishRules.Limits.DEFAULTS.maxPayloadBytes();
        private int maxMetadataBytes = PublishRules.Limits.DEFAULTS.maxMetadataBytes();
        private Duration dedupWindow = Duration.ofHours(24);
        private String dlqSuffix = ".dlq";

        private Builder() {}

        /** {@code mq.publish.max-batch-size}: most messages in one call. Default 1000. */
        public Builder maxBatchSize(int messages) {
            this.maxBatchSize = messages;
            return this;
        }

        /** {@code mq.publish.max-payload-bytes}: largest payload in UTF-8 bytes. Default 1 MiB. */
        public Builder maxPayloadBytes(int bytes) {
            this.maxPayloadBytes = bytes;
            return this;
        }

        /** {@code mq.publish.max-metadata-bytes}: largest metadata JSON in UTF-8 bytes, stamp included. Default 16 KiB. */
        public Builder maxMetadataBytes(int bytes) {
            this.maxMetadataBytes = bytes;
            return this;
        }

        /** {@code mq.publish.dedup-window}: how long a deleted message's id still makes a duplicate. Default 24 h. */
        public Builder dedupWindow(Duration window) {
            this.dedupWindow = Objects.requireNonNull(window);
            return this;
        }

        /** {@code mq.dlq-suffix}: suffix of dead-letter topics. Default {@code .dlq}. */
        public Builder dlqSuffix(String suffix) {
            this.dlqSuffix = Objects.requireNonNull(suffix);
            return this;
        }

        /** The publisher. */
        public TransactionalPublisher build() {
            return new TransactionalPublisher(this);
        }
    }
}
