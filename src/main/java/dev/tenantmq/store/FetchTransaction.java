package dev.tenantmq.store;

import dev.tenantmq.model.BatchState;
import dev.tenantmq.model.DeadLetterPolicy;
import dev.tenantmq.model.Delivery;
import dev.tenantmq.model.FetchBudget;
import dev.tenantmq.model.GroupScope;
import dev.tenantmq.model.PartitionWalk;
import dev.tenantmq.model.Utf8Json;
import dev.tenantmq.store.ConsumerSql.Cursor;
import dev.tenantmq.store.ConsumerSql.LockHeldLeases;
import dev.tenantmq.store.ConsumerSql.OpenBatch;
import dev.tenantmq.store.ConsumerSql.ScanRequeued;
import dev.tenantmq.store.ConsumerSql.Scanned;
import dev.tenantmq.store.ConsumerSql.SelectExpiredLastAttempts;
import dev.tenantmq.store.ConsumerSql.SelectReadyPartitions;
import dev.tenantmq.store.ConsumerSql.UpdateRedelivery;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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
    /**
     * Extra rows the first partitions of a scan read beyond their share
     * ({@link PartitionWalk#scanLimits}): a deep first partition takes what its shallow followers
     * leave, so that a fetch holds few partitions, and the walk passes acknowledged-but-uncommitted
     * rows and dead letters without handing them out.
     */
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
     * What {@link #lease} did.
     *
     * @param deliveries the messages handed out, grouped by partition, each in offset order
     * @param deadLettered how many messages it dead-lettered instead
     * @param budget what the fetch may still hand out after it
     * @param partitionsWalked how many partitions the walk offered budget to, whatever each gave
     *     (one whose earlier delivery of the current lease is still out gives nothing); those not
     *     walked, after the one that spent the budget or held by an open batch of the current
     *     lease, are not counted ({@code model.PartitionDepth})
     */
    public record LeaseResult(List<Delivery> deliveries, int deadLettered, FetchBudget budget, int partitionsWalked) {
        /** Nothing leased: no partition walked, the budget unchanged. */
        static LeaseResult nothing(FetchBudget budget) {
            return new LeaseResult(List.of(), 0, budget, 0);
        }
    }

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
     * committed offset, as {@link PartitionWalk} decides. The statement that reads the cursors
     * also scans every partition from the end of its batch, each up to its share of
     * {@code maxMessages} ({@link FirstScan}); the partitions where that is not the walk's start
     * are scanned again in one statement, and budget that shallow partitions leave goes to the
     * deeper ones in at most {@value #MAX_MORE_ROUNDS} more statements. One transaction, a
     * constant number of statements, however many partitions.
     *
     * @param budget what the fetch may still hand out, in messages (at least 1) and payload bytes
     *     ({@link FetchBudget}: the first message of a fetch always goes), shared by the partitions
     * @param visibilityMicros visibility timeout in microseconds
     * @return deliveries grouped by partition, each partition in offset order
     */
    public LeaseResult lease(GroupScope s, String subscriber, List<String> partitions, FetchBudget budget,
                             long visibilityMicros, DeadLetterPolicy policy) {
        if (partitions.isEmpty()) {
            return LeaseResult.nothing(budget);
        }
        return db.inTransaction(Db.Isolation.READ_COMMITTED, c -> walk(c, Mode.FETCH, s, subscriber,
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
        return db.inTransaction(Db.Isolation.READ_COMMITTED, c -> walk(c, Mode.SWEEP, s, subscriber,
                partitions, FetchBudget.NOTHING, 0, policy)).deadLettered();
    }

    /**
     * The largest payload, in bytes, a scan of {@code branches} partitions of up to {@code limit}
     * rows each reads with its rows ({@code ConsumerSql.SCAN_COLUMNS}): the bytes the fetch may
     * still hand out shared by the rows, so one scan reads at most that many bytes of payload,
     * however large the messages and however far past the budget the rows reach. A larger
     * payload is read afterwards, only if the walk takes its message ({@link #readPayloadsAboveCap}).
     * Small messages (a 1 KiB payload against the default 8 MiB over 900 rows) all fit: no second
     * read. The sweep, which delivers nothing, reads every payload (it writes dead letters).
     */
    private static long payloadCap(Mode mode, FetchBudget.Meter meter, long rows) {
        if (mode == Mode.SWEEP) {
            return Long.MAX_VALUE;
        }
        return meter.budget().bytesLeft() / Math.max(1L, rows);
    }

    /**
     * Gives each lane its scan's LIMIT, in order ({@link PartitionWalk#scanLimits}), and returns
     * the rows the scan may read in all.
     */
    private static long limit(List<Lane> lanes, int[] limits) {
        long rows = 0;
        for (int i = 0; i < lanes.size(); i++) {
            lanes.get(i).limit = limits[i];
            rows += limits[i];
        }
        return rows;
    }

    /**
     * Reads, in one statement, the payloads the scans left out (above their cap) of the messages
     * the walks hand out or dead-letter; nothing when there is none.
     */
    private static void readPayloadsAboveCap(Connection c, GroupScope s, List<Lane> lanes) throws SQLException {
        List<ConsumerSql.MessageAt> missing = new ArrayList<>();
        for (Lane lane : lanes) {
            if (lane.walk == null || lane.walk.busy()) {
                continue;
            }
            for (PartitionWalk.Step step : lane.walk.steps()) {
                Scanned m = lane.seen.get(step.offset());
                if (m.payload() == null
                        && (step instanceof PartitionWalk.Deliver || step instanceof PartitionWalk.DeadLetter)) {
                    missing.add(new ConsumerSql.MessageAt(lane.cur.key(), m.offset()));
                }
            }
        }
        if (missing.isEmpty()) {
            return;
        }
        Map<ConsumerSql.MessageAt, Utf8Json> payloads = ConsumerStatements.payloads(c,
                new ConsumerSql.SelectPayloads(s, missing));
        for (Lane lane : lanes) {
            lane.seen.replaceAll((offset, m) -> {
                Utf8Json p = m.payload() == null ? payloads.get(new ConsumerSql.MessageAt(lane.cur.key(), offset)) : null;
                return p == null ? m : m.withPayload(p);
            });
        }
        for (ConsumerSql.MessageAt m : missing) {
            if (!payloads.containsKey(m)) {
                // The lease row locks are held and retention waits for them: a bug if it happens.
                throw new SQLException("message " + m + " scanned in this transaction has no payload row");
            }
        }
    }

    /**
     * The rows of a fetch's first scan read with the cursors, in the statement that reads them
     * ({@link ConsumerSql.SelectCursorsAndFirstScan}; docs/architecture.md, "The cursors and the
     * first scan in one read"), so that the usual fetch needs no scan statement of its own. Each
     * partition was scanned without its delivery rows from {@code from}, the end of its batch as
     * the statement read it, up to {@code limits}. The walk takes them for a partition where they
     * are what its own scan would read ({@link #serves}); elsewhere it scans as it did.
     *
     * @param from per partition scanned, the offset the rows lie above
     * @param limits per partition scanned, the LIMIT of its branch
     * @param rows per partition scanned, the rows read, in offset order (none while the topic is
     *     being deleted)
     */
    record FirstScan(Map<String, Long> from, Map<String, Integer> limits, Map<String, List<Scanned>> rows) {
        /** No first scan: the walk scans every partition itself. */
        static final FirstScan NONE = new FirstScan(Map.of(), Map.of(), Map.of());

        /**
         * Whether the rows read for {@code cur}'s partition are what the walk's scan would read
         * now, with {@code cur} the cursor after an ack earlier in the transaction: the batch is
         * closed at the offset the rows lie above (a whole batch acked, or none open), nothing
         * requeued waits below it, and no delivery row lies above it, so no row needs the join
         * of {@link ConsumerSql#SCAN_PARTITION}.
         */
        boolean serves(Cursor cur) {
            Long start = from.get(cur.key());
            return start != null && !cur.batchOpen() && !cur.requeued() && !cur.rowsAbove()
                    && start == cur.committed();
        }

        /** This scan without the partitions of {@code keys}, whose rows the transaction changed since. */
        FirstScan without(Set<String> keys) {
            Map<String, Long> keptFrom = new HashMap<>(from);
            keptFrom.keySet().removeAll(keys);
            return new FirstScan(keptFrom, limits, rows);
        }
    }

    /**
     * The cursors of {@code keys} and a first scan of {@code scan}, in one statement, under the
     * lease row locks the caller holds. {@code scan} (a subset of {@code keys}, in the order the
     * walk will offer them the budget) gets the LIMITs the walk gives them when it walks them all
     * ({@link PartitionWalk#scanLimits}; {@link PartitionWalk#continuationLimits} when
     * {@code continuing}, a fetch that walks only the partitions it acks), and the payload cap of
     * that many rows: a partition the walk then skips (its batch still holds it, no offsets row)
     * leaves the others smaller LIMITs than the walk's own scan would give, and the walk's next
     * rounds take what they leave. Without budget nothing is scanned and the cursors are read
     * alone. One partition to read and scan is read with {@link ConsumerSql.SelectCursorAndScanOne}
     * when that finds a row.
     *
     * @return the cursors by partition, and the first scan
     */
    static Map.Entry<Map<String, Cursor>, FirstScan> cursorsAndFirstScan(Connection c, GroupScope s,
                                                                         java.util.Collection<String> keys,
                                                                         List<String> scan, FetchBudget budget,
                                                                         boolean continuing)
            throws SQLException {
        if (scan.isEmpty() || budget.messagesLeft() <= 0) {
            return Map.entry(DeliveryBatches.cursors(c, s, new TreeSet<>(keys)), FirstScan.NONE);
        }
        int[] limits = continuing
                ? PartitionWalk.continuationLimits(budget.messagesLeft(), scan.size(), SCAN_SLACK)
                : PartitionWalk.scanLimits(budget.messagesLeft(), scan.size(), SCAN_SLACK);
        Map<String, Integer> byKey = new java.util.LinkedHashMap<>();
        long rows = 0;
        for (int i = 0; i < scan.size(); i++) {
            byKey.put(scan.get(i), limits[i]);
            rows += limits[i];
        }
        long cap = payloadCap(Mode.FETCH, new FetchBudget.Meter(budget), rows);
        // One partition: a join, which costs the server about two thirds of the union
        // (docs/architecture.md, "The cursors and the first scan in one read"); the union when it
        // reads no row.
        Optional<ConsumerStatements.CursorsAndFirstScan> one = keys.size() == 1 && scan.size() == 1
                ? ConsumerStatements.cursorAndScanOne(c, new ConsumerSql.SelectCursorAndScanOne(s, scan.get(0), cap, limits[0]))
                : Optional.empty();
        ConsumerStatements.CursorsAndFirstScan read = one.isPresent() ? one.get() : ConsumerStatements.cursorsAndFirstScan(c,
                new ConsumerSql.SelectCursorsAndFirstScan(s, new ArrayList<>(new TreeSet<>(keys)), cap, byKey));
        Map<String, Long> from = new HashMap<>();
        for (String key : byKey.keySet()) {
            Cursor cur = read.cursors().get(key);
            if (cur != null) {
                from.put(key, Math.max(cur.committed(), cur.delivered())); // the subquery's bound
            }
        }
        return Map.entry(read.cursors(), new FirstScan(from, byKey, read.scanned()));
    }

    /** Most scan statements of one walk after the first: each takes the partitions that still had more to give. */
    private static final int MAX_MORE_ROUNDS = 3;

    /**
     * One partition in the walk: its walk, the rows scanned and not yet offered, and whether its
     * scan stopped at its LIMIT (more rows may follow the last one).
     */
    private static final class Lane {
        final Cursor cur;
        final long epoch;
        final Map<Long, Scanned> seen = new HashMap<>();
        final ArrayDeque<Scanned> queued = new ArrayDeque<>();
        PartitionWalk walk;
        /** The LIMIT of this lane's latest scan. */
        int limit;
        long lastScanned;
        boolean cut;
        /** Whether the partition can give nothing more in this fetch. */
        boolean done;

        Lane(Cursor cur, long epoch) {
            this.cur = cur;
            this.epoch = epoch;
            this.lastScanned = cur.committed();
        }

        /**
         * Queues scanned rows above the committed offset; {@code limit} is the scan's LIMIT. A scan
         * that reached its LIMIT may have more after it, unless its last row is the partition's
         * newest ({@link Cursor#head}): then a next round would scan it for nothing.
         */
        void scanned(List<Scanned> rows, int limit) {
            queued.addAll(rows);
            if (!rows.isEmpty()) {
                lastScanned = rows.get(rows.size() - 1).offset();
            }
            cut = rows.size() >= limit && (cur.head() <= 0 || lastScanned < cur.head());
        }

        /** Offers the queued rows until the walk stops; then decides whether the lane is done. */
        void offer() {
            while (!queued.isEmpty()) {
                Scanned m = queued.peekFirst();
                seen.put(m.offset(), m);
                if (!walk.accept(m.row(), m.payloadBytes())) {
                    done = !walk.outOfBudget(); // held: nothing more; out of budget: the row waits
                    return;
                }
                queued.pollFirst();
            }
            done = !cut; // every row offered: more only where the scan stopped at its LIMIT
        }

        /** Whether another round may take more from this partition, given more budget. */
        boolean wantsMore() {
            return walk != null && !done;
        }
    }

    /**
     * The transaction's body. Every read after the lease row locks sees the same rows under
     * READ COMMITTED, because all writers of those rows take the same locks first.
     *
     * <p>A fetch reads every given partition in its first scan, each partition up to its share
     * of the budget ({@link PartitionWalk#share}), and the first of them, those that can fill the
     * budget, {@value #SCAN_SLACK} rows more ({@link PartitionWalk#scanLimits}): the rows the cursor
     * read took for the partitions {@code firstScan} serves, and one statement for the others; when
     * shallow partitions leave budget over, a next round (at most {@value #MAX_MORE_ROUNDS})
     * shares it among the partitions that had more, again in one statement. So a fetch over many
     * partitions takes a constant number of statements, and a deep partition among them reads
     * about its share, not the whole budget.
     *
     * <p>The payload bytes of the fetch ({@link FetchBudget}) are one budget for all its
     * partitions, spent in key order ({@link FetchBudget.Meter}): once a message does not fit, its
     * partition stops for this fetch, and so do the partitions not yet walked.
     *
     * @param fetchBudget the fetch's budget; {@link FetchBudget#NOTHING} in {@link Mode#SWEEP}, which delivers nothing
     */
    private LeaseResult walk(Connection c, Mode mode, GroupScope s, String subscriber,
                             List<String> partitions, FetchBudget fetchBudget, long visibilityMicros,
                             DeadLetterPolicy policy) throws SQLException {
        Map<String, Long> epochs = ConsumerStatements.lockHeldLeases(c, new LockHeldLeases(s, partitions, subscriber));
        if (epochs.isEmpty()) {
            return LeaseResult.nothing(fetchBudget);
        }
        List<String> held = new ArrayList<>(epochs.keySet());
        Map.Entry<Map<String, Cursor>, FirstScan> read = cursorsAndFirstScan(c, s, held,
                mode == Mode.FETCH ? held : List.of(), fetchBudget, false);
        return walk(c, mode, s, held, epochs, read.getKey(), fetchBudget, visibilityMicros, policy, List.of(),
                read.getValue());
    }

    /**
     * The walk after its locks and reads: {@code epochs} are the lease rows this subscriber holds,
     * locked by the caller's transaction, and {@code cursors} the group's position in them, read
     * under those locks. The partitions are walked in the order of {@code order} (those without a
     * held lease skipped), so the budget goes to them in that order.
     *
     * <p>{@code ackMoves} are moves of committed offsets that an ack earlier in the transaction
     * left unwritten ({@link SettleTransaction#ack(Connection, GroupScope, List, Map, Map, boolean)});
     * {@code cursors} already show them. The walk writes them with its batches in its last
     * statement ({@link DeliveryBatches#openAndAdvance}), or first, before it closes a batch or
     * dead-letters, which read or write the offsets rows.
     *
     * <p>{@code firstScan} holds rows read with {@code cursors} ({@link #cursorsAndFirstScan}):
     * the partitions it {@link FirstScan#serves serves} take them in place of their first scan.
     */
    LeaseResult walk(Connection c, Mode mode, GroupScope s, List<String> order, Map<String, Long> epochs,
                     Map<String, Cursor> cursors, FetchBudget fetchBudget, long visibilityMicros,
                     DeadLetterPolicy policy, List<ConsumerSql.Advance> ackMoves, FirstScan firstScan)
            throws SQLException {
        List<ConsumerSql.Advance> unwritten = new ArrayList<>(ackMoves);
        // Per attempt of the transaction: a retried attempt starts again from the budget it was given.
        FetchBudget.Meter meter = new FetchBudget.Meter(fetchBudget);
        List<Lane> lanes = new ArrayList<>();
        for (String key : order) {
            if (!epochs.containsKey(key)) {
                continue; // not held by this subscriber
            }
            Cursor cur = cursors.get(key);
            if (cur == null) {
                continue; // offsets row is created with the lease; absent means not ready yet
            }
            if (DeliveryBatches.holdsPartition(cur, epochs.get(key))) {
                continue; // the current lease's batch is still out: nothing may go now
            }
            // An open batch here expired, or was handed out under a lost lease: each message
            // failed an attempt, which the walk counts on the rows.
            if (cur.batchOpen() && !unwritten.isEmpty()) {
                CommittedOffsets.write(c, s, unwritten); // closing the batch reads the committed offset
                unwritten.clear();
            }
            lanes.add(new Lane(DeliveryBatches.materialize(c, s, cur), epochs.get(key)));
        }
        int budget = mode == Mode.SWEEP ? 0 : fetchBudget.messagesLeft();
        int requeuedLimit = budget + SCAN_SLACK;
        List<Lane> requeuedLanes = lanes.stream().filter(l -> l.cur.requeued()).toList();
        long requeuedCap = payloadCap(mode, meter, (long) requeuedLanes.size() * requeuedLimit);
        Map<String, List<Scanned>> requeued = ConsumerStatements.scanRequeued(c, s, requeuedLanes.stream()
                .map(l -> new ScanRequeued(requeuedCap, s, l.cur.key(), l.cur.committed(), requeuedLimit)).toList());
        List<Lane> unscanned = lanes.stream().filter(l -> !firstScan.serves(l.cur)).toList();
        long cap = payloadCap(mode, meter,
                limit(unscanned, PartitionWalk.scanLimits(budget, unscanned.size(), SCAN_SLACK)));
        Map<String, List<Scanned>> above = new HashMap<>(ConsumerStatements.scanPartitions(c, s, unscanned.stream()
                .map(l -> ConsumerSql.scanAbove(cap, s, l.cur, l.cur.committed(), l.limit)).toList()));
        for (Lane lane : lanes) {
            if (firstScan.serves(lane.cur)) {
                lane.limit = firstScan.limits().get(lane.cur.key());
                above.put(lane.cur.key(), firstScan.rows().getOrDefault(lane.cur.key(), List.of()));
            }
        }
        int delivered = 0;
        for (Lane lane : lanes) {
            int left = budget - delivered;
            if ((left <= 0 || meter.budget().spent()) && mode == Mode.FETCH) {
                break; // the budget is spent: the partitions after this one are not walked
            }
            // Up to the rows scanned, not just the share: the first deep partitions fill the fetch,
            // so it holds few partitions and concurrent fetches of the group find the others ready.
            lane.walk = new PartitionWalk(lane.epoch, Math.min(lane.limit, left), policy.maxDeliveries(), meter);
            List<Scanned> first = requeued.getOrDefault(lane.cur.key(), List.of());
            lane.queued.addAll(first);
            if (first.size() < requeuedLimit) {
                lane.scanned(above.getOrDefault(lane.cur.key(), List.of()), lane.limit);
            } // else more requeued messages may follow: nothing above them goes in this fetch
            lane.offer();
            delivered += lane.walk.delivered();
        }
        for (int round = 0; round < MAX_MORE_ROUNDS && delivered < budget && !meter.budget().spent(); round++) {
            List<Lane> more = lanes.stream().filter(Lane::wantsMore).toList();
            if (more.isEmpty()) {
                break;
            }
            int moreShare = PartitionWalk.share(budget - delivered, more.size());
            List<Lane> rescanned = more.stream().filter(l -> l.queued.isEmpty()).toList();
            long moreCap = payloadCap(mode, meter,
                    limit(rescanned, PartitionWalk.scanLimits(budget - delivered, rescanned.size(), SCAN_SLACK)));
            Map<String, List<Scanned>> next = ConsumerStatements.scanPartitions(c, s, rescanned.stream()
                    .map(l -> ConsumerSql.scanAbove(moreCap, s, l.cur, l.lastScanned, l.limit)).toList());
            for (Lane lane : more) {
                int left = budget - delivered;
                if (left <= 0 || meter.budget().spent()) {
                    break;
                }
                if (lane.queued.isEmpty()) {
                    lane.scanned(next.getOrDefault(lane.cur.key(), List.of()), lane.limit);
                }
                int before = lane.walk.delivered();
                lane.walk.addBudget(Math.min(moreShare, left));
                lane.offer();
                delivered += lane.walk.delivered() - before;
            }
        }
        readPayloadsAboveCap(c, s, lanes);
        List<Delivery> out = new ArrayList<>();
        List<UpdateRedelivery> redeliveries = new ArrayList<>();
        List<OpenBatch> batches = new ArrayList<>();
        List<DeadLetters.Dead> deads = new ArrayList<>();
        for (Lane lane : lanes) {
            if (lane.walk == null || lane.walk.busy()) {
                continue; // not walked, or an earlier delivery row of the current lease is still out
            }
            Cursor cur = lane.cur;
            long epoch = lane.epoch;
            long seq = cur.seq() + 1;
            for (PartitionWalk.Step step : lane.walk.steps()) {
                Scanned m = lane.seen.get(step.offset());
                if (step instanceof PartitionWalk.Deliver d) {
                    if (!d.first()) {
                        redeliveries.add(new UpdateRedelivery(d.attempt(), seq, epoch, visibilityMicros, s,
                                cur.key(), d.offset(), d.fromState(), d.fromDelivery()));
                    }
                    out.add(new Delivery(cur.key(), d.offset(), m.id(), m.payload(), m.metadataJson(),
                            m.createdAt(), d.attempt(), seq, epoch, m.trace()));
                } else if (step instanceof PartitionWalk.DeadLetter dl) {
                    String payload = m.payload() == null ? null : m.payload().text();
                    deads.add(new DeadLetters.Dead(cur.key(), dl.offset(), m.id(), payload,
                            m.metadataJson(), dl.fromState(), dl.fromDelivery(), dl.attempts(), dl.reason(), m.trace()));
                }
            }
            if (lane.walk.delivered() > 0) {
                long deliveredOffset = lane.walk.lastFirstDelivery(cur.committed());
                BatchState.Change.OPEN_BATCH.require(cur.batch(), BatchState.of(cur.committed(), deliveredOffset));
                batches.add(new OpenBatch(cur.key(), deliveredOffset, lane.walk.firstDeliveries(), epoch, seq, cur.seq()));
            }
        }
        ConsumerStatements.redeliver(c, redeliveries);
        if (!deads.isEmpty() && !unwritten.isEmpty()) {
            CommittedOffsets.write(c, s, unwritten); // the dead letters' advance reads the committed offsets
            unwritten.clear();
        }
        DeliveryBatches.openAndAdvance(c, s, visibilityMicros, batches, unwritten);
        Set<String> deadKeys = new TreeSet<>();
        for (DeadLetters.Dead d : deads) {
            DeadLetters.write(c, s, policy, d);
            deadKeys.add(d.partitionKey());
        }
        CommittedOffsets.advance(c, s, deadKeys, cursors, Map.of(), Set.of());
        int walked = (int) lanes.stream().filter(l -> l.walk != null).count();
        return new LeaseResult(out, deads.size(), meter.budget(), walked);
    }
}
