package dev.tenantmq.store;

import dev.tenantmq.model.GroupScope;
import dev.tenantmq.model.OffsetReset;
import dev.tenantmq.store.ConsumerSql.LockLeases;
import dev.tenantmq.store.OffsetResetSql.BumpEpochs;
import dev.tenantmq.store.OffsetResetSql.ClearDeliveryState;
import dev.tenantmq.store.OffsetResetSql.MoveOffset;
import dev.tenantmq.store.OffsetResetSql.SelectFirstFrom;
import dev.tenantmq.store.OffsetResetSql.SelectGroupPage;
import dev.tenantmq.store.OffsetResetSql.SelectPositions;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Resets a consumer group's committed offsets on one topic (docs/operations.md, "Replay:
 * resetting a group's offsets"), or answers what a reset would do. Where each partition moves is
 * the pure rule {@link OffsetReset}; the statements are {@link OffsetResetSql}.
 *
 * <p>The group's partitions are walked in pages of {@value #PAGE} in key order, one transaction
 * per page, so a group of any number of partitions never holds many locks or runs a long
 * transaction; a reset interrupted midway has moved the pages before it, and repeating the call
 * finishes it (the targets are computed afresh, so a repeat moves nothing twice).
 *
 * <p>Locking: a page's transaction first locks the lease rows of its partitions
 * ({@link ConsumerSql#LOCK_LEASES}, in key order, as fetch and ack lock them), so a concurrent
 * fetch or ack of those partitions waits for the reset and then sees the new position and the
 * new epoch, or ran entirely before it (the reset then reads its result as the "from"). Under the
 * locks it reads the positions again, moves each committed offset and closes the open batch,
 * deletes the group's delivery rows above the new offset (and every row at or below it except
 * DEAD ones) in chunks of {@value #CHUNK}, and bumps the lease epochs: every receipt issued before
 * answers STALE, and the next fetch delivers in offset order from the first stored message above
 * the new committed offset.
 */
@ApplicationScoped
public class OffsetResetTransaction {
    /** Partitions per transaction. */
    static final int PAGE = 100;
    /** Delivery rows per delete statement. */
    static final int CHUNK = 1000;

    private final Db db;

    OffsetResetTransaction(Db db) {
        this.db = db;
    }

    /**
     * One partition's reset.
     *
     * @param from the committed offset before
     * @param to the committed offset after (the same as the reset would set, in a dry run)
     * @param next the first stored message above {@code to}: the next one the group receives; empty
     *     when there is none yet
     * @param earliest the earliest stored message: how far back a replay can go; empty when none is stored
     * @param latest the partition's head offset (0 when none was published)
     * @param beforeEarliest the target lay before the earliest stored message
     */
    public record PartitionReset(String partitionKey, long from, long to, Optional<OffsetReset.Stored> next,
                                 Optional<OffsetReset.Stored> earliest, long latest, boolean beforeEarliest) {}

    /**
     * Resets (or, with {@code dryRun}, only computes) the committed offsets of the group's
     * partitions on the topic: every partition it has a committed offset in, or only
     * {@code partitionKey}.
     *
     * @param partitionKey only this partition, or null for all
     * @return one entry per partition, in key order; empty when the group has no committed offset
     *     in any of them
     */
    public List<PartitionReset> reset(GroupScope s, String partitionKey, OffsetReset.Target target, boolean dryRun) {
        List<PartitionReset> out = new ArrayList<>();
        String after = "";
        while (true) {
            SelectGroupPage select = new SelectGroupPage(s, partitionKey, after, PAGE);
            List<Position> page = db.read(c -> Db.list(c, select.sql(), select, Position.ROW));
            if (page.isEmpty()) {
                return out;
            }
            if (dryRun) {
                List<PartitionReset> planned = db.read(c -> plan(c, s, page, target));
                out.addAll(planned);
            } else {
                List<String> keys = page.stream().map(Position::partitionKey).toList();
                out.addAll(db.inTransaction(Db.Isolation.READ_COMMITTED, c -> apply(c, s, keys, target)));
            }
            if (page.size() < PAGE) {
                return out;
            }
            after = page.get(page.size() - 1).partitionKey();
        }
    }

    /** A partition's committed offset and head. */
    private record Position(String partitionKey, long committed, long head) {
        static final Db.RowMapper<Position> ROW = rs -> new Position(rs.getString("partition_key"),
                rs.getLong("committed_offset"), rs.getLong("head_offset"));
    }

    private static List<PartitionReset> apply(Connection c, GroupScope s, List<String> keys, OffsetReset.Target target)
            throws SQLException {
        Map<String, Long> leases = ConsumerStatements.lockLeases(c, new LockLeases(s, keys));
        SelectPositions select = new SelectPositions(s, keys);
        List<Position> positions = Db.list(c, select.sql(), select, Position.ROW);
        List<PartitionReset> planned = plan(c, s, positions, target);
        for (PartitionReset p : planned) {
            MoveOffset move = new MoveOffset(s, p.partitionKey(), p.to());
            UpdateCount.EXACTLY_ONE.check(Db.update(c, move.sql(), move), "moving a committed offset");
            ClearDeliveryState clear = new ClearDeliveryState(s, p.partitionKey(), p.to(), CHUNK);
            while (UpdateCount.ANY.check(Db.update(c, clear.sql(), clear), "clearing delivery rows") >= CHUNK) {
                // a chunk at a time; the lease row lock keeps new rows out meanwhile
            }
        }
        if (!leases.isEmpty()) {
            BumpEpochs bump = new BumpEpochs(s, new ArrayList<>(leases.keySet()));
            UpdateCount.EXACTLY_ONE.checkRows(Db.update(c, bump.sql(), bump), leases.size(), "bumping lease epochs");
        }
        return planned;
    }

    private static List<PartitionReset> plan(Connection c, GroupScope s, List<Position> positions,
                                             OffsetReset.Target target) throws SQLException {
        List<PartitionReset> out = new ArrayList<>(positions.size());
        for (Position pos : positions) {
            String key = pos.partitionKey();
            Optional<OffsetReset.Stored> earliest = firstFrom(c, s, key, 0);
            OffsetReset.Partition p = new OffsetReset.Partition(pos.committed(), pos.head(), earliest);
            OffsetReset.Move move;
            if (target instanceof OffsetReset.Target.ToTime t) {
                Optional<OffsetReset.Stored> first;
                try {
                    first = earliest.isEmpty() ? Optional.empty()
                            : OffsetReset.firstAtOrAfter(t.at(), earliest.get(), pos.head(),
                                    offset -> firstFrom(c, s, key, offset));
                } catch (SQLException e) {
                    throw e;
                } catch (Exception e) {
                    throw new SQLException(e);
                }
                move = OffsetReset.forTime(t, p, first);
            } else {
                move = OffsetReset.move(target, p);
            }
            Optional<OffsetReset.Stored> next = firstFrom(c, s, key, move.to() + 1);
            out.add(new PartitionReset(key, pos.committed(), move.to(), next, earliest, pos.head(),
                    move.beforeEarliest()));
        }
        return out;
    }

    private static Optional<OffsetReset.Stored> firstFrom(Connection c, GroupScope s, String key, long offset)
            throws SQLException {
        SelectFirstFrom select = new SelectFirstFrom(s, key, offset);
        return Db.list(c, select.sql(), select, rs -> new OffsetReset.Stored(rs.getLong("offset"),
                Db.instant(rs, "created_at"))).stream().findFirst();
    }
}
