package dev.tenantmq.domain;

import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * The receipt tokens of one request (an ack, nack or extend, or a fetch's {@code ack}), each
 * verified and decoded at most once, when first asked for ({@link ReceiptSigning#tokens}): the
 * permission check of the API and the settlement of {@link ConsumeService} read the same decode
 * instead of checking every token's signature again (docs/security.md, "Receipt signing").
 * Lazy, so that a list is never decoded before its size is checked.
 *
 * <p>One request's object; its steps run one after another (on the event loop, then a worker), so
 * it takes no lock. Two threads asking for the same token at once would each decode it, to the
 * same value.
 */
public final class ReceiptTokens {
    private final List<String> tokens;
    private final Function<String, Optional<Receipt>> decoder;
    /** Per token: null while not decoded yet, else what it names (empty: not a valid receipt). */
    private final Optional<?>[] decoded;

    /** @param decoder what a token names ({@link ReceiptSigning#decode}) */
    ReceiptTokens(List<String> tokens, Function<String, Optional<Receipt>> decoder) {
        this.tokens = java.util.Collections.unmodifiableList(new java.util.ArrayList<>(tokens)); // a null token is INVALID, not an error
        this.decoder = decoder;
        this.decoded = new Optional<?>[this.tokens.size()];
    }

    /** The tokens as the caller sent them, in request order. */
    public List<String> tokens() {
        return tokens;
    }

    /** How many tokens there are. */
    public int size() {
        return tokens.size();
    }

    /**
     * The receipt token {@code i} names, or empty when it is not one this service signed with an
     * accepted key ({@link Receipt#decode}; the service answers {@code INVALID} for it).
     *
     * @throws IndexOutOfBoundsException for an index outside {@code 0..size()-1}
     */
    @SuppressWarnings("unchecked")
    public Optional<Receipt> receipt(int i) {
        Optional<?> known = decoded[i];
        if (known == null) {
            known = decoder.apply(tokens.get(i));
            decoded[i] = known;
        }
        return (Optional<Receipt>) known;
    }
}
