package dev.tenantmq.domain;

import static dev.tenantmq.model.Durations.micros;

import dev.tenantmq.config.MqConfig;
import dev.tenantmq.config.ProcessIdentity;
import dev.tenantmq.model.ChunkedDeletion;
import dev.tenantmq.model.ConsumerGroup;
import dev.tenantmq.model.GroupScope;
import dev.tenantmq.model.Tenant;
import dev.tenantmq.model.Topic;
import dev.tenantmq.store.DeletionStore;
import dev.tenantmq.store.DeletionStore.GroupTable;
import dev.tenantmq.store.DeletionStore.TopicTable;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.ArrayList;
import java.util.List;

/**
 * Deleting a topic or a consumer group (docs/operations.md, "Deleting a topic or a consumer
 * group"): an idempotent call, repeated until it answers {@code done}. Each call deletes at most
 * {@code mq.admin.delete-chunks-per-call} chunks of {@code mq.admin.delete-chunk-size} rows per
 * topic, each chunk its own short transaction. Callers are authorized by the API layer (admin role
 * on the tenant).
 */
@ApplicationScoped
public class DeletionService {
    private final DeletionStore store;
    private final MqConfig config;
    private final InterestRegistry interest;
    private final ProcessIdentity identity;

    DeletionService(DeletionStore store, MqConfig config, InterestRegistry interest, ProcessIdentity identity) {
        this.store = store;
        this.config = config;
        this.interest = interest;
        this.identity = identity;
    }

    /** Rows one call deleted, per table; the tables a group deletion does not touch stay 0. */
    public record DeletedRows(long messages, long deliveryStates, long offsets, long leases, long heartbeats,
                              long partitionHeads, long dedupIds) {}

    /** One topic of a topic deletion: whether it is done, and what this call deleted of it. */
    public record TopicProgress(String topic, boolean done, DeletedRows deleted) {}

    /** A topic deletion call: done when every topic of it is. */
    public record TopicDeletion(boolean done, List<TopicProgress> topics) {}

    /** A consumer-group deletion call. */
    public record GroupDeletion(boolean done, DeletedRows deleted) {}

    /**
     * Deletes a topic in bounded chunks: its messages, every group's offsets, delivery batches,
     * delivery rows, leases and heartbeats on it, its partition heads and the dedup identities of
     * its deleted messages; with {@code includeDeadLetters}, its dead-letter topic
     * ({@code <topic>}{@code mq.dead-letter-suffix}) the same way. From the first call until
     * the call that answers done, publishes to the topic are refused (409) and nothing of it is
     * delivered.
     *
     * @throws NotFoundException when nothing of the topic (nor of its dead-letter topic, when
     *     included) is stored and no deletion of it is under way (404)
     */
    public TopicDeletion deleteTopic(Tenant tenant, Topic topic, boolean includeDeadLetters) {
        List<String> topics = new ArrayList<>(List.of(topic.value()));
        if (includeDeadLetters) {
            topics.add(topic.value() + config.dlqSuffix());
        }
        List<TopicProgress> progress = new ArrayList<>();
        for (String t : topics) {
            // This process stops ticking for the topic's groups (no heartbeats written back into it);
            // a consumer that fetches again registers its group again.
            interest.all().stream().filter(s -> s.tenant().equals(tenant.value()) && s.topic().equals(t))
                    .forEach(interest::forget);
            DeletionStore.TopicCall call = store.deleteTopic(tenant.value(), t, config.admin().deleteChunkSize(),
                    config.admin().deleteChunksPerCall());
            if (call.found()) {
                ChunkedDeletion.Outcome o = call.outcome();
                progress.add(new TopicProgress(t, o.done(), new DeletedRows(o.deleted(TopicTable.MESSAGES.ordinal()),
                        o.deleted(TopicTable.DELIVERY_STATES.ordinal()), o.deleted(TopicTable.OFFSETS.ordinal()),
                        o.deleted(TopicTable.LEASES.ordinal()), o.deleted(TopicTable.HEARTBEATS.ordinal()),
                        o.deleted(TopicTable.PARTITION_HEADS.ordinal()), o.deleted(TopicTable.DEDUP_IDS.ordinal()))));
            }
        }
        if (progress.isEmpty()) {
            throw new NotFoundException("nothing of topic '" + topic.value() + "'"
                    + (includeDeadLetters ? " or of its dead-letter topic" : "") + " of tenant '" + tenant.value()
                    + "' is stored (deleted already, or never published to)");
        }
        return new TopicDeletion(progress.stream().allMatch(TopicProgress::done), progress);
    }

    /**
     * Deletes a consumer group's state on one topic in bounded chunks: its leases, heartbeats,
     * delivery rows, and committed offsets with the delivery batches they carry. The messages stay;
     * a group of that name that consumes later starts from the earliest stored message. This
     * process forgets the group first, so its scheduler stops leasing for it.
     *
     * @throws ConflictException when another subscriber of the group has a heartbeat younger than
     *     {@code mq.heartbeat-timeout} (409; stop the group's consumers first)
     * @throws NotFoundException when the group has nothing stored on the topic (404)
     */
    public GroupDeletion deleteGroup(Tenant tenant, Topic topic, ConsumerGroup group) {
        interest.forget(new GroupScope(tenant.value(), group.value(), topic.value()));
        long live = store.liveSubscribers(tenant.value(), topic.value(), group.value(),
                identity.subscriberName().value(), micros(config.heartbeatTimeout()));
        if (live > 0) {
            throw new ConflictException("consumer group '" + group.value() + "' of topic '" + topic.value() + "' has "
                    + live + " live subscriber(s) (a heartbeat younger than mq.heartbeat-timeout): stop its consumers,"
                    + " then delete it; nothing was deleted");
        }
        DeletionStore.GroupCall call = store.deleteGroup(tenant.value(), topic.value(), group.value(),
                config.admin().deleteChunkSize(), config.admin().deleteChunksPerCall());
        if (!call.found()) {
            throw new NotFoundException("consumer group '" + group.value() + "' has nothing stored on topic '"
                    + topic.value() + "' of tenant '" + tenant.value() + "' (deleted already, or never consumed)");
        }
        ChunkedDeletion.Outcome o = call.outcome();
        return new GroupDeletion(o.done(), new DeletedRows(0, o.deleted(GroupTable.DELIVERY_STATES.ordinal()),
                o.deleted(GroupTable.OFFSETS.ordinal()), o.deleted(GroupTable.LEASES.ordinal()),
                o.deleted(GroupTable.HEARTBEATS.ordinal()), 0, 0));
    }
}
