package dev.tenantmq.model;

/**
 * A publish to a topic whose deletion is under way (docs/operations.md, "Deleting a topic or a
 * consumer group"): refused whole, nothing stored. The API answers 409 {@code topic-being-deleted};
 * the client retries once the deletion is done, and its messages then land in a new, empty topic.
 */
public class TopicBeingDeletedException extends RuntimeException {
    /** @param tenant the tenant, @param topic the topic being deleted */
    public TopicBeingDeletedException(String tenant, String topic) {
        super("topic '" + topic + "' of tenant '" + tenant + "' is being deleted: nothing was stored; publish again"
                + " once the deletion is done (DELETE /admin/topics answers done: true)");
    }
}
