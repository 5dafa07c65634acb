package dev.tenantmq.model;

/** A named stream inside a tenant; an operational name, validated by {@link Identifiers#nameProblem}. */
public record Topic(String value) {
    /** @throws InvalidRequestException (field {@code topic}) when the value breaks SPEC section 3 */
    public Topic {
        Identifiers.require("topic", Identifiers.nameProblem(value));
    }

    @Override
    public String toString() {
        return value;
    }
}
