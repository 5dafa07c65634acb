package dev.tenantmq.model;

/**
 * The database could not be reached or did not answer in time (connection refused, pool
 * exhausted, a shard down). Maps to HTTP 503 with {@code Retry-After}; nothing was changed.
 * Thrown by the store and passed through the domain and the scheduler to the HTTP layer, so it
 * lives on the ground floor that every layer may use (the HTTP layer must not import the store).
 */
public class StoreUnavailableException extends RuntimeException {
    /** @param cause the driver's or pool's error */
    public StoreUnavailableException(Throwable cause) {
        super("database unavailable: " + cause.getMessage(), cause);
    }
}
