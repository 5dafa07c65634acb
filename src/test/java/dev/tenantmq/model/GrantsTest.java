package dev.tenantmq.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The tmq claim's rules (docs/security.md, "Permissions"): tenants, permissions, topic prefixes, admins. */
class GrantsTest {

    @Test
    void a_grant_allows_its_permission_on_its_tenant_only() {
        Grants g = Grants.parse(Map.of("acc-a", List.of("publish")));
        assertTrue(g.allows(Permission.PUBLISH, "acc-a", "orders"));
        assertFalse(g.allows(Permission.CONSUME, "acc-a", "orders"), "publish does not grant consume");
        assertFalse(g.allows(Permission.ADMIN, "acc-a", null), "publish does not grant admin");
        assertFalse(g.allows(Permission.PUBLISH, "acc-b", "orders"), "another tenant");
        assertFalse(g.allows(Permission.PUBLISH, "acc-a-2", "orders"), "tenants match exactly, not by prefix");
    }

    @Test
    void each_permission_is_granted_by_its_own_name() {
        for (Permission p : Permission.values()) {
            Grants g = Grants.parse(Map.of("t", List.of(p.claimName())));
            for (Permission q : Permission.values()) {
                assertEquals(p == q, g.allows(q, "t", "x"), p + " grants " + q);
            }
        }
    }

    @Test
    void a_topic_prefix_narrows_publish_and_consume() {
        Grants g = Grants.parse(Map.of("acc-a", List.of("consume:orders.", "publish:orders.eu")));
        assertTrue(g.allows(Permission.CONSUME, "acc-a", "orders.eu"));
        assertTrue(g.allows(Permission.CONSUME, "acc-a", "orders.dlq"));
        assertFalse(g.allows(Permission.CONSUME, "acc-a", "orders"), "orders does not start with 'orders.'");
        assertFalse(g.allows(Permission.CONSUME, "acc-a", "billing"));
        assertFalse(g.allows(Permission.CONSUME, "acc-a", null), "no topic, no prefix match");
        assertTrue(g.allows(Permission.PUBLISH, "acc-a", "orders.eu.1"));
        assertFalse(g.allows(Permission.PUBLISH, "acc-a", "orders.us"));
    }

    @Test
    void the_star_key_stands_for_every_tenant() {
        Grants g = Grants.parse(Map.of("*", List.of("consume")));
        assertTrue(g.allows(Permission.CONSUME, "acc-a", "t"));
        assertTrue(g.allows(Permission.CONSUME, "zz", "t"));
        assertFalse(g.allows(Permission.PUBLISH, "acc-a", "t"));
    }

    @Test
    void only_a_star_admin_is_unrestricted() {
        Grants star = Grants.parse(Map.of("*", List.of("admin")));
        assertTrue(star.isUnrestrictedAdmin());
        assertTrue(star.isAnyAdmin());
        assertEquals(Optional.empty(), star.adminTenants());
        assertTrue(star.allows(Permission.ADMIN, "any", null));

        Grants some = Grants.parse(Map.of("acc-a", List.of("admin"), "acc-b", List.of("admin", "publish")));
        assertFalse(some.isUnrestrictedAdmin());
        assertTrue(some.isAnyAdmin());
        assertEquals(Optional.of(Set.of("acc-a", "acc-b")), some.adminTenants());
        assertFalse(some.allows(Permission.ADMIN, "acc-c", null));

        Grants none = Grants.parse(Map.of("*", List.of("publish", "consume")));
        assertFalse(none.isAnyAdmin());
        assertFalse(none.isUnrestrictedAdmin());
    }

    @Test
    void malformed_entries_grant_nothing_and_are_reported() {
        Grants g = Grants.parse(Map.of(
                "acc-a", List.of("Publish", "admin:orders", "consume:", "read", 7),
                "bad tenant", List.of("publish"),
                "acc-b", "publish"));
        for (Permission p : Permission.values()) {
            for (String t : List.of("acc-a", "acc-b", "bad tenant")) {
                assertFalse(g.allows(p, t, "orders"), p + " on " + t);
            }
        }
        assertEquals(List.of(), g.grants());
        assertEquals(7, g.ignored().size(), g.ignored().toString());
    }

    @Test
    void no_claim_or_a_claim_of_another_shape_grants_nothing() {
        assertEquals(List.of(), Grants.parse(null).grants());
        assertEquals(List.of(), Grants.parse(List.of("acc-a:publish")).grants());
        assertEquals(1, Grants.parse("acc-a").ignored().size());
    }

    @Test
    void the_static_admin_token_is_an_unrestricted_admin_without_data_plane_rights() {
        Grants g = Grants.unrestrictedAdmin();
        assertTrue(g.isUnrestrictedAdmin());
        assertFalse(g.allows(Permission.PUBLISH, "acc-a", "t"));
        assertFalse(g.allows(Permission.CONSUME, "acc-a", "t"));
    }

    @Test
    void mode_none_lets_the_data_plane_through_but_grants_no_admin() {
        Grants g = Grants.unauthenticatedDataPlane();
        assertTrue(g.allows(Permission.PUBLISH, "x", "t"));
        assertTrue(g.allows(Permission.CONSUME, "y", "t"));
        assertFalse(g.isAnyAdmin());
    }
}
