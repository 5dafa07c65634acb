package dev.tenantmq.model;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The 413 error of publish names the offending payload, both sizes and the setting (SPEC section 4, "Publish"). */
class PayloadTooLargeExceptionTest {

    @Test
    void a_payload_too_large_names_the_payload_both_sizes_and_the_setting() {
        PayloadTooLargeException e = new PayloadTooLargeException("messages[2].payload", 2000, 1024);

        assertEquals("messages[2].payload", e.field());
        assertEquals("is 2000 bytes, over the limit of 1024 bytes (mq.publish.max-payload-bytes)", e.rule());
        assertEquals("messages[2].payload " + e.rule(), e.getMessage());
    }
}
