package dev.tenantmq.model;

import java.util.regex.Pattern;

/**
 * The identifier rules of SPEC section 3, checked in the process before any database access
 * (RFC "Schema": "a bad value fails in the process, not as a SQL error").
 */
public final class Identifiers {
    /** Longest identifier, in characters (operational names) or code points (caller keys). */
    public static final int MAX_LENGTH = 255;

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._:-]*");

    private Identifiers() {}

    /**
     * Checks an operational name (tenant, topic, consumer group, subscriber name): 1 to 255
     * characters of {@code [A-Za-z0-9._:-]}, starting with a letter or digit. These columns are
     * {@code ascii_bin}, so the value is case-sensitive.
     *
     * @return null when valid, else a sentence naming the rule that failed
     */
    public static String nameProblem(String value) {
        if (value == null || value.isEmpty()) {
            return "is required (1-255 characters of [A-Za-z0-9._:-], starting with a letter or digit)";
        }
        if (value.length() > MAX_LENGTH) {
            return "must be at most 255 characters (got " + value.length() + ")";
        }
        if (!NAME.matcher(value).matches()) {
            return "must be 1-255 characters of [A-Za-z0-9._:-], starting with a letter or digit";
        }
        return null;
    }

    /**
     * Checks a topic published to: a name ({@link #nameProblem}) that leaves room for the
     * dead-letter suffix, so that its dead-letter topic {@code <topic><suffix>} is a name too.
     *
     * @param dlqSuffix the dead-letter suffix ({@code mq.dlq-suffix})
     * @return null when valid, else a sentence naming the rule that failed
     */
    public static String publishTopicProblem(String topic, String dlqSuffix) {
        String problem = nameProblem(topic);
        if (problem == null && topic.length() + dlqSuffix.length() > MAX_LENGTH) {
            return "must leave room for the dead-letter suffix '" + dlqSuffix + "': at most "
                    + (MAX_LENGTH - dlqSuffix.length()) + " characters";
        }
        return problem;
    }

    /**
     * {@link #keyProblem} for an optional key (a message's id): none is fine, and one sent empty
     * was given, not left out, so it is told its size rather than that it "is required" (docs/api.md,
     * "Publish": without an id the service generates one).
     *
     * @return null when absent or valid, else a sentence naming the rule that failed
     */
    public static String optionalKeyProblem(String value) {
        if (value == null) {
            return null;
        }
        if (value.isEmpty()) {
            return "must be 1-255 Unicode code points, or left out for a generated id (got an empty string)";
        }
        return keyProblem(value);
    }

    /**
     * Checks a caller key (partition key, message id): 1 to 255 Unicode code points (not UTF-16
     * units), well-formed (no lone surrogates), no U+0000, and no trailing U+0020, because the
     * {@code utf8mb4_bin} collation is PAD SPACE and would make {@code "k"} equal {@code "k "}.
     *
     * @return null when valid, else a sentence naming the rule that failed
     */
    public static String keyProblem(String value) {
        if (value == null || value.isEmpty()) {
            return "is required (1-255 Unicode code points)";
        }
        int codePoints = 0;
        for (int i = 0; i < value.length(); ) {
            char c = value.charAt(i);
            if (Character.isHighSurrogate(c)) {
                if (i + 1 >= value.length() || !Character.isLowSurrogate(value.charAt(i + 1))) {
                    return "must be well-formed Unicode (lone surrogate at index " + i + ")";
                }
                i += 2;
            } else if (Character.isLowSurrogate(c)) {
                return "must be well-formed Unicode (lone surrogate at index " + i + ")";
            } else {
                if (c == '\u0000') {
                    return "must not contain U+0000";
                }
                i++;
            }
            codePoints++;
        }
        if (codePoints > MAX_LENGTH) {
            return "must be at most 255 Unicode code points (got " + codePoints + ")";
        }
        if (value.charAt(value.length() - 1) == ' ') {
            return "must not end with a space (U+0020): the PAD SPACE collation would equate it with the trimmed key";
        }
        return null;
    }

    /** True when {@code s} has no lone surrogate, so it encodes to UTF-8 (and utf8mb4) exactly. */
    public static boolean isWellFormed(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c)) {
                if (i + 1 >= s.length() || !Character.isLowSurrogate(s.charAt(i + 1))) {
                    return false;
                }
                i++;
            } else if (Character.isLowSurrogate(c)) {
                return false;
            }
        }
        return true;
    }

    /** Throws {@link InvalidRequestException} naming {@code field} when {@code problem} is not null. */
    static void require(String field, String problem) {
        if (problem != null) {
            throw InvalidRequestException.of(field, problem);
        }
    }
}
