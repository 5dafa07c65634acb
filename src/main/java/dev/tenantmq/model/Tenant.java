package dev.tenantmq.model;

/** Shard key and isolation unit (RFC "Naming"); an operational name, validated by {@link Identifiers#nameProblem}. */
public record Tenant(String value) {
    /** @throws InvalidRequestException (field {@code tenant}) when the value breaks SPEC section 3 */
    public Tenant {
        Identifiers.require("tenant", Identifiers.nameProblem(value));
    }

    @Override
    public String toString() {
        return value;
    }
}
