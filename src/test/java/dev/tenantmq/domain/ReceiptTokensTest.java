package dev.tenantmq.domain;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The receipts of one request are verified and decoded once, when first asked for, however many
 * steps read them (docs/architecture.md, "Rows into responses").
 */
class ReceiptTokensTest {
    private static final ReceiptKeys KEYS = ReceiptKeys.ofBytes(
            "receipt-tokens-test-key-of-32-bytes!!".getBytes(StandardCharsets.UTF_8));

    @Test
    void each_token_is_decoded_once_when_first_asked_for_and_never_before() {
        Receipt first = new Receipt("t", "g", "topic", "k", 1, 1, 1);
        Receipt second = new Receipt("t", "g", "topic", "k", 2, 1, 1);
        List<String> asked = new ArrayList<>();
        ReceiptTokens tokens = new ReceiptTokens(List.of(first.encode(KEYS), "forged", second.encode(KEYS)), token -> {
            asked.add(token);
            return Receipt.decode(token, KEYS);
        });
        assertEquals(3, tokens.size());
        assertEquals(List.of(), asked, "nothing is decoded before it is asked for");

        assertEquals(Optional.of(first), tokens.receipt(0));
        assertEquals(Optional.of(first), tokens.receipt(0));
        assertEquals(Optional.empty(), tokens.receipt(1));
        assertEquals(Optional.empty(), tokens.receipt(1));
        assertEquals(List.of(first.encode(KEYS), "forged"), asked, "each once, the third not yet");
        assertEquals(Optional.of(second), tokens.receipt(2));
        assertEquals(3, asked.size());
        assertEquals("forged", tokens.tokens().get(1));
        assertThrows(IndexOutOfBoundsException.class, () -> tokens.receipt(3));
    }
}
