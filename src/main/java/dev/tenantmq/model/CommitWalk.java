package dev.tenantmq.model;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Where a partition's committed offset moves after an ack, a nack or a dead letter (SPEC section
 * 4: "The committed offset of a partition advances over the contiguous acknowledged prefix").
 * Pure: the store reads the rows and writes the result.
 */
public final class CommitWalk {
    private CommitWalk() {}

    /**
     * One message above the committed offset.
     *
     * @param state the group's delivery row, or null when the message has none (in flight in the
     *     partition's current batch, or never delivered)
     */
    public record Row(long offset, DeliveryState state) {}

    /**
     * The outcome.
     *
     * @param committed the new committed offset (at least the old one)
     * @param batchAcks the acks of batch deliveries that the new committed offset covers; they
     *     need no row of their own
     * @param prunable whether acknowledged rows at or below the new committed offset may be deleted
     */
    public record Advance(long committed, Set<Long> batchAcks, boolean prunable) {}

    /**
     * Walks {@code rows} (the messages above {@code committed}, in offset order) over the
     * contiguous run of finished ones: a row ACKED or DEAD, or a message without a row whose
     * batch delivery is acknowledged now ({@code batchAcked}).
     */
    public static Advance advance(long committed, List<Row> rows, Set<Long> batchAcked) {
        long to = committed;
        Set<Long> covered = new HashSet<>();
        boolean prunable = false;
        for (Row row : rows) {
            if (row.state() == null) {
                if (!batchAcked.contains(row.offset())) {
                    break;
                }
                covered.add(row.offset());
            } else if (row.state().finished()) {
                prunable |= row.state() == DeliveryState.ACKED;
            } else {
                break;
            }
            to = row.offset();
        }
        return new Advance(to, Set.copyOf(covered), prunable);
    }
}
