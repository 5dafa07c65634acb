package dev.tenantmq.domain;

/** Caller-chosen message id, unique per (tenant, topic, partitionKey); a caller key, validated by {@link Identifiers#keyProblem}. */
public record MessageId(String value) {
    /** @throws InvalidRequestException (field {@code id}) when the value breaks SPEC section 3 */
    public MessageId {
        Identifiers.require("id", Identifiers.keyProblem(value));
    }

    /**
     * Parses a value that arrived in the named request field.
     *
     * @throws InvalidRequestException naming {@code field} when invalid
     */
    public static MessageId parse(String field, String value) {
        Identifiers.require(field, Identifiers.keyProblem(value));
        return new MessageId(value);
    }

    @Override
    public String toString() {
        return value;
    }
}
