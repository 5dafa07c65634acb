package dev.tenantmq;

import java.util.Map;

/**
 * A fetch request body (SPEC "Fetch") with its numbers named, for {@link Api#fetchOk(String, String, String, Fetch)}:
 * {@code upTo(10).waitSeconds(1).visibilitySeconds(60)}.
 *
 * @param maxMessages at most this many messages in the answer
 * @param waitSeconds how long the fetch may wait (long poll) for a first message, in seconds
 * @param visibilitySeconds how long the delivered messages stay invisible to other fetches, in seconds
 * @param maxBytes the byte budget in payload bytes; null for the server's default
 */
public record Fetch(int maxMessages, int waitSeconds, int visibilitySeconds, Integer maxBytes) {
    /** The wait most tests use: long enough for a lease to be taken on a busy machine. */
    public static final int DEFAULT_WAIT_SECONDS = 5;
    /** The visibility most tests use: longer than any test step, so nothing is redelivered unasked. */
    public static final int DEFAULT_VISIBILITY_SECONDS = 30;

    /** Up to {@code maxMessages}, waiting {@value #DEFAULT_WAIT_SECONDS} s, visible again after {@value #DEFAULT_VISIBILITY_SECONDS} s. */
    public static Fetch upTo(int maxMessages) {
        return new Fetch(maxMessages, DEFAULT_WAIT_SECONDS, DEFAULT_VISIBILITY_SECONDS, null);
    }

    /** This request with another long-poll wait, in seconds. */
    public Fetch waitSeconds(int seconds) {
        return new Fetch(maxMessages, seconds, visibilitySeconds, maxBytes);
    }

    /** This request with another visibility timeout, in seconds. */
    public Fetch visibilitySeconds(int seconds) {
        return new Fetch(maxMessages, waitSeconds, seconds, maxBytes);
    }

    /** This request with a byte budget, in payload bytes. */
    public Fetch maxBytes(int bytes) {
        return new Fetch(maxMessages, waitSeconds, visibilitySeconds, bytes);
    }

    /** The JSON body. */
    Map<String, Object> body() {
        Map<String, Object> body = new java.util.HashMap<>(Map.of("maxMessages", maxMessages, "waitSeconds", waitSeconds,
                "visibilitySeconds", visibilitySeconds));
        if (maxBytes != null) {
            body.put("maxBytes", maxBytes);
        }
        return body;
    }
}
