package dev.tenantmq.domain;

import dev.tenantmq.model.TraceContext;
import java.time.Instant;
import java.util.List;

/**
 * What the admin operations return (SPEC section 4, "Admin"; RFC "Operational tooling"): the
 * domain's own records, mapped from the store's rows by {@link AdminService}, so that the HTTP
 * layer never sees a database row and the store may change its rows freely. Times are the
 * database's UTC.
 */
public final class AdminViews {
    private AdminViews() {}

    /** A topic of a tenant with its number of partitions and of stored messages. */
    public record TopicView(String tenant, String topic, long partitions, long messages) {}

    /**
     * Committed offset and lag of one group in one partition.
     *
     * @param latestOffset the partition's last offset, 0 when it is empty
     * @param lag messages above the committed offset
     */
    public record OffsetView(String tenant, String topic, String partitionKey, String consumerGroup,
                             long committedOffset, long latestOffset, long lag) {}

    /**
     * One consumer group's figures on one topic, summed over its partitions.
     *
     * @param lag messages above the committed offsets, as {@link OffsetView#lag()} counts them
     * @param inFlight deliveries within their visibility timeout
     * @param deadLetters the group's dead letters still stored in the topic's dead-letter topic
     * @param oldestUnackedAgeSeconds whole seconds since the oldest unacknowledged message was
     *     published (database clock), null when nothing is unacknowledged
     */
    public record GroupStatsView(String tenant, String topic, String consumerGroup, long lag, long inFlight,
                                 long deadLetters, Long oldestUnackedAgeSeconds) {}

    /**
     * A partition lease.
     *
     * @param active unexpired and held by a subscriber whose heartbeat is alive; false means stale
     */
    public record LeaseView(String tenant, String consumerGroup, String topic, String partitionKey, String leasedBy,
                            long epoch, Instant expiresAt, Instant acquiredAt, Instant renewedAt, boolean active) {}

    /**
     * A subscriber heartbeat.
     *
     * @param live its heartbeat is younger than {@code mq.heartbeat-timeout}
     */
    public record SubscriberView(String tenant, String consumerGroup, String topic, String subscriberName,
                                 Instant startedAt, Instant lastSeenAt, boolean live) {}

    /**
     * A stored message and each consumer group's state of it.
     *
     * @param payloadJson the payload as JSON text
     * @param metadataJson the metadata as JSON text
     * @param deliverAt when it may be delivered first (docs/api.md, "Delayed delivery"), null
     *     when it was published without a delay
     * @param trace the W3C trace context it was published with, or null (docs/api.md, "Trace context")
     */
    public record MessageView(long offset, String payloadJson, String metadataJson, Instant createdAt,
                              Instant deliverAt, List<GroupView> groups, TraceContext trace) {}

    /**
     * A stored message without any group's state of it: what a browse lists.
     *
     * @param payloadJson the payload as JSON text
     * @param metadataJson the metadata as JSON text (a dead letter's includes original_topic,
     *     original_offset, consumer_group, dead_letter_reason and delivery_attempts)
     * @param deliverAt when it may be delivered first, null when it was published without a delay
     * @param trace the W3C trace context it was published with, or null
     */
    public record StoredView(String partitionKey, String id, long offset, String payloadJson, String metadataJson,
                             Instant createdAt, Instant deliverAt, TraceContext trace) {}

    /**
     * A page of a topic's messages in offset order.
     *
     * @param nextAfterOffset the {@code afterOffset} of the next page, or null when this page is the last
     */
    public record BrowsePage(List<StoredView> messages, Long nextAfterOffset) {}

    /**
     * One consumer group's state of a message.
     *
     * @param state INFLIGHT, RETRY (nacked), PENDING (handed back or requeued), DEAD, ACKED, or
     *     NOT_DELIVERED (the message is above the group's committed offset and has no delivery state)
     * @param deliveryAttempt the attempt, only while the group has delivery state of the message
     * @param visibleAt when it becomes deliverable again, only while the group has delivery state
     */
    public record GroupView(String consumerGroup, long committedOffset, String state, Integer deliveryAttempt,
                            Instant visibleAt) {}

    /**
     * A requeued dead letter: the groups that receive the original message again.
     *
     * @param originalTopic the topic the dead letter came from
     * @param originalOffset the original message's offset in that topic
     */
    public record Requeued(String originalTopic, long originalOffset, List<String> consumerGroups) {}
}
