package dev.tenantmq.model;

/**
 * How many ready partitions a fetch claims for one lease transaction, from how many messages a
 * consumer group's partitions gave per partition in its last one (docs/architecture.md, "How
 * many partitions a fetch claims"). Pure: the caller keeps one value per consumer group and
 * passes what each transaction did.
 *
 * <p>The fetch's scan costs the database about the same per partition whatever that partition
 * gives (one {@code UNION ALL} branch each), and the walk fills the budget from the first
 * partitions in key order, so partitions claimed past those that fill it are locked, read and
 * scanned for nothing. Over partitions that hold one message each a fetch needs as many
 * partitions as messages; over deep ones a few. A group whose partitions gave {@code d}
 * messages each claims the room divided by {@code d}, with {@link #MARGIN} to spare; a group
 * with no such figure yet, or with partitions that gave one message or less, claims one
 * partition per message of room, as every ready partition holds at least one. A transaction
 * whose partitions run dry before the budget is spent leaves the fetch room, and the fetch
 * claims the next ready partitions in another transaction, with the figure that one gave; after
 * one that handed out nothing (its partitions were taken meanwhile) the fetch claims one per
 * message of room again ({@link #UNKNOWN}), so stale candidates cost one more transaction, not
 * one per few candidates.
 *
 * @param messagesPerPartition messages the group's last lease transaction here gave per
 *     partition it walked; 0 when unknown
 */
public record PartitionDepth(double messagesPerPartition) {
    /** No lease transaction observed yet: claim one partition per message of room. */
    public static final PartitionDepth UNKNOWN = new PartitionDepth(0);
    /**
     * How much more the claimed partitions should be able to give than the room, at the depth
     * observed: partitions of one group are not equally deep, and a transaction that falls short
     * costs a second one.
     */
    public static final double MARGIN = 1.5;

    /** @throws IllegalArgumentException when the figure is negative or not a number (a bug) */
    public PartitionDepth {
        if (!(messagesPerPartition >= 0) || Double.isInfinite(messagesPerPartition)) {
            throw new IllegalArgumentException("messages per partition must be a finite figure of at least 0: "
                    + messagesPerPartition);
        }
    }

    /**
     * How many ready partitions to claim for a transaction with room for {@code messagesLeft}
     * messages: between 1 and {@code messagesLeft}.
     *
     * @param messagesLeft the fetch's room, in messages, at least 1
     * @throws IllegalArgumentException when {@code messagesLeft} is less than 1 (a bug)
     */
    public int claims(int messagesLeft) {
        if (messagesLeft < 1) {
            throw new IllegalArgumentException("a fetch with no room claims no partition: " + messagesLeft);
        }
        if (messagesPerPartition <= 1) {
            return messagesLeft;
        }
        double wanted = Math.ceil(messagesLeft * MARGIN / messagesPerPartition);
        return (int) Math.max(1, Math.min(messagesLeft, wanted));
    }

    /**
     * The figure after a lease transaction that walked {@code partitionsWalked} partitions and
     * handed out {@code delivered} messages from them; unchanged when it walked none (it learned
     * nothing about depth). A transaction that ran out of room ({@code spent}) stopped its last
     * partition at the room, not at the partition's end, so what it gave per partition is only a
     * lower bound: the figure does not fall below the one before. One whose partitions ran dry
     * first gave their whole depth, and replaces the figure, up or down.
     *
     * @param spent whether the transaction spent the fetch's budget of messages or bytes
     * @throws IllegalArgumentException when a count is negative (a bug)
     */
    public PartitionDepth after(int delivered, int partitionsWalked, boolean spent) {
        if (delivered < 0 || partitionsWalked < 0) {
            throw new IllegalArgumentException("counts cannot be negative: " + delivered + " delivered over "
                    + partitionsWalked + " partitions");
        }
        if (partitionsWalked == 0) {
            return this;
        }
        double observed = (double) delivered / partitionsWalked;
        return new PartitionDepth(spent ? Math.max(messagesPerPartition, observed) : observed);
    }
}
