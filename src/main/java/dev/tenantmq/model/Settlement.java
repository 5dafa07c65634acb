package dev.tenantmq.model;

/**
 * The delivery rules of settling a receipt (SPEC section 4, "Ack, nack, extend" and "Dead
 * letters") that the store applies inside its transactions. Pure, like {@link PartitionWalk}
 * and {@link CommitWalk}, so they are tested without a database.
 */
public final class Settlement {
    private Settlement() {}

    /**
     * Whether a failed attempt is the last one: the {@code maxDeliveries}-th (or later, after
     * the limit was lowered) dead-letters the message instead of delivering it again. The one
     * home of the threshold, for a nack and for a fetch that finds an expired or nacked delivery.
     *
     * @param failedAttempt the {@code deliveryAttempt} that failed, from 1
     * @param maxDeliveries failed attempts after which a message is dead-lettered
     */
    public static boolean lastAttempt(int failedAttempt, int maxDeliveries) {
        return failedAttempt >= maxDeliveries;
    }

    /**
     * Whether a receipt of the current lease that changed nothing was acknowledged before
     * (ALREADY_ACKED) rather than superseded by another delivery (STALE). With a delivery row,
     * only an ACKED row of this very delivery counts, not an ack of a later redelivery; without
     * one, a message at or below the committed offset is acknowledged (its row was pruned).
     *
     * @param rowState the group's delivery row state of the message, or null without a row
     * @param rowIsThisDelivery whether the row carries the receipt's lease epoch and delivery number
     * @param offset the message's offset
     * @param committed the partition's committed offset after this request, or null when unknown
     */
    public static boolean alreadyAcked(DeliveryState rowState, boolean rowIsThisDelivery, long offset, Long committed) {
        if (rowState != null) {
            return rowState == DeliveryState.ACKED && rowIsThisDelivery;
        }
        return committed != null && offset <= committed;
    }
}
