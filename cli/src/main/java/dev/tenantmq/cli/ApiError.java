package dev.tenantmq.cli;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * An HTTP error answer of the service. Its body is normally an RFC 9457 problem
 * ({@code application/problem+json}: type, title, status, detail, errors[field, message]);
 * {@link #problem()} is null when it is not JSON (a proxy's HTML page, for example).
 */
public final class ApiError extends RuntimeException {
    private final int status;
    private final String body;
    private final transient JsonNode problem;

    ApiError(int status, String body, JsonNode problem) {
        super("HTTP " + status);
        this.status = status;
        this.body = body;
        this.problem = problem;
    }

    /** The HTTP status. */
    public int status() {
        return status;
    }

    /** The raw response body. */
    public String body() {
        return body;
    }

    /** The problem document, or null when the body was not a JSON object. */
    public JsonNode problem() {
        return problem;
    }
}
