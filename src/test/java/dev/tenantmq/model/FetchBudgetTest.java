package dev.tenantmq.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The byte budget of a fetch (docs/api.md, "Lease-fetch"), without a database. */
class FetchBudgetTest {
    @Test
    void messages_fit_while_their_payloads_fit_in_the_bytes_left() {
        FetchBudget b = FetchBudget.of(10, 100);
        b = b.take(40).take(40);
        assertTrue(b.fits(20), "exactly the bytes left fit");
        assertFalse(b.fits(21));
        b = b.take(20);
        assertTrue(b.spent(), "no bytes left");
        assertEquals(7, b.messagesLeft());
    }

    @Test
    void the_first_message_fits_however_large_and_then_nothing_else() {
        FetchBudget b = FetchBudget.of(10, 100);
        assertTrue(b.fits(5_000), "the first message always goes, so nothing gets stuck");
        b = b.take(5_000);
        assertTrue(b.spent());
        assertFalse(b.fits(1));
    }

    @Test
    void the_message_count_limits_too() {
        FetchBudget b = FetchBudget.of(1, 1_000).take(1);
        assertTrue(b.spent());
        assertFalse(b.fits(1));
        assertThrows(IllegalStateException.class, () -> b.take(1));
        assertTrue(FetchBudget.NOTHING.spent());
        assertFalse(FetchBudget.NOTHING.fits(0), "the sweep's budget lets nothing out");
    }

    @Test
    void payload_bytes_are_the_utf8_length_of_the_json_text() {
        for (String json : new String[] {"1", "\"a\"", "\"é\"", "\"€\"", "\"\uD83D\uDE00\"", "{\"k\":[1,2,\"ü€\"]}"}) {
            assertEquals(json.getBytes(StandardCharsets.UTF_8).length, FetchBudget.bytesOf(json), json);
        }
    }
}
