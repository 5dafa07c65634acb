package dev.tenantmq.model;

/**
 * How the lag gauge counts one partition's lag for a consumer group: the stored messages above
 * its committed offset (docs/architecture.md, "Lag from the partition heads"). The partition's
 * head keeps how many messages it stores ({@code message_count}, migration V10), so the lag is
 * either the count of the stored messages above the committed offset, or the stored count less
 * those at or below it (one statement, one snapshot); this picks the side with fewer rows to
 * read. A deep backlog behind a slow group is then read from its consumed side, which retention
 * keeps short, and a group that keeps up is read from its short unconsumed side.
 *
 * <p>Offsets are global, not dense per partition, so the rows on each side are estimated by the
 * offsets they span: from the partition's first stored offset to the committed offset, and from
 * there to the head. Either side gives the same lag; the estimate only decides the cost.
 *
 * <p>Pure: the store reads the head, the first stored offset and the count, and runs the count
 * this names.
 */
public enum LagCount {
    /** Nothing is stored above the committed offset (the head is not above it, or nothing is stored): no read. */
    NONE_ABOVE,
    /** Every stored message of the partition is above the committed offset: the lag is the stored count, no read. */
    ALL_STORED,
    /** Count the stored messages above the committed offset: that is the lag. */
    ABOVE,
    /** Count the stored messages at or below the committed offset: the lag is the stored count less them. */
    AT_OR_BELOW;

    /**
     * The cheaper way to count the lag of one partition.
     *
     * @param committed the group's committed offset in the partition
     * @param headOffset the newest offset the partition ever received (its head row)
     * @param firstOffset the partition's oldest stored offset; 0 when it stores nothing
     * @param messageCount how many messages the partition stores (its head row)
     */
    public static LagCount choose(long committed, long headOffset, long firstOffset, long messageCount) {
        if (headOffset <= committed || firstOffset == 0) {
            return NONE_ABOVE;
        }
        if (messageCount <= 0) {
            return ABOVE; // the count disagrees with a stored row (docs/operations.md, "Metrics"): read
        }
        if (firstOffset > committed) {
            return ALL_STORED;
        }
        long below = committed - firstOffset + 1; // offsets from the first stored one to the committed one
        long above = headOffset - committed;
        return below < above ? AT_OR_BELOW : ABOVE;
    }

    /**
     * The lag known without a count.
     *
     * @param messageCount the partition's stored count (its head row)
     * @return 0 for {@link #NONE_ABOVE}, the stored count (at least 0) for {@link #ALL_STORED}
     * @throws IllegalStateException for the ways that read (a bug)
     */
    public long known(long messageCount) {
        return switch (this) {
            case NONE_ABOVE -> 0;
            case ALL_STORED -> Math.max(0, messageCount);
            case ABOVE, AT_OR_BELOW -> throw new IllegalStateException(this + " is counted, not known");
        };
    }

    /**
     * Whether a lag counted {@link #AT_OR_BELOW} (the stored count less the rows at or below the
     * committed offset) can be right: a negative one means the stored count is short of the rows,
     * which only a writer that does not keep it leaves (docs/operations.md, "Metrics"); then count
     * {@link #ABOVE} instead.
     */
    public static boolean plausible(long lag) {
        return lag >= 0;
    }

    /** Whether this way reads message rows (a count statement); the others are known from the head. */
    public boolean reads() {
        return this == ABOVE || this == AT_OR_BELOW;
    }
}
