package dev.tenantmq.model;

import java.util.HashSet;
import java.util.List;
import java.util.Optional;
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

    /**
     * The advance of an ack that names every message of a partition's open delivery batch, known
     * without reading the messages (docs/architecture.md, "Delivery batches"): the batch holds
     * the messages in {@code (committed, delivered]} without a delivery row, {@code batchMessages}
     * of them, and a receipt of the batch names one of them. So {@code batchMessages} distinct
     * acknowledged offsets in that range are the whole batch, and the committed offset moves to
     * {@code delivered}.
     *
     * <p>The caller has established that no delivery row lies above {@code committed} (none in
     * the batch, none finished after it): with one, the rows decide ({@link #advance}).
     *
     * @param batchMessages the batch's size as its fetch recorded it; 0 when unknown (a message of
     *     the batch was deleted since, or the batch predates the count)
     * @param batchAcked the acknowledged offsets of the batch's delivery
     * @return the advance, or empty when the messages must be read: the size is unknown, or the
     *     ack names fewer messages than the batch holds (or, a bug, more, or one outside it)
     */
    public static Optional<Advance> wholeBatch(long committed, long delivered, int batchMessages, Set<Long> batchAcked) {
        if (batchMessages <= 0 || delivered <= committed || batchAcked.size() != batchMessages) {
            return Optional.empty();
        }
        for (long offset : batchAcked) {
            if (offset <= committed || offset > delivered) {
                return Optional.empty();
            }
        }
        return Optional.of(new Advance(delivered, Set.copyOf(batchAcked), false));
    }
}
