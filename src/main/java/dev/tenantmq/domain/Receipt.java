package dev.tenantmq.domain;

import dev.tenantmq.model.ConsumeLimits;
import dev.tenantmq.model.Identifiers;
import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Optional;

/**
 * The opaque token that names one delivery (SPEC section 4, "Ack, nack, extend"). It carries
 * everything an ack needs, so any process of the service can handle it: the message identity
 * (tenant, consumer group, topic, partition key, offset) and the fencing values: the lease epoch
 * and the delivery number (the partition's {@code queue_offsets.delivery_seq} when the message was
 * handed out: it grows with every hand-out, unlike {@code deliveryAttempt}, which a handed-back
 * message keeps). Encoded as URL-safe base64 without padding of a versioned binary record followed
 * by its tag: HMAC-SHA256 of the record under the shared receipt key, truncated to 128 bits
 * ({@link ReceiptKeys}; docs/security.md, "Receipt signing"). Every field is covered, so a receipt
 * built from guessed values or altered in any byte decodes to nothing, without a database look-up;
 * and a token is its one spelling, so one altered in any character does too.
 * Version 4 is the signed record; the unsigned versions 1 to 3 are INVALID (anyone could build them).
 */
public record Receipt(String tenant, String consumerGroup, String topic, String partitionKey, long offset,
                      long leaseEpoch, long delivery) {
    private static final byte VERSION = 4;
    /** The one encoding of a token: URL-safe base64 without padding. */
    private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();
    /** Longest token accepted, in characters: the limit of a request's receipts. */
    static final int MAX_TOKEN_LENGTH = ConsumeLimits.MAX_RECEIPT_LENGTH;

    /**
     * The token handed to clients, signed with the current key of {@code keys}. The record is
     * written straight into one array, each name as {@link DataOutputStream#writeUTF} writes it
     * ({@link #putUtf}), where a {@code DataOutputStream} over a {@code ByteArrayOutputStream}
     * copied it twice more, for each of the 100 receipts of a fetch (docs/architecture.md, "Rows
     * into responses").
     */
    public String encode(ReceiptKeys keys) {
        int recordBytes = 1 + utfBytes(tenant) + utfBytes(consumerGroup) + utfBytes(topic) + utfBytes(partitionKey)
                + 3 * Long.BYTES;
        ByteBuffer out = ByteBuffer.allocate(recordBytes + ReceiptKeys.TAG_BYTES);
        out.put(VERSION);
        putUtf(out, tenant);
        putUtf(out, consumerGroup);
        putUtf(out, topic);
        putUtf(out, partitionKey);
        out.putLong(offset).putLong(leaseEpoch).putLong(delivery);
        out.put(keys.sign(out.array(), recordBytes));
        return ENCODER.encodeToString(out.array());
    }

    /** The bytes {@link DataOutputStream#writeUTF} writes for {@code s}: its two-byte length, then modified UTF-8. */
    private static int utfBytes(String s) {
        int bytes = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            bytes += c >= 0x0001 && c <= 0x007F ? 1 : c > 0x07FF ? 3 : 2;
        }
        if (bytes > 0xFFFF) {
            // Names are at most 255 code points (model.Identifiers): at most 1,530 bytes here.
            throw new IllegalArgumentException("a receipt field of " + bytes + " bytes of modified UTF-8");
        }
        return 2 + bytes;
    }

    /**
     * Writes {@code s} as {@link DataOutputStream#writeUTF} does (the format {@link #readUtf}
     * reads): its length in bytes, two, big endian, then each character in modified UTF-8, where
     * NUL takes two bytes and each half of a surrogate pair three.
     */
    private static void putUtf(ByteBuffer out, String s) {
        int lengthAt = out.position();
        out.putShort((short) 0); // the length, written once the characters are
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c >= 0x0001 && c <= 0x007F) {
                out.put((byte) c);
            } else if (c > 0x07FF) {
                out.put((byte) (0xE0 | ((c >> 12) & 0x0F)));
                out.put((byte) (0x80 | ((c >> 6) & 0x3F)));
                out.put((byte) (0x80 | (c & 0x3F)));
            } else {
                out.put((byte) (0xC0 | ((c >> 6) & 0x1F)));
                out.put((byte) (0x80 | (c & 0x3F)));
            }
        }
        out.putShort(lengthAt, (short) (out.position() - lengthAt - 2));
    }

    /**
     * Decodes a token. Returns empty when it is not one this service issued in this format under
     * one of the accepted keys of {@code keys} (the caller reports {@code INVALID}); never throws.
     * The tag is checked before any field is read.
     */
    public static Optional<Receipt> decode(String token, ReceiptKeys keys) {
        if (token == null || token.isEmpty() || token.length() > MAX_TOKEN_LENGTH) {
            return Optional.empty();
        }
        byte[] signed;
        try {
            signed = Base64.getUrlDecoder().decode(token);
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
        if (!keys.verify(signed) || !ENCODER.encodeToString(signed).equals(token)) {
            // The decoder ignores the unused low bits of the last character and takes '=' padding,
            // so other strings decode to the same signed bytes: only the one encoding is the receipt.
            return Optional.empty();
        }
        ByteBuffer in = ByteBuffer.wrap(signed, 0, signed.length - ReceiptKeys.TAG_BYTES);
        try {
            if (in.get() != VERSION) {
                return Optional.empty();
            }
            Receipt r = new Receipt(readUtf(in), readUtf(in), readUtf(in), readUtf(in), in.getLong(), in.getLong(),
                    in.getLong());
            if (in.hasRemaining() || Identifiers.keyProblem(r.partitionKey) != null || r.offset <= 0 || r.delivery < 1) {
                return Optional.empty();
            }
            return Optional.of(r);
        } catch (BufferUnderflowException | IOException | IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    /**
     * Reads a string that {@link DataOutputStream#writeUTF} wrote: its length in bytes (two, big
     * endian), then modified UTF-8. A string of ASCII characters other than NUL (what names almost
     * always are) is those bytes; any other goes through {@link DataInputStream#readUTF}, the
     * format's own reader. Not a {@code DataInputStream} for every field: its reads of a
     * {@code ByteArrayInputStream} each take a lock, and were the largest single frame of the
     * service's CPU samples in the benchmark's consume run (docs/architecture.md, "Rows into
     * responses").
     */
    private static String readUtf(ByteBuffer in) throws IOException {
        int length = Short.toUnsignedInt(in.getShort());
        if (length > in.remaining()) {
            throw new BufferUnderflowException();
        }
        byte[] array = in.array();
        int start = in.arrayOffset() + in.position();
        for (int i = start; i < start + length; i++) {
            if (array[i] <= 0) { // NUL is two bytes in modified UTF-8; a negative byte starts a longer character
                String s = new DataInputStream(new ByteArrayInputStream(array, start - 2, length + 2)).readUTF();
                in.position(in.position() + length);
                return s;
            }
        }
        in.position(in.position() + length);
        return new String(array, start, length, StandardCharsets.US_ASCII);
    }
}
