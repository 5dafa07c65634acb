package dev.tenantmq.domain;

/** Ordering unit inside (tenant, topic); not the shard key; a caller key, validated by {@link Identifiers#keyProblem}. */
public record PartitionKey(String value) {
    /** @throws InvalidRequestException (field {@code partitionKey}) when the value breaks SPEC section 3 */
    public PartitionKey {
        Identifiers.require("partitionKey", Identifiers.keyProblem(value));
    }

    /**
     * Parses a value that arrived in the named request field.
     *
     * @throws InvalidRequestException naming {@code field} when invalid
     */
    public static PartitionKey parse(String field, String value) {
        Identifiers.require(field, Identifiers.keyProblem(value));
        return new PartitionKey(value);
    }

    @Override
    public String toString() {
        return value;
    }
}
