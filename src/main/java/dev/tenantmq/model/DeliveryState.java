package dev.tenantmq.model;

/**
 * State of one message for one consumer group: {@code queue_delivery_state.state} (SPEC section
 * 4, "Ack, nack, extend" and "Dead letters"; migrations V2 and V3).
 *
 * <p>A message with no row is either finished (at or below the group's committed offset), in
 * flight in its partition's current delivery batch (in {@code (committed_offset,
 * delivered_offset]} of {@code queue_offsets}, attempt 1), or never delivered. A row is written
 * only when something exceptional happens to the message; from then on it moves like this:
 * <pre>
 *   (batch) --materialize--> INFLIGHT
 *   INFLIGHT --ack--> ACKED
 *   INFLIGHT --nack, attempts left--> RETRY          (a failed attempt, delivered again after a delay)
 *   INFLIGHT --later message nacked, or lease handed over--> PENDING   (same attempt)
 *   INFLIGHT, RETRY --fetch after expiry, lost lease or delay--> INFLIGHT (next attempt)
 *   PENDING --fetch--> INFLIGHT (same attempt)
 *   INFLIGHT, RETRY --last failed attempt--> DEAD    (written to the dead-letter topic)
 *   DEAD --admin requeue--> PENDING (attempt 1)
 *   ACKED --committed offset passes it--> (row deleted)
 * </pre>
 */
public enum DeliveryState {
    /** Delivered and not yet acknowledged; its expiry, or the loss of its lease, is a failed attempt. */
    INFLIGHT,
    /** Nacked: a failed attempt; delivered again at {@code visible_at} with the next attempt. */
    RETRY,
    /** Handed back without failing (an earlier message was nacked, a lease was handed over, or an admin requeue). */
    PENDING,
    /** Acknowledged, above the committed offset (an ack out of order). */
    ACKED,
    /** Dead-lettered for the group; kept below the committed offset as the record requeue needs. */
    DEAD;

    /** Acknowledged or dead-lettered: never delivered to the group again, unless requeued. */
    public boolean finished() {
        return this == ACKED || this == DEAD;
    }

    /** The states of a message the group still has to deliver or settle. */
    public static final java.util.List<DeliveryState> UNFINISHED = java.util.List.of(INFLIGHT, RETRY, PENDING);

    /** Parses a stored state; an unknown value is a schema bug, not bad input. */
    public static DeliveryState of(String stored) {
        return stored == null ? null : valueOf(stored);
    }
}
