package dev.tenantmq.api;

/**
 * Makes the JSON parser refuse a request body that is not well-formed UTF-8 (docs/api.md,
 * "Errors": RFC 8259, section 8.1). Jackson's byte parser decodes some ill-formed sequences
 * instead of refusing them: overlong forms ({@code C0 BC} read as {@code <}, {@code C0 AF} as
 * {@code /}), surrogates encoded as UTF-8, code points above U+10FFFF; and it reads a body
 * whose first bytes hold a zero byte as UTF-16 or UTF-32. So before the parse, the lead byte of
 * the first ill-formed sequence, and a zero byte among the first four, are replaced by a byte
 * that is never UTF-8 and starts no byte-order mark ({@link #MARK}): the parser then stops at
 * that place with its UTF-8 error, which names the field the byte is in, as it does for any other
 * byte that is not UTF-8. A well-formed body is handed on as it is. One pass over the bytes, on
 * the event loop where the body was read: a byte below 0x80 costs a comparison.
 */
final class Utf8Body {
    /** A byte that is never UTF-8 and starts no byte-order mark: Jackson reports it as invalid UTF-8. */
    static final byte MARK = (byte) 0xF8;

    private Utf8Body() {}

    /**
     * The body to parse: {@code body}, with its zero bytes among the first four and the lead byte
     * of its first ill-formed sequence, if any, replaced by {@link #MARK} in place.
     */
    static byte[] forParser(byte[] body) {
        int bad = firstIllFormed(body);
        for (int i = 0; i < Math.min(4, body.length); i++) {
            if (body[i] == 0) {
                marked(body, i); // UTF-16 or UTF-32 text; never valid JSON in UTF-8
            }
        }
        // The ill-formed byte too: a UTF-16 byte-order mark (FF FE) would otherwise still be read as one.
        return bad < 0 ? body : marked(body, bad);
    }

    /**
     * The index of the first byte of the first ill-formed UTF-8 sequence in {@code b}, or -1 when
     * every sequence is well-formed (The Unicode Standard, Table 3-7).
     */
    static int firstIllFormed(byte[] b) {
        int i = 0;
        while (i < b.length) {
            int c = b[i] & 0xFF;
            if (c < 0x80) {
                i++;
                continue;
            }
            int length;
            int lo = 0x80;
            int hi = 0xBF; // the range of the second byte; later bytes are always 80..BF
            if (c >= 0xC2 && c <= 0xDF) {
                length = 2;
            } else if (c >= 0xE0 && c <= 0xEF) {
                length = 3;
                if (c == 0xE0) {
                    lo = 0xA0; // below: overlong
                } else if (c == 0xED) {
                    hi = 0x9F; // above: a surrogate
                }
            } else if (c >= 0xF0 && c <= 0xF4) {
                length = 4;
                if (c == 0xF0) {
                    lo = 0x90; // below: overlong
                } else if (c == 0xF4) {
                    hi = 0x8F; // above: past U+10FFFF
                }
            } else {
                return i; // 80..C1 (a continuation byte, or an overlong two-byte lead) or F5..FF
            }
            if (i + length > b.length) {
                return i;
            }
            int second = b[i + 1] & 0xFF;
            if (second < lo || second > hi) {
                return i;
            }
            for (int k = 2; k < length; k++) {
                int next = b[i + k] & 0xFF;
                if (next < 0x80 || next > 0xBF) {
                    return i;
                }
            }
            i += length;
        }
        return -1;
    }

    /**
     * {@code body} with byte {@code at} marked, in place: the array is the request's own copy of
     * the bytes read ({@code Buffer.getBytes}), so a body of many MiB is not copied again.
     */
    private static byte[] marked(byte[] body, int at) {
        body[at] = MARK;
        return body;
    }
}
