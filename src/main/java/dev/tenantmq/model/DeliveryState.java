package dev.tenantmq.model;

import java.util.List;
import java.util.Set;

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
 * Each constant names the store statements that move a row into and out of it. The store
 * renders its SQL state literals and lists from these constants (never typed by hand), so a
 * renamed state cannot drift from the SQL.
 *
 * <p>The diagram is owned by code: each state names the states it may be entered from
 * ({@link #from()}; {@link #mayFollow} with {@code null} for "no row yet", the delivery batch).
 * A transition outside them is a bug, refused by {@link #requireFrom} ({@link PartitionWalk}'s
 * steps check theirs when they are made), and {@code DeliveryStateTest} holds the table above
 * against every pair.
 */
public enum DeliveryState {
    /**
     * Delivered and not yet acknowledged; its expiry, or the loss of its lease, is a failed attempt.
     *
     * <p>In: {@code INSERT_BATCH_DELIVERY} (a delivery batch is materialized: attempt 1, as the
     * batch handed it out) and {@code UPDATE_REDELIVERY} (a fetch hands a RETRY, PENDING or failed
     * INFLIGHT row out again). Out: {@code ACK_DELIVERY} to ACKED, {@code NACK_DELIVERY} to RETRY,
     * {@code HAND_BACK_LATER} to PENDING, {@code UPDATE_REDELIVERY} to INFLIGHT (next attempt,
     * after its visibility expired or its lease was lost), {@code MARK_DEAD} to DEAD.
     */
    INFLIGHT,
    /**
     * Nacked: a failed attempt; delivered again at {@code visible_at} with the next attempt.
     *
     * <p>In: {@code NACK_DELIVERY} (a nack with attempts left). Out: {@code UPDATE_REDELIVERY} to
     * INFLIGHT once its delay passed, {@code MARK_DEAD} when that failed attempt was the last.
     */
    RETRY,
    /**
     * Handed back without failing (an earlier message was nacked, a lease was handed over, or an
     * admin requeue).
     *
     * <p>In: {@code HAND_BACK_LATER} (nack of an earlier message, graceful lease release) and
     * {@code REQUEUE_DELIVERY} (admin requeue of a dead letter, attempt 1). Out:
     * {@code UPDATE_REDELIVERY} to INFLIGHT with the same attempt.
     */
    PENDING,
    /**
     * Acknowledged, above the committed offset (an ack out of order).
     *
     * <p>In: {@code ACK_DELIVERY}. Out: {@code PRUNE_DELIVERIES} deletes the row once the committed
     * offset passes it; retention's {@code DELETE_DELIVERY_STATES} with the message.
     */
    ACKED,
    /**
     * Dead-lettered for the group; kept below the committed offset as the record requeue needs.
     *
     * <p>In: {@code MARK_DEAD} (a fetch or nack after the last failed attempt, with the dead letter
     * written in the same transaction). Out: {@code REQUEUE_DELIVERY} to PENDING; retention's or an
     * admin delete's {@code DELETE_DELIVERY_STATES} with the message.
     */
    DEAD;

    /** Where each state may be entered from; filled once, as the constants cannot name later ones. */
    private Set<DeliveryState> from = Set.of();
    /** Whether a row may be created in this state (materializing a delivery batch). */
    private boolean fromNoRow;

    static {
        INFLIGHT.enteredFrom(true, INFLIGHT, RETRY, PENDING); // materialize; redelivery (next or same attempt)
        RETRY.enteredFrom(false, INFLIGHT); // nack with attempts left
        PENDING.enteredFrom(false, INFLIGHT, DEAD); // hand-back of a later message or a lease; admin requeue
        ACKED.enteredFrom(false, INFLIGHT); // ack
        DEAD.enteredFrom(false, INFLIGHT, RETRY); // the last failed attempt: expiry, lost lease, nack
    }

    private void enteredFrom(boolean noRow, DeliveryState... states) {
        this.fromNoRow = noRow;
        this.from = Set.of(states);
    }

    /** The states a row may move into this one from (itself included when listed). */
    public Set<DeliveryState> from() {
        return from;
    }

    /**
     * Whether a row may move from {@code previous} to this state.
     *
     * @param previous the row's state as read, or null when the message has no row yet (it is
     *     new, or in flight in its partition's delivery batch)
     */
    public boolean mayFollow(DeliveryState previous) {
        return previous == null ? fromNoRow : from.contains(previous);
    }

    /**
     * Refuses a transition the lifecycle does not have.
     *
     * @param previous as for {@link #mayFollow}
     * @throws IllegalStateException when this state may not follow {@code previous}: a bug, never bad input
     */
    public void requireFrom(DeliveryState previous) {
        if (!mayFollow(previous)) {
            throw new IllegalStateException("a delivery row cannot move from " + (previous == null ? "no row" : previous)
                    + " to " + this + " (allowed from: " + (fromNoRow ? "no row, " : "") + from + ")");
        }
    }

    /** Acknowledged or dead-lettered: never delivered to the group again, unless requeued. */
    public boolean finished() {
        return this == ACKED || this == DEAD;
    }

    /** The states of a message the group still has to deliver or settle. */
    public static final List<DeliveryState> UNFINISHED = List.of(INFLIGHT, RETRY, PENDING);

    /** The states of a message the group is done with: {@link #finished()} ones. */
    public static final List<DeliveryState> FINISHED = List.of(ACKED, DEAD);

    /** Parses a stored state; an unknown value is a schema bug, not bad input. */
    public static DeliveryState of(String stored) {
        return stored == null ? null : valueOf(stored);
    }
}
