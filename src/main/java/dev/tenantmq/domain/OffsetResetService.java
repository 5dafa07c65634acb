package dev.tenantmq.domain;

import dev.tenantmq.model.ConsumerGroup;
import dev.tenantmq.model.GroupScope;
import dev.tenantmq.model.OffsetReset;
import dev.tenantmq.model.PartitionKey;
import dev.tenantmq.model.Tenant;
import dev.tenantmq.model.Topic;
import dev.tenantmq.store.OffsetResetTransaction;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Instant;
import java.util.List;

/**
 * Replay: moves a consumer group's committed offsets on one topic to the earliest stored message,
 * the latest, an offset or a time, as Kafka's {@code kafka-consumer-groups --reset-offsets} does
 * (docs/operations.md, "Replay: resetting a group's offsets"). The move fences what the group has
 * in flight (its receipts answer STALE afterwards) and wakes its waiting fetches. Callers are
 * authorized by the API layer (admin role).
 */
@ApplicationScoped
public class OffsetResetService {
    private final OffsetResetTransaction store;
    private final FetchSignals signals;

    OffsetResetService(OffsetResetTransaction store, FetchSignals signals) {
        this.store = store;
        this.signals = signals;
    }

    /**
     * A reset request.
     *
     * @param partitionKey only this partition, or null for every partition of the group on the topic
     * @param dryRun answer what would change, change nothing
     */
    public record Request(Tenant tenant, Topic topic, ConsumerGroup consumerGroup, PartitionKey partitionKey,
                          OffsetReset.Target target, boolean dryRun) {}

    /**
     * One partition's move. Offsets are the committed offset: the last acknowledged offset, so the
     * group's next delivery is the first stored message above it ({@code nextOffset}).
     *
     * @param nextOffset the offset of the message the group receives next, or null when none is stored above {@code to}
     * @param earliestOffset the earliest stored offset (how far back a replay can go), or null when nothing is stored
     * @param earliestCreatedAt when the earliest stored message was published (database UTC), or null
     * @param latestOffset the newest offset the partition was given (0: none)
     * @param beforeEarliest the target lay before the earliest stored message; the group starts there
     */
    public record PartitionMove(String partitionKey, long from, long to, Long nextOffset, Long earliestOffset,
                                Instant earliestCreatedAt, long latestOffset, boolean beforeEarliest) {}

    /**
     * Resets the group's offsets, or with {@code dryRun} computes what a reset would do.
     *
     * @return one move per partition, in key order
     * @throws NotFoundException (404) when the group has no committed offset on the topic (in that
     *     partition, when one is named): it has never leased it, so there is nothing to move
     */
    public List<PartitionMove> reset(Request r) {
        GroupScope s = new GroupScope(r.tenant().value(), r.consumerGroup().value(), r.topic().value());
        List<PartitionMove> moves = store.reset(s, r.partitionKey() == null ? null : r.partitionKey().value(),
                        r.target(), r.dryRun()).stream()
                .map(p -> new PartitionMove(p.partitionKey(), p.from(), p.to(),
                        p.next().map(OffsetReset.Stored::offset).orElse(null),
                        p.earliest().map(OffsetReset.Stored::offset).orElse(null),
                        p.earliest().map(OffsetReset.Stored::createdAt).orElse(null), p.latest(), p.beforeEarliest()))
                .toList();
        if (moves.isEmpty()) {
            throw new NotFoundException("consumer group '" + s.consumerGroup() + "' has no committed offset on topic '"
                    + s.topic() + "'" + (r.partitionKey() == null ? "" : " in partition '" + r.partitionKey().value() + "'")
                    + " of tenant '" + s.tenant() + "' (a group gets one when it first leases a partition)");
        }
        if (!r.dryRun()) {
            signals.signal(s.tenant(), s.topic(), FetchSignals.ALL); // the group's waiting fetches look again
        }
        return moves;
    }
}
