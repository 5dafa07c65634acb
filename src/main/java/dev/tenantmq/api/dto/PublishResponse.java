package dev.tenantmq.api.dto;

import java.util.List;

/** Response of publish: one entry per message, in request order. */
public record PublishResponse(List<Published> messages) {
    /** Where one message ended up; {@code duplicate} means it was stored before and left unchanged. */
    public record Published(String id, String partitionKey, long offset, boolean duplicate) {}
}
