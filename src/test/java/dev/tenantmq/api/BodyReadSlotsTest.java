package dev.tenantmq.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

/** The bounds of request bodies in flight per client and per tenant (docs/security.md, "Slow clients"). */
class BodyReadSlotsTest {
    @Test
    void a_client_past_its_bound_is_refused_and_a_released_slot_is_free_again() {
        BodyReadSlots slots = new BodyReadSlots(2, 10);
        BodyReadSlots.Result a = slots.acquire("10.0.0.1", "acc-a");
        BodyReadSlots.Result b = slots.acquire("10.0.0.1", "acc-b");
        assertNotNull(a.slot());
        assertNotNull(b.slot());
        assertEquals(BodyReadSlots.Refusal.CLIENT, slots.acquire("10.0.0.1", "acc-c").refusal());
        assertNotNull(slots.acquire("10.0.0.2", "acc-a").slot(), "another client is not counted with the first");
        a.slot().release();
        a.slot().release(); // twice is once
        assertEquals(1, slots.ofClient("10.0.0.1"));
        assertNotNull(slots.acquire("10.0.0.1", "acc-c").slot());
    }

    @Test
    void a_tenant_past_its_bound_is_refused_from_any_client_and_the_refusal_holds_nothing() {
        BodyReadSlots slots = new BodyReadSlots(10, 2);
        assertNotNull(slots.acquire("10.0.0.1", "acc-a").slot());
        assertNotNull(slots.acquire("10.0.0.2", "acc-a").slot());
        BodyReadSlots.Result refused = slots.acquire("10.0.0.3", "acc-a");
        assertNull(refused.slot());
        assertEquals(BodyReadSlots.Refusal.TENANT, refused.refusal());
        assertEquals(0, slots.ofClient("10.0.0.3"), "a refused body holds no slot of its client");
        assertNotNull(slots.acquire("10.0.0.3", "acc-b").slot(), "another tenant is not counted with the first");
        assertNotNull(slots.acquire("10.0.0.3", null).slot(), "paths without a tenant count per client only");
        assertEquals(2, slots.ofTenant("acc-a"));
    }

    @Test
    void the_tenant_is_the_decoded_first_segment_after_tenants() {
        assertEquals("acc-a", BodyReader.tenantOf("/tenants/acc-a/topics/x/messages"));
        assertEquals("acc-a", BodyReader.tenantOf("/tenants/%61cc-a/topics/x/messages"));
        assertNull(BodyReader.tenantOf("/admin/messages/requeue"));
        assertNull(BodyReader.tenantOf("/tenants/"));
    }
}
