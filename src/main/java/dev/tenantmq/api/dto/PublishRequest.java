package dev.tenantmq.api.dto;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;

/** Body of {@code POST /tenants/{tenant}/topics/{topic}/messages}. */
public record PublishRequest(List<Message> messages) {
    /**
     * One message to publish.
     *
     * @param partitionKey ordering unit; required
     * @param id caller-chosen id that makes publish idempotent; optional
     * @param payload any JSON value, returned numerically exact
     * @param metadata string-to-string map; {@code queue_name} is stamped by the service
     */
    public record Message(String partitionKey, String id, JsonNode payload, JsonNode metadata) {}
}
