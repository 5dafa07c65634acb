package dev.tenantmq.model;

/** Caller-chosen message id, unique per (tenant, topic, partitionKey); a caller key, validated by {@link Identifiers#keyProblem}. */
public record MessageId(String value) {
    /** @throws InvalidRequestException (field {@code id}) when the value breaks SPEC section 3 */
    public MessageId {
        Identifiers.require("id", Identifiers.keyProblem(value));
    }

    @Override
    public String toString() {
        return value;
    }
}
