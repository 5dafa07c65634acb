package dev.tenantmq.api.dto;

import com.fasterxml.jackson.annotation.JsonRawValue;
import dev.tenantmq.store.AdminStore;
import java.time.Instant;
import java.util.List;

/**
 * Bodies of the admin API (SPEC section 4, "Admin"). Every listing row names its tenant;
 * {@code truncated} says there were more rows than {@code limit}.
 */
public final class AdminResponses {
    private AdminResponses() {}

    /** {@code GET /admin/topics}. */
    public record Topics(List<AdminStore.TopicRow> topics, boolean truncated) {}

    /** {@code GET /admin/offsets}; {@code lag} counts the messages above the committed offset. */
    public record Offsets(List<AdminStore.OffsetRow> offsets, boolean truncated) {}

    /** {@code GET /admin/leases}; {@code active} false means stale (expired, or its holder's heartbeat is dead). */
    public record Leases(List<AdminStore.LeaseRow> leases, boolean truncated) {}

    /** {@code GET /admin/subscribers}. */
    public record Subscribers(List<AdminStore.SubscriberRow> subscribers, boolean truncated) {}

    /**
     * {@code GET /admin/messages}: one message and each consumer group's state of it. A group's
     * {@code state} is INFLIGHT, RETRY (nacked), PENDING (handed back or requeued), ACKED, DEAD,
     * or NOT_DELIVERED.
     */
    public record Message(String tenant, String topic, String partitionKey, String id, long offset,
                          @JsonRawValue String payload, @JsonRawValue String metadata, Instant createdAt,
                          List<GroupState> consumerGroups) {}

    /** One group's view of a message; attempt and visibility only while it has delivery state. */
    public record GroupState(String consumerGroup, long committedOffset, String state, Integer deliveryAttempt,
                             Instant visibleAt) {}

    /** {@code DELETE /admin/messages}. */
    public record Deleted(String tenant, String topic, String partitionKey, String id, long offset) {}

    /** {@code POST /admin/messages/requeue}: the groups that receive the original again. */
    public record Requeued(String tenant, String originalTopic, String partitionKey, String id, long originalOffset,
                           List<String> consumerGroups) {}
}
