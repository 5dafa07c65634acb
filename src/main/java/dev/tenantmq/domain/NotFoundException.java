package dev.tenantmq.domain;

/** The named message (or other resource) does not exist; maps to HTTP 404. */
public class NotFoundException extends RuntimeException {
    /** @param message what was not found, for the problem detail */
    public NotFoundException(String message) {
        super(message);
    }
}
