package dev.tenantmq.model;

/** One process of a consumer group, holder of partition leases; an operational name, validated by {@link Identifiers#nameProblem}. */
public record SubscriberName(String value) {
    /** @throws InvalidRequestException (field {@code subscriberName}) when the value breaks SPEC section 3 */
    public SubscriberName {
        Identifiers.require("subscriberName", Identifiers.nameProblem(value));
    }

    @Override
    public String toString() {
        return value;
    }
}
