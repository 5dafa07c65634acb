package dev.tenantmq.store;

import jakarta.enterprise.context.ApplicationScoped;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * SQL of the quotas on unacknowledged messages per topic and per tenant (docs/security.md, "Quotas"). Plain consistent reads in
 * auto-commit: they never wait for or block publishers and consumers. Both lead with
 * {@code tenant}, so on Vitess they stay on one shard.
 *
 * <p>"Unacknowledged" is what retention would keep before {@code mq.retention.max-age}: the
 * stored messages of the topic above, per partition, the lowest committed offset of the
 * topic's consumer groups. A partition that some group of the topic has not read yet, and a
 * topic with no group, count whole. It is the admin API's {@code lag} of the slowest group,
 * summed over the partitions.
 */
@ApplicationScoped
public class QuotaStore {
    /** How many consumer groups the topic has (any with a committed offset in a partition). Binds: {@link CountGroups}. */
    static final String COUNT_GROUPS = """
            SELECT COUNT(DISTINCT consumer_group) AS group_count FROM queue_offsets
            WHERE tenant = ? AND topic = ?""";

    /** Binds of {@link #COUNT_GROUPS}, in placeholder order. */
    record CountGroups(String tenant, String topic) implements Statement {
        @Override
        public String sql() {
            return COUNT_GROUPS;
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.of("tenant", tenant), Bind.of("topic", topic));
        }
    }

    /**
     * The unacknowledged messages of a topic, counting at most {@code ?} of them (the derived
     * table's LIMIT bounds the work to the limit being checked). A partition's floor is the
     * lowest committed offset of its offset rows when every group of the topic has one there,
     * else 0. The outer WHERE repeats the tenant, as every statement's WHERE leads with it
     * (StoreSqlRulesTest). The rows read need their key columns only: {@code uq_message_id} holds
     * them without the payload (docs/operations.md, "Counting messages"). See {@link CountUnacked}
     * for the binds.
     */
    static final String COUNT_UNACKED = """
            SELECT COUNT(*) AS unacked FROM (
                SELECT m.tenant FROM queue_messages m FORCE INDEX (uq_message_id)
                WHERE m.tenant = ? AND m.topic = ?
                  AND m.`offset` > COALESCE((
                      SELECT CASE WHEN COUNT(*) >= ? THEN MIN(o.committed_offset) ELSE 0 END
                      FROM queue_offsets o
                      WHERE o.tenant = m.tenant AND o.topic = m.topic AND o.partition_key = m.partition_key), 0)
                LIMIT ?) u
            WHERE u.tenant = ?""";

    /** Binds of {@link #COUNT_UNACKED}, in placeholder order. */
    record CountUnacked(String tenant, String topic, long groups, long atMost) implements Statement {
        @Override
        public String sql() {
            return COUNT_UNACKED;
        }

        @Override
        public List<Bind> binds() {
            return Bind.list(Bind.of("tenant", tenant), Bind.of("topic", topic), // WHERE
                    Bind.of("groups", groups), // a floor only where every group has a row
                    Bind.of("limit", atMost), // LIMIT
                    Bind.of("tenant", tenant)); // outer WHERE
        }
    }

    private final Db db;

    QuotaStore(Db db) {
        this.db = db;
    }

    /**
     * The unacknowledged messages of (tenant, topic), at most {@code atMost} (two reads: the
     * groups, then the count; a group that appears in between only raises the count).
     *
     * @throws dev.tenantmq.model.StoreUnavailableException when the database is unreachable
     */
    public long unacked(String tenant, String topic, long atMost) {
        return db.read(c -> unacked(c, tenant, topic, atMost));
    }

    /**
     * The unacknowledged messages of every topic of {@code tenant} together (dead-letter topics
     * included), at most {@code atMost}: the tenant's topics (retention's
     * {@link RetentionStore.SelectTopics}), then each topic's count as {@link #unacked(String, String, long)}
     * takes it, with what is left of {@code atMost}, stopping once it is reached. So the work is
     * bounded by the limit being checked plus two short reads per topic.
     *
     * @throws dev.tenantmq.model.StoreUnavailableException when the database is unreachable
     */
    public long unackedInTenant(String tenant, long atMost) {
        return db.read(c -> {
            List<String> topics = new ArrayList<>();
            RetentionStore.SelectTopics selectTopics = new RetentionStore.SelectTopics(tenant);
            try (PreparedStatement ps = Jdbc.prepare(c, selectTopics.sql())) {
                selectTopics.bindTo(ps);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        topics.add(rs.getString("topic"));
                    }
                }
            }
            long total = 0;
            for (String topic : topics) {
                if (total >= atMost) {
                    break;
                }
                total += unacked(c, tenant, topic, atMost - total);
            }
            return total;
        });
    }

    private static long unacked(Connection c, String tenant, String topic, long atMost) throws SQLException {
        long groups;
        CountGroups countGroups = new CountGroups(tenant, topic);
        try (PreparedStatement ps = Jdbc.prepare(c, countGroups.sql())) {
            countGroups.bindTo(ps);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                groups = rs.getLong("group_count");
            }
        }
        CountUnacked countUnacked = new CountUnacked(tenant, topic, groups, atMost);
        try (PreparedStatement ps = Jdbc.prepare(c, countUnacked.sql())) {
            countUnacked.bindTo(ps);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong("unacked");
            }
        }
    }
}
