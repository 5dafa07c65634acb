package dev.tenantmq.store;

import dev.tenantmq.model.AckPlan;
import dev.tenantmq.model.BatchState;
import dev.tenantmq.model.GroupScope;
import dev.tenantmq.store.ConsumerSql.CloseBatch;
import dev.tenantmq.store.ConsumerSql.Cursor;
import dev.tenantmq.store.ConsumerSql.HandBackLater;
import dev.tenantmq.store.ConsumerSql.InsertBatchDelivery;
import dev.tenantmq.store.ConsumerSql.OpenBatch;
import dev.tenantmq.store.ConsumerSql.SelectBatchMessages;
import dev.tenantmq.store.ConsumerSql.SelectBatchRows;
import dev.tenantmq.store.ConsumerSql.SelectCursors;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The one home of the two places an in-flight message can be (migration V3). A fetch records the
 * messages it hands out for the first time on the partition's {@code queue_offsets} row, as the
 * batch {@code (committed_offset, delivered_offset]}, and writes no row per message; every other
 * in-flight message has a row in {@code queue_delivery_state}. An ack of a prefix of the batch
 * moves {@code committed_offset} only ({@link CommittedOffsets}). Anything else that touches a
 * message of an open batch (a nack, an extend, an ack out of order, a lease hand-over, a fetch
 * after the batch expired or its lease was lost) first materializes the batch: one INFLIGHT row
 * per message still in it, then the batch is closed, and the per-message rules apply to the rows.
 *
 * <p>Every method runs in the caller's transaction, which holds the lease row locks of the
 * partitions it names (the locking rule of {@link ConsumerStore}).
 */
final class DeliveryBatches {
    private DeliveryBatches() {}

    /** The group's position (committed offset and open batch) in each of {@code keys} that has an offsets row. */
    static Map<String, Cursor> cursors(Connection c, GroupScope s, Set<String> keys) throws SQLException {
        return ConsumerStatements.cursors(c, new SelectCursors(s, new ArrayList<>(keys)));
    }

    /**
     * Whether the partition's open batch still holds it for the lease with {@code epoch}: handed
     * out under that lease and within its visibility timeout, so nothing else may go out now.
     */
    static boolean holdsPartition(Cursor cur, long epoch) {
        return cur.batchOpen() && cur.batchEpoch() == epoch && cur.batchInvisible();
    }

    /**
     * Records a fetch's hand-outs: each partition's new batch, with the fetch's visibility
     * timeout, in one statement (see {@link ConsumerSql#OPEN_BATCHES}).
     */
    static void open(Connection c, GroupScope s, long visibilityMicros, List<OpenBatch> batches) throws SQLException {
        ConsumerStatements.openBatches(c, s, visibilityMicros, batches);
    }

    /**
     * {@link #open}, and the moves of committed offsets an ack of the same transaction left
     * unwritten ({@link CommittedOffsets#advanceLeavingMoves}), in one statement when there are
     * both (see {@link ConsumerSql#ADVANCE_AND_OPEN}).
     */
    static void openAndAdvance(Connection c, GroupScope s, long visibilityMicros, List<OpenBatch> batches,
                               List<ConsumerSql.Advance> moves) throws SQLException {
        ConsumerStatements.advanceAndOpen(c, s, moves, visibilityMicros, batches);
    }

    /** The open batch of each of {@code cursors} that has one, as the ack plan sees it. */
    static Map<String, AckPlan.Batch> openBatches(Map<String, Cursor> cursors) {
        Map<String, AckPlan.Batch> out = new HashMap<>();
        cursors.forEach((key, cur) -> {
            if (cur.batchOpen()) {
                out.put(key, new AckPlan.Batch(cur.committed(), cur.delivered(), cur.batchEpoch(), cur.seq()));
            }
        });
        return out;
    }

    /**
     * Offsets of the delivery rows inside each partition's open batch: a message handed out again
     * in a batch (after a hand-back) has a row there, and settles through it. Reads only when one
     * of {@code keys} has an open batch with such a row (the cursor tells).
     */
    static Map<String, Set<Long>> rowsInBatches(Connection c, GroupScope s, Set<String> keys, Map<String, Cursor> cursors)
            throws SQLException {
        List<String> open = keys.stream().filter(k -> cursors.containsKey(k) && cursors.get(k).batchOpen()
                && cursors.get(k).rowsInBatch()).toList();
        if (open.isEmpty()) {
            return new HashMap<>();
        }
        return ConsumerStatements.batchRows(c, new SelectBatchRows(s, open));
    }

    /**
     * Materializes the open batch of one partition: every message of it without a row gets an
     * INFLIGHT row as the batch handed it out (attempt 1, the batch's delivery number, lease epoch
     * and visibility deadline), and the batch is closed. From then on the per-message rules apply.
     *
     * @return the cursor with its batch closed ({@code cur} itself when no batch was open)
     */
    static Cursor materialize(Connection c, GroupScope s, Cursor cur) throws SQLException {
        if (!cur.batchOpen()) {
            return cur;
        }
        List<InsertBatchDelivery> rows = new ArrayList<>();
        for (long offset : ConsumerStatements.batchMessages(c,
                new SelectBatchMessages(s, cur.key(), cur.committed(), cur.delivered()))) {
            rows.add(new InsertBatchDelivery(s, cur.key(), offset, cur.seq(), cur.batchEpoch(),
                    cur.batchVisibleAt())); // as the batch handed it out
        }
        Cursor closed = cur.closed();
        BatchState.Change.MATERIALIZE.require(cur.batch(), closed.batch());
        ConsumerStatements.insertBatchDeliveries(c, rows);
        ConsumerStatements.closeBatch(c, new CloseBatch(s, cur.key(), cur.seq()));
        return closed;
    }

    /**
     * Hands the in-flight messages of the lease with {@code epoch} after {@code afterOffset} back
     * without failing (SPEC: they keep their {@code deliveryAttempt}); see
     * {@link ConsumerSql#HAND_BACK_LATER}. The partition's open batch must be materialized first.
     *
     * @return how many went back
     */
    static int handBackAfter(Connection c, HandBackLater handBack) throws SQLException {
        return ConsumerStatements.handBackLater(c, handBack);
    }

    /**
     * A graceful hand-over of several leases (rebalance, leaving): materializes the open batch of
     * each of their partitions, so that its messages can go back one by one, and hands every
     * in-flight message of each lease back, under its own epoch. A constant number of statements
     * besides one materialization per open batch.
     *
     * @param epochs each released lease's epoch, by partition key
     */
    static void handBackLeases(Connection c, GroupScope s, Map<String, Long> epochs) throws SQLException {
        if (epochs.isEmpty()) {
            return;
        }
        for (Cursor cur : cursors(c, s, epochs.keySet()).values()) {
            materialize(c, s, cur);
        }
        ConsumerStatements.handBackLeases(c, new ConsumerSql.HandBackLeases(s, epochs));
    }
}
