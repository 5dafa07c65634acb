package dev.tenantmq;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * A consumer group's delivery state of one message, read from the database as the service
 * sees it (migration V3): the message's {@code queue_delivery_state} row, or, without one, its
 * place in the group's open delivery batch on {@code queue_offsets}, where a message is in flight
 * with attempt 1 and the batch's delivery number, lease epoch and visibility deadline.
 */
final class DeliveryStates {
    private static final String EFFECTIVE_STATE = """
            SELECT COALESCE(d.state, 'INFLIGHT'), COALESCE(d.delivery_attempt, 1),
                   COALESCE(d.delivery_count, o.delivery_seq), COALESCE(d.lease_epoch, o.delivery_epoch),
                   COALESCE(d.visible_at, o.visible_at), COALESCE(d.visible_at, o.visible_at) > UTC_TIMESTAMP(6)
            FROM queue_offsets o
            LEFT JOIN queue_delivery_state d
              ON d.tenant = o.tenant AND d.consumer_group = o.consumer_group AND d.topic = o.topic
             AND d.partition_key = o.partition_key AND d.message_offset = ?
            WHERE o.tenant = ? AND o.topic = ? AND o.partition_key = ? AND o.consumer_group = ?
              AND (d.message_offset IS NOT NULL OR (? > o.committed_offset AND ? <= o.delivered_offset))""";

    /**
     * One message's state for one group.
     *
     * @param delivery the fencing delivery number of its current (or last) hand-out
     * @param visibleAt the visibility deadline as the database prints it
     * @param visibilityRunning whether that deadline is still ahead by the database clock
     */
    record State(String state, int attempt, long delivery, long leaseEpoch, String visibleAt,
                 boolean visibilityRunning) {}

    private DeliveryStates() {}

    /** The state, or empty when the group has none for the message (never delivered, or committed). */
    static Optional<State> of(DataSource ds, String tenant, String group, String topic, String partitionKey, long offset)
            throws SQLException {
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(EFFECTIVE_STATE)) {
            Object[] binds = {offset, tenant, topic, partitionKey, group, offset, offset};
            for (int i = 0; i < binds.length; i++) {
                ps.setObject(i + 1, binds[i]);
            }
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return Optional.empty();
                }
                return Optional.of(new State(rs.getString(1), rs.getInt(2), rs.getLong(3), rs.getLong(4),
                        rs.getString(5), rs.getBoolean(6)));
            }
        }
    }
}
