package dev.tenantmq.model;

/**
 * What one fetch may still hand out, in messages and in payload bytes, and the one home of the
 * byte-budget rule (docs/api.md, "Lease-fetch"; Kafka's {@code fetch.max.bytes}): a message fits
 * while the fetch has room for one more message and its payload fits in the bytes left, except
 * that the first message of a fetch always fits, however large, so a message larger than any
 * budget is still delivered (alone) and never holds its partition forever.
 *
 * <p>Bytes are the payload's bytes as stored: the UTF-8 length of its JSON text, what publish
 * counts against {@code mq.publish.max-payload-bytes}. Metadata, ids and the response's own JSON
 * are not counted (they are bounded per message by other limits).
 *
 * <p>Immutable: {@link #take} returns the budget after one more message, so a transaction that is
 * retried starts again from the budget it was given.
 *
 * @param messagesLeft messages the fetch may still hand out, at least 0
 * @param bytesLeft payload bytes the fetch may still hand out, at least 0
 * @param started whether the fetch has handed out a message already (the first one always fits)
 */
public record FetchBudget(int messagesLeft, long bytesLeft, boolean started) {
    /** A budget that lets nothing out: the scheduler's dead-letter sweep. */
    public static final FetchBudget NOTHING = new FetchBudget(0, 0, false);

    /** @throws IllegalArgumentException when a count is negative (a bug) */
    public FetchBudget {
        if (messagesLeft < 0 || bytesLeft < 0) {
            throw new IllegalArgumentException("a fetch budget cannot be negative: " + messagesLeft + " messages, "
                    + bytesLeft + " bytes");
        }
    }

    /**
     * The budget of a new fetch.
     *
     * @param maxMessages the fetch's {@code maxMessages}
     * @param maxBytes the fetch's {@code maxBytes}, in payload bytes
     */
    public static FetchBudget of(int maxMessages, long maxBytes) {
        return new FetchBudget(maxMessages, maxBytes, false);
    }

    /** A budget of messages only, with no byte limit (tests, and callers that count messages alone). */
    public static FetchBudget messages(int maxMessages) {
        return of(maxMessages, Long.MAX_VALUE);
    }

    /**
     * The size of a payload as budgets count it: the UTF-8 length of its JSON text, counted
     * without encoding it. A lone surrogate (never stored: publish refuses it) counts as the
     * three bytes of its replacement character.
     */
    public static long bytesOf(String payloadJson) {
        long bytes = 0;
        for (int i = 0; i < payloadJson.length(); i++) {
            char c = payloadJson.charAt(i);
            if (c < 0x80) {
                bytes += 1;
            } else if (c < 0x800) {
                bytes += 2;
            } else if (Character.isHighSurrogate(c) && i + 1 < payloadJson.length()
                    && Character.isLowSurrogate(payloadJson.charAt(i + 1))) {
                bytes += 4;
                i++;
            } else {
                bytes += 3;
            }
        }
        return bytes;
    }

    /** Whether a message with a payload of {@code payloadBytes} may go out now. */
    public boolean fits(long payloadBytes) {
        return messagesLeft > 0 && (!started || payloadBytes <= bytesLeft);
    }

    /**
     * The budget after handing out one message of {@code payloadBytes}.
     *
     * @throws IllegalStateException when it does not {@link #fits} (a bug in the caller)
     */
    public FetchBudget take(long payloadBytes) {
        if (!fits(payloadBytes)) {
            throw new IllegalStateException("a message of " + payloadBytes + " bytes does not fit in " + this);
        }
        return new FetchBudget(messagesLeft - 1, Math.max(0, bytesLeft - payloadBytes), true);
    }

    /**
     * Whether no further message can fit: no messages left, or a started fetch with no bytes left
     * (a stored payload is JSON text, at least one byte).
     */
    public boolean spent() {
        return messagesLeft == 0 || (started && bytesLeft == 0);
    }

    /**
     * The budget of one fetch as the walks of one lease transaction spend it, partition after
     * partition ({@link PartitionWalk}): each hand-out takes from it, so the byte budget is shared
     * by every partition of the fetch. Made anew for each attempt of the transaction, from the
     * immutable budget the attempt was given; not thread-safe (one transaction's walks run in one
     * thread).
     */
    public static final class Meter {
        private FetchBudget budget;

        /** @param budget what the fetch may still hand out when the transaction starts */
        public Meter(FetchBudget budget) {
            this.budget = budget;
        }

        /** A meter that never limits: for walks whose own message budget is their only limit. */
        public static Meter unlimited() {
            return new Meter(messages(Integer.MAX_VALUE));
        }

        /** Whether a message with a payload of {@code payloadBytes} may go out now ({@link FetchBudget#fits}). */
        public boolean fits(long payloadBytes) {
            return budget.fits(payloadBytes);
        }

        /** Takes one message of {@code payloadBytes} from the budget ({@link FetchBudget#take}). */
        public void take(long payloadBytes) {
            budget = budget.take(payloadBytes);
        }

        /** What the fetch may still hand out. */
        public FetchBudget budget() {
            return budget;
        }
    }
}
