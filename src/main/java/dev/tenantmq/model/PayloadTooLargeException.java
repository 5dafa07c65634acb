package dev.tenantmq.model;

/**
 * A message payload is larger than {@code mq.publish.max-payload-bytes}; maps to HTTP 413 naming
 * the payload, its size, the setting and its value (docs/api.md, "Errors").
 */
public class PayloadTooLargeException extends RuntimeException {
    private final String field;
    private final String rule;

    /**
     * @param field JSON path of the payload, e.g. {@code messages[2].payload}
     * @param sizeBytes size of its UTF-8 JSON text in bytes
     * @param limitBytes the configured limit in bytes
     */
    public PayloadTooLargeException(String field, long sizeBytes, long limitBytes) {
        this(field, "is " + sizeBytes + " bytes, over the limit of " + limitBytes + " bytes (mq.publish.max-payload-bytes)");
    }

    private PayloadTooLargeException(String field, String rule) {
        super(field + " " + rule);
        this.field = field;
        this.rule = rule;
    }

    /** JSON path of the offending payload. */
    public String field() {
        return field;
    }

    /** The rule the payload breaks, with both sizes: the message without the field. */
    public String rule() {
        return rule;
    }
}
