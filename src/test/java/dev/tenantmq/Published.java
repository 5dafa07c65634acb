package dev.tenantmq;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.util.List;

/**
 * A publish answer (openapi.yaml {@code PublishResponse}), read by Jackson: one entry per
 * message of the request, in request order.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record Published(List<Message> messages) {

    /**
     * One published message (openapi.yaml {@code PublishedMessage}).
     *
     * @param duplicate true when the id was seen within the dedup window and nothing new was stored
     */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Message(String id, String partitionKey, long offset, boolean duplicate) {}

    /** The offset of the {@code i}-th message. */
    public long offset(int i) {
        return messages.get(i).offset();
    }

    /** Whether the {@code i}-th message was a duplicate. */
    public boolean duplicate(int i) {
        return messages.get(i).duplicate();
    }

    /** The offsets, in request order. */
    public List<Long> offsets() {
        return messages.stream().map(Message::offset).toList();
    }

    /** The duplicate flags, in request order. */
    public List<Boolean> duplicates() {
        return messages.stream().map(Message::duplicate).toList();
    }

    /** The ids, in request order (generated ones included). */
    public List<String> ids() {
        return messages.stream().map(Message::id).toList();
    }

    /** The partition keys, in request order. */
    public List<String> partitionKeys() {
        return messages.stream().map(Message::partitionKey).toList();
    }
}
