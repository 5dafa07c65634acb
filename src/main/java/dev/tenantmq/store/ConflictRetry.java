package dev.tenantmq.store;

import dev.tenantmq.model.StoreUnavailableException;

/**
 * A row this transaction read changed or went away without going through the lock every writer
 * of it takes first (retention or an admin delete of the message did it), so the transaction's
 * reads are stale. {@link Db#inTransaction} rolls back and runs the whole work again with fresh
 * reads, as it does after a deadlock, with the same limit and backoff; when the conflicts outlast
 * the retries the caller gets {@link StoreUnavailableException} (HTTP 503, retry later).
 */
final class ConflictRetry extends RuntimeException {
    /** @param reason which checked statement found its row gone or changed */
    ConflictRetry(String reason) {
        super(reason);
    }
}
