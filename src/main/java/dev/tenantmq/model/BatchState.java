package dev.tenantmq.model;

import java.util.Set;

/**
 * State of a partition's delivery batch for one consumer group, as the columns
 * {@code committed_offset} and {@code delivered_offset} of its {@code queue_offsets} row hold it
 * (SPEC section 4, "Lease-fetch"; migration V3). The batch is the cheap form of messages in
 * flight: a fetch that hands out messages never delivered to the group records only their range
 * {@code (committed_offset, delivered_offset]}, with one lease epoch, delivery number and
 * visibility deadline for all of them, and writes no {@code queue_delivery_state} row. A message
 * gets a row ({@link DeliveryState}) only when something exceptional happens to it.
 * <pre>
 *   CLOSED --OPEN_BATCH: a fetch hands out messages--> OPEN, or CLOSED when it handed out only rows again
 *   OPEN --COMMIT_IN_BATCH: acks move the committed offset--> OPEN (a prefix), CLOSED (drained)
 *   OPEN --MATERIALIZE: one INFLIGHT row per message left, then CLOSE_BATCH--> CLOSED
 *   CLOSED --COMMIT_ROWS: the committed offset moves over finished rows--> CLOSED
 * </pre>
 * A batch is opened only on a closed row: an open batch still within its visibility holds the
 * partition, and one whose visibility expired or whose lease was lost is materialized first (its
 * messages failed an attempt, which only rows can count). So a message is in the batch or has a
 * row, never both. Each change names the states it applies to and the states it may lead to, as
 * {@link DeliveryState} names where each state may be entered from; anything else is a bug.
 */
public enum BatchState {
    /** No batch: every in-flight message of the partition, if any, has a delivery row. */
    CLOSED,
    /** Messages {@code (committed_offset, delivered_offset]} are in flight as one batch, attempt 1. */
    OPEN;

    /**
     * The batch state of a {@code queue_offsets} row.
     *
     * @param committed {@code committed_offset}: every message at or below it is finished
     * @param delivered {@code delivered_offset}: the end of the batch
     */
    public static BatchState of(long committed, long delivered) {
        return delivered > committed ? OPEN : CLOSED;
    }

    /** The changes a statement makes to a {@code queue_offsets} row, and the batch states each joins. */
    public enum Change {
        /**
         * {@code OPEN_BATCH}: a fetch records its hand-out. Its first deliveries open a batch; when it
         * handed out only messages that have rows, the row stays closed (only its delivery number moves).
         */
        OPEN_BATCH(Set.of(CLOSED), Set.of(OPEN, CLOSED)),
        /** {@code ADVANCE_COMMITTED} inside an open batch: part of it stays open, or all of it is drained. */
        COMMIT_IN_BATCH(Set.of(OPEN), Set.of(OPEN, CLOSED)),
        /** {@code INSERT_BATCH_DELIVERY} for each message left, then {@code CLOSE_BATCH}. */
        MATERIALIZE(Set.of(OPEN), Set.of(CLOSED)),
        /** {@code ADVANCE_COMMITTED} over finished rows while no batch is open. */
        COMMIT_ROWS(Set.of(CLOSED), Set.of(CLOSED));

        private final Set<BatchState> from;
        private final Set<BatchState> to;

        Change(Set<BatchState> from, Set<BatchState> to) {
            this.from = from;
            this.to = to;
        }

        /** The states this change applies to. */
        public Set<BatchState> from() {
            return from;
        }

        /** The states this change may lead to. */
        public Set<BatchState> to() {
            return to;
        }

        /** Whether this change may move a batch from {@code before} to {@code after}. */
        public boolean allows(BatchState before, BatchState after) {
            return from.contains(before) && to.contains(after);
        }

        /**
         * Refuses a move this change does not make.
         *
         * @return {@code after}
         * @throws IllegalStateException when this change may not move a batch from {@code before} to
         *     {@code after}: a bug (for instance, opening a batch over an open one)
         */
        public BatchState require(BatchState before, BatchState after) {
            if (!allows(before, after)) {
                throw new IllegalStateException("a delivery batch cannot go from " + before + " to " + after + " by "
                        + this + " (it applies to " + from + " and leads to " + to + ")");
            }
            return after;
        }

        /** The change that moving the committed offset makes to a batch in {@code before}. */
        public static Change commit(BatchState before) {
            return before == OPEN ? COMMIT_IN_BATCH : COMMIT_ROWS;
        }
    }
}
