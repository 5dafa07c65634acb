package dev.tenantmq.api;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Which bytes of a body are marked for the JSON parser to refuse as not UTF-8 (docs/api.md, "Errors"). */
class Utf8BodyTest {
    private static byte[] bytes(int... b) {
        byte[] out = new byte[b.length];
        for (int i = 0; i < b.length; i++) {
            out[i] = (byte) b[i];
        }
        return out;
    }

    @Test
    void well_formed_utf8_of_every_length_is_handed_on_as_it_is() {
        byte[] body = "{\"k\":\"a é € 😀 \uFFFD \uD7FF \uE000 \uDBFF\uDFFF\"}".getBytes(StandardCharsets.UTF_8);
        assertEquals(-1, Utf8Body.firstIllFormed(body));
        assertSame(body, Utf8Body.forParser(body));
    }

    @Test
    void overlong_forms_are_ill_formed_at_their_lead_byte() {
        assertEquals(0, Utf8Body.firstIllFormed(bytes(0xC0, 0xBC)), "'<' in two bytes");
        assertEquals(0, Utf8Body.firstIllFormed(bytes(0xC1, 0xBF)));
        assertEquals(1, Utf8Body.firstIllFormed(bytes('a', 0xE0, 0x80, 0xAF)), "'/' in three bytes");
        assertEquals(0, Utf8Body.firstIllFormed(bytes(0xF0, 0x80, 0x80, 0xAF)), "'/' in four bytes");
        assertEquals(0, Utf8Body.firstIllFormed(bytes(0xC0, 0x80)), "U+0000 in two bytes");
    }

    @Test
    void surrogates_code_points_past_the_last_and_stray_or_missing_continuations_are_ill_formed() {
        assertEquals(0, Utf8Body.firstIllFormed(bytes(0xED, 0xA0, 0x80)), "U+D800 encoded");
        assertEquals(-1, Utf8Body.firstIllFormed(bytes(0xED, 0x9F, 0xBF)), "U+D7FF is a character");
        assertEquals(0, Utf8Body.firstIllFormed(bytes(0xF4, 0x90, 0x80, 0x80)), "U+110000");
        assertEquals(0, Utf8Body.firstIllFormed(bytes(0xF5, 0x80, 0x80, 0x80)));
        assertEquals(0, Utf8Body.firstIllFormed(bytes(0x80)), "a continuation byte alone");
        assertEquals(1, Utf8Body.firstIllFormed(bytes('a', 0xE2, 0x82)), "cut short at the end");
        assertEquals(0, Utf8Body.firstIllFormed(bytes(0xE2, 0x28, 0xA1)), "a second byte that does not continue");
        assertEquals(0, Utf8Body.firstIllFormed(bytes(0xF0, 0x9F, 0x98, 0x41)), "a fourth byte that does not continue");
        assertEquals(0, Utf8Body.firstIllFormed(bytes(0xFF)));
    }

    @Test
    void the_first_offending_byte_is_replaced_by_the_mark() {
        byte[] marked = Utf8Body.forParser(bytes('{', '"', 0xC0, 0xBC, '"', 0xC0, '}'));
        assertArrayEquals(bytes('{', '"', 0xF8, 0xBC, '"', 0xC0, '}'), marked, "the parser stops at the first");
    }

    @Test
    void the_smallest_sequence_of_each_length_and_a_utf8_byte_order_mark_are_well_formed() {
        assertEquals(-1, Utf8Body.firstIllFormed(bytes(0xC2, 0x80)), "U+0080");
        assertEquals(-1, Utf8Body.firstIllFormed(bytes(0xE0, 0xA0, 0x80)), "U+0800");
        assertEquals(-1, Utf8Body.firstIllFormed(bytes(0xF0, 0x90, 0x80, 0x80)), "U+10000");
        assertEquals(-1, Utf8Body.firstIllFormed(bytes(0xF4, 0x8F, 0xBF, 0xBF)), "U+10FFFF");
        byte[] bom = bytes(0xEF, 0xBB, 0xBF, '{', '}');
        assertArrayEquals(bytes(0xEF, 0xBB, 0xBF, '{', '}'), Utf8Body.forParser(bom), "the parser skips it");
    }

    @Test
    void a_zero_byte_among_the_first_four_is_marked_so_the_parser_does_not_read_utf16() {
        byte[] utf16le = "{\"a\":1}".getBytes(StandardCharsets.UTF_16LE);
        assertEquals((byte) 0xF8, Utf8Body.forParser(utf16le)[1]);
        byte[] utf16be = "{\"a\":1}".getBytes(StandardCharsets.UTF_16BE);
        assertEquals((byte) 0xF8, Utf8Body.forParser(utf16be)[0]);
        // With its byte-order mark: FF FE 7B 00. Both the mark's lead and the zero byte are marked.
        byte[] withBom = Utf8Body.forParser(bytes(0xFF, 0xFE, '{', 0, '}', 0));
        assertArrayEquals(bytes(0xF8, 0xFE, '{', 0xF8, '}', 0), withBom);
    }
}
