package dev.tenantmq.domain;

import static dev.tenantmq.model.Durations.micros;

import dev.tenantmq.config.MqConfig;
import dev.tenantmq.config.ProcessIdentity;
import dev.tenantmq.model.DeliveryDelay;
import dev.tenantmq.model.EffectiveSettings;
import dev.tenantmq.model.FieldError;
import dev.tenantmq.model.InvalidRequestException;
import dev.tenantmq.model.MessageId;
import dev.tenantmq.model.PartitionKey;
import dev.tenantmq.model.PayloadTooLargeException;
import dev.tenantmq.model.PublishRules;
import dev.tenantmq.model.Tenant;
import dev.tenantmq.model.Topic;
import dev.tenantmq.model.TraceContext;
import dev.tenantmq.ops.QueueMetrics;
import dev.tenantmq.store.MessageStore;
import dev.tenantmq.store.PublishTransaction;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/** Publish (SPEC section 4, "Publish"; RFC "Publish"). */
@ApplicationScoped
public class PublishService {
    /** Metadata key the service stamps with the tenant (RFC "Publish": mirrors Message.Tenant). */
    public static final String QUEUE_NAME = PublishRules.QUEUE_NAME;

    private final PublishGroups groups;
    private final ProcessIdentity identity;
    private final MqConfig config;
    private final FetchSignals signals;
    private final QueueMetrics metrics;
    private final TenantQuotas quotas;
    private final DueWakes dueWakes;
    private final Clock clock;

    /** The topic's dedup window (docs/settings.md, "Per-topic and per-group settings"), from memory. */
    private final SettingsCache settings;

    PublishService(PublishGroups groups, ProcessIdentity identity, MqConfig config, FetchSignals signals,
                   QueueMetrics metrics, TenantQuotas quotas, SettingsCache settings, DueWakes dueWakes, Clock clock) {
        this.settings = settings;
        this.groups = groups;
        this.identity = identity;
        this.config = config;
        this.signals = signals;
        this.metrics = metrics;
        this.quotas = quotas;
        this.dueWakes = dueWakes;
        this.clock = clock;
    }

    /**
     * A message to publish, already validated at the edge.
     *
     * @param id caller-chosen id, or null to have the service generate one
     * @param payloadJson the payload as JSON text (numbers exactly as the caller sent them)
     * @param metadata caller metadata (string values), possibly empty
     * @param delay when it may be delivered first (docs/api.md, "Delayed delivery"), or null: at once
     */
    public record Outgoing(PartitionKey partitionKey, MessageId id, String payloadJson, Map<String, String> metadata,
                           DeliveryDelay delay) {
        /** A message without a delay. */
        public Outgoing(PartitionKey partitionKey, MessageId id, String payloadJson, Map<String, String> metadata) {
            this(partitionKey, id, payloadJson, metadata, null);
        }
    }

    /** Where one message ended up. */
    public record Result(String id, String partitionKey, long offset, boolean duplicate) {}

    /**
     * Publishes a batch atomically: all messages or none, possibly in one transaction with
     * concurrent publishes to the same topic ({@link PublishGroups}). A message whose (partitionKey, id) is
     * already stored comes back with {@code duplicate = true} and the stored offset; the stored
     * message is unchanged.
     *
     * @return one result per message, in request order
     * @throws TenantNotServedException when the tenant is not in MQ_TENANTS (403)
     * @throws InvalidRequestException on an empty or oversized batch, a conflicting
     *     {@code metadata.queue_name}, metadata over {@code mq.publish.max-metadata-bytes}, or a
     *     delay further ahead than {@code mq.retention.max-age} ({@link DeliveryDelay#problem}) (400)
     * @throws PayloadTooLargeException when a payload exceeds {@code mq.publish.max-payload-bytes} (413)
     * @throws QuotaExceededException when the batch is over one of the tenant's quotas (429); nothing is stored
     */
    public List<Result> publish(Tenant tenant, Topic topic, List<Outgoing> messages) {
        return publish(tenant, topic, messages, null);
    }

    /**
     * Publishes a batch as {@link #publish(Tenant, Topic, List)} does, storing {@code trace} with
     * each new message (a duplicate keeps the trace context it was first published with).
     *
     * @param trace the request's W3C trace context, or null (docs/api.md, "Trace context")
     */
    public List<Result> publish(Tenant tenant, Topic topic, List<Outgoing> messages, TraceContext trace) {
        TenantNotServedException.requireServed(identity, tenant);
        requireBatchSize(messages.size());
        PublishRules.Limits limits = limits();
        List<PublishTransaction.NewMessage> rows = new ArrayList<>(messages.size());
        long payloadBytes = 0;
        Instant now = clock.instant();
        // The topic's retention bounds a delay, and its dedup window the look-up (docs/settings.md, "Per-topic and per-group settings").
        EffectiveSettings topicSettings = settings.effective(tenant.value(), topic.value(), null);
        for (int i = 0; i < messages.size(); i++) {
            Outgoing m = messages.get(i);
            PublishRules.Stamped s = PublishRules.stamp(i, tenant, m.partitionKey(), m.id(), m.payloadJson(), m.metadata(),
                    limits);
            payloadBytes += s.payloadBytes();
            if (m.delay() != null) {
                String field = "messages[" + i + "]." + (m.delay().at() != null ? DeliveryDelay.AT_FIELD
                        : DeliveryDelay.AFTER_FIELD);
                FieldError tooFar = m.delay().problem(field, topicSettings.retentionMaxAge(),
                        topicSettings.retentionMaxAgeSetting(), now);
                if (tooFar != null) {
                    throw new InvalidRequestException(List.of(tooFar));
                }
            }
            rows.add(new PublishTransaction.NewMessage(s.partitionKey(), s.id(), s.payloadJson(), s.metadataJson(),
                    s.generatedId(), trace == null ? null : trace.traceparent(), trace == null ? null : trace.tracestate(),
                    m.delay()));
        }
        // The quotas, once per batch, after validation and before the store is touched (docs/security.md, "Quotas").
        TenantQuotas.Admission admission = quotas.admit(tenant, topic, rows.size(), payloadBytes);
        List<PublishTransaction.Published> stored;
        try {
            // Validated and admitted on its own: a bad request never joins a group (docs/architecture.md, "Group commit").
            stored = groups.publish(tenant.value(), topic.value(), rows,
                    micros(topicSettings.dedupWindow()));
        } catch (RuntimeException e) {
            admission.failed();
            throw e;
        }
        List<Result> results = new ArrayList<>(rows.size());
        int duplicates = 0;
        int delayed = 0;
        Set<String> touched = new HashSet<>();
        Map<Duration, Set<String>> dueLater = new HashMap<>();
        for (int i = 0; i < rows.size(); i++) {
            PublishTransaction.Published p = stored.get(i);
            duplicates += p.duplicate() ? 1 : 0;
            DeliveryDelay delay = rows.get(i).delay();
            if (!p.duplicate() && delay != null) {
                delayed++; // not deliverable now: its wake comes when it is due
                dueLater.computeIfAbsent(delay.dueIn(now), d -> new HashSet<>()).add(rows.get(i).partitionKey());
            } else if (!p.duplicate()) {
                touched.add(rows.get(i).partitionKey());
            }
            results.add(new Result(rows.get(i).id(), rows.get(i).partitionKey(), p.offset(), p.duplicate()));
        }
        admission.stored(rows.size() - duplicates);
        metrics.published(tenant.value(), topic.value(), rows.size() - duplicates, duplicates);
        // Committed: a poll this wakes looks at these partitions alone (docs/architecture.md, "Long polls").
        signals.signal(tenant.value(), topic.value(), touched, rows.size() - duplicates - delayed);
        dueLater.forEach((dueIn, partitions) -> dueWakes.wakeAt(tenant.value(), topic.value(), partitions,
                partitions.size(), dueIn));
        return results;
    }

    /**
     * Wakes this process's long polls of the given partitions after messages were published and
     * committed elsewhere: in an application's transaction by the JDBC library
     * (docs/transactional-publish.md, "Waking consumers"). Stores nothing and reads nothing; a
     * notice for partitions with nothing new costs each woken poll one look.
     *
     * @return the distinct partition keys signalled, sorted
     * @throws TenantNotServedException when the tenant is not in MQ_TENANTS (403)
     */
    public List<String> committedElsewhere(Tenant tenant, Topic topic, List<PartitionKey> partitionKeys) {
        TenantNotServedException.requireServed(identity, tenant);
        Set<String> touched = new TreeSet<>();
        partitionKeys.forEach(k -> touched.add(k.value()));
        // One look per partition and group: the woken poll fetches the whole partition's new messages.
        signals.signal(tenant.value(), topic.value(), touched, touched.size());
        return List.copyOf(touched);
    }

    /**
     * The batch-size rule of publish ({@link PublishRules#requireBatchSize}, its one home) with
     * {@code mq.publish.max-batch-size} (SPEC section 4, "Publish"). {@link #publish} checks it for every caller; the
     * HTTP validator asks it too, before it looks at single messages, so that an oversized body
     * is reported as oversized rather than message by message.
     *
     * @param size the number of messages in the batch
     * @throws InvalidRequestException naming {@code messages} when the size is out of range (400)
     */
    public void requireBatchSize(int size) {
        PublishRules.requireBatchSize(size, config.publish().maxBatchSize());
    }

    /** The configured limits of a batch ({@code mq.publish.*}, docs/settings.md). */
    private PublishRules.Limits limits() {
        MqConfig.Publish p = config.publish();
        return new PublishRules.Limits(p.maxBatchSize(), p.maxPayloadBytes(), p.maxMetadataBytes());
    }
}
