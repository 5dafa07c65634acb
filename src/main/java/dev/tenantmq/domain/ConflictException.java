package dev.tenantmq.domain;

/** The request is well-formed but the stored state does not allow it (nothing changed); maps to HTTP 409. */
public class ConflictException extends RuntimeException {
    /** @param message why, for the problem detail */
    public ConflictException(String message) {
        super(message);
    }
}
