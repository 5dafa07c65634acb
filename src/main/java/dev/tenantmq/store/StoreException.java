package dev.tenantmq.store;

/**
 * A database error that is neither unavailability nor a retryable conflict: a bug in the
 * service or its schema. Maps to HTTP 500 without details.
 */
public class StoreException extends RuntimeException {
    /** @param message what the store was doing; @param cause the driver's error */
    public StoreException(String message, Throwable cause) {
        super(message, cause);
    }
}
