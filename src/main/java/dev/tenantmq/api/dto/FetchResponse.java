package dev.tenantmq.api.dto;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonRawValue;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import dev.tenantmq.api.Utf8JsonSerializer;
import dev.tenantmq.model.Utf8Json;
import java.time.Instant;
import java.util.List;

/**
 * Response of lease-fetch: messages grouped by partition, each partition in offset order, and,
 * when the request carried {@code ack}, one result per receipt of it in request order, as an ack
 * answers ({@link ReceiptsResponse.Result}); absent otherwise.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record FetchResponse(List<Message> messages, List<ReceiptsResponse.Result> ackResults) {
    /** A fetch that carried no acks. */
    public FetchResponse(List<Message> messages) {
        this(messages, null);
    }

    /**
     * One delivered message. {@code payload} and {@code metadata} are written as the stored JSON
     * text, so numbers come back exactly as published; the payload as the bytes the database sent
     * ({@link Utf8JsonSerializer}). {@code traceparent} and {@code tracestate}
     * are the W3C trace context the message was published with, absent when it had none
     * (docs/api.md, "Trace context").
     */
    public record Message(String partitionKey, String id, long offset,
                          @JsonSerialize(using = Utf8JsonSerializer.class) Utf8Json payload,
                          @JsonRawValue String metadata, Instant createdAt, int deliveryAttempt, String receipt,
                          @JsonInclude(JsonInclude.Include.NON_NULL) String traceparent,
                          @JsonInclude(JsonInclude.Include.NON_NULL) String tracestate) {}
}
