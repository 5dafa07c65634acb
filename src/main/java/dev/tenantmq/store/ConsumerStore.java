package dev.tenantmq.store;

import dev.tenantmq.model.AckTarget;
import dev.tenantmq.model.DeadLetterPolicy;
import dev.tenantmq.model.FetchBudget;
import dev.tenantmq.model.GroupScope;
import dev.tenantmq.model.SettleStatus;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.List;
import java.util.function.IntToLongFunction;

/**
 * The store's consume path, as the domain sees it: lease-fetch, the dead-letter sweep, ack, nack
 * and extend over {@code queue_partition_leases}, {@code queue_offsets},
 * {@code queue_delivery_state} and {@code queue_messages}. A facade: each call is one of three
 * transactions, each in its own class.
 *
 * <ul>
 *   <li>{@link FetchTransaction}: the fetch and the sweep (the rules: {@code model.PartitionWalk});</li>
 *   <li>{@link SettleTransaction}: ack, nack, extend and the classification of receipts that
 *       changed nothing (the rules: {@code model.AckPlan}, {@code model.Settlement});</li>
 *   <li>{@link AckFetchTransaction}: a fetch that carries acks, the two above in one transaction.</li>
 * </ul>
 * They write through two homes of state, {@link DeliveryBatches} (an in-flight message is in its
 * partition's open batch or in a delivery row) and {@link CommittedOffsets} (the committed offset
 * and the pruning of rows below it, by {@code model.CommitWalk}), and run every statement of
 * {@link ConsumerSql} through {@link ConsumerStatements}, which checks update counts.
 *
 * <p>Locking rule: every transaction that writes a partition's delivery state or its
 * {@code queue_offsets} row first locks that partition's lease row ({@code FOR UPDATE}). Fetch
 * and ack of one partition therefore run one at a time, and the rows they read after the lock
 * (READ COMMITTED: each statement sees the latest commits) cannot change under them. Lease rows
 * are locked in primary-key order, so two such transactions cannot deadlock on them.
 */
@ApplicationScoped
public class ConsumerStore {
    private final FetchTransaction fetch;
    private final SettleTransaction settle;
    private final AckFetchTransaction ackFetch;

    ConsumerStore(FetchTransaction fetch, SettleTransaction settle, AckFetchTransaction ackFetch) {
        this.fetch = fetch;
        this.settle = settle;
        this.ackFetch = ackFetch;
    }

    /** See {@link FetchTransaction#readyPartitions}. */
    public List<String> readyPartitions(GroupScope s, String subscriber, String after, String upTo, int maxPartitions) {
        return fetch.readyPartitions(s, subscriber, after, upTo, maxPartitions);
    }

    /** See {@link FetchTransaction#lease}. */
    public FetchTransaction.LeaseResult lease(GroupScope s, String subscriber, List<String> partitions,
                                              FetchBudget budget, long visibilityMicros, DeadLetterPolicy policy) {
        return fetch.lease(s, subscriber, partitions, budget, visibilityMicros, policy);
    }

    /** See {@link AckFetchTransaction#ackAndLease}. */
    public AckFetchTransaction.Result ackAndLease(GroupScope s, String subscriber, List<AckTarget> targets,
                                                  List<String> partitions, java.util.Set<String> acked,
                                                  FetchBudget budget, long visibilityMicros, DeadLetterPolicy policy) {
        return ackFetch.ackAndLease(s, subscriber, targets, partitions, acked, budget, visibilityMicros, policy);
    }

    /** See {@link FetchTransaction#deadLetterExpired}. */
    public int deadLetterExpired(GroupScope s, String subscriber, DeadLetterPolicy policy) {
        return fetch.deadLetterExpired(s, subscriber, policy);
    }

    /** See {@link SettleTransaction#ack}. */
    public SettleTransaction.AckResult ack(GroupScope s, List<AckTarget> targets) {
        return settle.ack(s, targets);
    }

    /** See {@link SettleTransaction#extend}. */
    public List<SettleStatus> extend(GroupScope s, List<AckTarget> targets, long visibilityMicros) {
        return settle.extend(s, targets, visibilityMicros);
    }

    /** See {@link SettleTransaction#nack}. */
    public SettleTransaction.NackResult nack(GroupScope s, List<AckTarget> targets, DeadLetterPolicy policy,
                                             IntToLongFunction delayMicros, String reason) {
        return settle.nack(s, targets, policy, delayMicros, reason);
    }
}
