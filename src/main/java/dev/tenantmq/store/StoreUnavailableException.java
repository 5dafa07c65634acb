package dev.tenantmq.store;

/**
 * The database could not be reached or did not answer in time (connection refused, pool
 * exhausted, a shard down). Maps to HTTP 503 with {@code Retry-After}; nothing was changed.
 */
public class StoreUnavailableException extends RuntimeException {
    /** @param cause the driver's or pool's error */
    public StoreUnavailableException(Throwable cause) {
        super("database unavailable: " + cause.getMessage(), cause);
    }
}
