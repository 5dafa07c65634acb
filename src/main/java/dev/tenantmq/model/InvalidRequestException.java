package dev.tenantmq.model;

import java.util.List;

/**
 * The request breaks a validation rule; maps to HTTP 400 with one entry per broken rule. On the
 * ground floor because the value types throw it from their constructors, and every layer that
 * builds them (api, domain, config) must be able to catch it.
 */
public class InvalidRequestException extends RuntimeException {
    private final transient List<FieldError> errors;

    /** @param errors at least one broken rule */
    public InvalidRequestException(List<FieldError> errors) {
        super(errors.isEmpty() ? "invalid request" : errors.get(0).field() + ": " + errors.get(0).message());
        this.errors = List.copyOf(errors);
    }

    /** Convenience for a single broken rule. */
    public static InvalidRequestException of(String field, String message) {
        return new InvalidRequestException(List.of(new FieldError(field, message)));
    }

    /** The broken rules, in the order they were found. */
    public List<FieldError> errors() {
        return errors;
    }
}
