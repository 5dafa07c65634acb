package dev.tenantmq.model;

/** An independent reader of a topic with its own offsets; an operational name, validated by {@link Identifiers#nameProblem}. */
public record ConsumerGroup(String value) {
    /** @throws InvalidRequestException (field {@code consumerGroup}) when the value breaks SPEC section 3 */
    public ConsumerGroup {
        Identifiers.require("consumerGroup", Identifiers.nameProblem(value));
    }

    @Override
    public String toString() {
        return value;
    }
}
