package dev.tenantmq.domain;

/** Shard key and isolation unit (RFC "Naming"); an operational name, validated by {@link Identifiers#nameProblem}. */
public record Tenant(String value) {
    /** @throws InvalidRequestException (field {@code tenant}) when the value breaks SPEC section 3 */
    public Tenant {
        Identifiers.require("tenant", Identifiers.nameProblem(value));
    }

    /**
     * Parses a value that arrived in the named request field.
     *
     * @throws InvalidRequestException naming {@code field} when invalid
     */
    public static Tenant parse(String field, String value) {
        Identifiers.require(field, Identifiers.nameProblem(value));
        return new Tenant(value);
    }

    @Override
    public String toString() {
        return value;
    }
}
