package dev.tenantmq.domain;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.Base64;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Receipt tokens (SPEC section 4, "Ack, nack, extend"): what decodes, and every way a token
 * that this service did not issue in this format decodes to empty (the caller answers INVALID).
 */
class ReceiptTest {

    @Test
    void the_smallest_valid_offset_and_delivery_round_trip() {
        Receipt r = new Receipt("t", "g", "topic", "k", 1, 0, 1);
        assertEquals(Optional.of(r), Receipt.decode(r.encode()));
    }

    @Test
    void tokens_are_url_safe_without_padding() {
        String token = new Receipt("t", "g", "topic", "\uFFFF\uFFFE?/+", 1, 1, 1).encode();
        assertTrue(token.matches("[A-Za-z0-9_-]+"), token);
    }

    @Test
    void a_token_with_an_impossible_offset_delivery_or_key_is_invalid() {
        assertEquals(Optional.empty(), Receipt.decode(token(2, "k", 0, 1)), "offset 0");
        assertEquals(Optional.empty(), Receipt.decode(token(2, "k", -5, 1)), "negative offset");
        assertEquals(Optional.empty(), Receipt.decode(token(2, "k", 1, 0)), "delivery 0");
        assertEquals(Optional.empty(), Receipt.decode(token(2, "k ", 1, 1)), "a key the rules refuse");
    }

    @Test
    void a_token_of_another_version_is_invalid() {
        assertEquals(Optional.empty(), Receipt.decode(token(1, "k", 1, 1)));
        assertEquals(Optional.empty(), Receipt.decode(token(4, "k", 1, 1)));
        assertTrue(Receipt.decode(token(3, "k", 1, 1)).isPresent(), "the same token as version 3 decodes");
        assertEquals(Optional.of(new Receipt("t", "g", "topic", "k", 1, 3, 1)), Receipt.decode(token(2, "k", 1, 1)),
                "a version 2 token (32-bit delivery number, issued before migration V3) still decodes");
    }

    @Test
    void null_truncated_and_oversized_tokens_are_invalid() {
        String valid = token(2, "k", 1, 1);
        assertEquals(Optional.empty(), Receipt.decode(null));
        assertEquals(Optional.empty(), Receipt.decode(valid.substring(0, valid.length() - 4)));
        assertEquals(Optional.empty(), Receipt.decode("A".repeat(8193)));
        assertEquals(Optional.empty(), Receipt.decode("!!!!"), "not base64");
    }

    @Test
    void a_token_of_the_longest_accepted_length_decodes() {
        // 6144 bytes encode to exactly 8192 base64 characters: 33 bytes of framing and lengths
        // (version 3: a 64-bit delivery number) plus "t", "g", "k" and a topic of the rest.
        Receipt r = new Receipt("t", "g", "x".repeat(6144 - 33 - 3), "k", 1, 1, 1);
        String token = r.encode();
        assertEquals(8192, token.length());
        assertEquals(Optional.of(r), Receipt.decode(token));
    }

    private static String token(int version, String partitionKey, long offset, int delivery) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(version);
            out.writeUTF("t");
            out.writeUTF("g");
            out.writeUTF("topic");
            out.writeUTF(partitionKey);
            out.writeLong(offset);
            out.writeLong(3);
            if (version == 2) {
                out.writeInt(delivery);
            } else {
                out.writeLong(delivery);
            }
        } catch (IOException e) {
            throw new AssertionError(e);
        }
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes.toByteArray());
    }
}
