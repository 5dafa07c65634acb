package dev.tenantmq.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The W3C Trace Context rules of {@link TraceContext}, without a server. */
class TraceContextTest {
    private static final String TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
    private static final String SPAN = "00f067aa0ba902b7";
    private static final String VALID = "00-" + TRACE + "-" + SPAN + "-01";

    private static TraceContext of(String traceparent, String... tracestate) {
        return TraceContext.fromHeaders(traceparent == null ? null : List.of(traceparent),
                tracestate.length == 0 ? null : List.of(tracestate));
    }

    @Test
    void a_valid_traceparent_is_kept_with_its_tracestate() {
        TraceContext t = of(VALID, "congo=t61rcWkgMzE,rojo=00f067aa0ba902b7");
        assertEquals(VALID, t.traceparent());
        assertEquals("congo=t61rcWkgMzE,rojo=00f067aa0ba902b7", t.tracestate());
        assertEquals(TRACE, t.traceId());
        assertEquals(SPAN, t.parentId());
        assertTrue(t.sampled());
        assertFalse(of("00-" + TRACE + "-" + SPAN + "-00").sampled());
        assertEquals(VALID, of(" " + VALID + " ").traceparent(), "surrounding spaces are not part of it");
    }

    @Test
    void an_invalid_traceparent_gives_no_trace_context_at_all() {
        for (String invalid : List.of("", "00", VALID.toUpperCase(), "00-" + "0".repeat(32) + "-" + SPAN + "-01",
                "00-" + TRACE + "-" + "0".repeat(16) + "-01", "ff-" + TRACE + "-" + SPAN + "-01",
                VALID + "-extra", VALID.substring(0, 54), "00-" + TRACE + "-" + SPAN + "-1", "0x-" + TRACE + "-" + SPAN + "-01",
                "00_" + TRACE + "-" + SPAN + "-01", "00-" + TRACE + "-" + SPAN + "-0g")) {
            assertNull(of(invalid, "congo=t61rcWkgMzE"), invalid);
        }
        assertNull(of(null, "congo=t61rcWkgMzE"), "a tracestate alone");
        assertNull(TraceContext.fromHeaders(List.of(VALID, VALID), null), "two traceparent headers");
        assertThrows(IllegalArgumentException.class, () -> new TraceContext("01-" + TRACE + "-" + SPAN + "-01", null));
    }

    @Test
    void a_higher_version_is_read_by_its_first_four_fields_as_version_00() {
        assertEquals(VALID, of("01-" + TRACE + "-" + SPAN + "-01").traceparent());
        assertEquals(VALID, of("cc-" + TRACE + "-" + SPAN + "-01-what-the-future-holds").traceparent());
        assertNull(of("01-" + TRACE + "-" + SPAN + "-01x"), "a future field must follow a dash");
    }

    @Test
    void an_invalid_tracestate_is_dropped_and_the_traceparent_kept() {
        for (String invalid : List.of("Upper=x", "k=", "=v", "k=v=w,", "k=a\tb", "k=v,k=w", "k=v\u00e9",
                "a".repeat(257) + "=v", "k=" + "v".repeat(300), "x".repeat(513))) {
            TraceContext t = of(VALID, invalid);
            assertEquals(VALID, t.traceparent(), invalid);
            assertNull(t.tracestate(), invalid);
        }
        StringBuilder members = new StringBuilder();
        for (int i = 0; i < 33; i++) {
            members.append(i == 0 ? "" : ",").append("k").append(i).append("=v");
        }
        assertNull(of(VALID, members.toString()).tracestate(), "33 list members");
        assertNull(of(VALID, " , ").tracestate(), "no member at all");
    }

    @Test
    void tracestate_headers_are_joined_and_keep_the_recommendations_grammar() {
        assertEquals("a=1,b=2", TraceContext.fromHeaders(List.of(VALID), List.of("a=1", "b=2")).tracestate());
        assertEquals("tenant@vendor=x, k_-*/9=v ,,", of(VALID, "tenant@vendor=x, k_-*/9=v ,,").tracestate());
        assertEquals(512, of(VALID, "k=" + "v".repeat(255) + ",l=" + "w".repeat(252)).tracestate().length());
    }

    @Test
    void a_stored_row_without_a_traceparent_has_no_trace_context() {
        assertNull(TraceContext.stored(null, null));
        assertNull(TraceContext.stored(null, "congo=x"));
        assertEquals(new TraceContext(VALID, "congo=x"), TraceContext.stored(VALID, "congo=x"));
    }
}
