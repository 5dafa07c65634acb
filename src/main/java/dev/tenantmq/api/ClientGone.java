package dev.tenantmq.api;

import java.io.IOException;
import java.nio.channels.ClosedChannelException;
import java.util.Set;

/**
 * Recognises the errors of a request whose client went away (it closed the connection or gave
 * up waiting, say while this process was paused): reading its body or writing its answer fails.
 * That is not a server error; it is logged as one INFO line without a stack trace, and no
 * answer can reach the client anyway.
 */
final class ClientGone {
    private ClientGone() {}

    /**
     * Exception types, by simple name, that mean the connection to the client is closed:
     * Vert.x's {@code HttpClosedException} ("Connection was closed") and its stream-reset
     * counterpart, and Netty's closed-channel errors.
     */
    private static final Set<String> CLOSED = Set.of("HttpClosedException", "StreamResetException",
            "StacklessClosedChannelException", "ClosedChannelException");

    /** I/O messages of a connection the peer ended (Linux, as the JDK reports them). */
    private static final Set<String> PEER_ENDED = Set.of("Connection reset by peer", "Broken pipe");

    /** Whether {@code e}, or an exception in its cause chain, means the client went away. */
    static boolean isClientGone(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof ClosedChannelException || CLOSED.contains(t.getClass().getSimpleName())) {
                return true;
            }
            if (t instanceof IOException && t.getMessage() != null && PEER_ENDED.contains(t.getMessage())) {
                return true;
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return false;
    }

    /** The one-line description logged for such a request: the exception's type and message. */
    static String describe(Throwable e) {
        return e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
    }
}
