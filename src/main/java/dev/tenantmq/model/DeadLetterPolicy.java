package dev.tenantmq.model;

/**
 * When and where a consumer group dead-letters (SPEC "Dead letters"). A domain decision (the
 * service derives it from {@code mq.max-deliveries} and {@code mq.dlq-suffix}) that the store
 * carries out, so it lives on the ground floor both may use.
 *
 * @param maxDeliveries failed attempts after which a message is dead-lettered
 * @param dlqTopic {@code <topic><suffix>}, or null when there is no dead-letter topic
 */
public record DeadLetterPolicy(int maxDeliveries, String dlqTopic) {
    /** No dead-letter topic: failed messages are retried without limit. */
    public static final DeadLetterPolicy NEVER = new DeadLetterPolicy(Integer.MAX_VALUE, null);
}
