package dev.tenantmq.model;

import java.util.ArrayList;
import java.util.List;

/**
 * What one fetch does with one partition's messages, decided row by row in offset order (SPEC
 * section 4, "Lease-fetch" and "Ack, nack, extend"). Pure: the store reads the rows and writes
 * the steps. It lives on the ground floor ({@code model}) so that the store, which runs the fetch
 * transaction, can apply it without depending on the domain layer above it.
 *
 * <ul>
 *   <li>A message never delivered to the group goes out with attempt 1, once it is due: one
 *       published with a delay that has not passed yet holds the partition (docs/api.md,
 *       "Delayed delivery"), as a nacked message whose delay has not passed does.</li>
 *   <li>Acknowledged and dead-lettered messages are skipped.</li>
 *   <li>A delivery of the current lease still within its visibility timeout holds the partition:
 *       nothing may go (ordering).</li>
 *   <li>An in-flight delivery whose visibility expired, or whose lease was lost, failed an
 *       attempt; a nacked one whose delay passed did too. It goes out with the next attempt, or,
 *       when that failed attempt was the {@code maxDeliveries}-th, is dead-lettered and the
 *       partition moves on.</li>
 *   <li>A nacked or handed-back message whose delay has not passed holds the partition.</li>
 *   <li>A handed-back message goes out again with the same attempt.</li>
 * </ul>
 */
public final class PartitionWalk {
    /** Dead-letter reason of an in-flight delivery whose visibility timeout expired. */
    public static final String EXPIRED = "visibility timeout expired";
    /** Dead-letter reason of an in-flight delivery whose lease another holder took over. */
    public static final String LEASE_LOST = "lease lost before acknowledgement";
    /** Dead-letter reason of a nacked message found after its delay (the nack gave no reason). */
    public static final String NACKED = "nacked";

    /**
     * One message as the walk sees it.
     *
     * @param state the group's delivery row, or null when the message was never delivered to it
     * @param attempt the row's {@code delivery_attempt} (ignored without a row)
     * @param delivery the row's delivery number, the fencing token of its last hand-out
     * @param leaseEpoch the lease epoch the row was last handed out under
     * @param invisible whether the row's {@code visible_at} is still in the future (database clock)
     * @param notDue whether the message's {@code deliver_at} is still in the future (database
     *     clock): published with a delay that has not passed; read only for a message never delivered
     */
    public record Row(long offset, DeliveryState state, int attempt, long delivery, long leaseEpoch,
                      boolean invisible, boolean notDue) {
        /** A row of a message that is due (no delay, or its delay passed). */
        public Row(long offset, DeliveryState state, int attempt, long delivery, long leaseEpoch, boolean invisible) {
            this(offset, state, attempt, delivery, leaseEpoch, invisible, false);
        }

        /** A message the group never received, due. */
        public static Row undelivered(long offset) {
            return undelivered(offset, false);
        }

        /** A message the group never received; {@code notDue} while its delay has not passed. */
        public static Row undelivered(long offset, boolean notDue) {
            return new Row(offset, null, 0, 0, 0, false, notDue);
        }
    }

    /** Something the fetch does with one message. */
    public sealed interface Step {
        /** The message's offset. */
        long offset();
    }

    /**
     * Hand the message out with {@code attempt}.
     *
     * @param fromState the row's state as read, fencing the update; null when the message has no row
     * @param fromDelivery the row's delivery number as read (fencing); 0 without a row
     */
    public record Deliver(long offset, int attempt, DeliveryState fromState, long fromDelivery) implements Step {
        /** @throws IllegalStateException when a row in {@code fromState} cannot be handed out (a bug) */
        public Deliver {
            DeliveryState.INFLIGHT.requireFrom(fromState);
        }

        /** A first delivery: no row, nothing to fence. */
        public boolean first() {
            return fromState == null;
        }
    }

    /** Dead-letter the message after {@code attempts} failed attempts, fenced like {@link Deliver}. */
    public record DeadLetter(long offset, DeliveryState fromState, long fromDelivery, int attempts, String reason)
            implements Step {
        /** @throws IllegalStateException when a row in {@code fromState} cannot be dead-lettered (a bug) */
        public DeadLetter {
            DeliveryState.DEAD.requireFrom(fromState);
        }
    }

    private final long leaseEpoch;
    private int budget;
    private final int maxDeliveries;
    /** The fetch's budget of messages and payload bytes, shared with its other partitions' walks. */
    private final FetchBudget.Meter fetch;
    private final List<Step> steps = new ArrayList<>();
    private int delivered;
    /** The payload size of the row being decided, as {@link FetchBudget#bytesOf} counts it. */
    private long payloadBytes;
    private boolean busy;
    private boolean stopped;
    private boolean outOfBudget;

    /**
     * @param leaseEpoch the epoch of the lease the fetch holds on the partition
     * @param budget most messages to hand out; 0 for a sweep that only dead-letters
     * @param maxDeliveries failed attempts after which a message is dead-lettered
     */
    public PartitionWalk(long leaseEpoch, int budget, int maxDeliveries) {
        this(leaseEpoch, budget, maxDeliveries, FetchBudget.Meter.unlimited());
    }

    /**
     * A walk that also spends the fetch's shared budget of messages and payload bytes
     * ({@link FetchBudget}; docs/api.md, "Lease-fetch"): a message that does not fit in the bytes
     * left stops the walk for this fetch, and the first message of a fetch always fits.
     *
     * @param leaseEpoch the epoch of the lease the fetch holds on the partition
     * @param budget most messages this partition may hand out now; 0 for a sweep
     * @param maxDeliveries failed attempts after which a message is dead-lettered
     * @param fetch the fetch's budget, shared by the walks of its lease transaction
     */
    public PartitionWalk(long leaseEpoch, int budget, int maxDeliveries, FetchBudget.Meter fetch) {
        this.leaseEpoch = leaseEpoch;
        this.budget = budget;
        this.maxDeliveries = maxDeliveries;
        this.fetch = fetch;
    }

    /**
     * Takes the next row, in offset order.
     *
     * @return false when the partition can give nothing more now: the row is one to hand out and
     *     the budget is spent, or the row holds the partition back; later rows must not be offered
     *     then. Rows that need no hand-out (finished ones, dead letters) are taken even with the
     *     budget spent, so a walk with budget 0 is the scheduler's sweep: it dead-letters the
     *     expired last attempts at the head of the partition and delivers nothing.
     */
    public boolean accept(Row row) {
        return accept(row, 0);
    }

    /**
     * Takes the next row, in offset order, whose payload is {@code payloadBytes} long (as
     * {@link FetchBudget#bytesOf} counts it). As {@link #accept(Row)}; a row to hand out whose
     * payload does not fit in the fetch's bytes left also stops the walk, for this fetch: it and
     * the rows after it wait for the next one (ordering), and {@link #addBudget} cannot resume it.
     */
    public boolean accept(Row row, long payloadBytes) {
        if (stopped) {
            throw new IllegalStateException("the walk of this partition has stopped");
        }
        this.payloadBytes = payloadBytes;
        if (!decide(row)) {
            stopped = true;
            return false;
        }
        return true;
    }

    private boolean decide(Row row) {
        if (row.state() == null) {
            // Not due yet: it and the messages after it wait (ordering), the earlier steps stand.
            return !row.notDue() && deliver(new Deliver(row.offset(), 1, null, 0));
        }
        return switch (row.state()) {
            case ACKED, DEAD -> true; // finished for this group: never delivered again
            case INFLIGHT -> {
                boolean sameLease = row.leaseEpoch() == leaseEpoch;
                if (sameLease && row.invisible()) {
                    busy = true; // an earlier delivery of the current lease is still out
                    yield false;
                }
                yield failedAttempt(row, sameLease ? EXPIRED : LEASE_LOST);
            }
            case RETRY -> !row.invisible() && failedAttempt(row, NACKED);
            case PENDING -> {
                if (row.invisible()) {
                    yield false;
                }
                yield deliver(new Deliver(row.offset(), row.attempt(), row.state(), row.delivery())); // same attempt
            }
        };
    }

    private boolean failedAttempt(Row row, String reason) {
        if (Settlement.lastAttempt(row.attempt(), maxDeliveries)) {
            steps.add(new DeadLetter(row.offset(), row.state(), row.delivery(), row.attempt(), reason));
            return true; // dead-lettering releases the partition: later messages flow
        }
        return deliver(new Deliver(row.offset(), row.attempt() + 1, row.state(), row.delivery()));
    }

    /**
     * Hands the message out, or stops the walk when this partition's budget is spent (resumable
     * with {@link #addBudget}) or the message does not fit in the fetch's shared budget (not
     * resumable): it waits for the next fetch, and so do the messages after it.
     */
    private boolean deliver(Deliver d) {
        if (delivered >= budget) {
            outOfBudget = true;
            return false;
        }
        if (!fetch.fits(payloadBytes)) {
            return false;
        }
        fetch.take(payloadBytes);
        steps.add(d);
        delivered++;
        return true;
    }

    /**
     * Whether the walk stopped only because its budget was spent, at a message it would have
     * handed out: {@link #addBudget} lets it go on from that message.
     */
    public boolean outOfBudget() {
        return outOfBudget;
    }

    /**
     * Raises the budget by {@code more} messages. A walk that stopped for its budget takes rows
     * again, starting with the one it stopped at.
     *
     * @throws IllegalStateException when the walk stopped for another reason (the partition is
     *     held, or the fetch's bytes are spent)
     */
    public void addBudget(int more) {
        if (stopped && !outOfBudget) {
            throw new IllegalStateException("the walk of this partition stopped: it is held");
        }
        budget += more;
        stopped = false;
        outOfBudget = false;
    }

    /**
     * A fetch's budget shared over the partitions it walks at once: each gets
     * {@code ceil(budget / partitions)}, so that shallow partitions leave their unused share to
     * the deep ones in a next round and a deep partition takes no more than its share in the first.
     *
     * @return at least 1 when {@code budget} is positive; 0 for no budget (a sweep)
     */
    public static int share(int budget, int partitions) {
        return budget <= 0 ? 0 : (budget + Math.max(partitions, 1) - 1) / Math.max(partitions, 1);
    }

    /**
     * The LIMIT of each partition's scan in one statement over {@code partitions} partitions, in
     * walk order: the first ones get their {@link #share} plus {@code slack} rows, as long as the
     * limits before them add up to less than the budget; the rest get their share alone. The walk
     * fills the budget from the first partitions (up to their limits), so with deep partitions
     * the budget is spent before the later ones are walked, and their slack would be rows read,
     * and payloads sent, for nothing; a shallow partition returns what it has whatever its limit,
     * and the budget it leaves goes to the others in a next round. The slack of the first
     * partitions matters even where no row is to be passed: over deep partitions, the first ones
     * take the whole budget, so a fetch holds few partitions (its batches, its ack's lease locks
     * and offsets rows) and the group's concurrent fetches find the others ready. With no budget
     * (a sweep, which delivers nothing and walks every partition) each partition gets
     * {@code slack}.
     *
     * @param budget messages the fetch may still hand out
     * @param slack rows read beyond the share, for rows the walk skips (acknowledged above the
     *              committed offset, for example)
     * @return one limit per partition, each at least 1 when {@code slack} is positive
     */
    public static int[] scanLimits(int budget, int partitions, int slack) {
        int[] limits = new int[partitions];
        int share = share(budget, partitions);
        long before = 0;
        for (int i = 0; i < partitions; i++) {
            limits[i] = budget <= 0 || before < budget ? share + slack : share;
            before += limits[i];
        }
        return limits;
    }

    /**
     * {@link #scanLimits} of a fetch that continues in the partitions whose batches it acks, and
     * in no other (docs/api.md, "Fetch and ack in one call"): the first of them gets the whole
     * budget plus {@code slack}, so that when it is deep it fills the fetch alone and the next
     * fetch, acking that one batch, reads one partition (docs/architecture.md, "The cursors and
     * the first scan in one read"). With its share alone the first of two deep partitions left
     * part of every fetch to the second for as long as both lasted, and each fetch acked and read
     * two. The others keep their limits: when the first is shallower, they take the rest as in any
     * fetch.
     *
     * @return one limit per partition, as {@link #scanLimits}
     */
    public static int[] continuationLimits(int budget, int partitions, int slack) {
        int[] limits = scanLimits(budget, partitions, slack);
        if (budget > 0 && partitions > 0) {
            limits[0] = budget + slack;
        }
        return limits;
    }

    /** The decisions so far, in offset order. */
    public List<Step> steps() {
        return List.copyOf(steps);
    }

    /** Messages handed out so far. */
    public int delivered() {
        return delivered;
    }

    /** Whether a delivery of the current lease, still invisible, held the partition. */
    public boolean busy() {
        return busy;
    }

    /** Whether the walk stopped (budget spent or partition held); rows after it were not looked at. */
    public boolean stopped() {
        return stopped;
    }

    /** The highest offset handed out for the first time, or {@code floor} when none was. */
    public long lastFirstDelivery(long floor) {
        long last = floor;
        for (Step s : steps) {
            if (s instanceof Deliver d && d.first()) {
                last = Math.max(last, d.offset());
            }
        }
        return last;
    }

    /**
     * How many messages were handed out for the first time: the size of the delivery batch the
     * walk opens, up to {@link #lastFirstDelivery}, which an ack compares its receipts with
     * ({@link CommitWalk#wholeBatch}).
     */
    public int firstDeliveries() {
        int n = 0;
        for (Step s : steps) {
            if (s instanceof Deliver d && d.first()) {
                n++;
            }
        }
        return n;
    }
}
