package dev.tenantmq.store;

import dev.tenantmq.model.BatchState;
import dev.tenantmq.model.CommitWalk;
import dev.tenantmq.model.GroupScope;
import dev.tenantmq.store.ConsumerSql.Advance;
import dev.tenantmq.store.ConsumerSql.CountFinished;
import dev.tenantmq.store.ConsumerSql.Cursor;
import dev.tenantmq.store.ConsumerSql.PruneDeliveries;
import dev.tenantmq.store.ConsumerSql.SelectPrefixStates;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The group's committed offset per partition (SPEC section 4: "The committed offset of a
 * partition advances over the contiguous acknowledged prefix"): counts the finished rows above
 * it where any may be, walks the prefix ({@link CommitWalk}), moves it, and prunes the acknowledged delivery rows
 * it passed. Runs in the caller's transaction, which holds the partitions' lease row locks.
 */
final class CommittedOffsets {
    private CommittedOffsets() {}

    /** What {@link #advance} writes, and the walk's outcome per partition walked. */
    record Plan(Map<String, CommitWalk.Advance> advances, List<Advance> moves, List<PruneDeliveries> prunes) {}

    /**
     * Moves each partition's committed offset to the end of its contiguous run of finished
     * messages ({@link CommitWalk}), counting the given batch acks as finished, and prunes the
     * acknowledged delivery rows at or below it (including those of requeued messages
     * acknowledged below it, in partitions where a row was acked).
     *
     * @param keys the partitions to walk (those without a cursor are skipped)
     * @param batchAcks per partition, the batch deliveries acknowledged now (no rows of their own)
     * @param rowAcked partitions where a delivery row was acknowledged now
     * @return the outcome per partition walked
     */
    static Map<String, CommitWalk.Advance> advance(Connection c, GroupScope s, Set<String> keys,
                                                   Map<String, Cursor> cursors, Map<String, Set<Long>> batchAcks,
                                                   Set<String> rowAcked) throws SQLException {
        return advance(c, s, keys, cursors, batchAcks, rowAcked, null);
    }

    /**
     * {@link #advance(Connection, GroupScope, Set, Map, Map, Set)}, except that the moves of the
     * committed offsets are not written but added to {@code moves}, for the caller to write in a
     * statement of its own later in the transaction ({@link #write}, or with the batches of a fetch,
     * {@link ConsumerStatements#advanceAndOpen}); until then the offsets rows still hold the
     * offsets as read. The acknowledged rows are pruned now.
     */
    static Map<String, CommitWalk.Advance> advanceLeavingMoves(Connection c, GroupScope s, Set<String> keys,
                                                               Map<String, Cursor> cursors,
                                                               Map<String, Set<Long>> batchAcks, Set<String> rowAcked,
                                                               List<Advance> moves) throws SQLException {
        return advance(c, s, keys, cursors, batchAcks, rowAcked, moves);
    }

    /**
     * After a delete of messages above some group's committed offset (an admin delete, a
     * requeue's dead letter, retention's maximum age), moves each group's committed offset of
     * the partitions over the finished messages that now follow it: a deleted first
     * unacknowledged message no longer holds back the messages acknowledged after it, as a
     * nack's or an expiry's dead letter does not. Without it nothing would walk the partition
     * until a later ack, and its lag and oldest unacknowledged age would count messages already
     * acknowledged (docs/operations.md, "Retention"). It also forgets the size of their open
     * batches, one of whose messages may be gone ({@link ConsumerSql#FORGET_BATCH_SIZES}). The
     * caller's transaction holds the lease rows of these groups and partitions, locked before the
     * delete, as every walk does.
     *
     * @param groups the consumer groups of the topic (any order)
     * @param keys the partitions a message was deleted from
     */
    static void walkAfterDelete(Connection c, String tenant, String topic, List<String> groups, Set<String> keys)
            throws SQLException {
        if (keys.isEmpty()) {
            return;
        }
        List<String> inOrder = keys.stream().sorted().toList();
        if (!groups.isEmpty()) {
            // An open batch may have lost a message: its ack must read what remains (CommitWalk#wholeBatch).
            ConsumerStatements.forgetBatchSizes(c, new ConsumerSql.ForgetBatchSizes(tenant, topic, inOrder,
                    groups.stream().sorted().toList()));
        }
        for (String group : groups) {
            GroupScope scope = new GroupScope(tenant, group, topic);
            Map<String, Cursor> cursors = ConsumerStatements.cursors(c, new ConsumerSql.SelectCursors(scope, inOrder));
            advance(c, scope, keys, cursors, Map.of(), Set.of());
        }
    }

    /** Writes moves that {@link #advanceLeavingMoves} left, in one statement; none: no statement. */
    static void write(Connection c, GroupScope s, List<Advance> moves) throws SQLException {
        ConsumerStatements.advanceCommitted(c, s, moves);
    }

    /** The body of both forms; {@code leftMoves} null: the moves are written now. */
    private static Map<String, CommitWalk.Advance> advance(Connection c, GroupScope s, Set<String> keys,
                                                           Map<String, Cursor> cursors,
                                                           Map<String, Set<Long>> batchAcks, Set<String> rowAcked,
                                                           List<Advance> leftMoves) throws SQLException {
        List<Cursor> all = keys.stream().map(cursors::get).filter(Objects::nonNull).toList();
        if (all.isEmpty()) {
            return new HashMap<>();
        }
        // An ack of every message of a batch, in a partition with no delivery row above its
        // committed offset, moves it to the batch's end without a read (CommitWalk#wholeBatch).
        Map<String, CommitWalk.Advance> whole = new HashMap<>();
        for (Cursor cur : all) {
            if (cur.batchOpen() && !cur.rowsInBatch() && cur.finishedRows() == 0 && !rowAcked.contains(cur.key())) {
                CommitWalk.wholeBatch(cur.committed(), cur.delivered(), cur.batchMessages(),
                        batchAcks.getOrDefault(cur.key(), Set.of())).ifPresent(a -> whole.put(cur.key(), a));
            }
        }
        List<Cursor> walked = all.stream().filter(cur -> !whole.containsKey(cur.key())).toList();
        // Rows finished in this transaction (acked rows, dead letters) are not in the cursors'
        // counts: count again where any may be. A partition walked only for the batch acks of
        // this ack, with no finished row when its cursor was read, needs no count.
        List<String> toCount = walked.stream().filter(cur -> cur.finishedRows() > 0 || rowAcked.contains(cur.key())
                || !batchAcks.containsKey(cur.key())).map(Cursor::key).toList();
        Map<String, Integer> finishedRows = toCount.isEmpty() ? new HashMap<>()
                : ConsumerStatements.countFinished(c, new CountFinished(s, toCount));
        // The finished run has at most (finished rows + batch acks) messages, so one more row
        // always reaches its end: a bounded read from the committed offset, whatever the backlog.
        Map<String, List<CommitWalk.Row>> rows = ConsumerStatements.prefixStates(c, walked.stream()
                .map(cur -> new SelectPrefixStates(s, cur.key(), cur.committed(), finishedRows.getOrDefault(cur.key(), 0)
                        + batchAcks.getOrDefault(cur.key(), Set.of()).size() + 1)).toList());
        Plan plan = plan(s, all, whole, rows, finishedRows, batchAcks, rowAcked);
        if (leftMoves == null) {
            ConsumerStatements.advanceCommitted(c, s, plan.moves());
        } else {
            leftMoves.addAll(plan.moves());
        }
        ConsumerStatements.pruneDeliveries(c, plan.prunes());
        return plan.advances();
    }

    /**
     * Decides, from the rows read, where each walked partition's committed offset moves and what
     * is pruned; {@code whole} are the partitions decided without rows (whole batches acked).
     */
    static Plan plan(GroupScope s, List<Cursor> walked, Map<String, CommitWalk.Advance> whole,
                     Map<String, List<CommitWalk.Row>> rows, Map<String, Integer> finishedRows,
                     Map<String, Set<Long>> batchAcks, Set<String> rowAcked) {
        Map<String, CommitWalk.Advance> advances = new HashMap<>();
        List<Advance> moves = new ArrayList<>();
        List<PruneDeliveries> prunes = new ArrayList<>();
        for (Cursor cur : walked) {
            CommitWalk.Advance a = whole.containsKey(cur.key()) ? whole.get(cur.key())
                    : CommitWalk.advance(cur.committed(), rows.getOrDefault(cur.key(), List.of()),
                            batchAcks.getOrDefault(cur.key(), Set.of()));
            advances.put(cur.key(), a);
            if (a.committed() > cur.committed()) {
                BatchState.Change.commit(cur.batch()).require(cur.batch(), cur.committedAt(a.committed()).batch());
                moves.add(new Advance(cur.key(), a.committed(), cur.committed()));
            }
            if (a.prunable() || rowAcked.contains(cur.key()) || finishedRows.containsKey(cur.key())) {
                prunes.add(new PruneDeliveries(s, cur.key(), a.committed()));
            }
        }
        return new Plan(advances, moves, prunes);
    }

    /** The committed offset of each of {@code cursors} after {@code advances}. */
    static Map<String, Long> after(Map<String, Cursor> cursors, Map<String, CommitWalk.Advance> advances) {
        Map<String, Long> committed = new HashMap<>();
        cursors.forEach((k, cur) -> committed.put(k, advances.containsKey(k) ? advances.get(k).committed()
                : cur.committed()));
        return committed;
    }
}
