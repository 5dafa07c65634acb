package dev.tenantmq.model;

import java.time.Instant;

/**
 * One message handed out by a lease-fetch (SPEC section 4, "Lease-fetch").
 *
 * @param partitionKey the message's partition
 * @param offset its offset in the partition
 * @param id the publisher's message id
 * @param payload the payload, as stored JSON text in the bytes the database sent
 * @param metadataJson the metadata, as stored JSON text (null when none)
 * @param createdAt when the message was published (database clock, UTC)
 * @param deliveryAttempt this hand-out's attempt, from 1
 * @param delivery the fencing delivery number of this hand-out (the partition's delivery_seq)
 * @param leaseEpoch the epoch of the partition lease it was handed out under
 * @param trace the W3C trace context it was published with, or null (docs/api.md, "Trace context")
 */
public record Delivery(String partitionKey, long offset, String id, Utf8Json payload, String metadataJson,
                       Instant createdAt, int deliveryAttempt, long delivery, long leaseEpoch, TraceContext trace) {}
