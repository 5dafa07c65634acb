package dev.tenantmq.model;

/** A message payload is larger than {@code mq.publish.max-payload-bytes}; maps to HTTP 413. */
public class PayloadTooLargeException extends RuntimeException {
    private final String field;

    /**
     * @param field JSON path of the payload, e.g. {@code messages[2].payload}
     * @param sizeBytes size of its UTF-8 JSON text in bytes
     * @param limitBytes the configured limit in bytes
     */
    public PayloadTooLargeException(String field, long sizeBytes, long limitBytes) {
        super("payload is " + sizeBytes + " bytes; the limit is " + limitBytes + " bytes");
        this.field = field;
    }

    /** JSON path of the offending payload. */
    public String field() {
        return field;
    }
}
