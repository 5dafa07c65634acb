package dev.tenantmq;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.tenantmq.model.Identifiers;
import dev.tenantmq.model.InvalidRequestException;
import dev.tenantmq.domain.Receipt;
import dev.tenantmq.model.Tenant;
import org.junit.jupiter.api.Test;

/** SPEC section 3 rules, checked in the process, and the receipt format. */
class IdentifiersTest {
    @Test
    void names_accept_the_allowed_alphabet_up_to_255_characters() {
        assertNull(Identifiers.nameProblem("a"));
        assertNull(Identifiers.nameProblem("Orders.v1:eu-west_1"));
        assertNull(Identifiers.nameProblem("9" + "x".repeat(254)));
        assertNotNull(Identifiers.nameProblem("x".repeat(256)));
        assertNotNull(Identifiers.nameProblem(""));
        assertNotNull(Identifiers.nameProblem(null));
        assertNotNull(Identifiers.nameProblem(".starts-with-dot"));
        assertNotNull(Identifiers.nameProblem("caf\u00e9"));
        assertNotNull(Identifiers.nameProblem("nul\u0000"));
    }

    @Test
    void keys_count_code_points_not_utf16_units() {
        String emoji = "\uD83D\uDE00";
        assertNull(Identifiers.keyProblem(emoji.repeat(255)));
        assertNotNull(Identifiers.keyProblem(emoji.repeat(256)));
        assertNull(Identifiers.keyProblem("a".repeat(255)));
    }

    @Test
    void keys_reject_lone_surrogates_nul_and_a_trailing_space() {
        assertNotNull(Identifiers.keyProblem("\uD83D"));
        assertNotNull(Identifiers.keyProblem("a\uDE00b"));
        assertNotNull(Identifiers.keyProblem("a\u0000"));
        assertNotNull(Identifiers.keyProblem("k "));
        assertNull(Identifiers.keyProblem(" k"));
        assertNull(Identifiers.keyProblem("a b/c%d?e#f"));
    }

    @Test
    void value_types_validate_on_construction_naming_the_field() {
        InvalidRequestException e = assertThrows(InvalidRequestException.class, () -> new Tenant("bad tenant"));
        assertEquals("tenant", e.errors().get(0).field());
    }

    @Test
    void receipts_round_trip_and_garbage_decodes_to_empty() {
        dev.tenantmq.domain.ReceiptKeys keys = dev.tenantmq.domain.ReceiptKeys.ofBytes(new byte[32]);
        Receipt r = new Receipt("t", "g", "topic", "k/\uD83D\uDE00 x", 42, 7, 3);
        assertEquals(r, Receipt.decode(r.encode(keys), keys).orElseThrow());
        assertEquals(java.util.Optional.empty(), Receipt.decode("not a receipt", keys));
        assertEquals(java.util.Optional.empty(), Receipt.decode("", keys));
        assertEquals(java.util.Optional.empty(), Receipt.decode(r.encode(keys) + "AA", keys));
    }
}
