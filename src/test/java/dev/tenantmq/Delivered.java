package dev.tenantmq;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.util.List;
import java.util.Map;

/**
 * One message of a fetch answer (openapi.yaml {@code DeliveredMessage}), read by Jackson so that
 * tests name fields instead of casting map values.
 *
 * @param offset the message's offset in its partition
 * @param payload the payload as Jackson reads any JSON value (Integer, String, Map, List, null...)
 * @param createdAt the publish time as the service prints it (ISO-8601)
 * @param deliveryAttempt 1 on the first delivery, counting up on each redelivery
 * @param receipt the opaque receipt to ack, nack or extend with
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record Delivered(String partitionKey, String id, long offset, Object payload, Map<String, String> metadata,
                        String createdAt, int deliveryAttempt, String receipt) {

    /** The receipts of {@code messages}, in order. */
    public static List<String> receipts(List<Delivered> messages) {
        return messages.stream().map(Delivered::receipt).toList();
    }

    /** The ids of {@code messages}, in order. */
    public static List<String> ids(List<Delivered> messages) {
        return messages.stream().map(Delivered::id).toList();
    }

    /** The offsets of {@code messages}, in order. */
    public static List<Long> offsets(List<Delivered> messages) {
        return messages.stream().map(Delivered::offset).toList();
    }

    /** The delivery attempts of {@code messages}, in order. */
    public static List<Integer> attempts(List<Delivered> messages) {
        return messages.stream().map(Delivered::deliveryAttempt).toList();
    }
}
