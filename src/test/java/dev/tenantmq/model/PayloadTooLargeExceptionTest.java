package dev.tenantmq.model;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The 413 error of publish names the offending payload and both sizes (SPEC section 4, "Publish"). */
class PayloadTooLargeExceptionTest {

    @Test
    void a_payload_too_large_names_the_payload_and_both_sizes() {
        PayloadTooLargeException e = new PayloadTooLargeException("messages[2].payload", 2000, 1024);

        assertEquals("messages[2].payload", e.field());
        assertEquals("payload is 2000 bytes; the limit is 1024 bytes", e.getMessage());
    }
}
