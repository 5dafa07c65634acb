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

    /**
     * Whether {@code topic} is a dead-letter topic, {@code <topic><suffix>} (SPEC "Dead letters"):
     * its name ends with the suffix ({@code mq.dlq-suffix}) and is longer than it. The one home of
     * the naming rule: requeue accepts only such a topic, and publishing to one needs the admin
     * permission (docs/security.md, "Permissions").
     */
    public static boolean isDeadLetterTopic(String topic, String suffix) {
        return topic != null && !suffix.isEmpty() && topic.length() > suffix.length() && topic.endsWith(suffix);
    }
}
