package dev.tenantmq.store;

import dev.tenantmq.model.AckTarget;
import dev.tenantmq.model.DeadLetterPolicy;
import dev.tenantmq.model.FetchBudget;
import dev.tenantmq.model.GroupScope;
import dev.tenantmq.model.SettleStatus;
import dev.tenantmq.store.ConsumerSql.Cursor;
import dev.tenantmq.store.ConsumerSql.LockLeasesNotingHolder;
import dev.tenantmq.store.ConsumerSql.NotedLease;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * A fetch that carries acks (docs/api.md, "Fetch and ack in one call"): the ack of the receipts
 * and the lease-fetch in one transaction, under one set of lease row locks and one read of the
 * cursors, which also scans the partitions to walk ({@link FetchTransaction.FirstScan}). The ack
 * runs first ({@link SettleTransaction}), so the partitions whose batch it finishes can deliver
 * again in the same walk ({@link FetchTransaction}); the locking rule is {@link ConsumerStore}'s,
 * with the lease rows of both locked together in key order.
 */
@ApplicationScoped
public class AckFetchTransaction {
    /**
     * The ack's statuses, one per target in the given order, the acked partitions where the group
     * may have more to deliver ({@link SettleTransaction.AckResult}), and what the fetch leased.
     */
    public record Result(List<SettleStatus> statuses, Set<String> mayHaveMore, FetchTransaction.LeaseResult lease) {}

    private final Db db;
    private final SettleTransaction settle;
    private final FetchTransaction fetch;

    AckFetchTransaction(Db db, SettleTransaction settle, FetchTransaction fetch) {
        this.db = db;
        this.settle = settle;
        this.fetch = fetch;
    }

    /**
     * Acknowledges {@code targets} as {@link SettleTransaction#ack} does, then leases messages as
     * {@link FetchTransaction#lease} does from {@code partitions} and from the partitions the
     * targets name that this subscriber leases, walked in the order of {@code partitions} and then
     * the acked partitions in key order. One transaction: on the happy path (whole batches acked,
     * partitions that give the budget) it locks, reads the cursors and scans in one statement, and
     * moves the committed offsets and opens the new batches in one statement
     * ({@link ConsumerSql#ADVANCE_AND_OPEN}) before it commits: the statements of a fetch.
     *
     * @param targets at least one
     * @param partitions candidates the caller found ready and claimed, in the order to walk them
     * @param acked the partitions of {@code targets} the caller claimed for this walk; an acked
     *     partition another fetch of this process has claimed is acked but not walked
     */
    public Result ackAndLease(GroupScope s, String subscriber, List<AckTarget> targets, List<String> partitions,
                              Set<String> acked, FetchBudget budget, long visibilityMicros, DeadLetterPolicy policy) {
        return db.inTransaction(Db.Isolation.READ_COMMITTED, c -> {
            Set<String> ackKeys = new TreeSet<>();
            targets.forEach(t -> ackKeys.add(t.partitionKey()));
            Set<String> all = new TreeSet<>(ackKeys);
            all.addAll(partitions);
            Map<String, Long> epochs = new LinkedHashMap<>();
            Map<String, Long> held = new LinkedHashMap<>();
            for (NotedLease l : ConsumerStatements.lockLeasesNotingHolder(c,
                    new LockLeasesNotingHolder(s, new ArrayList<>(all), subscriber))) {
                epochs.put(l.partitionKey(), l.epoch());
                if (l.held() && (partitions.contains(l.partitionKey()) || acked.contains(l.partitionKey()))) {
                    held.put(l.partitionKey(), l.epoch());
                }
            }
            List<String> order = new ArrayList<>(partitions);
            for (String key : ackKeys) {
                if (!order.contains(key)) {
                    order.add(key);
                }
            }
            // The cursors with a first scan of the partitions the walk will offer the budget, in its
            // order: where the ack closes a whole batch, the scan from its end is the walk's. A fetch
            // that continues in its acked partitions alone lets the first fill the budget.
            Map.Entry<Map<String, Cursor>, FetchTransaction.FirstScan> cursorsAndScan = FetchTransaction
                    .cursorsAndFirstScan(c, s, all, order.stream().filter(held::containsKey).toList(), budget,
                            partitions.isEmpty());
            Map<String, Cursor> read = cursorsAndScan.getKey();
            Map<String, Cursor> ackCursors = new HashMap<>();
            ackKeys.forEach(k -> {
                if (read.containsKey(k)) {
                    ackCursors.put(k, read.get(k));
                }
            });
            Map<String, Long> ackEpochs = new HashMap<>();
            ackKeys.forEach(k -> {
                if (epochs.containsKey(k)) {
                    ackEpochs.put(k, epochs.get(k));
                }
            });
            // The ack's moves of committed offsets go with the walk's batches, in its last statement.
            SettleTransaction.AckOutcome ack = settle.ack(c, s, targets, ackEpochs, ackCursors, true);
            Map<String, Cursor> cursors = new HashMap<>(read);
            ackKeys.forEach(cursors::remove);
            cursors.putAll(ack.cursors());
            Set<String> reread = new TreeSet<>(ack.reread());
            reread.retainAll(held.keySet());
            if (!reread.isEmpty()) {
                cursors.putAll(DeliveryBatches.cursors(c, s, reread)); // the ack changed their rows
            }
            FetchTransaction.LeaseResult lease;
            if (held.isEmpty()) {
                CommittedOffsets.write(c, s, ack.unwrittenMoves());
                lease = FetchTransaction.LeaseResult.nothing(budget);
            } else {
                lease = fetch.walk(c, FetchTransaction.Mode.FETCH, s, order, held, cursors, budget, visibilityMicros,
                        policy, ack.unwrittenMoves(), cursorsAndScan.getValue().without(ack.reread()));
            }
            return new Result(ack.statuses(), ack.mayHaveMore(), lease);
        });
    }
}
