package dev.tenantmq.store;

import dev.tenantmq.model.BatchState;
import dev.tenantmq.model.DeadLetterPolicy;
import dev.tenantmq.model.Delivery;
import dev.tenantmq.model.FetchBudget;
import dev.tenantmq.model.GroupScope;
import dev.tenantmq.model.PartitionWalk;
import dev.tenantmq.store.ConsumerSql.Cursor;
import dev.tenantmq.store.ConsumerSql.LockHeldLeases;
import dev.tenantmq.store.ConsumerSql.OpenBatch;
import dev.tenantmq.store.ConsumerSql.ScanPartition;
import dev.tenantmq.store.ConsumerSql.ScanRequeued;
import dev.tenantmq.store.ConsumerSql.Scanned;
import dev.tenantmq.store.ConsumerSql.SelectExpiredLastAttempts;
import dev.tenantmq.store.ConsumerSql.SelectReadyPartitions;
import dev.tenantmq.store.ConsumerSql.UpdateRedelivery;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The fetch transaction (SPEC section 4, "Lease-fetch"), and the scheduler's dead-letter sweep,
 * which is the same walk with no budget. Under the lease row locks it reads each partition's
 * cursor and the messages to walk, lets {@link PartitionWalk} decide per message, and writes the
 * outcome: redeliveries, the new batches ({@link DeliveryBatches}), dead letters
 * ({@link DeadLetters}) and the committed offsets they let move ({@link CommittedOffsets}).
 */
@ApplicationScoped
public class FetchTransaction {
    /** Extra rows a scan reads beyond its budget: acknowledged-but-uncommitted rows are skipped. */
    private static final int SCAN_SLACK = 16;
    /** Most partitions one sweep takes; the next tick takes the rest. */
    private static final int SWEEP_PARTITIONS = 100;

    /** What a run of the walk is for. */
    enum Mode {
        /** A consumer's fetch: delivers up to its budget, dead-lettering failed last attempts on the way. */
        FETCH,
        /** The scheduler's sweep: walks every given partition, delivers nothing, dead-letters failed last attempts. */
        SWEEP
    }

    /**
     * What {@link #lease} did: the deliveries, how many messages it dead-lettered instead, and the
     * fetch's budget after the deliveries (what a further lease of the same fetch may use).
     */
    public record LeaseResult(List<Delivery> deliveries, int deadLettered, FetchBudget budget) {}

    private final Db db;

    FetchTransaction(Db db) {
        this.db = db;
    }

    /**
     * Finds up to {@code maxPartitions} leased partitions with deliverable messages, in key order,
     * with keys after {@code after} and, when {@code upTo} is not null, at most {@code upTo}.
     * Read-only, no locks.
     */
    public List<String> readyPartitions(GroupScope s, String subscriber, String after, String upTo, int maxPartitions) {
        return db.read(c -> ConsumerStatements.readyPartitions(c,
                new SelectReadyPartitions(s, subscriber, after, upTo, maxPartitions)));
    }

    /**
     * Leases messages for delivery: in one transaction, locks the lease rows this subscriber
     * still holds among {@code partitions}, and from each partition with nothing holding it back
     * takes, in offset order, first its requeued messages and then the messages above the
     * committed offset, as {@link PartitionWalk} decides. Partitions are scanned in rounds of
     * 1, 2, 4 ... partitions (one statement each), so a fetch that one deep partition fills reads
     * one partition, and one spread over many shallow partitions still takes few statements.
     *
     * @param budget what the fetch may still hand out, in messages (at least 1) and payload bytes
     *     ({@link FetchBudget}: the first message of a fetch always goes)
     * @param visibilityMicros visibility timeout in microseconds
     * @return deliveries grouped by partition, each partition in offset order
     */
    public LeaseResult lease(GroupScope s, String subscriber, List<String> partitions, FetchBudget budget,
                             long visibilityMicros, DeadLetterPolicy policy) {
        if (partitions.isEmpty()) {
            return new LeaseResult(List.of(), 0, budget);
        }
        return db.inTransactionWithGapLocksIfNeeded((c, gapLocks) -> walk(c, gapLocks, Mode.FETCH, s, subscriber,
                partitions, budget, visibilityMicros, policy));
    }

    /**
     * The scheduler's dead-letter sweep (SPEC "Dead letters"): in the partitions this subscriber
     * leases, dead-letters the in-flight messages whose last allowed attempt failed (its
     * visibility timeout expired, or the lease it was delivered under was lost) without waiting
     * for the group's next fetch, so a group whose consumers all stopped still gets its dead
     * letters. One look-up finds such partitions; only then a transaction runs the fetch's walk
     * over them in {@link Mode#SWEEP}.
     *
     * @return messages dead-lettered
     */
    public int deadLetterExpired(GroupScope s, String subscriber, DeadLetterPolicy policy) {
        List<String> partitions = db.read(c -> ConsumerStatements.expiredLastAttempts(c,
                new SelectExpiredLastAttempts(s, subscriber, policy.maxDeliveries(), SWEEP_PARTITIONS)));
        if (partitions.isEmpty()) {
            return 0;
        }
        return db.inTransactionWithGapLocksIfNeeded((c, gapLocks) -> walk(c, gapLocks, Mode.SWEEP, s, subscriber,
                partitions, FetchBudget.NOTHING, 0, policy)).deadLettered();
    }

    /**
     * The transaction's body. Every read after the lease row locks sees the same rows under
     * either isolation level, because all writers of those rows take the same locks first.
     *
     * @param budget the fetch's budget; {@link FetchBudget#NOTHING} in {@link Mode#SWEEP}, which delivers nothing
     */
    private LeaseResult walk(Connection c, boolean gapLocks, Mode mode, GroupScope s, String subscriber,
                             List<String> partitions, FetchBudget budget, long visibilityMicros,
                             DeadLetterPolicy policy) throws SQLException {
        Map<String, Long> epochs = ConsumerStatements.lockHeldLeases(c, new LockHeldLeases(s, partitions, subscriber));
        if (epochs.isEmpty()) {
            return new LeaseResult(List.of(), 0, budget);
        }
        Map<String, Cursor> cursors = DeliveryBatches.cursors(c, s, epochs.keySet());
        List<String> keys = new ArrayList<>(epochs.keySet());
        List<Delivery> out = new ArrayList<>();
        List<UpdateRedelivery> redeliveries = new ArrayList<>();
        List<OpenBatch> batches = new ArrayList<>();
        List<DeadLetters.Dead> deads = new ArrayList<>();
        int next = 0;
        for (int width = 1; wantsMore(mode, budget) && next < keys.size(); width *= 2) {
            List<Cursor> round = new ArrayList<>();
            for (; next < keys.size() && round.size() < width; next++) {
                Cursor cur = cursors.get(keys.get(next));
                if (cur == null) {
                    continue; // offsets row is created with the lease; absent means not ready yet
                }
                if (DeliveryBatches.holdsPartition(cur, epochs.get(cur.key()))) {
                    continue; // the current lease's batch is still out: nothing may go now
                }
                // An open batch here expired, or was handed out under a lost lease: each message
                // failed an attempt, which the walk counts on the rows.
                round.add(DeliveryBatches.materialize(c, s, cur));
            }
            int limit = budget.messagesLeft() + SCAN_SLACK;
            Map<String, List<Scanned>> requeued = ConsumerStatements.scanRequeued(c, round.stream()
                    .filter(Cursor::requeued).map(cur -> new ScanRequeued(s, cur.key(), cur.committed(), limit)).toList());
            Map<String, List<Scanned>> above = ConsumerStatements.scanPartitions(c, round.stream()
                    .map(cur -> new ScanPartition(s, cur.key(), cur.committed(), limit)).toList());
            for (Cursor cur : round) {
                if (budget.spent() && mode == Mode.FETCH) {
                    break;
                }
                long epoch = epochs.get(cur.key());
                PartitionWalk walk = new PartitionWalk(epoch, budget, policy.maxDeliveries());
                Map<Long, Scanned> seen = new HashMap<>();
                if (offer(walk, requeued.getOrDefault(cur.key(), List.of()), seen)) {
                    offer(walk, above.getOrDefault(cur.key(), List.of()), seen);
                }
                if (walk.busy()) {
                    continue; // an earlier delivery row of the current lease is still out
                }
                budget = walk.budget(); // what this partition handed out
                long seq = cur.seq() + 1;
                for (PartitionWalk.Step step : walk.steps()) {
                    Scanned m = seen.get(step.offset());
                    if (step instanceof PartitionWalk.Deliver d) {
                        if (!d.first()) {
                            redeliveries.add(new UpdateRedelivery(d.attempt(), seq, epoch, visibilityMicros, s,
                                    cur.key(), d.offset(), d.fromState(), d.fromDelivery()));
                        }
                        out.add(new Delivery(cur.key(), d.offset(), m.id(), m.payloadJson(), m.metadataJson(),
                                m.createdAt(), d.attempt(), seq, epoch));
                    } else if (step instanceof PartitionWalk.DeadLetter dl) {
                        deads.add(new DeadLetters.Dead(cur.key(), dl.offset(), m.id(), m.payloadJson(),
                                m.metadataJson(), dl.fromState(), dl.fromDelivery(), dl.attempts(), dl.reason()));
                    }
                }
                if (walk.delivered() > 0) {
                    long deliveredOffset = walk.lastFirstDelivery(cur.committed());
                    BatchState.Change.OPEN_BATCH.require(cur.batch(), BatchState.of(cur.committed(), deliveredOffset));
                    batches.add(new OpenBatch(deliveredOffset, epoch, seq, visibilityMicros,
                            s, cur.key(), cur.seq()));
                }
            }
        }
        ConsumerStatements.redeliver(c, redeliveries);
        DeliveryBatches.open(c, batches);
        Set<String> deadKeys = new TreeSet<>();
        for (DeadLetters.Dead d : deads) {
            DeadLetters.write(c, s, policy, d, gapLocks);
            deadKeys.add(d.partitionKey());
        }
        CommittedOffsets.advance(c, s, deadKeys, cursors, Map.of(), Set.of());
        return new LeaseResult(out, deads.size(), budget);
    }

    /** Whether the walk goes on to more partitions: a sweep walks them all, a fetch until its budget is spent. */
    private static boolean wantsMore(Mode mode, FetchBudget budget) {
        return mode == Mode.SWEEP || !budget.spent();
    }

    /** Offers scanned rows to the walk in order; false when the partition gives nothing more. */
    private static boolean offer(PartitionWalk walk, List<Scanned> rows, Map<Long, Scanned> seen) {
        for (Scanned m : rows) {
            seen.put(m.offset(), m);
            if (!walk.accept(m.row(), FetchBudget.bytesOf(m.payloadJson()))) {
                return false;
            }
        }
        return true;
    }
}
