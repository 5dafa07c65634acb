package dev.tenantmq.model;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * How one ack request settles each of its receipts (SPEC section 4, "Ack, nack, extend"), decided
 * before anything is written. Pure, like {@link PartitionWalk}: the store reads the lease epochs,
 * the open delivery batches and their delivery rows under the lease row locks, makes the plan,
 * writes it, and hands the outcome of the writes back for the statuses.
 *
 * <p>An in-flight message is in one of two places: in its partition's open delivery batch
 * (a range on the group's committed-offset row, no row of its own), or in a delivery row. A
 * receipt of the current lease for a message of the open batch without a row is a batch ack:
 * when the committed offset then moves over it, that is all that is written. Any other receipt of
 * the current lease is a row ack (a fenced update of its delivery row). A batch ack the committed
 * offset does not cover (an ack out of order) needs the batch materialized into rows and is then
 * acked as a row. A receipt of a lease that is not current changes nothing.
 */
public final class AckPlan {
    /** How one receipt is settled. */
    public enum Path {
        /** The receipt's lease is not the partition's current lease: nothing to write. */
        NOT_CURRENT,
        /** The message has a delivery row: a fenced update of that row. */
        BY_ROW,
        /** The message is in the open batch without a row: acknowledged by the committed offset. */
        BY_BATCH,
        /** The same batch delivery named again in the same request: acknowledged already. */
        REPEATED
    }

    /**
     * A partition's open delivery batch as read: the messages {@code (committed, delivered]},
     * handed out under lease {@code epoch} with delivery number {@code seq}.
     */
    public record Batch(long committed, long delivered, long epoch, long seq) {
        /** Whether {@code t} names a delivery of this batch. */
        public boolean holds(AckTarget t) {
            return t.offset() > committed && t.offset() <= delivered && t.leaseEpoch() == epoch && t.delivery() == seq;
        }
    }

    private final List<AckTarget> targets;
    private final List<Path> paths;
    private final Map<String, Set<Long>> batchAcks;

    private AckPlan(List<AckTarget> targets, List<Path> paths, Map<String, Set<Long>> batchAcks) {
        this.targets = targets;
        this.paths = paths;
        this.batchAcks = batchAcks;
    }

    /**
     * Plans the acks of {@code targets}.
     *
     * @param epochs the current lease epoch of each partition whose lease row was locked
     * @param openBatches the open delivery batch of each partition that has one
     * @param batchRows per partition, the offsets inside its open batch that have a delivery row
     *     (a message handed out again in a batch after a hand-back): acked by row
     */
    public static AckPlan of(List<AckTarget> targets, Map<String, Long> epochs, Map<String, Batch> openBatches,
                             Map<String, Set<Long>> batchRows) {
        List<Path> paths = new ArrayList<>(targets.size());
        Map<String, Set<Long>> batchAcks = new TreeMap<>();
        for (AckTarget t : targets) {
            Long epoch = epochs.get(t.partitionKey());
            Batch batch = openBatches.get(t.partitionKey());
            if (epoch == null || epoch != t.leaseEpoch()) {
                paths.add(Path.NOT_CURRENT);
            } else if (batch != null && batch.holds(t)
                    && !batchRows.getOrDefault(t.partitionKey(), Set.of()).contains(t.offset())) {
                boolean first = batchAcks.computeIfAbsent(t.partitionKey(), k -> new HashSet<>()).add(t.offset());
                paths.add(first ? Path.BY_BATCH : Path.REPEATED);
            } else {
                paths.add(Path.BY_ROW);
            }
        }
        return new AckPlan(List.copyOf(targets), List.copyOf(paths), Collections.unmodifiableMap(batchAcks));
    }

    /** The path of each target, in the given order. */
    public List<Path> paths() {
        return paths;
    }

    /** Indices of the targets acked by a fenced update of their delivery row, in order. */
    public List<Integer> byRow() {
        return indicesOf(Path.BY_ROW);
    }

    /** Per partition, the offsets of the batch deliveries this request acknowledges. */
    public Map<String, Set<Long>> batchAcks() {
        return batchAcks;
    }

    /**
     * Partitions whose batch acks the new committed offsets do not all cover (acks out of order):
     * their batch must be materialized, so that those acks can go to rows. In key order.
     *
     * @param covered per partition walked, the batch acks its new committed offset covers
     */
    public Set<String> toMaterialize(Map<String, Set<Long>> covered) {
        Set<String> out = new TreeSet<>();
        batchAcks.forEach((key, acks) -> {
            if (!covered.getOrDefault(key, Set.of()).containsAll(acks)) {
                out.add(key);
            }
        });
        return out;
    }

    /**
     * Indices of the batch acks the new committed offsets do not cover, in order: acked by row
     * after their batch is materialized.
     */
    public List<Integer> uncoveredBatchAcks(Map<String, Set<Long>> covered) {
        List<Integer> out = new ArrayList<>();
        for (int i : indicesOf(Path.BY_BATCH)) {
            AckTarget t = targets.get(i);
            if (!covered.getOrDefault(t.partitionKey(), Set.of()).contains(t.offset())) {
                out.add(i);
            }
        }
        return out;
    }

    /**
     * The status of each target that the ack decided, in the given order; empty where it
     * changed nothing and the receipt still needs classifying (acknowledged before, stale, or
     * naming no message).
     *
     * @param ackedByRow indices whose fenced row update changed the row
     * @param covered per partition walked, the batch acks its new committed offset covers
     */
    public List<Optional<SettleStatus>> statuses(Set<Integer> ackedByRow, Map<String, Set<Long>> covered) {
        List<Optional<SettleStatus>> out = new ArrayList<>(targets.size());
        for (int i = 0; i < targets.size(); i++) {
            AckTarget t = targets.get(i);
            boolean done = switch (paths.get(i)) {
                case NOT_CURRENT -> false;
                case BY_ROW -> ackedByRow.contains(i);
                case BY_BATCH -> covered.getOrDefault(t.partitionKey(), Set.of()).contains(t.offset())
                        || ackedByRow.contains(i);
                case REPEATED -> true;
            };
            SettleStatus status = paths.get(i) == Path.REPEATED ? SettleStatus.ALREADY_ACKED : SettleStatus.DONE;
            out.add(done ? Optional.of(status) : Optional.empty());
        }
        return out;
    }

    private List<Integer> indicesOf(Path path) {
        List<Integer> out = new ArrayList<>();
        for (int i = 0; i < paths.size(); i++) {
            if (paths.get(i) == path) {
                out.add(i);
            }
        }
        return out;
    }
}
