package dev.tenantmq.api.dto;

import com.fasterxml.jackson.annotation.JsonRawValue;
import java.time.Instant;
import java.util.List;

/** Response of lease-fetch: messages grouped by partition, each partition in offset order. */
public record FetchResponse(List<Message> messages) {
    /**
     * One delivered message. {@code payload} and {@code metadata} are written as the stored JSON
     * text, so numbers come back exactly as published.
     */
    public record Message(String partitionKey, String id, long offset, @JsonRawValue String payload,
                          @JsonRawValue String metadata, Instant createdAt, int deliveryAttempt, String receipt) {}
}
