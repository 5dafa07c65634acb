package dev.tenantmq.domain;

import static dev.tenantmq.model.Durations.micros;

import dev.tenantmq.config.MqConfig;
import dev.tenantmq.config.ProcessIdentity;
import dev.tenantmq.model.ConsumerGroup;
import dev.tenantmq.model.MessageId;
import dev.tenantmq.model.PartitionKey;
import dev.tenantmq.model.Tenant;
import dev.tenantmq.model.Topic;
import dev.tenantmq.ops.QueueMetrics;
import dev.tenantmq.store.AdminStore;
import dev.tenantmq.store.QueueStatsStore;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * Operational tooling (SPEC section 4, "Admin"; RFC "Operational tooling"). Listings are scoped
 * to one tenant, or to all tenants only when the caller asked for that explicitly; they are
 * not limited to MQ_TENANTS. Inspect, delete and requeue name one message by its complete
 * identity. Callers are authorized by the API layer (admin role).
 */
@ApplicationScoped
public class AdminService {
    private final AdminStore store;
    private final FetchSignals signals;
    private final QueueMetrics metrics;
    private final MqConfig config;
    private final QueueStatsStore stats;
    private final ProcessIdentity identity;
    /** The topic's dedup window for a deleted message's identity. */
    private final SettingsCache settings;

    AdminService(AdminStore store, FetchSignals signals, QueueMetrics metrics, MqConfig config, QueueStatsStore stats,
                 ProcessIdentity identity, SettingsCache settings) {
        this.settings = settings;
        this.store = store;
        this.stats = stats;
        this.identity = identity;
        this.signals = signals;
        this.metrics = metrics;
        this.config = config;
    }

    /**
     * Which tenants a listing covers: one, or all (explicit fleet-wide read).
     *
     * @param tenant the tenant, or empty for all tenants
     */
    public record Scope(Optional<Tenant> tenant) {
        Optional<String> value() {
            return tenant.map(Tenant::value);
        }
    }

    /** The complete identity of one message (RFC: tenant, topic, partition_key, id). */
    public record MessageIdentity(Tenant tenant, Topic topic, PartitionKey partitionKey, MessageId id) {}

    /**
     * A browse of one topic's stored messages (keyset pagination on offset).
     *
     * @param partitionKey only this partition, or null for all
     * @param afterOffset only messages with a larger offset (0: from the first)
     * @param limit most messages of the page
     */
    public record Browse(Tenant tenant, Topic topic, PartitionKey partitionKey, long afterOffset, int limit) {}

    /** Rows of a listing; {@code truncated} when there were more than the limit. */
    public record Page<T>(List<T> rows, boolean truncated) {
        static <T> Page<T> of(List<T> rows, int limit) {
            return rows.size() > limit ? new Page<>(rows.subList(0, limit), true) : new Page<>(rows, false);
        }
    }

    /** Topics with partition and message counts, at most {@code limit} rows. */
    public Page<AdminViews.TopicView> topics(Scope scope, int limit) {
        return Page.of(store.topics(scope.value(), limit + 1).stream()
                .map(r -> new AdminViews.TopicView(r.tenant(), r.topic(), r.partitions(), r.messages())).toList(), limit);
    }

    /**
     * Committed offset and lag (messages above the committed offset) per partition and group.
     *
     * @param topic only this topic, or null
     * @param group only this group, or null
     */
    public Page<AdminViews.OffsetView> offsets(Scope scope, Topic topic, ConsumerGroup group, int limit) {
        return Page.of(store.offsets(scope.value(), topic == null ? null : topic.value(),
                group == null ? null : group.value(), limit + 1).stream()
                .map(r -> new AdminViews.OffsetView(r.tenant(), r.topic(), r.partitionKey(), r.consumerGroup(),
                        r.committedOffset(), r.latestOffset(), r.lag())).toList(), limit);
    }

    /**
     * Per (tenant, topic, consumer group): lag, in-flight deliveries, dead letters and the age of
     * the oldest unacknowledged message (docs/operations.md, "Admin API"), computed now with the queue
     * gauges' read ({@link QueueStatsStore#stats}), a few tenant-scoped statements per tenant.
     * All tenants means those with a consumer group (on {@code topic} when given), in tenant
     * order; their reads run one after the other until {@code limit} rows are exceeded.
     * Rows are ordered by tenant, then topic and group.
     *
     * @param topic only this topic, or null
     */
    public Page<AdminViews.GroupStatsView> consumerGroups(Scope scope, Topic topic, int limit) {
        String only = topic == null ? null : topic.value();
        List<String> tenants = scope.tenant().isPresent() ? List.of(scope.tenant().get().value())
                : store.groupTenants(only, limit + 1); // each has at least one row to show
        List<AdminViews.GroupStatsView> rows = new ArrayList<>();
        for (String tenant : tenants) {
            stats.stats(tenant, config.dlqSuffix()).stream()
                    .filter(r -> r.consumerGroup() != null && (only == null || only.equals(r.topic())))
                    .sorted(Comparator.comparing(QueueStatsStore.QueueStatsRow::topic)
                            .thenComparing(QueueStatsStore.QueueStatsRow::consumerGroup))
                    .map(r -> new AdminViews.GroupStatsView(tenant, r.topic(), r.consumerGroup(), r.lag(), r.inFlight(),
                            r.deadLetters(), r.oldestAgeMicros() < 0 ? null : r.oldestAgeMicros() / 1_000_000))
                    .forEach(rows::add);
            if (rows.size() > limit) {
                break;
            }
        }
        return Page.of(rows, limit);
    }

    /** The tenants this process serves ({@code mq.tenants}), in configured order. */
    public List<String> servedTenants() {
        return identity.tenantNames();
    }

    /**
     * Partition leases. Active: unexpired and held by a subscriber whose heartbeat is younger
     * than {@code mq.heartbeat-timeout}; stale: the rest.
     *
     * @param active true for active only, false for stale only, null for both
     */
    public Page<AdminViews.LeaseView> leases(Scope scope, Boolean active, int limit) {
        return Page.of(store.leases(scope.value(), active, micros(config.heartbeatTimeout()), limit + 1).stream()
                .map(r -> new AdminViews.LeaseView(r.tenant(), r.consumerGroup(), r.topic(), r.partitionKey(),
                        r.leasedBy(), r.epoch(), r.expiresAt(), r.acquiredAt(), r.renewedAt(), r.active())).toList(), limit);
    }

    /** Subscriber heartbeats, live when younger than {@code mq.heartbeat-timeout}. */
    public Page<AdminViews.SubscriberView> subscribers(Scope scope, int limit) {
        return Page.of(store.subscribers(scope.value(), micros(config.heartbeatTimeout()), limit + 1).stream()
                .map(r -> new AdminViews.SubscriberView(r.tenant(), r.consumerGroup(), r.topic(), r.subscriberName(),
                        r.startedAt(), r.lastSeenAt(), r.live())).toList(), limit);
    }

    /**
     * A page of a topic's stored messages in offset order, for operators and tools (the CLI's
     * {@code dlq}, the admin UI) that must read a dead-letter topic without consuming it: no
     * consumer group, offset, lease or delivery state is read or changed, so retention and the
     * groups of the topic are unaffected. Like the listings, any tenant may be named; one
     * without messages gives an empty page.
     */
    public AdminViews.BrowsePage browse(Browse b) {
        List<AdminViews.StoredView> rows = store.browse(b.tenant().value(), b.topic().value(),
                        b.partitionKey() == null ? null : b.partitionKey().value(), b.afterOffset(), b.limit() + 1)
                .stream().map(AdminService::view).toList();
        if (rows.size() <= b.limit()) {
            return new AdminViews.BrowsePage(rows, null);
        }
        List<AdminViews.StoredView> page = rows.subList(0, b.limit());
        return new AdminViews.BrowsePage(page, page.get(page.size() - 1).offset());
    }

    private static AdminViews.StoredView view(AdminStore.MessageRow r) {
        return new AdminViews.StoredView(r.partitionKey(), r.id(), r.offset(), r.payloadJson(), r.metadataJson(),
                r.createdAt(), r.deliverAt(), r.trace());
    }

    /**
     * One message with each consumer group's state of it.
     *
     * @throws NotFoundException when there is no such message (404)
     */
    public AdminViews.MessageView message(MessageIdentity m) {
        AdminStore.StoredMessage s = store.message(m.tenant().value(), m.topic().value(), m.partitionKey().value(),
                m.id().value()).orElseThrow(() -> notFound(m));
        return new AdminViews.MessageView(s.offset(), s.payloadJson(), s.metadataJson(), s.createdAt(), s.deliverAt(),
                s.groups().stream().map(g -> new AdminViews.GroupView(g.consumerGroup(), g.committedOffset(),
                        groupState(g, s.offset()), g.deliveryAttempt(), g.visibleAt())).toList(), s.trace());
    }

    /** A group without delivery state of the message has acked it (at or below its offset) or not got it yet. */
    private static String groupState(AdminStore.GroupState g, long offset) {
        if (g.state() != null) {
            return g.state();
        }
        return offset <= g.committedOffset() ? "ACKED" : "NOT_DELIVERED";
    }

    /**
     * Deletes one message and every group's delivery state of it. A group that had it in flight
     * gets STALE or a no-op for its receipt; later messages flow.
     *
     * @return the offset the message had
     * @throws NotFoundException when there is no such message (404)
     */
    public long delete(MessageIdentity m) {
        long offset = store.delete(m.tenant().value(), m.topic().value(), m.partitionKey().value(), m.id().value(),
                        micros(settings.effective(m.tenant().value(), m.topic().value(), null).dedupWindow()))
                .orElseThrow(() -> notFound(m));
        signals.signal(m.tenant().value(), m.topic().value(), FetchSignals.ALL); // a partition held back by it may flow now
        return offset;
    }

    /**
     * Requeues one dead letter (SPEC "Dead letters"): the groups that dead-lettered the original
     * receive it again with attempt 1 before any later message of its partition, and the dead
     * letter leaves {@code m.topic()}.
     *
     * @param m identity of the dead letter; its topic is the dead-letter topic
     * @throws NotFoundException when there is no such message (404)
     * @throws ConflictException when it is not a requeueable dead letter (409); nothing changed
     */
    public AdminViews.Requeued requeue(MessageIdentity m) {
        AdminStore.Requeue r = store.requeue(m.tenant().value(), m.topic().value(), config.dlqSuffix(),
                m.partitionKey().value(), m.id().value());
        if (r instanceof AdminStore.Requeue.NotFound) {
            throw notFound(m);
        }
        if (r instanceof AdminStore.Requeue.Refused refused) {
            throw new ConflictException(refused.why());
        }
        AdminStore.Requeue.Done done = (AdminStore.Requeue.Done) r;
        metrics.requeued(m.tenant().value(), done.originalTopic(), done.consumerGroups().size());
        signals.signal(m.tenant().value(), done.originalTopic(), FetchSignals.ALL); // and the partition it holds back
        return new AdminViews.Requeued(done.originalTopic(), done.originalOffset(), done.consumerGroups());
    }

    private static NotFoundException notFound(MessageIdentity m) {
        return new NotFoundException("no message with id '" + m.id().value() + "' in partition '" + m.partitionKey().value()
                + "' of topic '" + m.topic().value() + "' of tenant '" + m.tenant().value() + "'");
    }
}
