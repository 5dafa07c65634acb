package dev.tenantmq.store;

import dev.tenantmq.model.ChunkedDeletion;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

/**
 * The transactions of deleting a topic or a consumer group (docs/operations.md, "Deleting a topic
 * or a consumer group"), SQL in {@link DeletionSql}, the pass rule in {@link ChunkedDeletion}. Each
 * chunk is its own short READ COMMITTED transaction of one {@code DELETE ... LIMIT}; nothing is
 * held between chunks or between calls.
 */
@ApplicationScoped
public class DeletionStore {
    /** The tables of a topic, in the order of {@link #deleteTopic}'s steps and of {@link TopicRows}. */
    public enum TopicTable { LEASES, HEARTBEATS, MESSAGES, DELIVERY_STATES, OFFSETS, DEDUP_IDS, PARTITION_HEADS }

    /** The tables of a group on one topic, in the order of {@link #deleteGroup}'s steps. */
    public enum GroupTable { LEASES, HEARTBEATS, DELIVERY_STATES, OFFSETS }

    /**
     * What a topic call did.
     *
     * @param found false: nothing of the topic is stored and no deletion of it is under way
     * @param outcome the chunks run, when found
     */
    public record TopicCall(boolean found, ChunkedDeletion.Outcome outcome) {}

    /** What a group call did: {@code found} false when the group has nothing stored on the topic. */
    public record GroupCall(boolean found, ChunkedDeletion.Outcome outcome) {}

    private final Db db;

    DeletionStore(Db db) {
        this.db = db;
    }

    /**
     * Marks the topic as being deleted (when something of it is stored) and deletes up to
     * {@code maxChunks} chunks of {@code chunkSize} rows, table by table ({@link TopicTable}); when a
     * whole pass deleted nothing, removes the marker: done.
     */
    public TopicCall deleteTopic(String tenant, String topic, int chunkSize, int maxChunks) {
        boolean marked = db.read(c -> exists(c, List.of(new DeletionSql.SelectMarker(tenant, topic))));
        if (!marked) {
            if (!db.read(c -> exists(c, DeletionSql.topicProbes(tenant, topic)))) {
                return new TopicCall(false, null);
            }
            db.inTransaction(Db.Isolation.READ_COMMITTED, c -> {
                DeletionSql.MarkTopic mark = new DeletionSql.MarkTopic(tenant, topic);
                // 1 inserted; 0 or 1 when a concurrent call inserted it first (no change): never more
                return UpdateCount.AT_MOST_ONE.check(Db.update(c, mark.sql(), mark), "the deletion marker's insert");
            });
        }
        List<ChunkedDeletion.Step> steps = List.of(
                limit -> chunk(new DeletionSql.DeleteTopicLeases(tenant, topic, limit)),
                limit -> chunk(new DeletionSql.DeleteTopicHeartbeats(tenant, topic, limit)),
                limit -> chunk(new DeletionSql.DeleteTopicMessages(tenant, topic, limit)),
                limit -> chunk(new DeletionSql.DeleteTopicStates(tenant, topic, limit)),
                limit -> chunk(new DeletionSql.DeleteTopicOffsets(tenant, topic, limit)),
                limit -> chunk(new DeletionSql.DeleteTopicDedupIds(tenant, topic, limit)),
                limit -> chunk(new DeletionSql.DeleteTopicHeads(tenant, topic, limit)));
        ChunkedDeletion.Outcome outcome = ChunkedDeletion.run(steps, chunkSize, maxChunks);
        if (outcome.done()) {
            DeletionSql.UnmarkTopic unmark = new DeletionSql.UnmarkTopic(tenant, topic);
            // 1; 0 when a concurrent call of the same deletion finished first
            db.inTransaction(Db.Isolation.READ_COMMITTED,
                    c -> UpdateCount.AT_MOST_ONE.check(Db.update(c, unmark.sql(), unmark), "the deletion marker's delete"));
        }
        return new TopicCall(true, outcome);
    }

    /**
     * How many subscribers other than {@code self} have a heartbeat for the group on the topic
     * younger than {@code heartbeatTimeoutMicros}.
     */
    public long liveSubscribers(String tenant, String topic, String group, String self, long heartbeatTimeoutMicros) {
        DeletionSql.CountLiveSubscribers count = new DeletionSql.CountLiveSubscribers(tenant, topic, group,
                self, heartbeatTimeoutMicros);
        return db.read(c -> Db.list(c, count.sql(), count, rs -> rs.getLong("live")).get(0));
    }

    /**
     * Deletes up to {@code maxChunks} chunks of the group's state on the topic, table by table
     * ({@link GroupTable}); done when a whole pass deleted nothing.
     */
    public GroupCall deleteGroup(String tenant, String topic, String group, int chunkSize, int maxChunks) {
        if (!db.read(c -> exists(c, DeletionSql.groupProbes(tenant, topic, group)))) {
            return new GroupCall(false, null);
        }
        List<ChunkedDeletion.Step> steps = List.of(
                limit -> chunk(new DeletionSql.DeleteGroupLeases(tenant, topic, group, limit)),
                limit -> chunk(new DeletionSql.DeleteGroupHeartbeats(tenant, topic, group, limit)),
                limit -> chunk(new DeletionSql.DeleteGroupStates(tenant, topic, group, limit)),
                limit -> chunk(new DeletionSql.DeleteGroupOffsets(tenant, topic, group, limit)));
        ChunkedDeletion.Outcome outcome = ChunkedDeletion.run(steps, chunkSize, maxChunks);
        if (!outcome.done() && !db.read(c -> exists(c, DeletionSql.groupProbes(tenant, topic, group)))) {
            // The budget ran out on the last rows: say done now, not 404 on the next call. Nothing
            // re-creates a group's rows meanwhile but a live subscriber, which the service refused.
            outcome = new ChunkedDeletion.Outcome(true, outcome.deleted(), outcome.chunks());
        }
        return new GroupCall(true, outcome);
    }

    /** One chunk: one DELETE ... LIMIT in a transaction of its own. */
    private int chunk(Statement delete) {
        return db.inTransaction(Db.Isolation.READ_COMMITTED, c -> Db.update(c, delete.sql(), delete));
    }

    /** Whether any of {@code probes} (each reads at most one row) finds a row, asked in order. */
    private static boolean exists(Connection c, List<Statement> probes) throws SQLException {
        for (Statement probe : probes) {
            if (!Db.list(c, probe.sql(), probe, rs -> 1).isEmpty()) {
                return true;
            }
        }
        return false;
    }
}
