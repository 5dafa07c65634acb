package dev.tenantmq.api.dto;

import java.util.List;

/**
 * Bodies of {@code DELETE /admin/topics} and {@code DELETE /admin/consumer-groups}
 * (docs/operations.md, "Deleting a topic or a consumer group"). {@code done} false: call again.
 */
public final class DeletionResponses {
    private DeletionResponses() {}

    /** Rows this call deleted, per table. */
    public record DeletedRows(long messages, long deliveryStates, long offsets, long leases, long heartbeats,
                              long partitionHeads, long dedupIds) {}

    /** One topic of a topic deletion. */
    public record TopicProgress(String topic, boolean done, DeletedRows deleted) {}

    /** {@code DELETE /admin/topics}: done when every listed topic is. */
    public record TopicDeletion(String tenant, String topic, boolean done, List<TopicProgress> topics) {}

    /** {@code DELETE /admin/consumer-groups}. */
    public record GroupDeletion(String tenant, String topic, String consumerGroup, boolean done, DeletedRows deleted) {}
}
