package dev.tenantmq.config;

import dev.tenantmq.model.SettingOverrides;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import io.smallrye.config.WithName;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.PositiveOrZero;
import jakarta.validation.constraints.Size;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.hibernate.validator.constraints.time.DurationMax;
import org.hibernate.validator.constraints.time.DurationMin;

/**
 * All tenant-mq settings, under the prefix {@code mq}. Environment variables map in the
 * usual MicroProfile way ({@code MQ_TENANTS} -> {@code mq.tenants},
 * {@code MQ_LEASE_DURATION} -> {@code mq.lease-duration}). Durations take ISO-8601
 * ({@code PT30S}) or the short Quarkus form ({@code 30s}, {@code 500ms}).
 * docs/settings.md documents each value; SPEC section 6 lists what must exist.
 *
 * <p>The bounds of each value are Bean Validation constraints here, their one home: Quarkus
 * checks them at start-up and refuses to start with every broken one named
 * ({@code Configuration validation failed: mq.max-deliveries must be at least 1}). What
 * depends on several settings, and the parsing of {@code mq.tenants}, is checked by
 * {@link ProcessIdentity}. A constraint's message is literal text (no interpolation), so it
 * never prints a secret's value.
 */
@ConfigMapping(prefix = "mq")
public interface MqConfig {

    /**
     * Tenants this process serves, comma-separated ({@code MQ_TENANTS}). Required and
     * non-empty; each entry must be a valid identifier (SPEC section 3). Requests for
     * other tenants get 403.
     */
    Optional<List<String>> tenants();

    /**
     * Name of this process inside its consumer groups ({@code MQ_SUBSCRIBER_NAME}).
     * Default: the host name (the pod name on Kubernetes). Must be unique per process.
     */
    Optional<String> subscriberName();

    /** How long a partition lease lasts without renewal. Default 30 s. */
    @WithDefault("30s")
    Duration leaseDuration();

    /**
     * Interval of the scheduler tick (heartbeat, discovery, lease work). At least 1 s (Quarkus's
     * scheduler checks its jobs once a second, and would silently run a shorter interval as 1 s),
     * and shorter than {@link #heartbeatTimeout()} and {@link #leaseDuration()}; default 2 s.
     */
    @WithDefault("2s")
    @DurationMin(seconds = 1, message = ONCE_A_SECOND)
    Duration tickInterval();

    /**
     * The most leases one scheduler tick acquires for one (tenant, consumer group, topic), fresh
     * and taken over together. A topic with more partitions with work is leased over several
     * ticks, so a tick's transaction stays bounded (docs/architecture.md, "The scheduler's
     * tick"). At least 1; default 5,000: at 100,000 partitions a tick acquiring 10,000 while
     * holding 90,000 took 1.06 s in the benchmark, longer than the 1 s a tick may take.
     */
    @WithDefault("5000")
    @Min(value = 1, message = "must be at least 1")
    int maxLeaseAcquisitionsPerTick();

    /**
     * Runs of a statement text in this process before the service prepares it on the database
     * server (docs/architecture.md, "Server-side prepared statements"): before that it goes as
     * text with its values inlined. A prepared text saves the server its parse on each later run
     * on a pooled connection, but costs each connection a prepare, so only frequent texts gain.
     * At least 0 (every text on the server from its first run); default 64.
     */
    @WithDefault("64")
    @Min(value = 0, message = "must be at least 0")
    int serverPrepareAfterRuns();

    /** The message of a scheduler interval under 1 s. */
    String ONCE_A_SECOND = "must be at least 1s (the scheduler runs jobs at most once a second)";

    /** The message of a duration below zero. */
    String NOT_NEGATIVE = SettingOverrides.NOT_NEGATIVE;

    /**
     * A subscriber whose heartbeat is older than this is dead: its leases are swept and its
     * heartbeat row purged. Default 10 s (five ticks).
     */
    @WithDefault("10s")
    Duration heartbeatTimeout();

    /**
     * A (tenant, consumer group, topic) with no fetch for this long is dropped by this
     * process: its heartbeat ends and its leases are released. Default 5 minutes.
     */
    @WithDefault("5m")
    Duration interestTimeout();

    /**
     * A (tenant, consumer group, topic) with no fetch here for this long is dormant: after one full
     * tick that hands back the leases of its partitions with nothing pending, until its next
     * fetch, or until its live subscribers change, each scheduler tick only heartbeats,
     * renews the leases it holds and dead-letters expired last attempts, and leaves out the reads
     * of every partition and lease row of the triple (docs/architecture.md, "Dormant groups").
     * {@code 0s}: never dormant, every tick in full. Default 10 s.
     */
    @WithDefault("10s")
    @DurationMin(message = NOT_NEGATIVE)
    Duration dormantAfter();

    /**
     * A leased partition with nothing pending for the group and no commit for this long is
     * idle: its lease is released, and it is not leased again until a message arrives. A group
     * quiet for {@link #dormantAfter()} hands its drained partitions back at once
     * ({@code TickKind.idleAfter}). Default 5 minutes.
     */
    @WithDefault("5m")
    Duration idleLeaseTimeout();

    /**
     * Failed delivery attempts after which a message is dead-lettered for the consumer group
     * (a nack, a visibility expiry or a lease lost to a crash or expiry each count as one; a
     * graceful lease hand-over does not). At least 1; default 5.
     */
    @WithDefault("5")
    @Min(value = SettingOverrides.MIN_MAX_DELIVERIES, message = SettingOverrides.MAX_DELIVERIES_RULE)
    int maxDeliveries();

    /** Suffix of the dead-letter topic: {@code <topic><suffix>}. Default {@code .dlq}. */
    @WithDefault(".dlq")
    String dlqSuffix();

    /** Publish limits. */
    Publish publish();

    /** Redelivery delay of a nack without {@code delaySeconds}. */
    Nack nack();

    /** Retention: deleting consumed and expired messages. */
    Retention retention();

    /** The admin API ({@code /admin/...}). */
    Admin admin();

    /** Fetch defaults and limits. */
    Fetch fetch();

    /** Per-tenant quotas (docs/security.md, "Quotas"): publish rate and unacknowledged messages per topic. */
    Quota quota();

    /** Authentication of the data plane and the admin API (docs/security.md). */
    Auth auth();

    /** Request bodies: how long one may take to arrive, and how many one client or tenant may send at once. */
    Http http();

    /**
     * Request bodies are read in full on the event loop before a worker thread is taken
     * (docs/security.md, "Slow clients"). These bound what a slow sender can hold: time, and
     * bodies in flight per client address and per tenant.
     */
    interface Http {
        /**
         * Longest time a request body may take to arrive, from the first byte the service reads
         * of it to its last. A body still incomplete then is answered 408 and its connection
         * closed. At least 1 s; default 30 s (64 MiB, the body limit, at about 2.2 MB/s).
         */
        @WithDefault("30s")
        @DurationMin(seconds = 1, message = "must be at least 1s")
        Duration bodyReadTimeout();

        /**
         * Most request bodies one client address may be sending at once; one more is answered
         * 429 and its connection closed. At least 1; default 64. Behind a proxy that does not
         * forward the client's address, every client is the proxy: raise it there.
         */
        @WithDefault("64")
        @Min(value = 1, message = "must be at least 1")
        int maxBodyReadsPerClient();

        /**
         * Most request bodies for one tenant (the {@code tenant} of the path) in flight at once,
         * from all clients together; one more is answered 429 and its connection closed. At least
         * 1; default 128.
         */
        @WithDefault("128")
        @Min(value = 1, message = "must be at least 1")
        int maxBodyReadsPerTenant();
    }

    /** Receipt signing (docs/security.md, "Receipt signing"). */
    Receipt receipt();

    /**
     * The keys that sign receipts with HMAC-SHA256. Each key is text: {@code base64:<base64>} or
     * raw text, at least 32 bytes either way (checked at start-up, without printing the key).
     */
    interface Receipt {
        /**
         * The key every instance signs receipts with ({@code MQ_RECEIPT_KEY}; a secret). Every
         * instance of a deployment must have the same one, so that acks work on any instance.
         * Unset: a random key per process, with a WARN at start-up.
         */
        Optional<String> key();

        /**
         * Keys still accepted when verifying receipts, comma-separated ({@code MQ_RECEIPT_PREVIOUS_KEYS}):
         * the old key while a new one rolls out. Receipts live at most a visibility timeout (12 h at
         * most), so a previous key may be dropped that long after every instance signs with the new one.
         */
        Optional<List<String>> previousKeys();
    }

    /** Publish limits. */
    interface Publish {
        /** Most messages in one publish call. Default 1000. */
        @WithDefault("1000")
        int maxBatchSize();

        /** Largest payload of one message, in bytes of its UTF-8 JSON text. Default 1 MiB. */
        @WithDefault("1048576")
        int maxPayloadBytes();

        /**
         * Largest metadata of one message, in bytes of its UTF-8 JSON text with
         * {@code queue_name} stamped. Default 16 KiB; at most 61440 (the column holds 64 KiB,
         * and dead-lettering adds keys).
         */
        @WithDefault("16384")
        @Min(value = 64, message = METADATA_RANGE)
        @Max(value = 61_440, message = METADATA_RANGE)
        int maxMetadataBytes();

        /** The message of a metadata limit out of range. */
        String METADATA_RANGE = "must be between 64 and 61440 (the metadata column holds 64 KiB, and dead-lettering"
                + " adds keys)";

        /**
         * How long after its publish a message's (tenant, topic, partitionKey, id) stays a
         * duplicate once the message is deleted (consumed and purged by retention, expired, or
         * deleted by an operator). While the message is stored it is a duplicate anyway. Default
         * 24 hours; 0 keeps duplicates only while the message is stored; at most 3650 days
         * ({@link SettingOverrides#MAX_AGE_DAYS}, as a topic's override).
         */
        @WithDefault("24h")
        @DurationMin(message = NOT_NEGATIVE)
        @DurationMax(days = SettingOverrides.MAX_AGE_DAYS, message = SettingOverrides.MAX_AGE_RULE)
        Duration dedupWindow();

        /**
         * Group commit (docs/architecture.md, "Group commit"): how long concurrent publishes to
         * one (tenant, topic) wait for each other to share one transaction, as Kafka's producer
         * {@code linger.ms}. Only while another publish transaction of that topic runs in this
         * process; a lone publish never waits. A group runs as soon as that transaction commits,
         * when it holds {@link #groupMaxMessages()} messages, or after this long, but never while
         * a running transaction or an earlier waiting group writes one of its partitions. Default
         * 2 ms; 0 turns group commit off; at most 1 s.
         */
        @WithDefault("2ms")
        @DurationMin(message = NOT_NEGATIVE)
        @DurationMax(seconds = 1, message = "must be at most 1s")
        Duration linger();

        /**
         * Most messages of one group commit (as Kafka's producer {@code batch.size}): a request
         * that would take a group past it starts the next group, and a larger request runs alone.
         * Default 1000; 1 to 10000.
         */
        @WithDefault("1000")
        @Min(value = 1, message = GROUP_RANGE)
        @Max(value = 10_000, message = GROUP_RANGE)
        int groupMaxMessages();

        /** The message of a group size out of range. */
        String GROUP_RANGE = "must be between 1 and 10000";
    }

    /** Fetch defaults and limits. */
    interface Fetch {
        /** Largest {@code maxMessages} a fetch may ask for. Default 1000. */
        @WithDefault("1000")
        int maxMessages();

        /**
         * Largest {@code maxBytes} (byte budget) a fetch may ask for, in payload bytes: the UTF-8
         * length of each delivered payload's JSON text as stored (docs/api.md, "Lease-fetch"). The
         * first message of a fetch goes even when it alone is larger. At least 1024; default
         * 50 MiB, as Kafka's {@code fetch.max.bytes}.
         */
        @WithDefault("52428800")
        @Min(value = 1024, message = "must be at least 1024")
        int maxBytes();

        /**
         * The byte budget of a fetch that names no {@code maxBytes}, in payload bytes. At least 1
         * and at most {@link #maxBytes()} (checked at start-up); default 8 MiB.
         */
        @WithDefault("8388608")
        @Min(value = 1, message = "must be at least 1")
        int defaultMaxBytes();

        /**
         * While a long poll waits, how often it re-checks the database for messages published
         * through another process (publishes through this process wake it at once). Default 500 ms.
         */
        @WithDefault("500ms")
        Duration recheckInterval();

        /**
         * Longest time the fetches of a consumer group in this process may go without asking the
         * database which of its leased partitions are ready, while each carries the acks of a
         * full batch and the acked partitions fill it (docs/api.md, "Fetch and ack in one
         * call"): how long a partition that became ready meanwhile may wait behind them. Ten
         * times it is how long the ready partitions a look named beyond what its fetch reached
         * serve the group's next fetches here instead of a new look (docs/architecture.md, "The
         * rest of a look"), and how long, after a look that saw every ready partition, the
         * partitions signalled in this process since serve them ("News between looks"). 0 asks
         * every time. Default 100 ms.
         */
        @WithDefault("100ms")
        @DurationMin(message = NOT_NEGATIVE)
        Duration readyLookInterval();
    }

    /**
     * Exponential backoff of a nack that names no delay: the message becomes visible again
     * after {@code min(cap, base * 2^(deliveryAttempt - 1))}.
     */
    interface Nack {
        /** Delay after the first failed attempt: 0..12 h (the longest nack delay). Default 1 s. */
        @WithDefault("1s")
        @DurationMin(message = SettingOverrides.BACKOFF_RULE)
        @DurationMax(seconds = SettingOverrides.MAX_BACKOFF_SECONDS, message = SettingOverrides.BACKOFF_RULE)
        Duration backoffBase();

        /** Longest delay: 0..12 h (the longest nack delay). Default 5 minutes. */
        @WithDefault("5m")
        @DurationMin(message = SettingOverrides.BACKOFF_RULE)
        @DurationMax(seconds = SettingOverrides.MAX_BACKOFF_SECONDS, message = SettingOverrides.BACKOFF_RULE)
        Duration backoffCap();
    }

    /**
     * Retention policy. Each run deletes, per (tenant, topic) of the served tenants, the
     * messages every consumer group of the topic has committed, and the messages older than
     * {@link #maxAge()} whether consumed or not, together with their delivery state. A message
     * whose dead letter still exists in {@code <topic><suffix>} is kept. Deletes go in
     * primary-key order, {@link #batchSize()} rows per short transaction.
     */
    interface Retention {
        /** Whether this process runs retention. Default true. */
        @WithDefault("true")
        boolean enabled();

        /** Time between retention runs. At least 1 s; default 1 minute. */
        @WithDefault("1m")
        @DurationMin(seconds = 1, message = ONCE_A_SECOND)
        Duration interval();

        /**
         * Age (by {@code created_at}) after which any message is deleted, acknowledged or not.
         * Default 7 days; 0 to 3650 days ({@link SettingOverrides#MAX_AGE_DAYS}, as a topic's override).
         */
        @WithDefault("7d")
        @DurationMin(message = NOT_NEGATIVE)
        @DurationMax(days = SettingOverrides.MAX_AGE_DAYS, message = SettingOverrides.MAX_AGE_RULE)
        Duration maxAge();

        /** Most rows one delete statement removes: 1..10000 (a batch of 0 would never advance). Default 500. */
        @WithDefault("500")
        @Min(value = 1, message = BATCH_RANGE)
        @Max(value = 10_000, message = BATCH_RANGE)
        int batchSize();

        /** The message of a retention batch size out of range. */
        String BATCH_RANGE = "must be between 1 and 10000";
    }

    /**
     * Who may call the API (docs/security.md, "Modes"). In {@code jwt} mode every call needs a
     * bearer JWT verified by quarkus-smallrye-jwt ({@code mp.jwt.verify.publickey.location} or
     * {@code mp.jwt.verify.publickey}, {@code mp.jwt.verify.issuer}, {@code mp.jwt.verify.audiences})
     * whose {@code tmq} claim grants the permission ({@code dev.tenantmq.model.Grants}).
     */
    interface Auth {
        /**
         * {@code none} (default): the data plane is open to whoever reaches the port, which start-up
         * allows only when {@code quarkus.http.host} is a loopback address (the sidecar).
         * {@code jwt}: bearer JWTs on every call ({@code MQ_AUTH_MODE}).
         */
        @WithDefault("none")
        Mode mode();

        /**
         * Longest life a bearer JWT may be issued for: {@code exp - iat}, checked in {@code jwt} mode
         * ({@code MQ_AUTH_MAX_TOKEN_LIFETIME}; docs/security.md, "Token times"). A longer-lived token
         * gets 401 naming this setting, so a leaked token stays useful for a bounded time. Between
         * 1 minute and 365 days; default 24 h.
         */
        @WithDefault("24h")
        @DurationMin(minutes = 1, message = LIFETIME_RANGE)
        @DurationMax(days = 365, message = LIFETIME_RANGE)
        Duration maxTokenLifetime();

        /** The message of a maximum token lifetime out of range. */
        String LIFETIME_RANGE = "must be between 1m and 365d";

        /** The authentication modes. */
        enum Mode {
            /** No authentication: loopback only. */
            NONE,
            /** Bearer JWTs with the {@code tmq} claim. */
            JWT
        }
    }

    /** Admin API access. */
    interface Admin {
        /**
         * Bearer token that grants the admin role ({@code MQ_ADMIN_TOKEN}); at least 16
         * characters. Without one, every admin endpoint answers 403. Publishing and consuming
         * never need or grant it.
         */
        Optional<@Size(min = 16, message = "must be at least 16 characters (MQ_ADMIN_TOKEN)") String> token();

        /**
         * Rows one chunk of a topic or consumer-group deletion deletes: one {@code DELETE ... LIMIT}
         * in a transaction of its own (docs/operations.md, "Deleting a topic or a consumer group").
         * 1..100000; default 1000.
         */
        @WithDefault("1000")
        @Min(value = 1, message = DELETE_CHUNK_RANGE)
        @Max(value = 100_000, message = DELETE_CHUNK_RANGE)
        int deleteChunkSize();

        /**
         * Chunks one deletion call runs before it answers {@code done: false} (the caller calls
         * again). 1..10000; default 50, about 50,000 rows a call by default.
         */
        @WithDefault("50")
        @Min(value = 1, message = DELETE_CHUNKS_RANGE)
        @Max(value = 10_000, message = DELETE_CHUNKS_RANGE)
        int deleteChunksPerCall();

        /** The bounds of {@link #deleteChunkSize}. */
        String DELETE_CHUNK_RANGE = "must be 1..100000";
        /** The bounds of {@link #deleteChunksPerCall}. */
        String DELETE_CHUNKS_RANGE = "must be 1..10000";
    }

    // ---- Metrics: queue gauges and label cardinality.
    /** Queue metrics (docs/operations.md, "Metrics"; docs/settings.md, "Metrics"). */
    Metrics metrics();

    /** Queue metrics: how often the scheduler refreshes the queue gauges, and the label bound. */
    interface Metrics {
        /**
         * Most distinct {@code topic} label values per tenant on {@code /q/metrics}; further topics
         * are counted under {@code topic="_other"} (logged once per tenant). At least 1 (a smaller
         * value counts as 1); default 1000.
         */
        @WithDefault("1000")
        int maxTopics();

        /**
         * Least time between two refreshes of the queue gauges (lag, oldest age, in flight, dead
         * letters): the scheduler tick runs one statement per served tenant at most this often.
         * Default 10 s; never more often than {@code mq.tick-interval}.
         */
        @WithDefault("10s")
        Duration refreshInterval();
    }

    /**
     * Per-tenant quotas (docs/security.md, "Quotas"). Each tenant gets
     * {@code mq.quota.default.*}, and a setting of {@code mq.quota.tenants."<tenant>".*} replaces
     * the default for that tenant. {@code 0} means unlimited, and every setting is unlimited by
     * default: a sidecar serves one application, which has the database to itself, and the replay
     * and benchmark publish as fast as they can. A central deployment sets them. Going over
     * either limit gets 429 with {@code Retry-After}, and nothing of the batch is stored.
     */
    interface Quota {
        /** The limits of every tenant, unless overridden under {@link #tenants()}. */
        @WithName("default")
        Limits defaults();

        /**
         * Per-tenant overrides by tenant name ({@code mq.quota.tenants."acc-a".publish-rate=100}).
         * A setting left out falls back to {@code mq.quota.default.*}. Keys must be valid
         * tenant names (checked at start-up).
         */
        Map<String, Limits> tenants();

        /** One set of limits; each is at least 0, where 0 (or unset) means unlimited. */
        interface Limits {
            /**
             * Messages per second a tenant may publish through this process (a token bucket per
             * process, so N processes admit up to N times this). A batch of n messages takes n
             * tokens or is refused whole. Unset: the default's value, finally 0 (unlimited).
             */
            @PositiveOrZero
            OptionalLong publishRate();

            /**
             * Token-bucket capacity: the most messages a tenant may publish at once after being
             * idle. Unset or 0: one second's worth, {@link #publishRate()}. A batch larger than this
             * can never pass, and gets 400.
             */
            @PositiveOrZero
            OptionalLong publishBurst();

            /**
             * Most unacknowledged messages one topic of the tenant may hold: stored messages above,
             * per partition, the lowest committed offset of the topic's consumer groups (all stored
             * messages of a partition a group has not read, or of a topic without groups). Counted
             * on the scheduler tick plus this process's publishes since. Unset: the default's
             * value, finally 0 (unlimited).
             */
            @PositiveOrZero
            OptionalLong maxUnackedPerTopic();

            /**
             * Most unacknowledged messages all topics of the tenant may hold together (dead-letter
             * topics included), so that spreading messages over more topics does not dodge
             * {@link #maxUnackedPerTopic()}. Counted as that one is, on the scheduler tick plus this
             * process's publishes since. Unset: the default's value, finally 0 (unlimited).
             */
            @PositiveOrZero
            OptionalLong maxUnackedPerTenant();

            /**
             * Payload bytes per second a tenant may publish through this process (a second token
             * bucket per process, beside {@link #publishRate()}): the UTF-8 length of each payload's
             * JSON text, as {@code mq.publish.max-payload-bytes} and a fetch's {@code maxBytes}
             * count them. A batch takes its payload bytes or is refused whole. Unset: the default's
             * value, finally 0 (unlimited).
             */
            @PositiveOrZero
            OptionalLong publishByteRate();

            /**
             * Byte token-bucket capacity: the most payload bytes a tenant may publish at once after
             * being idle. Unset or 0: one second's worth, {@link #publishByteRate()}. A batch with
             * more payload bytes than this can never pass, and gets 400.
             */
            @PositiveOrZero
            OptionalLong publishByteBurst();
        }
    }
}
