package dev.tenantmq.store;

import dev.tenantmq.model.DeadLetterPolicy;
import dev.tenantmq.model.DeliveryState;
import dev.tenantmq.model.GroupScope;
import dev.tenantmq.model.TraceContext;
import dev.tenantmq.store.ConsumerSql.MarkDead;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * Dead-letters a message for a group (SPEC "Dead letters"), for the fetch that finds a last
 * attempt failed and for a nack of one: appends the copy to the group's dead-letter topic and
 * marks the delivery row DEAD, in the caller's transaction (which holds the partition's lease
 * row lock).
 */
final class DeadLetters {
    private DeadLetters() {}

    /**
     * A message to dead-letter: the message, its delivery row as read (fencing the update), and why.
     *
     * @param fromState the delivery row's state as read
     * @param delivery the delivery row's delivery number as read
     * @param attempts the failed attempts, recorded with the dead letter
     * @param trace the message's trace context, which the dead letter keeps, or null
     */
    record Dead(String partitionKey, long offset, String id, String payloadJson, String metadataJson,
                DeliveryState fromState, long delivery, int attempts, String reason, TraceContext trace) {}

    /**
     * Writes the dead letter of {@code d} (under the dead-letter partition's head lock, as a
     * publish appends) and marks it DEAD for the group.
     */
    static void write(Connection c, GroupScope s, DeadLetterPolicy policy, Dead d)
            throws SQLException {
        MessageStore.appendDeadLetter(c, new MessageStore.DeadLetter(s.tenant(), policy.dlqTopic(), d.partitionKey(),
                d.id(), d.payloadJson(), d.metadataJson(), s.topic(), d.offset(), s.consumerGroup(), d.reason(),
                d.attempts(), d.trace()));
        ConsumerStatements.markDead(c, new MarkDead(d.attempts(), s, d.partitionKey(), d.offset(), d.fromState(),
                d.delivery()));
    }
}
