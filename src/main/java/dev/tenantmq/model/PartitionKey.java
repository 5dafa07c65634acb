package dev.tenantmq.model;

/** Ordering unit inside (tenant, topic); not the shard key; a caller key, validated by {@link Identifiers#keyProblem}. */
public record PartitionKey(String value) {
    /** @throws InvalidRequestException (field {@code partitionKey}) when the value breaks SPEC section 3 */
    public PartitionKey {
        Identifiers.require("partitionKey", Identifiers.keyProblem(value));
    }

    @Override
    public String toString() {
        return value;
    }
}
