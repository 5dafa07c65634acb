package dev.tenantmq.domain;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tenantmq.RawReceipts;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Receipt tokens (SPEC section 4, "Ack, nack, extend"; docs/security.md, "Receipt signing"): what
 * decodes, and every way a token that this service did not issue in this format, under an accepted
 * key, decodes to empty (the caller answers INVALID without a database look-up).
 */
class ReceiptTest {
    private static final byte[] KEY = "receipt-test-key-of-thirty-two-bytes!!".getBytes(StandardCharsets.UTF_8);
    private static final byte[] OLD_KEY = "the-previous-receipt-key-32-bytes-long".getBytes(StandardCharsets.UTF_8);
    private static final ReceiptKeys KEYS = ReceiptKeys.ofBytes(KEY);

    @Test
    void the_smallest_valid_offset_and_delivery_round_trip() {
        Receipt r = new Receipt("t", "g", "topic", "k", 1, 0, 1);
        assertEquals(Optional.of(r), Receipt.decode(r.encode(KEYS), KEYS));
    }

    /** The longest names and a partition key of 255 emoji (6 modified UTF-8 bytes each) stay within the request limit. */
    @Test
    void the_longest_receipt_is_within_the_receipt_length_limit_and_decodes() {
        String name = "n".repeat(255);
        String key = "\uD83D\uDE00".repeat(255);
        Receipt r = new Receipt(name, name, name, key, Long.MAX_VALUE, Long.MAX_VALUE, Long.MAX_VALUE);
        String token = r.encode(KEYS);
        assertEquals(3126, token.length());
        assertTrue(token.length() <= dev.tenantmq.model.ConsumeLimits.MAX_RECEIPT_LENGTH);
        assertEquals(Optional.of(r), Receipt.decode(token, KEYS));
    }

    /** The token as a {@code DataOutputStream} over a {@code ByteArrayOutputStream} wrote it, signed the same way. */
    private static String throughDataOutput(Receipt r, ReceiptKeys keys) throws Exception {
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        try (java.io.DataOutputStream out = new java.io.DataOutputStream(bytes)) {
            out.writeByte(4);
            out.writeUTF(r.tenant());
            out.writeUTF(r.consumerGroup());
            out.writeUTF(r.topic());
            out.writeUTF(r.partitionKey());
            out.writeLong(r.offset());
            out.writeLong(r.leaseEpoch());
            out.writeLong(r.delivery());
            out.write(keys.sign(bytes.toByteArray()));
        }
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes.toByteArray());
    }

    /**
     * Tokens stay what they were when each name went through {@code DataOutputStream.writeUTF}, so
     * receipts issued by a process of the version before verify and decode in this one: ASCII,
     * NUL (two bytes in modified UTF-8), two- and three-byte characters and surrogate pairs.
     */
    @Test
    void tokens_are_spelled_as_with_a_data_output_stream_for_every_kind_of_character() throws Exception {
        for (String name : List.of("t", "tenant-a_1.b", "\u0000nul\u0000", "h\u00e9\u00ff\u0080\u07ff",
                "\u0800\u6f22\uffff", "\uD83D\uDE00 emoji", "\u007f\u0001", "x".repeat(255))) {
            Receipt r = new Receipt(name, "g" + name, name + "topic", "k" + name, 42, 7, 9);
            assertEquals(throughDataOutput(r, KEYS), r.encode(KEYS), name);
            // Decode refuses a partition key that publish refuses (a control character): the names only.
            Receipt named = new Receipt(name, "g" + name, name + "topic", "k", 42, 7, 9);
            assertEquals(Optional.of(named), Receipt.decode(named.encode(KEYS), KEYS), name);
        }
    }

    /** A token written by 8446867's encoder (a DataOutputStream), for this receipt under {@link #KEYS}. */
    private static final String TOKEN_OF_8446867 =
            "BAAJdGVuYW50LcOpAAVncm91cAAJdG9waWMt5ryiAAprZXkt7aC97biAAAAAAAAAACoAAAAAAAAABwAAAAAAAAAJCWZTXbbjJPnuV4xAzGNYuA";

    @Test
    void a_token_issued_by_the_earlier_encoder_is_spelled_the_same_and_decodes() {
        Receipt r = new Receipt("tenant-\u00e9", "group", "topic-\u6f22", "key-\uD83D\uDE00", 42, 7, 9);
        assertEquals(TOKEN_OF_8446867, r.encode(KEYS));
        assertEquals(Optional.of(r), Receipt.decode(TOKEN_OF_8446867, KEYS));
    }

    /** The keys are shared by every request thread: each tag must come out as if it were the only one. */
    @Test
    void receipts_signed_and_verified_on_many_threads_at_once_all_verify() throws Exception {
        ReceiptKeys rotated = ReceiptKeys.ofBytes(KEY, OLD_KEY);
        int threads = 8;
        int each = 2_000;
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(threads);
        try {
            List<java.util.concurrent.Future<Integer>> done = new java.util.ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                done.add(pool.submit(() -> {
                    int verified = 0;
                    for (int i = 1; i <= each; i++) {
                        Receipt r = new Receipt("t", "g", "topic", "k" + thread, i, 1, i);
                        verified += Receipt.decode(r.encode(rotated), rotated).equals(Optional.of(r)) ? 1 : 0;
                    }
                    return verified;
                }));
            }
            for (java.util.concurrent.Future<Integer> f : done) {
                assertEquals(each, f.get());
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void tokens_are_url_safe_without_padding() {
        String token = new Receipt("t", "g", "topic", "\uFFFF\uFFFE?/+", 1, 1, 1).encode(KEYS);
        assertTrue(token.matches("[A-Za-z0-9_-]+"), token);
    }

    @Test
    void a_token_with_an_impossible_offset_delivery_or_key_is_invalid_even_when_signed() {
        assertEquals(Optional.empty(), Receipt.decode(token(4, "k", 0, 1, KEY), KEYS), "offset 0");
        assertEquals(Optional.empty(), Receipt.decode(token(4, "k", -5, 1, KEY), KEYS), "negative offset");
        assertEquals(Optional.empty(), Receipt.decode(token(4, "k", 1, 0, KEY), KEYS), "delivery 0");
        assertEquals(Optional.empty(), Receipt.decode(token(4, "k ", 1, 1, KEY), KEYS), "a key the rules refuse");
        assertTrue(Receipt.decode(token(4, "k", 1, 1, KEY), KEYS).isPresent(), "the same token with valid values");
    }

    @Test
    void a_token_of_another_version_is_invalid() {
        assertEquals(Optional.empty(), Receipt.decode(token(3, "k", 1, 1, KEY), KEYS), "signed, but version 3");
        assertEquals(Optional.empty(), Receipt.decode(token(5, "k", 1, 1, KEY), KEYS));
        for (int unsigned = 1; unsigned <= 3; unsigned++) {
            assertEquals(Optional.empty(), Receipt.decode(token(unsigned, "k", 1, 1, null), KEYS),
                    "an unsigned version " + unsigned + " token: anyone could build it");
        }
    }

    @Test
    void null_truncated_and_oversized_tokens_are_invalid() {
        String valid = token(4, "k", 1, 1, KEY);
        assertEquals(Optional.empty(), Receipt.decode(null, KEYS));
        assertEquals(Optional.empty(), Receipt.decode(valid.substring(0, valid.length() - 4), KEYS));
        assertEquals(Optional.empty(), Receipt.decode("A".repeat(8193), KEYS));
        assertEquals(Optional.empty(), Receipt.decode("!!!!", KEYS), "not base64");
    }

    /** Names of ASCII and of other characters decode alike (the ASCII ones without the modified UTF-8 reader). */
    @Test
    void names_of_ascii_and_of_other_characters_round_trip() {
        for (String key : List.of("order-42", "z\u00fcrich", "\u043a\u043b\u044e\u0447", "a\uD83D\uDE00b", "x".repeat(255))) {
            Receipt r = new Receipt("t", "g", "topic", key, 7, 2, 3);
            assertEquals(Optional.of(r), Receipt.decode(r.encode(KEYS), KEYS), key);
        }
    }

    /**
     * A NUL in a name: writeUTF writes it as two bytes, and a raw 0 byte, which no writer of this
     * service makes, is read as the format's reader reads it.
     */
    @Test
    void a_nul_in_a_name_decodes_as_the_formats_reader_reads_it() {
        Receipt r = new Receipt("t", "g", "to\u0000pic", "k", 7, 2, 3);
        assertEquals(Optional.of(r), Receipt.decode(r.encode(KEYS), KEYS));
        byte[] record = RawReceipts.record(4, "t", "g", "toXpic", "k", 7, 2, 3);
        for (int i = 0; i < record.length - 3; i++) {
            if (record[i] == 't' && record[i + 1] == 'o' && record[i + 2] == 'X') {
                record[i + 2] = 0; // the raw byte where the X was
            }
        }
        assertEquals(Optional.of(r), Receipt.decode(RawReceipts.token(record, KEYS.sign(record)), KEYS));
    }

    /**
     * Other strings that base64 decodes to the same signed bytes are not the receipt: a last
     * character that differs only in the bits the decoder ignores, and '=' padding.
     */
    @Test
    void another_spelling_of_a_tokens_bytes_is_invalid() {
        Receipt r = new Receipt("t", "g", "topic", "order-77", 3, 1, 1); // 64 bytes: the last character holds 4 unused bits
        String token = r.encode(KEYS);
        assertEquals(Optional.of(r), Receipt.decode(token, KEYS));
        assertTrue(token.length() % 4 != 0, "a token whose last group has unused bits: " + token.length());
        String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
        String head = token.substring(0, token.length() - 1);
        int respelled = 0;
        for (char c : alphabet.toCharArray()) {
            String other = head + c;
            if (other.equals(token)) {
                continue;
            }
            byte[] same = null;
            try {
                same = Base64.getUrlDecoder().decode(other);
            } catch (IllegalArgumentException e) {
                // not base64 at all
            }
            if (same != null && java.util.Arrays.equals(same, Base64.getUrlDecoder().decode(token))) {
                respelled++;
                assertEquals(Optional.empty(), Receipt.decode(other, KEYS), "same bytes, other spelling: " + other);
            }
        }
        assertEquals(15, respelled, "the last character's 4 unused bits: 15 other spellings");
        String padded = token + "=".repeat((4 - token.length() % 4) % 4);
        assertEquals(Optional.empty(), Receipt.decode(padded, KEYS), "padded: " + padded);
    }

    /** A record under a right tag whose lengths do not fit it: no exception, no receipt. */
    @Test
    void a_signed_record_whose_lengths_do_not_fit_it_is_invalid() {
        byte[] pastTheEnd = {4, 0, 16, 't'}; // a tenant of 16 bytes, 1 present
        assertEquals(Optional.empty(), Receipt.decode(RawReceipts.token(pastTheEnd, KEYS.sign(pastTheEnd)), KEYS));
        byte[] valid = RawReceipts.record(4, "t", "g", "topic", "k", 1, 1, 1);
        byte[] shortOfOffsets = java.util.Arrays.copyOf(valid, valid.length - 1);
        assertEquals(Optional.empty(), Receipt.decode(RawReceipts.token(shortOfOffsets, KEYS.sign(shortOfOffsets)), KEYS));
        byte[] trailing = java.util.Arrays.copyOf(valid, valid.length + 1);
        assertEquals(Optional.empty(), Receipt.decode(RawReceipts.token(trailing, KEYS.sign(trailing)), KEYS));
        assertTrue(Receipt.decode(RawReceipts.token(valid, KEYS.sign(valid)), KEYS).isPresent(), "the record itself is one");
    }

    @Test
    void a_token_of_the_longest_accepted_length_decodes() {
        // 6144 bytes encode to exactly 8192 base64 characters: 33 bytes of framing and lengths,
        // the 16-byte tag, plus "t", "g", "k" and a topic of the rest.
        Receipt r = new Receipt("t", "g", "x".repeat(6144 - 33 - 16 - 3), "k", 1, 1, 1);
        String token = r.encode(KEYS);
        assertEquals(8192, token.length());
        assertEquals(Optional.of(r), Receipt.decode(token, KEYS));
    }

    @Test
    void a_receipt_built_from_its_fields_with_guessed_counters_is_invalid() {
        // What a second consumer of the group could build (docs/security.md, "Receipt signing"):
        // the tenant, group, topic, key and offset, with lease epochs and delivery numbers guessed.
        Receipt real = new Receipt("acc-a", "workers", "orders", "k", 17, 3, 12);
        assertTrue(Receipt.decode(real.encode(KEYS), KEYS).isPresent());
        for (long epoch = 1; epoch <= 5; epoch++) {
            for (long delivery = 1; delivery <= 40; delivery++) {
                String guessed = unsigned(4, "acc-a", "workers", "orders", "k", 17, epoch, delivery);
                assertEquals(Optional.empty(), Receipt.decode(guessed, KEYS));
                String zeroTag = RawReceipts.token(RawReceipts.record(4, "acc-a", "workers", "orders", "k", 17, epoch, delivery),
                        new byte[ReceiptKeys.TAG_BYTES]);
                assertEquals(Optional.empty(), Receipt.decode(zeroTag, KEYS));
            }
        }
    }

    @Test
    void a_receipt_altered_in_any_byte_is_invalid() {
        byte[] bytes = Base64.getUrlDecoder().decode(new Receipt("acc-a", "workers", "orders", "k", 17, 3, 12).encode(KEYS));
        for (int i = 0; i < bytes.length; i++) {
            for (int bit = 0; bit < 8; bit++) {
                byte[] altered = bytes.clone();
                altered[i] ^= (byte) (1 << bit);
                assertEquals(Optional.empty(), Receipt.decode(RawReceipts.token(altered, new byte[0]), KEYS), "byte " + i + " bit " + bit);
            }
        }
    }

    @Test
    void a_receipt_signed_with_a_previous_key_is_accepted_and_one_of_an_unknown_key_is_not() {
        Receipt r = new Receipt("acc-a", "workers", "orders", "k", 17, 3, 12);
        String old = r.encode(ReceiptKeys.ofBytes(OLD_KEY));
        assertEquals(Optional.of(r), Receipt.decode(old, ReceiptKeys.ofBytes(KEY, OLD_KEY)), "rotation: old key accepted");
        assertEquals(Optional.empty(), Receipt.decode(old, KEYS), "once the old key is dropped, it is not");
        String newer = r.encode(ReceiptKeys.ofBytes(KEY, OLD_KEY));
        assertEquals(Optional.of(r), Receipt.decode(newer, KEYS), "new receipts are signed with the current key");
    }

    @Test
    void a_receipt_signed_by_another_instance_with_the_same_key_is_accepted() {
        String key = "base64:" + Base64.getEncoder().encodeToString(KEY);
        ReceiptKeys instanceA = ReceiptKeys.of(Optional.of(key), List.of());
        ReceiptKeys instanceB = ReceiptKeys.of(Optional.of(key), List.of());
        Receipt r = new Receipt("acc-a", "workers", "orders", "k", 17, 3, 12);
        assertEquals(Optional.of(r), Receipt.decode(r.encode(instanceA), instanceB));
        ReceiptKeys randomA = ReceiptKeys.of(Optional.empty(), List.of());
        ReceiptKeys randomB = ReceiptKeys.of(Optional.empty(), List.of());
        assertTrue(randomA.generated());
        assertEquals(Optional.empty(), Receipt.decode(r.encode(randomA), randomB),
                "without a shared key, each process's random key verifies its own receipts only");
    }

    @Test
    void keys_are_base64_with_a_prefix_or_raw_text_of_at_least_32_bytes() {
        Receipt r = new Receipt("t", "g", "topic", "k", 1, 1, 1);
        ReceiptKeys raw = ReceiptKeys.of(Optional.of(new String(KEY, StandardCharsets.UTF_8)), List.of());
        ReceiptKeys b64 = ReceiptKeys.of(Optional.of("base64:" + Base64.getEncoder().encodeToString(KEY)), List.of());
        ReceiptKeys urlB64 = ReceiptKeys.of(Optional.of("base64:" + Base64.getUrlEncoder().encodeToString(KEY)), List.of());
        assertEquals(Optional.of(r), Receipt.decode(r.encode(raw), b64), "the same key bytes, either way");
        assertEquals(Optional.of(r), Receipt.decode(r.encode(raw), urlB64));
        IllegalArgumentException shortKey = assertThrows(IllegalArgumentException.class,
                () -> ReceiptKeys.of(Optional.of("too-short-secret"), List.of()));
        assertTrue(shortKey.getMessage().contains("mq.receipt.key must be at least 32 bytes (got 16)"), shortKey.getMessage());
        assertFalse(shortKey.getMessage().contains("too-short-secret"), "the message never shows the key");
        IllegalArgumentException badOld = assertThrows(IllegalArgumentException.class,
                () -> ReceiptKeys.of(Optional.of(new String(KEY, StandardCharsets.UTF_8)), List.of("base64:!!notbase64!!")));
        assertTrue(badOld.getMessage().startsWith("mq.receipt.previous-keys[0]"), badOld.getMessage());
        assertThrows(IllegalArgumentException.class,
                () -> ReceiptKeys.of(Optional.of("base64:" + Base64.getEncoder().encodeToString(new byte[31])), List.of()));
    }

    /** A token of {@code version}, signed with {@code key} (null: unsigned, as versions 1 to 3 were). */
    private static String token(int version, String partitionKey, long offset, int delivery, byte[] key) {
        byte[] record = RawReceipts.record(version, "t", "g", "topic", partitionKey, offset, 3, delivery);
        return RawReceipts.token(record, key == null ? new byte[0] : ReceiptKeys.ofBytes(key).sign(record));
    }

    private static String unsigned(int version, String tenant, String group, String topic, String partitionKey, long offset,
                                   long epoch, long delivery) {
        return RawReceipts.token(RawReceipts.record(version, tenant, group, topic, partitionKey, offset, epoch, delivery), new byte[0]);
    }
}
