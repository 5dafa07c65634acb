package dev.tenantmq.api.dto;

import java.util.List;

/** Response of ack and extend: one result per receipt, in request order. */
public record ReceiptsResponse(List<Result> results) {
    /** {@code status} is ACKED or EXTENDED, ALREADY_ACKED, STALE or INVALID (SPEC section 4). */
    public record Result(String receipt, String status) {}
}
