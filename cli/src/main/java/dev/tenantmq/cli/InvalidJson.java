package dev.tenantmq.cli;

/**
 * A text that is not exactly one JSON value; the message says why in plain words and where,
 * e.g. "numbers may not have leading zeros (line 1, column 7)" ({@link JsonErrorWords}).
 */
public final class InvalidJson extends Exception {
    InvalidJson(String message) {
        super(message);
    }
}
