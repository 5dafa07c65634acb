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
     * @param deliverAfterSeconds whole seconds before the message may be delivered first (docs/api.md,
     *     "Delayed delivery"); optional, explicit null is 400; read as any JSON value so that a
     *     fraction or a string is a 400 naming the field, not a silent coercion
     * @param deliverAt RFC 3339 time before which the message is not delivered; optional, explicit
     *     null is 400; at most one of the two
     */
    public record Message(String partitionKey, @JsonDeserialize(using = NullRejecting.class) String id, RawJson payload,
                          @JsonDeserialize(using = NullRejecting.class) JsonNode metadata,
                          @JsonDeserialize(using = NullRejecting.class) JsonNode deliverAfterSeconds,
                          @JsonDeserialize(using = NullRejecting.class) JsonNode deliverAt) {
        /** A message without a delay. */
        public Message(String partitionKey, String id, RawJson payload, JsonNode metadata) {
            this(partitionKey, id, payload, metadata, null, null);
        }
    }
}
