package dev.tenantmq.api.dto;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonRawValue;
import java.time.Instant;
import java.util.List;

/**
 * Bodies of the admin API (SPEC section 4, "Admin"). Every listing row names its tenant;
 * {@code truncated} says there were more rows than {@code limit}.
 */
public final class AdminResponses {
    private AdminResponses() {}

    /** {@code GET /admin/topics}. */
    public record Topics(List<TopicRow> topics, boolean truncated) {}

    /** A topic of a tenant with its number of partitions and of stored messages. */
    public record TopicRow(String tenant, String topic, long partitions, long messages) {}

    /** {@code GET /admin/offsets}; {@code lag} counts the messages above the committed offset. */
    public record Offsets(List<OffsetRow> offsets, boolean truncated) {}

    /** Committed offset and lag of one group in one partition; {@code latestOffset} 0 when the partition is empty. */
    public record OffsetRow(String tenant, String topic, String partitionKey, String consumerGroup, long committedOffset,
                            long latestOffset, long lag) {}

    /** {@code GET /admin/consumer-groups}: per (tenant, topic, group), ordered by tenant, topic and group. */
    public record ConsumerGroups(List<ConsumerGroupRow> consumerGroups, boolean truncated) {}

    /**
     * One group's figures on one topic, summed over its partitions; {@code oldestUnackedAgeSeconds}
     * is null when nothing is unacknowledged.
     */
    public record ConsumerGroupRow(String tenant, String topic, String consumerGroup, long lag, long inFlight,
                                   long deadLetters, Long oldestUnackedAgeSeconds) {}

    /** {@code GET /admin/tenants}: the tenants this process serves ({@code mq.tenants}). */
    public record Tenants(List<String> tenants) {}

    /** {@code GET /admin/leases}; {@code active} false means stale (expired, or its holder's heartbeat is dead). */
    public record Leases(List<LeaseRow> leases, boolean truncated) {}

    /** A partition lease; times are the database's UTC. */
    public record LeaseRow(String tenant, String consumerGroup, String topic, String partitionKey, String leasedBy,
                           long epoch, Instant expiresAt, Instant acquiredAt, Instant renewedAt, boolean active) {}

    /** {@code GET /admin/subscribers}. */
    public record Subscribers(List<SubscriberRow> subscribers, boolean truncated) {}

    /** A subscriber heartbeat; {@code live} when younger than {@code mq.heartbeat-timeout}. */
    public record SubscriberRow(String tenant, String consumerGroup, String topic, String subscriberName,
                                Instant startedAt, Instant lastSeenAt, boolean live) {}

    /**
     * {@code GET /admin/messages}: one message and each consumer group's state of it. A group's
     * {@code state} is INFLIGHT, RETRY (nacked), PENDING (handed back or requeued), ACKED, DEAD,
     * or NOT_DELIVERED. {@code deliverAt} is when the message may be delivered first, null when it
     * was published without a delay (docs/api.md, "Delayed delivery").
     */
    public record Message(String tenant, String topic, String partitionKey, String id, long offset,
                          @JsonRawValue String payload, @JsonRawValue String metadata, Instant createdAt,
                          List<GroupState> consumerGroups, Instant deliverAt,
                          @JsonInclude(JsonInclude.Include.NON_NULL) String traceparent,
                          @JsonInclude(JsonInclude.Include.NON_NULL) String tracestate) {}

    /**
     * {@code GET /admin/messages/browse}: a page of a topic's stored messages in offset order;
     * {@code nextAfterOffset} is the {@code afterOffset} of the next page, null after the last.
     */
    public record Browse(List<BrowsedMessage> messages, Long nextAfterOffset) {}

    /**
     * A stored message as browsed: the fields of {@link Message} without the groups' state.
     * {@code traceparent} and {@code tracestate}: the W3C trace context it was published with,
     * absent when it had none (docs/api.md, "Trace context").
     */
    public record BrowsedMessage(String tenant, String topic, String partitionKey, String id, long offset,
                                 @JsonRawValue String payload, @JsonRawValue String metadata, Instant createdAt,
                                 Instant deliverAt,
                                 @JsonInclude(JsonInclude.Include.NON_NULL) String traceparent,
                                 @JsonInclude(JsonInclude.Include.NON_NULL) String tracestate) {
        /** This message with each consumer group's state of it: the inspect answer. */
        public Message withGroups(List<GroupState> consumerGroups) {
            return new Message(tenant, topic, partitionKey, id, offset, payload, metadata, createdAt, consumerGroups,
                    deliverAt, traceparent, tracestate);
        }
    }

    /** One group's view of a message; attempt and visibility only while it has delivery state. */
    public record GroupState(String consumerGroup, long committedOffset, String state, Integer deliveryAttempt,
                             Instant visibleAt) {}

    /** {@code DELETE /admin/messages}. */
    public record Deleted(String tenant, String topic, String partitionKey, String id, long offset) {}

    /** {@code POST /admin/messages/requeue}: the groups that receive the original again. */
    public record Requeued(String tenant, String originalTopic, String partitionKey, String id, long originalOffset,
                           List<String> consumerGroups) {}

    /**
     * {@code GET, PUT, DELETE /admin/settings}: the settings of a topic, or of a consumer group on it
     * ({@code consumerGroup} null for the topic's), each effective value with its source, and the
     * stored overrides of the topic and of the group ({@code groupOverrides} null when no group was
     * named). docs/settings.md, "Per-topic and per-group settings".
     */
    public record Settings(String tenant, String topic, String consumerGroup, EffectiveSettings effective,
                           SettingsRequest topicOverrides, SettingsRequest groupOverrides) {}

    /** Every effective setting with where it came from. */
    public record EffectiveSettings(SettingValue maxDeliveries, SettingValue defaultVisibilitySeconds,
                                    SettingValue maxVisibilitySeconds, SettingValue nackBackoffBaseMillis,
                                    SettingValue nackBackoffCapMillis, SettingValue retentionMaxAgeSeconds,
                                    SettingValue dedupWindowSeconds, SettingFlag deadLetterEnabled) {}

    /** One effective number and its source: {@code group}, {@code topic} or {@code global}. */
    public record SettingValue(long value, String source) {}

    /** One effective switch and its source: {@code group}, {@code topic} or {@code global}. */
    public record SettingFlag(boolean value, String source) {}
}
