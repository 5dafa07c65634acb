package dev.tenantmq.api.dto;

import java.time.Instant;
import java.util.List;

/**
 * {@code POST /admin/consumer-groups/reset-offsets} (docs/operations.md, "Replay: resetting a
 * group's offsets"): what moved, or with {@code dryRun} what would move, per partition in key
 * order.
 *
 * @param to the target: earliest, latest, offset or datetime
 */
public record OffsetResetResponse(String tenant, String topic, String consumerGroup, String to, boolean dryRun,
                                  List<Partition> partitions) {
    /**
     * One partition. Offsets are committed offsets (the last acknowledged offset): the group's
     * next delivery is the first stored message above {@code toOffset}, which is
     * {@code nextOffset} (null when none is stored yet).
     *
     * @param fromOffset the committed offset before
     * @param toOffset the committed offset after (would be, in a dry run)
     * @param nextOffset the offset of the message the group receives next, or null
     * @param earliestOffset the earliest stored offset: how far back a replay can go (older
     *     messages were deleted by retention); null when nothing is stored
     * @param earliestCreatedAt when that message was published (UTC), or null
     * @param latestOffset the newest offset the partition was given (0: none)
     * @param beforeEarliest the target lay before the earliest stored message; the group starts there
     */
    public record Partition(String partitionKey, long fromOffset, long toOffset, Long nextOffset, Long earliestOffset,
                            Instant earliestCreatedAt, long latestOffset, boolean beforeEarliest) {}
}
