package dev.tenantmq.model;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;

/**
 * The rules of a publish batch, before the store sees it (SPEC section 4, "Publish"): the batch
 * size, the payload and metadata limits, the {@code queue_name} stamp and the generated id. Their
 * one home: the service's {@code PublishService} and the JDBC library (clients/jdbc,
 * docs/transactional-publish.md) both apply them, so a message published either way is stored
 * alike. Pure: no I/O, and the limits come from the caller (the service's
 * {@code mq.publish.*} settings, docs/settings.md).
 */
public final class PublishRules {
    /** Metadata key stamped with the tenant (RFC "Publish": mirrors Message.Tenant). */
    public static final String QUEUE_NAME = "queue_name";

    private PublishRules() {}

    /**
     * The limits a batch is held to.
     *
     * @param maxBatchSize most messages in one batch ({@code mq.publish.max-batch-size})
     * @param maxPayloadBytes largest payload, in bytes of its UTF-8 JSON text ({@code mq.publish.max-payload-bytes})
     * @param maxMetadataBytes largest metadata, in bytes of its UTF-8 JSON text with {@link #QUEUE_NAME}
     *     stamped ({@code mq.publish.max-metadata-bytes})
     */
    public record Limits(int maxBatchSize, int maxPayloadBytes, int maxMetadataBytes) {
        /** The service's defaults (docs/settings.md): 1000 messages, 1 MiB payloads, 16 KiB metadata. */
        public static final Limits DEFAULTS = new Limits(1000, 1_048_576, 16_384);
    }

    /**
     * A message ready for the store.
     *
     * @param id the caller's id, or a random UUID when {@code generatedId}
     * @param metadataJson the metadata as a JSON object of strings, {@link #QUEUE_NAME} stamped
     * @param payloadBytes the payload's size in UTF-8 bytes (for quotas)
     */
    public record Stamped(String partitionKey, String id, String payloadJson, String metadataJson, boolean generatedId,
                          int payloadBytes) {}

    /**
     * The batch-size rule: 1..{@code max} messages.
     *
     * @throws InvalidRequestException naming {@code messages} when the size is out of range (400)
     */
    public static void requireBatchSize(int size, int max) {
        if (size < 1 || size > max) {
            throw InvalidRequestException.of("messages", "must hold 1.." + max + " messages (got " + size + ")");
        }
    }

    /**
     * Checks the limits of message {@code index} of a batch and stamps it: {@link #QUEUE_NAME} set
     * to the tenant, an id generated when {@code id} is null.
     *
     * @param payloadJson the payload as JSON text, already known to be one JSON value
     * @param metadata caller metadata, possibly empty; keys and values non-null, well-formed Unicode
     * @throws PayloadTooLargeException when the payload is over the limit (413)
     * @throws InvalidRequestException naming {@code messages[index].metadata...} for a foreign
     *     {@code queue_name}, a null or malformed key or value, or metadata over the limit (400)
     */
    public static Stamped stamp(int index, Tenant tenant, PartitionKey partitionKey, MessageId id, String payloadJson,
                                Map<String, String> metadata, Limits limits) {
        String at = "messages[" + index + "]";
        int bytes = payloadJson.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > limits.maxPayloadBytes()) {
            throw new PayloadTooLargeException(at + ".payload", bytes, limits.maxPayloadBytes());
        }
        String stamped = metadata.get(QUEUE_NAME);
        if (stamped != null && !stamped.equals(tenant.value())) {
            throw InvalidRequestException.of(at + ".metadata." + QUEUE_NAME,
                    "is stamped by the service with the tenant ('" + tenant.value() + "'); a different value is not allowed");
        }
        Map<String, String> out = new LinkedHashMap<>();
        for (Map.Entry<String, String> e : metadata.entrySet()) {
            if (e.getKey() == null || e.getValue() == null) {
                throw InvalidRequestException.of(at + ".metadata." + e.getKey(), "must be a string, not null");
            }
            if (!Identifiers.isWellFormed(e.getKey()) || !Identifiers.isWellFormed(e.getValue())) {
                throw InvalidRequestException.of(at + ".metadata." + e.getKey(), "must be well-formed Unicode (no lone surrogate)");
            }
            out.put(e.getKey(), e.getValue());
        }
        out.put(QUEUE_NAME, tenant.value());
        String metadataJson = metadataJson(out);
        int metadataBytes = metadataJson.getBytes(StandardCharsets.UTF_8).length;
        if (metadataBytes > limits.maxMetadataBytes()) {
            throw InvalidRequestException.of(at + ".metadata", "must be at most "
                    + limits.maxMetadataBytes() + " bytes of JSON (got " + metadataBytes + ")");
        }
        boolean generated = id == null;
        return new Stamped(partitionKey.value(), generated ? UUID.randomUUID().toString() : id.value(), payloadJson,
                metadataJson, generated, bytes);
    }

    /**
     * A map of strings as a compact JSON object, in iteration order, escaped as Jackson's default
     * writer escapes ({@code "}, {@code \}, and control characters; the short forms {@code \b \t
     * \n \f \r}, else a backslash-u escape of four upper-case hex digits): the same text the service stored when it
     * serialized metadata with Jackson, so the metadata limit counts the same bytes.
     */
    static String metadataJson(Map<String, String> metadata) {
        StringBuilder out = new StringBuilder("{");
        for (Map.Entry<String, String> e : metadata.entrySet()) {
            if (out.length() > 1) {
                out.append(',');
            }
            quote(out, e.getKey());
            out.append(':');
            quote(out, e.getValue());
        }
        return out.append('}').toString();
    }

    private static void quote(StringBuilder out, String s) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char ch = s.charAt(i);
            switch (ch) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\b' -> out.append("\\b");
                case '\t' -> out.append("\\t");
                case '\n' -> out.append("\\n");
                case '\f' -> out.append("\\f");
                case '\r' -> out.append("\\r");
                default -> {
                    if (ch < 0x20) {
                        out.append(String.format("\\u%04X", (int) ch));
                    } else {
                        out.append(ch);
                    }
                }
            }
        }
        out.append('"');
    }
}
