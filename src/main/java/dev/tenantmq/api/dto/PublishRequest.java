package dev.tenantmq.api.dto;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import dev.tenantmq.api.NullRejecting;
import dev.tenantmq.api.RawJson;
import java.util.List;

/** Body of {@code POST /tenants/{tenant}/topics/{topic}/messages}. */
public record PublishRequest(List<Message> messages) {
    /**
     * One message to publish.
     *
     * @param partitionKey ordering unit; required
     * @param id caller-chosen id that makes publish idempotent; optional (absent: generated), explicit null is 400
     * @param payload any JSON value (null included), kept as the client's JSON text
     * @param metadata string-to-string map; {@code queue_name} is stamped by the service; optional, explicit null is 400
     */
    public record Message(String partitionKey, @JsonDeserialize(using = NullRejecting.class) String id, RawJson payload,
                          @JsonDeserialize(using = NullRejecting.class) JsonNode metadata) {}
}
