package dev.tenantmq.model;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The limits of a fetch, an extend and a nack, and their one home (SPEC section 4, "Lease-fetch"
 * and "Ack, nack, extend"): the domain enforces them on every call, and the HTTP validator asks
 * the same methods for the problem+json entries it returns, so the numbers and the messages
 * cannot differ between the two. Each problem names the request field that carries the value.
 */
public final class ConsumeLimits {
    /** Longest long poll, in seconds (SPEC section 4). */
    public static final int MAX_WAIT_SECONDS = 30;
    /**
     * Visibility timeout of a fetch that names none, in seconds, unless a topic or group sets its
     * own ({@link SettingOverrides}).
     */
    public static final int DEFAULT_VISIBILITY_SECONDS = 30;
    /** Longest visibility timeout, in seconds (12 hours, as SQS); a topic or group may set a lower one. */
    public static final int MAX_VISIBILITY_SECONDS = 43_200;
    /** Longest redelivery delay of a nack, in seconds: as long as the longest visibility timeout. */
    public static final int MAX_DELAY_SECONDS = MAX_VISIBILITY_SECONDS;
    /** Longest nack reason, in Unicode code points. */
    public static final int MAX_REASON_LENGTH = 1024;
    /**
     * Longest receipt, in characters. A signed receipt (domain {@code Receipt}, version 4) of the
     * longest names (three of 255 ASCII characters, a partition key of 255 code points at up to 6
     * modified UTF-8 bytes each), three longs and its 16-byte tag is at most 2,344 bytes, 3,126
     * base64 characters; the limit leaves room for a longer format.
     */
    public static final int MAX_RECEIPT_LENGTH = 8192;

    private ConsumeLimits() {}

    /**
     * The broken limits of a fetch, in field order: {@code maxMessages} 1..{@code maxMessagesLimit}
     * ({@code mq.fetch.max-messages}), {@code maxBytes} 1..{@code maxBytesLimit}
     * ({@code mq.fetch.max-bytes}, payload bytes: {@link FetchBudget}), {@code waitSeconds} 0..30,
     * {@code visibilitySeconds} 1..43200.
     *
     * @return empty when the fetch is within its limits
     */
    public static List<FieldError> fetchProblems(int maxMessages, int maxMessagesLimit, int maxBytes, int maxBytesLimit,
                                                 Duration wait, Duration visibility) {
        List<FieldError> problems = new ArrayList<>();
        if (maxMessages < 1 || maxMessages > maxMessagesLimit) {
            problems.add(range("maxMessages", String.valueOf(maxMessages), 1, maxMessagesLimit));
        }
        if (maxBytes < 1 || maxBytes > maxBytesLimit) {
            problems.add(new FieldError("maxBytes", "must be between 1 and " + maxBytesLimit
                    + " payload bytes (got " + maxBytes + "; mq.fetch.max-bytes is the ceiling)"));
        }
        seconds("waitSeconds", wait, 0, MAX_WAIT_SECONDS).ifPresent(problems::add);
        visibilityProblem(visibility).ifPresent(problems::add);
        return problems;
    }

    /** The broken limit of a visibility timeout ({@code visibilitySeconds} 1..43200), if any. */
    public static Optional<FieldError> visibilityProblem(Duration visibility) {
        return seconds("visibilitySeconds", visibility, 1, MAX_VISIBILITY_SECONDS);
    }

    /**
     * The broken limits of a nack, in field order: {@code delaySeconds} 0..43200 when given, and a
     * {@code reason} of at most 1024 code points, well-formed (no lone surrogate), when given.
     *
     * @param delay empty for the configured backoff
     * @param reason null for the default reason
     */
    public static List<FieldError> nackProblems(Optional<Duration> delay, String reason) {
        List<FieldError> problems = new ArrayList<>();
        delay.flatMap(d -> seconds("delaySeconds", d, 0, MAX_DELAY_SECONDS)).ifPresent(problems::add);
        if (reason != null && !Identifiers.isWellFormed(reason)) {
            problems.add(new FieldError("reason", "must be at most " + MAX_REASON_LENGTH
                    + " Unicode code points, well-formed (it holds a lone surrogate)"));
        } else if (reason != null && reason.codePointCount(0, reason.length()) > MAX_REASON_LENGTH) {
            problems.add(new FieldError("reason", "must be at most " + MAX_REASON_LENGTH
                    + " Unicode code points, well-formed (got " + reason.codePointCount(0, reason.length()) + ")"));
        }
        return problems;
    }

    /**
     * The broken limits of the receipts of an ack, nack or extend: each entry a string of at most
     * {@value #MAX_RECEIPT_LENGTH} characters (openapi.yaml, ReceiptsRequest) without a lone
     * surrogate, named {@code receipts[i]}. A receipt within the limits that this service did not
     * sign is not a problem here: it answers {@code INVALID}.
     *
     * @return empty when every receipt is within the limit
     */
    public static List<FieldError> receiptProblems(List<String> receipts) {
        return receiptProblems("receipts", receipts);
    }

    /**
     * The broken limits of a list of receipts named {@code field} (an ack's {@code receipts}, a
     * fetch's {@code ack}), as {@link #receiptProblems(List)}, each named {@code field[i]}.
     */
    public static List<FieldError> receiptProblems(String field, List<String> receipts) {
        List<FieldError> problems = new ArrayList<>();
        for (int i = 0; i < receipts.size(); i++) {
            String r = receipts.get(i);
            if (r == null) {
                problems.add(new FieldError(field + "[" + i + "]", "must be a string, not null"));
            } else if (r.length() > MAX_RECEIPT_LENGTH) {
                problems.add(new FieldError(field + "[" + i + "]", "must be at most " + MAX_RECEIPT_LENGTH
                        + " characters, as a receipt of a fetch is (got " + r.length() + ")"));
            } else if (!Identifiers.isWellFormed(r)) {
                // As every string of a request (docs/api.md, "Limits"): not echoed back as INVALID.
                problems.add(new FieldError(field + "[" + i + "]", "must be well-formed Unicode (it holds a lone surrogate)"));
            }
        }
        return problems;
    }

    /**
     * Throws when any limit is broken.
     *
     * @throws InvalidRequestException with every problem, in order (HTTP 400)
     */
    public static void require(List<FieldError> problems) {
        if (!problems.isEmpty()) {
            throw new InvalidRequestException(problems);
        }
    }

    private static Optional<FieldError> seconds(String field, Duration value, int min, int max) {
        if (value == null) {
            return Optional.of(new FieldError(field, "is required (" + min + ".." + max + " seconds)"));
        }
        if (value.compareTo(Duration.ofSeconds(min)) >= 0 && value.compareTo(Duration.ofSeconds(max)) <= 0) {
            return Optional.empty();
        }
        String got = BigDecimal.valueOf(value.getSeconds()).add(BigDecimal.valueOf(value.getNano(), 9))
                .stripTrailingZeros().toPlainString();
        return Optional.of(range(field, got, min, max));
    }

    private static FieldError range(String field, String got, int min, int max) {
        return new FieldError(field, "must be between " + min + " and " + max + " (got " + got + ")");
    }
}
