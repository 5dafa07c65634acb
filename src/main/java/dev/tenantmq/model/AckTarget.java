package dev.tenantmq.model;

/**
 * What one receipt names (SPEC section 4, "Ack, nack, extend"): the message, and the delivery
 * that handed it out, by the lease epoch and delivery number that fence every settle.
 *
 * @param partitionKey the message's partition
 * @param offset the message's offset in it
 * @param leaseEpoch the epoch of the partition lease the delivery was made under
 * @param delivery the partition's delivery number of that hand-out
 */
public record AckTarget(String partitionKey, long offset, long leaseEpoch, long delivery) {}
