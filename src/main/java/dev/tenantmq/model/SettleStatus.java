package dev.tenantmq.model;

/**
 * The outcome of settling one receipt (SPEC section 4, "Ack, nack, extend").
 */
public enum SettleStatus {
    /** The ack, nack or extend happened. */
    DONE,
    /** This very delivery was acknowledged before (or the committed offset covers the message). */
    ALREADY_ACKED,
    /** Another delivery or lease owns the message now; nothing changed. */
    STALE,
    /**
     * The receipt names no message: above the group's committed offset and not stored (a forged
     * offset, or a message deleted by an operator or by retention's maximum age).
     */
    NO_MESSAGE
}
