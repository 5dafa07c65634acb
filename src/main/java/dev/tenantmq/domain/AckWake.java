package dev.tenantmq.domain;

import java.util.List;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * Which partitions an ack signals to waiting long polls, and for how many messages
 * (docs/architecture.md, "Long polls"): an acked partition where the group may have more after
 * the batch ({@code mayHaveMore}, from the ack's own read of the partition head), one message
 * per acked receipt there; never a partition a fetch that carried the acks has just delivered
 * from (it is held again). When the topic had any signal while the ack ran, every acked
 * partition counts as having more: the ack's read of the head does not wait for a publish in
 * flight, whose signal may have found no waiting poll while the batch still held the partition.
 *
 * @param partitions the partitions to name in the signal, in key order
 * @param deliverable an upper bound of the messages the ack may have made deliverable there
 */
record AckWake(SortedSet<String> partitions, int deliverable) {
    /**
     * @param ackedPartitions the partition of each acked receipt (repeated per receipt); an empty
     *     key (a receipt that did not decode) is never signalled
     * @param mayHaveMore the acked partitions where the group may have more after the ack
     * @param servedNow partitions the fetch that carried the acks delivered from
     * @param signalledMeanwhile whether the topic had a signal while the ack ran
     */
    static AckWake of(List<String> ackedPartitions, Set<String> mayHaveMore, Set<String> servedNow,
                      boolean signalledMeanwhile) {
        SortedSet<String> partitions = new TreeSet<>();
        int deliverable = 0;
        for (String key : ackedPartitions) {
            if (!key.isEmpty() && (signalledMeanwhile || mayHaveMore.contains(key)) && !servedNow.contains(key)) {
                partitions.add(key);
                deliverable++;
            }
        }
        return new AckWake(partitions, deliverable);
    }
}
