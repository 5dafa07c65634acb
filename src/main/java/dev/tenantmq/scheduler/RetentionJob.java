package dev.tenantmq.scheduler;

import static dev.tenantmq.model.Durations.micros;

import dev.tenantmq.config.MqConfig;
import dev.tenantmq.config.ProcessIdentity;
import dev.tenantmq.domain.FetchSignals;
import dev.tenantmq.domain.SettingsCache;
import dev.tenantmq.domain.TenantNotServedException;
import dev.tenantmq.ops.QueueMetrics;
import dev.tenantmq.store.RetentionStore;
import io.quarkus.scheduler.Scheduled;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jboss.logging.Logger;

/**
 * The retention policy ({@code mq.retention.*}). Once per {@code mq.retention.interval}, for
 * every topic of every served tenant, deletes from the head of each partition the messages
 * that every consumer group of the topic has committed, and the messages older than
 * {@code mq.retention.max-age} whether consumed or not, together with their delivery state.
 * A message whose dead letter ({@code <topic><mq.dlq-suffix>}, same partition key and id)
 * still exists is kept, and the walk of a partition stops at its first message that is
 * neither committed by every group nor expired. Age is judged by the database clock.
 * A deleted message younger than {@code mq.publish.dedup-window} leaves its identity behind, so
 * a producer's retry stays a duplicate; each run also deletes the identities whose window passed.
 *
 * <p>Deletes go in offset order, {@code mq.retention.batch-size} messages per short
 * transaction, so publishers and consumers never wait long. A failing tenant or topic is
 * logged once per failure streak and retried on the next run; it does not stop the others.
 * Every process that serves a tenant runs this for it; concurrent runs only find less to do.
 */
@ApplicationScoped
public class RetentionJob {
    private static final Logger LOG = Logger.getLogger(RetentionJob.class);
    /** Failure-streak key of a tenant whose topics could not be listed. */
    private static final String ALL_TOPICS = "";
    /** Failure-streak key of a tenant whose expired dedup identities could not be deleted (not a topic name: too short). */
    private static final String DEDUP_IDS = "\u0001";

    private final RetentionStore store;
    private final ProcessIdentity identity;
    private final QueueMetrics metrics;
    private final MqConfig config;
    private final FetchSignals signals;
    /** (tenant, topic) pairs whose last attempt failed, so each failure streak is logged once. */
    private final Set<String> failing = ConcurrentHashMap.newKeySet();

    /** Per-topic retention max-age and dedup window (docs/settings.md, "Per-topic and per-group settings"). */
    private final SettingsCache settings;
    /** A run cut short by the shutdown is not a failure to warn about. */
    private final dev.tenantmq.config.Stopping stopping;

    RetentionJob(RetentionStore store, ProcessIdentity identity, QueueMetrics metrics, MqConfig config,
                 FetchSignals signals, SettingsCache settings, dev.tenantmq.config.Stopping stopping) {
        this.stopping = stopping;
        this.settings = settings;
        this.store = store;
        this.identity = identity;
        this.metrics = metrics;
        this.config = config;
        this.signals = signals;
    }

    /**
     * What one run over all served tenants did.
     *
     * @param tenants tenants visited
     * @param topics topics purged without error
     * @param deleted messages deleted
     * @param failures tenants whose topics could not be listed plus topics whose purge failed
     */
    public record RetentionResult(int tenants, int topics, long deleted, int failures) {}

    /** The periodic run; does nothing when {@code mq.retention.enabled} is false. */
    @Scheduled(every = "${mq.retention.interval}", concurrentExecution = Scheduled.ConcurrentExecution.SKIP,
            skipExecutionIf = Scheduled.ApplicationNotRunning.class, // none once the shutdown began (docs/deployment.md, "Stopping")
            identity = "mq-retention")
    void scheduled() {
        if (!config.retention().enabled()) {
            return;
        }
        RetentionResult result = runOnce();
        LOG.debugf("retention run: %s", result);
    }

    /**
     * Runs the policy once for every served tenant with each topic's maximum age (its
     * {@code retentionMaxAgeSeconds}, else {@code mq.retention.max-age}; docs/settings.md,
     * "Per-topic and per-group settings") and the configured batch size, whether or not
     * {@code mq.retention.enabled} is set. Failures are logged, counted in the result and do not
     * stop the run.
     */
    public RetentionResult runOnce() {
        long maxAgeMicros = TOPIC_MAX_AGE;
        int batchSize = config.retention().batchSize();
        int topics = 0;
        int failures = 0;
        long deleted = 0;
        for (String tenant : identity.tenantNames()) {
            TenantOutcome outcome = purge(tenant, maxAgeMicros, batchSize);
            topics += outcome.topics;
            failures += outcome.failures;
            deleted += outcome.deleted;
        }
        return new RetentionResult(identity.tenantNames().size(), topics, deleted, failures);
    }

    /**
     * Runs the policy for every topic of one served tenant with an explicit maximum age and
     * the configured batch size. A failing topic is logged and skipped.
     *
     * @param maxAge messages created longer ago than this (database clock) are deleted even
     *     when unconsumed; {@link Duration#ZERO} expires every message
     * @return messages deleted
     * @throws IllegalArgumentException ({@link TenantNotServedException}) when this process does not serve
     *     {@code tenant}, or
     *     {@code maxAge} is negative
     */
    public long purgeTenant(String tenant, Duration maxAge) {
        TenantNotServedException.requireServed(identity, tenant);
        return purge(tenant, micros(requireAge(maxAge)), config.retention().batchSize()).deleted;
    }

    /**
     * Runs the policy for one topic of one served tenant with an explicit maximum age and
     * batch size. Errors are thrown, not logged.
     *
     * @param maxAge messages created longer ago than this (database clock) are deleted even
     *     when unconsumed
     * @param batchSize most messages read and deleted per transaction; at least 1
     * @return messages deleted
     * @throws IllegalArgumentException ({@link TenantNotServedException}) when this process does not serve
     *     {@code tenant}, or an
     *     argument is out of range
     * @throws dev.tenantmq.model.StoreUnavailableException when the database is unreachable
     */
    public long purgeTopic(String tenant, String topic, Duration maxAge, int batchSize) {
        TenantNotServedException.requireServed(identity, tenant);
        if (batchSize < 1) {
            throw new IllegalArgumentException("batchSize must be at least 1, got " + batchSize);
        }
        return purgeTopic(tenant, topic, micros(requireAge(maxAge)), batchSize);
    }

    private record TenantOutcome(int topics, int failures, long deleted) {}

    /**
     * The maximum age of a periodic run: each topic's own ({@code retentionMaxAgeSeconds}, else
     * {@code mq.retention.max-age}), where an explicit purge gives one age for every topic.
     */
    private static final long TOPIC_MAX_AGE = -1;

    private TenantOutcome purge(String tenant, long maxAgeMicros, int batchSize) {
        List<String> topics;
        try {
            topics = store.topics(tenant);
            recovered(tenant, ALL_TOPICS);
        } catch (RuntimeException ex) {
            failed(tenant, ALL_TOPICS, ex);
            return new TenantOutcome(0, 1, 0);
        }
        int done = 0;
        int failures = 0;
        long deleted = 0;
        try {
            forgetExpiredIdentities(tenant, batchSize);
            recovered(tenant, DEDUP_IDS);
        } catch (RuntimeException ex) {
            failures++;
            failed(tenant, DEDUP_IDS, ex);
        }
        for (String topic : topics) {
            try {
                long age = maxAgeMicros != TOPIC_MAX_AGE ? maxAgeMicros
                        : micros(settings.effective(tenant, topic, null).retentionMaxAge());
                deleted += purgeTopic(tenant, topic, age, batchSize);
                done++;
                recovered(tenant, topic);
            } catch (RuntimeException ex) {
                failures++;
                failed(tenant, topic, ex);
            }
        }
        return new TenantOutcome(done, failures, deleted);
    }

    /**
     * One topic: reads the floors first, so floors that advance meanwhile only make this run
     * keep more, then walks each partition whose head is committed or expired, reading the first
     * rows of up to {@link RetentionStore#PARTITIONS_PER_READ} such partitions per statement
     * ({@link RetentionStore#partitionsPerRead}). Deletable rows of several partitions are
     * deleted together, up to {@code batchSize} per transaction: most partitions hold a few
     * consumed rows, and a commit per partition would cost more than the deletes.
     */
    private long purgeTopic(String tenant, String topic, long maxAgeMicros, int batchSize) {
        RetentionStore.Floors floors = store.floors(tenant, topic);
        String deadLetterTopic = topic + config.dlqSuffix();
        Pending pending = new Pending(tenant, topic, floors.groups(), batchSize);
        List<RetentionStore.Head> due = store.heads(tenant, topic, maxAgeMicros).stream()
                .filter(head -> head.offset() <= floors.floor(head.partitionKey()) || head.expired()).toList();
        int perRead = RetentionStore.partitionsPerRead(batchSize);
        for (int from = 0; from < due.size(); from += perRead) {
            List<RetentionStore.Head> chunk = due.subList(from, Math.min(due.size(), from + perRead));
            Map<String, Long> after = new LinkedHashMap<>();
            chunk.forEach(head -> after.put(head.partitionKey(), head.offset() - 1));
            Map<String, List<RetentionStore.Row>> first = store.rows(tenant, topic, deadLetterTopic, floors.groups(),
                    after, maxAgeMicros, batchSize);
            for (RetentionStore.Head head : chunk) {
                String key = head.partitionKey();
                purgePartition(tenant, topic, deadLetterTopic, key, first.getOrDefault(key, List.of()), floors.floor(key),
                        floors.groups(), maxAgeMicros, batchSize, pending);
            }
        }
        pending.flush();
        return pending.deleted;
    }

    /**
     * Walks one partition from its head: {@code rows} is its first batch, read with those of other
     * partitions; a partition with more deletable rows than a batch reads the next ones alone.
     */
    private void purgePartition(String tenant, String topic, String deadLetterTopic, String partitionKey,
                                List<RetentionStore.Row> rows, long floor, List<String> groups, long maxAgeMicros,
                                int batchSize, Pending pending) {
        while (true) {
            Batch batch = plan(rows, floor);
            pending.add(partitionKey, rows, batch.deletable(), floor);
            if (batch.stop() || rows.size() < batchSize) {
                return;
            }
            rows = store.rows(tenant, topic, deadLetterTopic, partitionKey, groups, batch.lastSeen(), maxAgeMicros,
                    batchSize);
        }
    }

    /** Deletable offsets of one topic waiting to be deleted, by partition, flushed at {@code batchSize} rows. */
    private final class Pending {
        private final String tenant;
        private final String topic;
        private final List<String> groups;
        private final int batchSize;
        private final List<RetentionStore.Range> ranges = new ArrayList<>();
        private int size;
        /** Partitions with a pending offset above their floor: not committed by every group. */
        private final java.util.Set<String> unconsumed = new java.util.HashSet<>();
        long deleted;

        Pending(String tenant, String topic, List<String> groups, int batchSize) {
            this.tenant = tenant;
            this.topic = topic;
            this.groups = groups;
            this.batchSize = batchSize;
        }

        void add(String partitionKey, List<RetentionStore.Row> rows, List<Long> deletable, long floor) {
            if (deletable.isEmpty()) {
                return;
            }
            if (deletable.get(deletable.size() - 1) > floor) {
                unconsumed.add(partitionKey);
            }
            ranges.addAll(runs(partitionKey, rows, deletable));
            size += deletable.size();
            if (size >= batchSize) {
                flush();
            }
        }

        void flush() {
            if (size == 0) {
                return;
            }
            int n = store.delete(tenant, topic, groups, ranges,
                    micros(settings.effective(tenant, topic, null).dedupWindow()), unconsumed);
            deleted += n;
            // Counted per transaction, so a topic that fails half-way still reports what it deleted.
            metrics.retentionDeleted(tenant, topic, n);
            if (!unconsumed.isEmpty() && n > 0) {
                // An expired message may have been in flight or next in line: the partition it
                // held back may flow now, so waiting long polls look at once, not at the visibility
                // deadline or their next re-check.
                signals.signal(tenant, topic, FetchSignals.ALL);
            }
            ranges.clear();
            size = 0;
            unconsumed.clear();
        }
    }

    /**
     * What to do with one batch of a partition's rows.
     *
     * @param deletable offsets to delete, ascending
     * @param lastSeen highest offset looked at; the next batch starts after it
     * @param stop the partition's walk ends with this batch
     */
    record Batch(List<Long> deletable, long lastSeen, boolean stop) {}

    /**
     * Splits rows (in offset order) into deletable ones, up to the first row that is neither
     * committed by every group ({@code offset <= floor}) nor expired. A row with a dead letter
     * is kept but does not stop the walk: it holds back only itself. So is a row a group still
     * has to deliver although its committed offset is past it (a requeued dead letter), until
     * it expires.
     */
    static Batch plan(List<RetentionStore.Row> rows, long floor) {
        List<Long> deletable = new ArrayList<>();
        long lastSeen = -1;
        for (RetentionStore.Row row : rows) {
            if (row.offset() > floor && !row.expired()) {
                return new Batch(deletable, lastSeen, true);
            }
            lastSeen = row.offset();
            if (!row.deadLettered() && (row.expired() || !row.undelivered())) {
                deletable.add(row.offset());
            }
        }
        return new Batch(deletable, lastSeen, false);
    }

    /**
     * The deletable rows of one scanned batch of a partition ({@link #plan}) as runs of
     * consecutive rows, which retention deletes as primary-key ranges. A run spans the offsets
     * from its first row to its last; the offsets between its rows belong to other partitions
     * (offsets are one sequence for the whole table), so only a row of this partition that must
     * stay (a dead-lettered or requeued one, or the row the walk stopped at) splits a run. No
     * row of the partition can appear inside a run later: a new message of the partition gets
     * an offset above every stored one (docs/architecture.md, "Publish: the partition head lock").
     *
     * @param rows the batch's rows, in offset order, as {@link #plan} saw them
     * @param deletable what {@link #plan} decided to delete among them
     */
    static List<RetentionStore.Range> runs(String partitionKey, List<RetentionStore.Row> rows, List<Long> deletable) {
        java.util.Set<Long> delete = new java.util.HashSet<>(deletable);
        List<RetentionStore.Range> out = new ArrayList<>();
        long from = -1;
        long to = -1;
        for (RetentionStore.Row row : rows) {
            if (delete.contains(row.offset())) {
                from = from < 0 ? row.offset() : from;
                to = row.offset();
            } else if (from >= 0) {
                out.add(new RetentionStore.Range(partitionKey, from, to));
                from = -1;
            }
        }
        if (from >= 0) {
            out.add(new RetentionStore.Range(partitionKey, from, to));
        }
        return out;
    }

    /**
     * Deletes the remembered identities of deleted messages whose dedup window has passed
     * ({@code mq.publish.dedup-window}), {@code batchSize} rows per statement. One sweep per
     * tenant, so it waits for the longest window of any of its topics: an identity kept longer than
     * its topic's window is harmless, as publish compares its age with the topic's own window.
     */
    private void forgetExpiredIdentities(String tenant, int batchSize) {
        long window = micros(settings.longestDedupWindow(tenant));
        while (store.deleteExpiredIdentities(tenant, window, batchSize) == batchSize) {
            // more may have expired
        }
    }

    private void failed(String tenant, String topic, RuntimeException ex) {
        if (stopping.now()) {
            LOG.debugf("retention for tenant=%s (%s) cut short by the shutdown: %s", tenant, topic, ex.getMessage());
            return;
        }
        if (failing.add(key(tenant, topic))) {
            // Logged once per failure streak; the next run retries.
            if (topic.equals(ALL_TOPICS)) {
                LOG.warnf(ex, "retention could not list the topics of tenant=%s", tenant);
            } else if (topic.equals(DEDUP_IDS)) {
                LOG.warnf(ex, "retention could not delete the expired dedup identities of tenant=%s", tenant);
            } else {
                LOG.warnf(ex, "retention failed for tenant=%s topic=%s", tenant, topic);
            }
        }
    }

    private void recovered(String tenant, String topic) {
        if (failing.remove(key(tenant, topic))) {
            String what = topic.equals(ALL_TOPICS) ? "" : topic.equals(DEDUP_IDS) ? " (dedup identities)" : " topic=" + topic;
            LOG.infof("retention for tenant=%s%s recovered", tenant, what);
        }
    }

    private static String key(String tenant, String topic) {
        return tenant + '\u0000' + topic;
    }

    private static Duration requireAge(Duration maxAge) {
        if (maxAge.isNegative()) {
            throw new IllegalArgumentException("maxAge must not be negative, got " + maxAge);
        }
        return maxAge;
    }
}
