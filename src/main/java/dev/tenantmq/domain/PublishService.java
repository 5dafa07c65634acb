package dev.tenantmq.domain;

import static dev.tenantmq.model.Durations.micros;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tenantmq.config.MqConfig;
import dev.tenantmq.config.ProcessIdentity;
import dev.tenantmq.model.DeliveryDelay;
import dev.tenantmq.model.FieldError;
import dev.tenantmq.model.InvalidRequestException;
import dev.tenantmq.model.MessageId;
import dev.tenantmq.model.PartitionKey;
import dev.tenantmq.model.Tenant;
import dev.tenantmq.model.Topic;
import dev.tenantmq.ops.QueueMetrics;
import dev.tenantmq.store.MessageStore;
import jakarta.enterprise.context.ApplicationScoped;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/** Publish (SPEC section 4, "Publish"; RFC "Publish"). */
@ApplicationScoped
public class PublishService {
    /** Metadata key the service stamps with the tenant (RFC "Publish": mirrors Message.Tenant). */
    public static final String QUEUE_NAME = "queue_name";

    private final MessageStore store;
    private final ProcessIdentity identity;
    private final MqConfig config;
    private final FetchSignals signals;
    private final QueueMetrics metrics;
    private final ObjectMapper json;
    private final TenantQuotas quotas;
    private final DueWakes dueWakes;
    private final Clock clock;

    PublishService(MessageStore store, ProcessIdentity identity, MqConfig config, FetchSignals signals,
                   QueueMetrics metrics, ObjectMapper json, TenantQuotas quotas, DueWakes dueWakes, Clock clock) {
        this.store = store;
        this.identity = identity;
        this.config = config;
        this.signals = signals;
        this.metrics = metrics;
        this.json = json;
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
     * Publishes a batch atomically: all messages or none. A message whose (partitionKey, id) is
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
        TenantNotServedException.requireServed(identity, tenant);
        requireBatchSize(messages.size());
        List<MessageStore.NewMessage> rows = new ArrayList<>(messages.size());
        long payloadBytes = 0;
        Instant now = clock.instant();
        for (int i = 0; i < messages.size(); i++) {
            Outgoing m = messages.get(i);
            int bytes = m.payloadJson().getBytes(StandardCharsets.UTF_8).length;
            payloadBytes += bytes;
            if (bytes > config.publish().maxPayloadBytes()) {
                throw new PayloadTooLargeException("messages[" + i + "].payload", bytes, config.publish().maxPayloadBytes());
            }
            String stamped = m.metadata().get(QUEUE_NAME);
            if (stamped != null && !stamped.equals(tenant.value())) {
                throw InvalidRequestException.of("messages[" + i + "].metadata." + QUEUE_NAME,
                        "is stamped by the service with the tenant ('" + tenant.value() + "'); a different value is not allowed");
            }
            Map<String, String> metadata = new LinkedHashMap<>(m.metadata());
            metadata.put(QUEUE_NAME, tenant.value());
            boolean generated = m.id() == null;
            String id = generated ? UUID.randomUUID().toString() : m.id().value();
            String metadataJson = toJson(metadata);
            int metadataBytes = metadataJson.getBytes(StandardCharsets.UTF_8).length;
            if (metadataBytes > config.publish().maxMetadataBytes()) {
                throw InvalidRequestException.of("messages[" + i + "].metadata", "must be at most "
                        + config.publish().maxMetadataBytes() + " bytes of JSON (got " + metadataBytes + ")");
            }
            if (m.delay() != null) {
                String field = "messages[" + i + "]." + (m.delay().at() != null ? DeliveryDelay.AT_FIELD
                        : DeliveryDelay.AFTER_FIELD);
                FieldError tooFar = m.delay().problem(field, config.retention().maxAge(), now);
                if (tooFar != null) {
                    throw new InvalidRequestException(List.of(tooFar));
                }
            }
            rows.add(new MessageStore.NewMessage(m.partitionKey().value(), id, m.payloadJson(), metadataJson, generated,
                    m.delay()));
        }
        // The quotas, once per batch, after validation and before the store is touched (docs/security.md, "Quotas").
        TenantQuotas.Admission admission = quotas.admit(tenant, topic, rows.size(), payloadBytes);
        List<MessageStore.Published> stored;
        try {
            stored = store.publish(tenant.value(), topic.value(), rows, micros(config.publish().dedupWindow()));
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
            MessageStore.Published p = stored.get(i);
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
     * The batch-size rule of publish, and its one home: 1..{@code mq.publish.max-batch-size}
     * messages (SPEC section 4, "Publish"). {@link #publish} checks it for every caller; the
     * HTTP validator asks it too, before it looks at single messages, so that an oversized body
     * is reported as oversized rather than message by message.
     *
     * @param size the number of messages in the batch
     * @throws InvalidRequestException naming {@code messages} when the size is out of range (400)
     */
    public void requireBatchSize(int size) {
        int max = config.publish().maxBatchSize();
        if (size < 1 || size > max) {
            throw InvalidRequestException.of("messages", "must hold 1.." + max + " messages (got " + size + ")");
        }
    }

    private String toJson(Map<String, String> metadata) {
        try {
            return json.writeValueAsString(metadata);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot serialize string metadata", e);
        }
    }
}
