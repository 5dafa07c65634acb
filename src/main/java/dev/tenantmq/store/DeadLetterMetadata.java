package dev.tenantmq.store;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The metadata of a dead letter (SPEC "Dead letters"): the original metadata (an object of
 * strings) plus {@code original_topic}, {@code original_offset}, {@code consumer_group},
 * {@code dead_letter_reason} and {@code delivery_attempts}. {@code consumer_group} names
 * every group that dead-lettered the message, comma-separated in the order they did so (group
 * names cannot contain a comma); the reason and attempts are those of the first group.
 */
public final class DeadLetterMetadata {
    public static final String ORIGINAL_TOPIC = "original_topic";
    public static final String ORIGINAL_OFFSET = "original_offset";
    public static final String CONSUMER_GROUP = "consumer_group";
    public static final String DEAD_LETTER_REASON = "dead_letter_reason";
    public static final String DELIVERY_ATTEMPTS = "delivery_attempts";

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final TypeReference<LinkedHashMap<String, String>> MAP = new TypeReference<>() {};

    private DeadLetterMetadata() {}

    /** The metadata of a new dead letter: {@code originalJson} plus the five keys. */
    static String of(String originalJson, String originalTopic, long originalOffset, String consumerGroup, String reason,
                     int deliveryAttempts) {
        Map<String, String> m = parse(originalJson);
        m.put(ORIGINAL_TOPIC, originalTopic);
        m.put(ORIGINAL_OFFSET, Long.toString(originalOffset));
        m.put(CONSUMER_GROUP, consumerGroup);
        m.put(DEAD_LETTER_REASON, reason);
        m.put(DELIVERY_ATTEMPTS, Integer.toString(deliveryAttempts));
        return write(m);
    }

    /** {@code json} with {@code group} appended to {@code consumer_group} unless already named. */
    static String addGroup(String json, String group) {
        Map<String, String> m = parse(json);
        List<String> groups = groups(m);
        if (!groups.contains(group)) {
            groups.add(group);
        }
        m.put(CONSUMER_GROUP, String.join(",", groups));
        return write(m);
    }

    /** Whether {@code json} is the metadata of a dead letter of the message at {@code originalOffset} of {@code originalTopic}. */
    static boolean isDeadLetterOf(String json, String originalTopic, long originalOffset) {
        Map<String, String> m = parse(json);
        return originalTopic.equals(m.get(ORIGINAL_TOPIC)) && Long.toString(originalOffset).equals(m.get(ORIGINAL_OFFSET));
    }

    /** The groups {@code consumer_group} names; empty when absent. */
    public static List<String> groups(Map<String, String> metadata) {
        String v = metadata.get(CONSUMER_GROUP);
        List<String> out = new ArrayList<>();
        if (v != null && !v.isEmpty()) {
            out.addAll(Arrays.asList(v.split(",")));
        }
        return out;
    }

    /** Parses stored metadata (an object of strings). */
    public static Map<String, String> parse(String json) {
        try {
            return JSON.readValue(json, MAP);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("stored metadata is not an object of strings", e);
        }
    }

    private static String write(Map<String, String> m) {
        try {
            return JSON.writeValueAsString(m);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot serialize string metadata", e);
        }
    }
}
