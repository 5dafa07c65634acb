package dev.tenantmq.api.dto;

import java.util.List;

/** Response of ack: one result per receipt, in request order. */
public record ReceiptsResponse(List<Result> results) {
    /** {@code status} is ACKED, ALREADY_ACKED, STALE or INVALID (SPEC section 4). */
    public record Result(String receipt, String status) {}
}
